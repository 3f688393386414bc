"""What a binary op keeps beside a Python number: ``x * 2`` and ``x / 2`` keep no ``x``.

A Python number gets no gradient, so the partial derivative that only its
gradient would need is never taken; what only that partial reads need not be
kept.  PyTorch's ``mul(Tensor, Scalar)`` keeps nothing either.  The rule is
stated once per op (``BinaryElementwise.partials_read``) and applied by the
tape; these tests check the statements against the ops' own backward, and the
rule's seams: memory, in-place writes, higher derivatives, forward mode,
checkpointing, complex numbers and the strict device.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.backend import numpy_namespace
from minigrad_ckpt.ops.base import registry
from minigrad_ckpt.ops.elementwise import BinaryElementwise
from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the "strict" stand-in device

_DECLARED = sorted(name for name, cls in registry.items()
                   if issubclass(cls, BinaryElementwise) and cls.partials_read is not None)


def _leaf(values, dtype="float64"):
    return mg.tensor(np.asarray(values, dtype=dtype), requires_grad=True)


def test_the_arithmetic_ops_declare_what_their_partials_read():
    assert {"Mul", "Div"} <= set(_DECLARED)


@pytest.mark.parametrize("name", _DECLARED)
def test_each_partial_reads_only_what_it_declares(name):
    """Every partial computed with the undeclared input taken away (None) equals the full one."""
    op, rng, xp = registry[name](), np.random.default_rng(0), numpy_namespace  # (the engine's: its kernels too)
    x, y = rng.uniform(0.5, 2.0, 5), rng.uniform(0.5, 2.0, 5)
    out, g = op.forward(xp, x, y), rng.standard_normal(5)
    full = op.backward(xp, g, out, x, y)
    for k, reads in enumerate(op.partials_read):
        assert set(reads) <= {"out", "x", "y"}
        given = {name: (v if name in reads else None) for name, v in (("out", out), ("x", x), ("y", y))}
        times_partial = op.times_d_first if k == 0 else op.times_d_second  # this partial alone
        np.testing.assert_array_equal(times_partial(xp, g, given["out"], given["x"], given["y"]), full[k])


@pytest.mark.parametrize("make, keeps, keeps_out", [
    (lambda x: x * 2.0, False, False), (lambda x: 2.0 * x, False, False), (lambda x: x / 4, False, False),
    (lambda x: x * True, False, False), (lambda x: mg.div(3, x), True, False),  # (3 / x: reciprocal, then *)
    (lambda x: x ** 2, True, False), (lambda x: 2.0 ** x, True, True), (lambda x: x % 0.75, False, False),
    (lambda x: x * 1j, False, False),  # a complex number becomes a constant Tensor: as a mask
])
def test_what_the_node_keeps_beside_a_number(make, keeps, keeps_out):
    x = _leaf([1.0, 2.0, 3.0])
    h = mg.tanh(x)  # not a leaf: the ledger counts what is kept of it
    y = make(h)
    assert any(v is h._data for v in y._node.saved[1:]) == keeps
    assert (y._node.saved[0] is not None) == keeps_out
    with mg.memory.track() as ledger:
        z = make(h)
    assert ledger.peak("saved") == (h._data.nbytes if keeps else 0) + (z._data.nbytes if keeps_out else 0)
    (mg.abs(z) ** 2).sum().backward()
    assert x.grad is not None


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gradients_beside_numbers_are_unchanged(dtype):
    """In both dtypes: the numbers scale the gradient as before."""
    x = _leaf([0.5, -1.25, 2.0], dtype)
    ((x * 3.0 + 1.0) / 2.0 * x / 4 + x ** 3 + 2.0 ** x).sum().backward()
    v = x.numpy().astype("float64")
    expected = (2 * 3.0 * v + 1.0) / 8.0 + 3 * v ** 2 + np.log(2.0) * 2.0 ** v
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6 if dtype == "float32" else 1e-14)
    assert x.grad.dtype == np.dtype(dtype)


@pytest.mark.parametrize("fn", [lambda t: t * 2.5, lambda t: t / 3.0, lambda t: t ** 3, lambda t: 1.5 ** t,
                                lambda t: (t * 0.5) ** 2 / 4.0, lambda t: t % 0.75, lambda t: 2.0 - t * 3])
def test_gradcheck_beside_numbers_in_both_modes(fn):
    x = mg.tensor(np.array([0.3, 1.1, 2.05]), requires_grad=True)
    assert mg.testing.gradcheck(fn, [x], modes=("rev", "fwd"))
    assert mg.testing.gradgradcheck(fn, [x], modes=("rev", "fwd"))


def test_writing_the_input_after_scaling_it_is_fine():
    """Nothing of x is kept, so changing x in place before backward changes nothing (as in PyTorch)."""
    x = _leaf([1.0, 2.0])
    y = (x * 3.0).sum() + (x / 2.0).sum()
    with mg.no_grad():
        x.add_(10.0)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.5, 3.5])


def test_writing_the_input_of_a_number_divided_by_it_is_still_refused():
    x = _leaf([1.0, 2.0])
    y = mg.div(3.0, x).sum()  # d/dx = -3/x^2 reads x (torch.div(3.0, x) refuses too)
    with mg.no_grad():
        x.add_(10.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()


def test_the_operator_keeps_the_reciprocal_not_the_input():
    # ``3.0 / x`` is PyTorch's ``x.reciprocal() * 3.0``: the reciprocal keeps its output, the product nothing,
    # so a write into x before backward is no error and the gradient is the one at the old x (torch 2.13's)
    x = _leaf([1.0, 2.0])
    y = (3.0 / x).sum()
    with mg.no_grad():
        x.add_(10.0)
    y.backward()
    assert x.grad.tolist() == [-3.0, -0.75]


def test_second_derivatives_beside_numbers():
    x = _leaf([0.5, 1.5])
    (g,) = mg.grad((x * x * 3.0 / 2.0).sum(), [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), 3.0 * x.numpy())
    (h,) = mg.grad(g.sum(), [x])
    np.testing.assert_array_equal(h.numpy(), [3.0, 3.0])


def test_forward_mode_beside_numbers():
    x, t = mg.tensor([1.0, 2.0]), mg.tensor([1.0, -1.0])
    y, dy = mg.func.jvp(lambda a: (a * 3.0) / 2.0, (x,), (t,))
    np.testing.assert_array_equal(dy.numpy(), [1.5, -1.5])
    np.testing.assert_array_equal(mg.func.grad(lambda a: (a * 5.0).sum())(x).numpy(), [5.0, 5.0])


def test_complex_tensor_beside_a_real_number():
    z = mg.tensor(np.array([1 + 2j, -0.5j]), requires_grad=True)
    y = z * 2.0
    assert not [v for v in y._node.saved if isinstance(v, np.ndarray)]
    (y.abs() ** 2).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 8.0 * z.numpy())  # d|2z|^2 = 2 * 4 z, docs/complex.md


def test_a_checkpointed_scale_replays_bitwise_and_the_ledger_equals_the_prediction():
    mg.manual_seed(0)
    layers = [lambda t: mg.tanh(t * 0.5), lambda t: mg.tanh(t / 3.0) * 2.0, lambda t: (t * 1.5).sin()]
    x = mg.randn(4, 8).requires_grad_()

    def step(plan):
        xi = x.detach().requires_grad_()
        with mg.memory.track() as ledger:
            ck.run_plan(layers, plan, xi).sum().backward()
        return xi.grad.numpy(), ledger.peak("saved")

    profile = ck.profile_chain(layers, x)
    plain_grad, plain_peak = step(ck.NoCheckpointing().plan(3))
    plan = ck.plan_for_budget(profile, ck.min_peak_bytes(profile))
    assert plan.depth >= 1
    grad, peak = step(plan)
    np.testing.assert_array_equal(grad, plain_grad)
    assert peak == ck.simulate_peak(profile, plan) < plain_peak


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_product_with_a_constant_tensor_keeps_only_the_constant(dtype):
    """``x * mask`` (a Tensor that needs no gradient): only the mask is kept, on either side,
    so a write to x before backward is fine, a write to the mask is still refused, and the
    gradient is the same (the mask's partial is not taken)."""
    x = _leaf([0.5, -1.0, 2.0], dtype)
    mask = mg.tensor(np.array([1.0, 0.0, 3.0], dtype=dtype))
    h = mg.tanh(x)
    for y in (h * mask, mask * h):
        kept = [v for v in y._node.saved if v is not None]
        assert len(kept) == 1 and kept[0] is mask._data
    with mg.memory.track() as ledger:
        y = (h * mask).sum() + (mask * h).sum()
    assert ledger.peak("saved") == h._data.nbytes  # tanh's output; nothing for the products
    with mg.no_grad():
        x.add_(1.0)  # x's tanh (kept by tanh) is unchanged: only x moved
    y.backward()
    expected = 2 * mask.numpy() * (1 - np.tanh(x.numpy() - 1.0) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    z = (x * mask).sum()
    with mg.no_grad():
        mask.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.backward()


def test_a_constant_tensor_with_a_tangent_still_moves_second_order_forward_mode():
    """Forward over reverse: a Tensor constant in the inner backward that carries a tangent
    (here x, a constant of grad(f) in w) -- the product keeps it, so the hvp is exact."""
    x, w = mg.tensor([1.0, 2.0]), mg.tensor([0.5, -1.5])

    def grad_w(x_):
        return mg.func.grad(lambda w_: (mg.tanh(w_) * x_ * x_).sum())(w)

    _, tangent = mg.func.jvp(grad_w, (x,), (mg.tensor([1.0, 0.0]),))
    expected = 2 * x.numpy() * (1 - np.tanh(w.numpy()) ** 2) * np.array([1.0, 0.0])
    np.testing.assert_allclose(tangent.numpy(), expected, rtol=1e-12)


def test_the_strict_device_keeps_nothing_beside_numbers():
    x = mg.tensor(np.array([1.0, 2.0]), device="strict", requires_grad=True)
    y = x * 2.0 / 4
    assert all(v is None or isinstance(v, (int, float)) for v in y._node.saved)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.5, 0.5])


@pytest.mark.parametrize("make", [lambda x: 2j * x, lambda x: x * 2j, lambda x: np.array([1.0, 3.0]) * x])
def test_a_constant_on_either_side_leaves_no_version_check_on_x(make):
    """The version kept is the constant's (when it is a Tensor), chosen by argument: a complex
    number on the left is no Tensor, and x, not kept, must not be checked."""
    x = _leaf([1.0, 2.0])
    y = make(x)
    with mg.no_grad():
        x.add_(10.0)
    (mg.abs(y) ** 2).sum().backward()
    assert x.grad is not None
