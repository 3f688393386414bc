"""In-place changes, version counters, and no mutation / no aliasing in autograd."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

INPLACE_MSG = "modified by an in-place operation"

# Every in-place API of the engine, as a function of the tensor to change.
MUTATORS = {
    "add_": lambda t: t.add_(1.0),
    "sub_": lambda t: t.sub_(1.0),
    "mul_": lambda t: t.mul_(2.0),
    "div_": lambda t: t.div_(2.0),
    "iadd": lambda t: t.__iadd__(1.0),
    "imul": lambda t: t.__imul__(2.0),
    "setitem": lambda t: t.__setitem__(0, 5.0),
    "setitem_mask": lambda t: t.__setitem__(t > 100, 0.0),
    "copy_": lambda t: t.copy_(mg.tensor(np.full(t.shape, 7.0), dtype=t.dtype)),
    "fill_": lambda t: t.fill_(3.0),
    "zero_": lambda t: t.zero_(),
}
# ``t.data = v`` is PyTorch's unchecked escape hatch, deliberately not among these (and neither is
# a write through ``t.data``): see tests/test_pytorch_meanings.py.


def leaf(values):
    return mg.tensor(np.asarray(values, dtype="float64"), requires_grad=True)


def const(values):
    return mg.tensor(np.asarray(values, dtype="float64"))


# ---------------------------------------------------------- detected changes
@pytest.mark.parametrize("how", sorted(MUTATORS))
def test_changing_a_saved_constant_raises_at_backward(how):
    x, a = leaf([1.0, 2.0]), const([3.0, 4.0])
    y = (x * a).sum()  # Mul saves a
    MUTATORS[how](a)
    with pytest.raises(RuntimeError, match=INPLACE_MSG) as exc:
        y.backward()
    assert "Mul" in str(exc.value)
    assert x.grad is None


@pytest.mark.parametrize("how", sorted(MUTATORS))
def test_changing_a_saved_leaf_under_no_grad_raises(how):
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    with mg.no_grad():
        MUTATORS[how](x)
    with pytest.raises(RuntimeError, match=INPLACE_MSG):
        y.backward()


@pytest.mark.parametrize("how", sorted(MUTATORS))
def test_changing_a_saved_output_raises(how):
    x = leaf([1.0, 2.0])
    e = mg.exp(x)  # Exp saves its output
    y = e.sum()
    with mg.no_grad():
        MUTATORS[how](e)
    with pytest.raises(RuntimeError, match=INPLACE_MSG) as exc:
        y.backward()
    assert "Exp" in str(exc.value)


def test_version_error_also_from_mg_grad():
    x, a = leaf([1.0, 2.0]), const([3.0, 4.0])
    y = (x * a).sum()
    a.mul_(2.0)
    with pytest.raises(RuntimeError, match=INPLACE_MSG):
        mg.grad(y, x)


def test_changing_the_base_of_a_saved_view_raises():
    x, a = leaf([1.0, 2.0]), const([3.0, 4.0, 5.0])
    y = (x * a[:2]).sum()
    a[2] = 0.0  # shares memory (and the version counter) with the saved view
    with pytest.raises(RuntimeError, match=INPLACE_MSG):
        y.backward()


def test_changing_a_view_of_a_saved_tensor_raises():
    x, a = leaf([1.0, 2.0]), const([3.0, 4.0])
    y = (x * a).sum()
    a.reshape(2, 1).mul_(2.0)
    with pytest.raises(RuntimeError, match=INPLACE_MSG):
        y.backward()


def test_changing_a_detached_alias_raises():
    x, a = leaf([1.0, 2.0]), const([3.0, 4.0])
    y = (x * a).sum()
    a.detach().add_(1.0)
    with pytest.raises(RuntimeError, match=INPLACE_MSG):
        y.backward()


# ------------------------------------------------------ undetected = harmless
def test_unrelated_in_place_change_is_fine():
    x, a, b = leaf([1.0, 2.0]), const([3.0, 4.0]), const([0.0])
    y = (x * a).sum()
    b.add_(1.0)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0])


def test_changing_an_input_that_was_not_saved_is_fine():
    x, a = leaf([1.0, 2.0]), const([3.0, 4.0])
    y = (x + a).sum()  # Add saves nothing
    a.mul_(10.0)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])


def test_in_place_before_forward_is_fine():
    x, a = leaf([1.0, 2.0]), const([3.0, 4.0])
    a.mul_(2.0)
    (x * a).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 8.0])


def test_in_place_after_backward_is_fine():
    x, a = leaf([1.0, 2.0]), const([3.0, 4.0])
    (x * a).sum().backward()
    a.mul_(2.0)
    np.testing.assert_array_equal(a.numpy(), [6.0, 8.0])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0])


def test_optimizer_style_update_under_no_grad():
    w = leaf([1.0, -2.0])
    for _ in range(3):
        loss = (w * w).sum()
        loss.backward()
        with mg.no_grad():
            w.sub_(0.25 * w.grad)
        w.grad = None
    np.testing.assert_allclose(w.numpy(), np.array([1.0, -2.0]) * 0.5**3)
    assert w.is_leaf and w.requires_grad


# --------------------------------------------- in grad mode: a leaf refused, a non-leaf recorded
@pytest.mark.parametrize("how", sorted(set(MUTATORS) - {"data_setter"}))
def test_in_place_on_requires_grad_tensor_in_grad_mode(how):
    """A leaf that requires grad is refused, as PyTorch refuses it; any other tensor that
    requires grad is changed on the tape (tests/test_inplace_recorded.py): its value is the
    plain write's, and its gradient reaches the leaf through the write."""
    t = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad") as exc:
        MUTATORS[how](t)
    assert "no_grad" in str(exc.value)
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    plain = const([1.0, 2.0])
    MUTATORS[how](plain)
    h = t * 1.0
    MUTATORS[how](h)
    np.testing.assert_array_equal(h.numpy(), plain.numpy())
    (h * h).sum().backward()
    assert t.grad is not None and t.grad.shape == (2,)


