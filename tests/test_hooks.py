"""Gradient hooks: ``register_hook`` on leaves and non-leaves, replacement, ``remove()``."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def leaf(values):
    return mg.tensor(np.asarray(values, dtype="float64"), requires_grad=True)


def test_leaf_hook_sees_total_gradient_once():
    calls = []
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: calls.append(g.data.copy()))
    (x * x + x).sum().backward()  # two paths into x
    assert len(calls) == 1
    np.testing.assert_array_equal(calls[0], [3.0, 5.0])
    np.testing.assert_array_equal(x.grad.data, [3.0, 5.0])


def test_hook_receives_a_tensor():
    seen = []
    x = leaf([1.0])
    x.register_hook(lambda g: seen.append(g))
    (x * 2).sum().backward()
    assert isinstance(seen[0], mg.Tensor)
    assert not seen[0].requires_grad


def test_leaf_hook_replacement():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g * 10)
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [20.0, 40.0])


def test_non_leaf_hook_replacement_propagates_upstream():
    x = leaf([1.0, 2.0])
    h = x * 2
    seen = []

    def hook(g):
        seen.append(g.data.copy())
        return g * 10

    h.register_hook(hook)
    (h * h).sum().backward()
    np.testing.assert_array_equal(seen[0], [4.0, 8.0])  # d(h^2)/dh = 2h
    np.testing.assert_array_equal(x.grad.data, [80.0, 160.0])  # 2 * (10 * 2h)


def test_hook_returning_none_keeps_gradient():
    x = leaf([1.0])
    h = x * 3
    h.register_hook(lambda g: None)
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [3.0])


def test_hooks_chain_in_registration_order():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g + 1)
    x.register_hook(lambda g: g * 10)
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [20.0, 20.0])


def test_remove():
    x = leaf([1.0, 2.0])
    handle = x.register_hook(lambda g: g * 10)
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [20.0, 40.0])
    handle.remove()
    handle.remove()  # a second remove is harmless
    x.grad = None
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [2.0, 4.0])


def test_remove_non_leaf_hook():
    x = leaf([1.0])
    h = x * 2
    handle = h.register_hook(lambda g: g * 100)
    handle.remove()
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [2.0])


def test_hook_with_mg_grad():
    x = leaf([1.0, 2.0])
    h = x * x
    h.register_hook(lambda g: g * 0)
    (g,) = mg.grad(h.sum() + x.sum(), x)
    np.testing.assert_array_equal(g.data, [1.0, 1.0])


def test_hook_must_return_same_shape():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: mg.ones(3))
    with pytest.raises(RuntimeError, match=r"hook must return None or a Tensor of shape \(2,\)"):
        x.sum().backward()


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.tensor([1.0]).register_hook(lambda g: g)
