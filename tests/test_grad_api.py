"""``mg.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minigrad_ckpt as mg


def leaf(values, dtype="float64"):
    return mg.tensor(np.asarray(values, dtype=dtype), requires_grad=True)


def test_signature():
    params = inspect.signature(mg.grad).parameters
    assert list(params) == ["outputs", "inputs", "grad_outputs", "retain_graph",
                            "create_graph", "allow_unused"]
    assert params["grad_outputs"].default is None
    assert params["retain_graph"].default is None
    assert params["create_graph"].default is False
    assert params["allow_unused"].default is False


def test_returns_a_tuple_of_tensors():
    x = leaf([1.0, 2.0])
    res = mg.grad((x * x).sum(), x)
    assert type(res) is tuple and len(res) == 1
    assert isinstance(res[0], mg.Tensor)
    np.testing.assert_array_equal(res[0].numpy(), [2.0, 4.0])
    res2 = mg.grad((x * x).sum(), [x])
    assert type(res2) is tuple and len(res2) == 1


def test_several_inputs_in_order():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 5.0])
    gy, gx = mg.grad((x * y * y).sum(), [y, x])
    np.testing.assert_array_equal(gy.numpy(), 2 * np.array([1.0, 2.0]) * [3.0, 5.0])
    np.testing.assert_array_equal(gx.numpy(), np.array([3.0, 5.0]) ** 2)


def test_does_not_touch_dot_grad():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y.grad = mg.tensor([7.0, 7.0], dtype="float64")
    mg.grad((x * y).sum(), [x])
    assert x.grad is None
    np.testing.assert_array_equal(y.grad.numpy(), [7.0, 7.0])


def test_intermediate_non_leaf_inputs():
    xv = np.array([1.0, 2.0])
    x = leaf(xv)
    h = x * x
    k = mg.sin(h)
    y = (k * 3).sum()
    gh, gk, gx = mg.grad(y, [h, k, x])
    np.testing.assert_allclose(gk.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(gh.numpy(), 3 * np.cos(xv * xv), rtol=1e-15)
    np.testing.assert_allclose(gx.numpy(), 3 * np.cos(xv * xv) * 2 * xv, rtol=1e-15)
    assert x.grad is None
    with pytest.warns(UserWarning, match="not a leaf"):  # as PyTorch's
        assert h.grad is None


def test_gradient_wrt_output_itself_is_grad_output():
    x = leaf([1.0, 2.0])
    y = x * 2
    (gy,) = mg.grad(y, y, grad_outputs=np.array([5.0, 6.0]))
    np.testing.assert_array_equal(gy.numpy(), [5.0, 6.0])


def test_grad_outputs():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    (g,) = mg.grad(y, x, grad_outputs=mg.tensor([1.0, 0.0, -1.0], dtype="float64"))
    np.testing.assert_array_equal(g.numpy(), [2.0, 0.0, -6.0])


def test_grad_outputs_count_as_pytorch_takes_it():
    """torch 2.13: fewer gradients than outputs is 'got 2 tensors and 1 gradients' (a RuntimeError,
    for grad and backward alike); extra ones are not read.  (tests/test_gradient_count.py)"""
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        mg.grad([x.sum(), x.sum()], [x], grad_outputs=[None])
    assert mg.grad([x.sum()], [x], grad_outputs=[None, None])[0].tolist() == [1.0]


def test_non_scalar_output_without_grad_outputs_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"shape \(2,\)"):
        mg.grad(x * 2, x)


def test_several_outputs_add_up():
    x = leaf([1.0, 2.0])
    (g,) = mg.grad([(x * x).sum(), (x * 3).sum()], x)
    np.testing.assert_array_equal(g.numpy(), [5.0, 7.0])


def test_allow_unused():
    x, z = leaf([1.0, 2.0]), leaf([5.0])
    y = (x * x).sum()
    with pytest.raises(RuntimeError, match="allow_unused=True") as exc:
        mg.grad(y, [x, z], retain_graph=True)
    assert "input 1" in str(exc.value)
    gx, gz = mg.grad(y, [x, z], allow_unused=True)
    np.testing.assert_array_equal(gx.numpy(), [2.0, 4.0])
    assert gz is None


def test_input_connected_only_through_non_differentiable_ops_is_unused():
    x = leaf([1.0, -2.0])
    y = leaf([3.0, 4.0])
    out = mg.where(x > 0, y, 0.0).sum()  # x only feeds a comparison
    gx, gy = mg.grad(out, [x, y], allow_unused=True)
    assert gx is None
    np.testing.assert_array_equal(gy.numpy(), [1.0, 0.0])


def test_input_that_does_not_require_grad_raises():
    x = leaf([1.0])
    c = mg.tensor([1.0])
    with pytest.raises(RuntimeError, match="input 1 does not require grad"):
        mg.grad((x * c).sum(), [x, c])


def test_output_without_history_raises():
    with pytest.raises(RuntimeError, match="output 0 does not require grad"):
        mg.grad(mg.tensor([1.0]).sum(), leaf([1.0]))


def test_non_tensor_arguments_raise_type_error():
    x = leaf([1.0])
    with pytest.raises(TypeError, match="input 0 is a ndarray"):
        mg.grad(x.sum(), [np.ones(1)])
    with pytest.raises(TypeError, match="output 0 is a float"):
        mg.grad([1.0], [x])


def test_graph_freed_by_default():
    x = leaf([1.0, 2.0])
    y = (mg.exp(x)).sum()
    mg.grad(y, x)
    with pytest.raises(RuntimeError, match="second time"):
        mg.grad(y, x)
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_retain_graph_gives_identical_results():
    x = leaf([0.5, 1.5])
    y = (mg.exp(x) * x).sum()
    (g1,) = mg.grad(y, x, retain_graph=True)
    (g2,) = mg.grad(y, x, retain_graph=True)
    np.testing.assert_array_equal(g1.numpy(), g2.numpy())
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), g1.numpy())


def test_create_graph_mixed_partials():
    xv, yv = np.array([1.5, -0.5]), np.array([2.0, 3.0])
    x, y = leaf(xv), leaf(yv)
    f = (x * y**2 + mg.sin(x * y)).sum()
    gx, gy = mg.grad(f, [x, y], create_graph=True)
    np.testing.assert_allclose(gx.numpy(), yv**2 + yv * np.cos(xv * yv), rtol=1e-15)
    np.testing.assert_allclose(gy.numpy(), 2 * xv * yv + xv * np.cos(xv * yv), rtol=1e-15)
    (gxy,) = mg.grad(gx.sum(), y, retain_graph=True)
    (gyx,) = mg.grad(gy.sum(), x)
    expected = 2 * yv + np.cos(xv * yv) - xv * yv * np.sin(xv * yv)
    np.testing.assert_allclose(gxy.numpy(), expected, rtol=1e-14)
    np.testing.assert_allclose(gyx.numpy(), expected, rtol=1e-14)


def test_create_graph_retains_graph_by_default():
    x = leaf([2.0])
    y = (x**3).sum()
    (g,) = mg.grad(y, x, create_graph=True)
    (g_again,) = mg.grad(y, x)  # still allowed: create_graph implies retain_graph
    np.testing.assert_array_equal(g.numpy(), g_again.numpy())


def test_results_never_alias_each_other():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    gx, gy = mg.grad((x + y).sum(), [x, y])
    assert not np.shares_memory(gx.numpy(), gy.numpy())
    gx.data[0] = 100.0
    assert gy.data[0] == 1.0


def test_zero_d_input_gives_zero_d_array():
    x = leaf(1.5)
    a = leaf(2.0)
    gx, ga = mg.grad(x * a, [x, a])
    for g in (gx, ga):
        assert type(g._data) is np.ndarray and g.shape == ()
    assert gx.item() == 2.0 and ga.item() == 1.5


def test_backward_with_inputs_accumulates_into_those_only():
    """PyTorch's backward(inputs=): torch 2.13 at x = [1, 2], w = [3, 4], l = sum((2 x w)^2) gives
    w.grad [24, 128] and y.grad (y = x * w, a non-leaf) [24, 64], x.grad untouched; a second call
    adds; an input the output does not reach keeps None; an empty list is refused."""
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    loss = ((y * 2) * (y * 2)).sum()
    loss.backward(inputs=[w, y], retain_graph=True)
    assert x.grad is None and w.grad.tolist() == [24.0, 128.0] and y.grad.tolist() == [24.0, 64.0]
    loss.backward(inputs=w)
    assert w.grad.tolist() == [48.0, 256.0]
    u = mg.tensor([1.0], requires_grad=True)
    (x * 2).sum().backward(inputs=[u])
    assert u.grad is None and x.grad is None
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * 2).sum().backward(inputs=[])
    mg.autograd.backward([(x * w).sum()], inputs=[x])
    assert x.grad.tolist() == [3.0, 4.0]


def test_backward_with_an_input_that_does_not_require_grad_is_refused_in_pytorchs_words():
    # torch 2.13: backward(inputs=[t]) with t not requiring grad (a constant, a detached value), wherever it is
    # in the list: RuntimeError "can't retain_grad on Tensor that has requires_grad=False" (the engine's was
    # autograd.grad's "One of the differentiated Tensors does not require grad"), and no .grad is written
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    for inputs in ([mg.tensor([1.0, 2.0])], [x, (x * 2).detach()]):
        with pytest.raises(RuntimeError, match="^can't retain_grad on Tensor that has requires_grad=False"):
            (x * 2).sum().backward(inputs=inputs)
    assert x.grad is None
