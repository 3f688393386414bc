"""A gradient a tensor hook keeps is not the leaf's ``.grad``.

A hook such as ``w.register_hook(lambda g: kept.append(g) or g)`` got a tensor whose memory then
became ``w.grad`` itself, so the next backward, which accumulates into ``.grad`` in place (as
PyTorch's AccumulateGrad does), silently changed the kept tensor. PyTorch clones a gradient someone
else still holds; here the kept tensor keeps its array and ``.grad`` gets a copy. (The old test
of this, in tests/test_backward.py, compared through ``np.shares_memory`` on a Tensor, which built
an object array before tensors had ``__array__``: it could not fail.)
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def step(w: mg.Tensor, h: mg.Tensor) -> None:
    (mg.tanh(h @ w.T)).sum().backward()


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64], ids=str)
@pytest.mark.parametrize("returns", [True, False], ids=["returns-it", "returns-none"])
def test_a_kept_gradient_is_not_changed_by_the_next_backward(dtype, returns):
    rng = np.random.default_rng(0)
    w = mg.tensor(rng.standard_normal((4, 3)), dtype=dtype, requires_grad=True)
    h = mg.tensor(rng.standard_normal((5, 3)), dtype=dtype)
    kept = []
    w.register_hook((lambda g: kept.append(g) or g) if returns else (lambda g: kept.append(g)))
    step(w, h)
    first = kept[0].numpy().copy()
    assert not np.shares_memory(kept[0].numpy(), w.grad.numpy())
    np.testing.assert_array_equal(w.grad.numpy(), first)
    step(w, h)
    np.testing.assert_array_equal(kept[0].numpy(), first)  # what the hook saw stays what it saw
    np.testing.assert_allclose(w.grad.numpy(), 2 * first, rtol=1e-6)


def test_a_leaf_handed_over_mid_pass_keeps_the_same_rule():
    # w feeds two branches: its gradient is final before the pass ends (handed over mid-pass)
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    kept = []
    w.register_hook(lambda g: kept.append(g) or g)
    loss = (w * 3).sum() + (w * w).sum()
    loss.backward()
    assert not np.shares_memory(kept[0].numpy(), w.grad.numpy())
    before = kept[0].numpy().copy()
    w.grad.mul_(0.0)
    np.testing.assert_array_equal(kept[0].numpy(), before)


def test_a_hook_that_keeps_a_new_tensor_it_returns_is_not_aliased_either():
    w = mg.tensor([1.0, -2.0], requires_grad=True)
    kept = []

    def doubled(g):
        out = g * 2
        kept.append(out)
        return out

    w.register_hook(doubled)
    (w * w).sum().backward()
    assert w.grad.tolist() == [4.0, -8.0] and not np.shares_memory(kept[0].numpy(), w.grad.numpy())
