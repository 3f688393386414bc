"""``F.softmax``, ``F.log_softmax``, ``F.softmin`` and ``F.cross_entropy`` of a row that is all ``-inf``
(every action or key masked out) or holds ``+inf`` answer PyTorch's NaN row without NumPy's
``RuntimeWarning: invalid value encountered in subtract`` (the shift by the row's max is ``-inf - -inf``
or ``inf - inf`` there), forward and backward, as the activations are silent
(``test_activation_infinite_input_is_silent.py``).  Found porting minimalRL's policy networks: a
softmax over fully masked logits printed a warning PyTorch never prints.

``nn.MultiheadAttention`` returning its weights, with every key of a sequence padded, is NaN there
silently too (its fused scaled softmax keeps such a row NaN, as PyTorch's).

Expected: torch 2.13's NaN rows (the whole row, values and gradients); the finite rows are the
NumPy formulas, which PyTorch's agree with.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.nn.functional
INF = math.inf
ROWS = [[-INF, -INF, -INF], [0.5, -INF, 1.0], [INF, 1.0, 0.0], [0.1, 0.2, 0.3]]
NAN_ROWS = [0, 2]  # all -inf, and one +inf: NaN throughout in PyTorch


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


FUNCTIONS = {  # name: (function of x, NumPy's value and gradient of sum(f) at the finite rows)
    "softmax": (lambda x: F.softmax(x, dim=1), lambda p: (p, np.zeros_like(p))),
    "softmin": (lambda x: F.softmin(-x, dim=1), lambda p: (p, np.zeros_like(p))),
    "softmax_dim0": (lambda x: F.softmax(x.t(), dim=0).t(), lambda p: (p, np.zeros_like(p))),
    "log_softmax": (lambda x: F.log_softmax(x, dim=1), lambda p: (np.log(p), 1 - 3 * p)),
    "nn.Softmax": (lambda x: mg.nn.Softmax(dim=-1)(x), lambda p: (p, np.zeros_like(p))),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_masked_rows_give_nan_silently(name, dtype):
    f, expected = FUNCTIONS[name]
    x = mg.tensor(np.array(ROWS, dtype=dtype), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        y = f(x)
        (g,) = mg.autograd.grad(y.sum(), x)
    finite = [i for i in range(len(ROWS)) if i not in NAN_ROWS]
    with np.errstate(divide="ignore"):
        value, grad = expected(_softmax(np.array(ROWS, dtype=np.float64)[finite]))
    assert np.isnan(y.detach().numpy()[NAN_ROWS]).all() and np.isnan(g.numpy()[NAN_ROWS]).all()
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y.detach().numpy()[finite], value, rtol=tol, atol=tol)
    np.testing.assert_allclose(g.numpy()[finite], grad, rtol=tol, atol=tol)


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_cross_entropy_of_masked_rows_is_nan_silently(reduction):
    x = mg.tensor(np.array(ROWS, dtype=np.float32), requires_grad=True)
    target = mg.tensor([0, 0, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        loss = F.cross_entropy(x, target, reduction=reduction)
        (g,) = mg.autograd.grad(loss.sum(), x)
    # torch 2.13: the per-sample losses [nan, 0.9741, nan, 1.0019] (their mean nan); the gradient's
    # rows 1 and 3 are p - onehot (divided by 4 for the mean), rows 0 and 2 NaN
    got = loss.detach().numpy()
    if reduction == "none":
        assert np.isnan(got[NAN_ROWS]).all()
        np.testing.assert_allclose(got[[1, 3]], -np.log(_softmax(np.array(ROWS)[[1, 3]])[[0, 1], [0, 2]]), rtol=1e-6)
    else:
        assert np.isnan(got)
    p = (_softmax(np.array(ROWS)[[1, 3]]) - np.eye(3)[[0, 2]]) / (1 if reduction == "none" else 4)
    np.testing.assert_allclose(g.numpy()[[1, 3]], p, rtol=1e-5, atol=1e-7)
    assert np.isnan(g.numpy()[NAN_ROWS]).all()


def test_attention_weights_of_a_fully_padded_sequence_are_nan_silently():
    # torch 2.13: output and weights of the padded sequence all NaN, the other sequence finite
    mg.manual_seed(0)
    q = mg.randn(2, 3, 4, requires_grad=True)
    attention = mg.nn.MultiheadAttention(4, 1, batch_first=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out, weights = attention(q, q, q, key_padding_mask=mg.tensor([[True] * 3, [False] * 3]))
        out[1].sum().backward()
    assert np.isnan(out[0].detach().numpy()).all() and np.isnan(weights[0].detach().numpy()).all()
    assert np.isfinite(out[1].detach().numpy()).all() and np.isfinite(weights[1].detach().numpy()).all()
    np.testing.assert_allclose(weights[1].detach().numpy().sum(-1), 1.0, rtol=1e-6)


def test_logsumexp_gradient_of_a_slice_holding_inf_is_nan_silently():
    # torch 2.13: logsumexp([inf, 1]) = inf, its gradient [nan, 0]; forward mode alike
    x = mg.tensor([INF, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        y = mg.logsumexp(x, 0)
        (g,) = mg.autograd.grad(y, x)
        _, tangent = mg.func.jvp(lambda a: mg.logsumexp(a, 0), (x.detach(),), (mg.tensor([0.0, 1.0]),))
    assert y.item() == INF
    np.testing.assert_array_equal(g.numpy(), [np.nan, 0.0])
    assert np.isnan(tangent.item())


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "cross_entropy"])
def test_forward_mode_of_masked_rows_is_nan_silently(name):
    """The tangents too: cross_entropy's forward-mode rule shifted by the row's max outside the
    errstate its forward and backward had, and warned for the rows its forward answers silently."""
    f = {"softmax": lambda a: F.softmax(a, dim=1), "log_softmax": lambda a: F.log_softmax(a, dim=1),
         "cross_entropy": lambda a: F.cross_entropy(a, mg.tensor([0, 0, 1, 2]), reduction="none")}[name]
    tangent = np.full((4, 3), 0.5, dtype=np.float32)
    tangent[:, 0] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _, t = mg.func.jvp(f, (mg.tensor(np.array(ROWS, dtype=np.float32)),), (mg.tensor(tangent),))
    # torch 2.13's tangents of the finite rows
    expected = {"softmax": [[0.1175, 0.0, -0.1175], [0.1051, -0.0499, -0.0552]],
                "log_softmax": [[0.3112, -0.1888, -0.1888], [0.3497, -0.1503, -0.1503]],
                "cross_entropy": [-0.3112, 0.1503]}[name]
    assert np.isnan(t.numpy()[NAN_ROWS]).all()
    np.testing.assert_allclose(t.numpy()[[1, 3]], expected, atol=1e-4)