def test_in_place_on_constant_in_grad_mode_is_allowed():
    a = const([1.0, 2.0])
    a += 1.0
    a[0] = 0.0
    np.testing.assert_array_equal(a.numpy(), [0.0, 3.0])


# ------------------------------------- forward/backward never mutate inputs
MUTATION_OPS = {
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "pow": lambda x, y: x**y,
    "maximum": mg.maximum,
    "where": lambda x, y: mg.where(x > 1, x, y),
    "clip": lambda x, y: mg.clip(x, y, 2.0),
    "matmul": lambda x, y: x @ y.T,
    "einsum": lambda x, y: mg.einsum("ij,ij->ij", x, y),
    "concat": lambda x, y: mg.concatenate([x, y]),
    "stack": lambda x, y: mg.stack([x, y], axis=2),
    "sum_mean": lambda x, y: x.sum(axis=0) + y.mean(axis=0),
    "max_min": lambda x, y: x.max(axis=1) * y.min(axis=1),
    "prod": lambda x, y: (x * y).prod(axis=1),
    "var_std": lambda x, y: x.var(axis=1) + y.std(axis=1),
    "logsumexp": lambda x, y: mg.logsumexp(x - y, axis=1),
    "unary": lambda x, y: mg.exp(x) + mg.log(y) + mg.sqrt(x) + mg.tanh(y) + mg.sigmoid(x) + mg.abs(y),
    "shape": lambda x, y: x.T.reshape(6)[::-1] + mg.flip(y, 0).reshape(-1),
    "gather": lambda x, y: x[[0, 0, 1]] * y[[1, 1, 0]],
    "cumsum": lambda x, y: mg.cumsum(x * y, axis=1),
    "pad": lambda x, y: mg.pad(x * y, 1),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(MUTATION_OPS))
def test_forward_and_backward_do_not_mutate_inputs_or_gradient(name, create_graph):
    xv = np.array([[0.5, 1.5, 2.0], [1.0, 3.0, 0.25]])
    yv = np.array([[2.0, 0.5, 1.0], [1.5, 0.75, 3.0]])
    x, y = leaf(xv), leaf(yv)
    out = MUTATION_OPS[name](x, y)
    np.testing.assert_array_equal(x.numpy(), xv)
    np.testing.assert_array_equal(y.numpy(), yv)
    g = np.linspace(-1.0, 1.0, out.size).reshape(out.shape)
    g_before = g.copy()
    out_before = out.numpy().copy()
    out.backward(gradient=g, create_graph=create_graph)
    np.testing.assert_array_equal(g, g_before)
    np.testing.assert_array_equal(x.numpy(), xv)
    np.testing.assert_array_equal(y.numpy(), yv)
    np.testing.assert_array_equal(out.numpy(), out_before)
    for t in (x, y):
        assert not np.shares_memory(t.grad.numpy(), g)
        assert not np.shares_memory(t.grad.numpy(), t.numpy())
    assert not np.shares_memory(x.grad.numpy(), y.grad.numpy())


