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
    x.register_hook(lambda g: calls.append(g.numpy().copy()))
    (x * x + x).sum().backward()  # two paths into x
    assert len(calls) == 1
    np.testing.assert_array_equal(calls[0], [3.0, 5.0])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 5.0])


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
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 40.0])


def test_non_leaf_hook_replacement_propagates_upstream():
    x = leaf([1.0, 2.0])
    h = x * 2
    seen = []

    def hook(g):
        seen.append(g.numpy().copy())
        return g * 10

    h.register_hook(hook)
    (h * h).sum().backward()
    np.testing.assert_array_equal(seen[0], [4.0, 8.0])  # d(h^2)/dh = 2h
    np.testing.assert_array_equal(x.grad.numpy(), [80.0, 160.0])  # 2 * (10 * 2h)


def test_hook_returning_none_keeps_gradient():
    x = leaf([1.0])
    h = x * 3
    h.register_hook(lambda g: None)
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0])


def test_hooks_chain_in_registration_order():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g + 1)
    x.register_hook(lambda g: g * 10)
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 20.0])


def test_remove():
    x = leaf([1.0, 2.0])
    handle = x.register_hook(lambda g: g * 10)
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 40.0])
    handle.remove()
    handle.remove()  # a second remove is harmless
    x.grad = None
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def test_remove_non_leaf_hook():
    x = leaf([1.0])
    h = x * 2
    handle = h.register_hook(lambda g: g * 100)
    handle.remove()
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0])


def test_hook_with_mg_grad():
    x = leaf([1.0, 2.0])
    h = x * x
    h.register_hook(lambda g: g * 0)
    (g,) = mg.grad(h.sum() + x.sum(), x)
    np.testing.assert_array_equal(g.numpy(), [1.0, 1.0])


def test_hook_must_return_same_shape():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: mg.ones(3))
    with pytest.raises(RuntimeError, match=r"hook must return None or a Tensor of shape \(2,\)"):
        x.sum().backward()


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        mg.tensor([1.0]).register_hook(lambda g: g)


# --- hooks get a gradient nothing else shares; dtypes are kept ----------
def test_in_place_hook_does_not_change_another_leafs_gradient():
    # Add's backward hands one array to both inputs: x's hook scaling it in
    # place must scale x.grad only.
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    x.register_hook(lambda g: g.mul_(10))
    (x + y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [10.0, 10.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])


def test_in_place_hook_on_intermediate_does_not_change_its_sibling():
    x = leaf([1.0, 2.0])
    a, b = x * 1.0, x * 2.0
    a.register_hook(lambda g: g.mul_(100))
    (a + b).sum().backward()  # a and b receive the same array from Add
    np.testing.assert_array_equal(x.grad.numpy(), [102.0, 102.0])


def test_in_place_hook_does_not_change_mg_grad_results():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    x.register_hook(lambda g: g.mul_(10))
    gx, gy = mg.grad((x + y).sum(), [x, y])
    np.testing.assert_array_equal(gx.numpy(), [10.0, 10.0])
    np.testing.assert_array_equal(gy.numpy(), [1.0, 1.0])


def test_in_place_hook_under_create_graph_is_isolated():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    x.register_hook(lambda g: g * 10)
    gx, gy = mg.grad((x * y).sum(), [x, y], create_graph=True)
    np.testing.assert_array_equal(gx.numpy(), [30.0, 40.0])
    np.testing.assert_array_equal(gy.numpy(), [1.0, 2.0])


def test_leaf_hook_changing_dtype_is_an_error_naming_the_hook():
    x = leaf([1.0, 2.0])

    def to_float32(g):
        return g.astype("float32")

    x.register_hook(to_float32)
    # torch's words first
    words = r"hook '.*to_float32' has changed the type of value \(was float64, got float32\)"
    with pytest.raises(RuntimeError, match=words):
        (x * x).sum().backward()
    assert x.grad is None


def test_leaf_hook_returning_integers_is_an_error():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g.astype("int64"))
    with pytest.raises(RuntimeError, match="changed the type of value"):
        mg.grad((x * x).sum(), x)


