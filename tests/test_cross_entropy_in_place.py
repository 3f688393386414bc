"""The fused ``cross_entropy`` (class indices, no weights, no smoothing) forms ``exp(x - max)`` a few
rows at a time in forward and its gradient in place in one array in backward, and keeps its values
bit for bit: each step below is the op's arithmetic before, as NumPy expressions, one new array
each.  The logits of a language model are the largest arrays of its step (1024 positions x 50257
classes: 206 MB of float32), so every temporary of their size counts; ``tracemalloc`` (which sees
NumPy's array memory) measures them."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.ops.loss import SoftmaxCrossEntropy

sys.path.insert(0, str(Path(__file__).parent))
from traced_memory import peak_bytes  # noqa: E402  (tests/traced_memory.py)


def _loss_by_expressions(x, t, valid, reduction):
    with np.errstate(invalid="ignore"):
        shifted = x - x.max(axis=1, keepdims=True)
    per_sample = np.log(np.exp(shifted).sum(axis=1)) - shifted[np.arange(len(t)), t]
    if valid is not None:
        per_sample = np.where(valid != 0, per_sample * valid, 0)
    if reduction == "none":
        return per_sample
    total = per_sample.sum()
    if reduction == "sum":
        return total
    if valid is None:
        return total * (1.0 / len(t) if len(t) else float("nan"))
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / valid.sum()


def _gradient_by_expressions(g, x, t, valid, reduction):
    n = x.shape[0]
    with np.errstate(invalid="ignore"):
        p = np.exp(x - x.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)
    if reduction == "none":
        scale = g if valid is None else g * valid
    elif valid is None:
        scale = g if reduction == "sum" else g * ((1.0 / n) if n else 0.0)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            weight = 1.0 if reduction == "sum" else 1.0 / valid.sum()
            scale = g * np.where(valid != 0, valid * weight, 0)
    onehot = np.zeros(x.shape, dtype=scale.dtype)
    onehot[np.arange(n), t] = scale
    grad = p * (scale if scale.ndim == 0 else scale.reshape((n, 1))) - onehot
    if valid is None:
        return grad
    return np.where((valid != 0).reshape((n, 1)), grad, 0)


def _case(dtype, n=37, c=53, seed=0, nonfinite=False):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((n, c)) * 4).astype(dtype)
    t = rng.integers(0, c, n)
    if nonfinite and n >= 4:
        x[0, 3] = np.inf
        x[1, :] = -np.inf
        x[2, 5] = np.nan
        x[3, t[3]] = -np.inf
    return x, t


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [False, True])
@pytest.mark.parametrize("nonfinite", [False, True])
@pytest.mark.parametrize("chunk_bytes", [SoftmaxCrossEntropy.chunk_bytes, 1, 700])  # all rows, 1, 3 or 6
def test_loss_and_gradient_are_the_expressions_bit_for_bit(dtype, reduction, ignore, nonfinite, chunk_bytes,
                                                           monkeypatch):
    monkeypatch.setattr(SoftmaxCrossEntropy, "chunk_bytes", chunk_bytes)
    x, t = _case(dtype, nonfinite=nonfinite)
    target = t.copy()
    valid = None
    if ignore:
        target[::5] = -1
        valid = (target != -1).astype(dtype)
    logits = mg.tensor(x, requires_grad=True)
    loss = F.cross_entropy(logits, mg.tensor(target), ignore_index=-1, reduction=reduction)
    t_safe = np.where(target == -1, 0, target)
    want = _loss_by_expressions(x, t_safe, valid, reduction)
    assert loss.numpy().tobytes() == np.asarray(want, dtype=loss.numpy().dtype).tobytes()
    g = np.random.default_rng(1).standard_normal(loss.shape).astype(dtype)
    loss.backward(mg.tensor(g))
    got = logits.grad.numpy()
    want = _gradient_by_expressions(g, x, t_safe, valid, reduction)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("shape", [(5, 50257), (4000, 2), (1, 9)])
def test_a_vocabulary_and_a_batch_of_pairs_are_the_expressions_too(shape, monkeypatch):
    monkeypatch.setattr(SoftmaxCrossEntropy, "chunk_bytes", 2 * shape[1] * 4)  # two rows at a time
    x, t = _case("float32", *shape, seed=3)
    logits = mg.tensor(x, requires_grad=True)
    loss = F.cross_entropy(logits, mg.tensor(t))
    assert loss.numpy().tobytes() == np.asarray(_loss_by_expressions(x, t, None, "mean"), np.float32).tobytes()
    loss.backward()
    assert logits.grad.numpy().tobytes() == _gradient_by_expressions(np.float32(1), x, t, None, "mean").tobytes()


def test_an_empty_batch_is_the_expressions_too():
    x = np.zeros((0, 7), np.float32)
    logits = mg.tensor(x, requires_grad=True)
    loss = F.cross_entropy(logits, mg.tensor(np.zeros(0, np.int64)))
    assert np.isnan(loss.item())
    loss.backward()
    assert logits.grad.shape == (0, 7)


def test_the_gradient_of_the_gradient_is_unchanged():
    """Under ``create_graph`` the backward runs on Tensors: no writes in place there."""
    x, t = _case("float64", n=5, c=4)
    logits = mg.tensor(x, requires_grad=True)
    (gx,) = mg.autograd.grad(F.cross_entropy(logits, mg.tensor(t)), logits, create_graph=True)
    assert gx.numpy().tobytes() == _gradient_by_expressions(np.float64(1.0), x, t, None, "mean").tobytes()
    assert mg.autograd.gradcheck(lambda z: F.cross_entropy(z, mg.tensor(t)), (mg.tensor(x, requires_grad=True),))
    assert mg.autograd.gradgradcheck(lambda z: F.cross_entropy(z, mg.tensor(t)), (mg.tensor(x, requires_grad=True),))


BIG = (1024, 4096)  # 16 MiB of float32 logits: far above anything else the calls allocate


def _big_logits():
    x, t = _case("float32", *BIG, seed=2)
    return mg.tensor(x, requires_grad=True), mg.tensor(t)


def test_the_loss_makes_no_array_of_the_logits_size():
    """``x - max`` then ``exp`` of it were two arrays of the logits' size; only each row's sum is read."""
    logits, t = _big_logits()
    F.cross_entropy(logits, t)  # (warm)
    assert peak_bytes(lambda: F.cross_entropy(logits, t)) < SoftmaxCrossEntropy.chunk_bytes + (1 << 20)


@pytest.mark.parametrize("ignore", [False, True])
def test_the_gradient_is_the_one_array_it_returns(ignore):
    """The softmax, the one-hot target and the products were five arrays of the logits' size,
    four of them alive at once; the gradient is written into the softmax's."""
    logits, t = _big_logits()
    if ignore:
        t = mg.where(mg.arange(BIG[0]) % 3 == 0, -100, t)
    F.cross_entropy(logits, t).backward()  # (warm)
    logits.grad = None
    loss = F.cross_entropy(logits, t)
    assert peak_bytes(loss.backward) < 1.5 * logits.numpy().nbytes