def test_explicit_gradient_tensor_is_not_mutated_or_aliased():
    x = leaf([1.0, 2.0])
    g = mg.tensor([1.0, 1.0], dtype="float64")
    (x * 1.0).backward(gradient=g)
    (x + 0.0).backward(gradient=g)
    np.testing.assert_array_equal(g.numpy(), [1.0, 1.0])
    assert not np.shares_memory(x.grad.numpy(), g.numpy())


# -------------------------------------------------------------- no aliasing
@pytest.mark.parametrize("fn", [
    lambda x, y: x + y,
    lambda x, y: x - y,
    lambda x, y: (x + y) * 1.0,
    lambda x, y: mg.concatenate([x, y]).reshape(2, 2)[0] + 0.0 * y,
    lambda x, y: mg.where(x > 0, x, y),
])
def test_gradients_of_different_inputs_never_alias(fn):
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    fn(x, y).sum().backward()
    assert not np.shares_memory(x.grad.numpy(), y.grad.numpy())
    before = y.grad.numpy().copy()
    x.grad.data[...] = 123.0  # a user changing one gradient in place...
    np.testing.assert_array_equal(y.grad.numpy(), before)  # ...must not change another


def test_backward_gradient_argument_is_not_aliased():
    for fn in (lambda x: x + 0.0, lambda x: x * 1.0, lambda x: x.reshape(2), lambda x: x):
        x = leaf([1.0, 2.0])
        g = np.array([5.0, 6.0])
        fn(x).backward(gradient=g)
        assert not np.shares_memory(x.grad.numpy(), g)
        x.grad.data[0] = -1.0
        assert g[0] == 5.0


def test_leaf_grads_are_writable_arrays():
    for fn in (lambda x: x.sum(), lambda x: x.T.sum(), lambda x: mg.broadcast_to(x, (3, 2, 2)).sum(),
               lambda x: x[0].sum(), lambda x: x.reshape(4).sum()):
        x = leaf(np.ones((2, 2)))
        fn(x).backward()
        assert x.grad._data.flags.writeable


def test_accumulated_grad_is_summed_into_the_same_tensor():
    """PyTorch's AccumulateGrad: a second backward adds into the .grad tensor itself (torch 2.13:
    ``first is x.grad``, both [5, 5]); tests/test_grad_accumulation.py has the seams."""
    x = leaf([1.0, 2.0])
    (x * 2).sum().backward()
    first = x.grad
    (x * 3).sum().backward()
    assert first is x.grad
    np.testing.assert_array_equal(first.numpy(), [5.0, 5.0])


@pytest.mark.parametrize("write", [
    lambda x: x.sqrt_(), lambda x: x.exp_(), lambda x: x.tanh_(), lambda x: x.pow_(0.5),
    lambda x: x.clamp_(0, 3.5), lambda x: x.xlogy_(2),
])
def test_an_in_place_float_result_into_an_integer_tensor_is_refused(write):
    """x.<op>_(...) is x.copy_(x.<op>(...)): a float result went into the integer x cut to
    its integer part (mg.tensor([1, 4]).sqrt_() gave [1, 2], exp_ [2, 54]). PyTorch:
    'result type Float can't be cast to the desired output type Long'."""
    x = mg.tensor([1, 4])
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        write(x)
    np.testing.assert_array_equal(x.numpy(), [1, 4])


def test_in_place_writes_whose_value_takes_the_tensors_dtype_still_cast():
    """PyTorch converts the value of masked_fill_, index_fill_ and scatter_ to the tensor's
    dtype (torch.tensor([1, 2]).masked_fill_(mask, 2.5) is [2, 2]); same-kind results pass."""
    mask = mg.tensor([True, False])
    np.testing.assert_array_equal(mg.tensor([1, 2]).masked_fill_(mask, 2.5).numpy(), [2, 2])
    np.testing.assert_array_equal(mg.tensor([1, 2]).index_fill_(0, mg.tensor([0]), 2.5).numpy(), [2, 2])
    np.testing.assert_array_equal(mg.tensor([1, 2]).scatter_(0, mg.tensor([0]), 2.5).numpy(), [2, 2])
    np.testing.assert_array_equal(mg.tensor([1, -5]).clamp_(0, 3).numpy(), [1, 0])
    np.testing.assert_array_equal(mg.tensor([1.0, 4.0]).sqrt_().numpy(), [1.0, 2.0])