def test_intermediate_hook_changing_dtype_is_an_error():
    x = mg.tensor([1.0, 2.0], dtype="float32", requires_grad=True)
    h = x * 2
    h.register_hook(lambda g: g.astype("float64"))
    with pytest.raises(RuntimeError, match="changed the type of value"):
        h.sum().backward()


def test_grad_keeps_the_leafs_dtype():
    x = mg.tensor([1.0, 2.0], dtype="float32", requires_grad=True)
    (x * mg.tensor([1.0, 2.0], dtype="float64")).sum().backward()  # promoted to float64 on the way
    assert x.grad.dtype == mg.float32
    with pytest.raises(RuntimeError, match="grad has dtype float64, tensor has dtype float32"):
        x.grad = mg.zeros(2, dtype="float64")


# mg.grad (and backward(inputs=...)) runs only the nodes some requested input is behind, and so
# only their tensor hooks, as PyTorch.  The expected lists are torch 2.13's for the same programs
# (torch.autograd.grad / loss.backward(inputs=[w]) with the same register_hook calls).
def _hooked_program(fired):
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    v = mg.tensor([3.0, 4.0], requires_grad=True)
    a = w * 2
    a.register_hook(lambda g: fired.append("a"))
    b = v * 3
    b.register_hook(lambda g: fired.append("b"))
    c = a * b
    c.register_hook(lambda g: fired.append("c"))
    v.register_hook(lambda g: fired.append("v"))
    return w, b, c.sum() + (b * b).sum()


@pytest.mark.parametrize("how", ["grad", "grad_create_graph", "backward_inputs"])
def test_grad_fires_no_hook_on_a_branch_the_requested_inputs_are_not_behind(how):
    fired = []
    w, _, loss = _hooked_program(fired)
    if how == "backward_inputs":
        loss.backward(inputs=[w])
        g = w.grad
    else:
        (g,) = mg.autograd.grad(loss, [w], create_graph=how == "grad_create_graph")
    assert g.tolist() == [18.0, 24.0]
    assert fired == ["c", "a"]  # torch: b's and v's hooks do not run


def _hooked_branches(w, v, fired):
    a = w * 2
    a.register_hook(lambda g: fired.append("a"))
    b = v * 3
    b.register_hook(lambda g: fired.append("b"))
    return a, b


def test_grad_wrt_an_intermediate_fires_its_hooks_and_none_behind_it():
    fired = []
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    v = mg.tensor([3.0, 4.0], requires_grad=True)
    a, b = _hooked_branches(w, v, fired)
    v.register_hook(lambda g: fired.append("v"))
    (g,) = mg.autograd.grad((a * b).sum(), [b])
    assert g.tolist() == [2.0, 4.0]
    assert fired == ["b"]  # torch 2.13: ['b']


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_grad_through_a_checkpoint_fires_no_hook_on_a_branch_the_inputs_are_not_behind(dtype):
    fired = []

    def fn(w, v):
        a, b = _hooked_branches(w, v, fired)
        return (a * b).sum() + (b * b).sum()

    w = mg.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
    v = mg.tensor([3.0, 4.0], dtype=dtype, requires_grad=True)
    (g,) = mg.autograd.grad(mg.checkpoint.checkpoint(fn, w, v), [w])
    assert g.tolist() == [18.0, 24.0] and g.dtype == np.dtype(dtype)
    assert fired == ["a"]


@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "non-leaf"])
def test_a_hook_returning_a_non_tensor_is_pytorchs_type_error(leaf):
    # torch 2.13: TypeError "expected Variable, but hook returned 'int'" (the engine raised a RuntimeError);
    # a wrong shape stays a RuntimeError, "hook '<lambda>' has changed the size of value"
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    t = x if leaf else x * 2
    handle = t.register_hook(lambda g: 5)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        (t * 3).sum().backward()
    handle.remove()
    t = x if leaf else x * 2
    t.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match=r"hook '.*<lambda>' has changed the size of value"):
        (t * 3).sum().backward()
