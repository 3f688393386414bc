"""``mg.autograd.forward_ad`` (PyTorch's dual-number API) against torch 2.13's.

Expected values are what ``torch.autograd.forward_ad`` returned for the same programs
(``with fwAD.dual_level(): fwAD.unpack_dual(f(fwAD.make_dual(x, v)))``), written as the NumPy
expressions they equal; the error messages are torch's.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.autograd.forward_ad as fwAD
from minigrad_ckpt.checkpoint import checkpoint

X = np.array([1.0, 2.0, 3.0])
V = np.array([1.0, 0.0, 2.0])


def t(a, dtype="float64"):
    return mg.tensor(np.asarray(a), dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tangents_are_pushed_through_the_ops(dtype):
    with fwAD.dual_level():
        d = fwAD.make_dual(t(X, dtype), t(V, dtype))
        out = fwAD.unpack_dual(mg.sin(d) * d)
        assert type(out).__name__ == "UnpackedDualTensor" and out._fields == ("primal", "tangent")
        assert out.primal.dtype == out.tangent.dtype == getattr(mg, dtype)
        np.testing.assert_allclose(out.primal.numpy(), np.sin(X) * X, rtol=1e-6)
        np.testing.assert_allclose(out.tangent.numpy(), (np.cos(X) * X + np.sin(X)) * V, rtol=1e-6)
        assert out.primal._tangents is None  # the primal is a plain view
        mixed = fwAD.unpack_dual(d * t([2.0, 3.0, 4.0], dtype) + 1)   # a dual beside a constant
        np.testing.assert_allclose(mixed.tangent.numpy(), V * [2, 3, 4])
        w = t(np.arange(6.0).reshape(2, 3) / 5, dtype)
        lin = fwAD.unpack_dual(mg.nn.functional.linear(d, w).tanh())
        z = np.arange(6.0).reshape(2, 3) / 5 @ X
        np.testing.assert_allclose(lin.tangent.numpy(), (1 - np.tanh(z) ** 2) * (np.arange(6.0).reshape(2, 3) / 5 @ V),
                                   rtol=1e-5, atol=1e-7)
        ck = fwAD.unpack_dual(checkpoint(lambda a: a.exp() * a, d, use_reentrant=False))
        np.testing.assert_allclose(ck.tangent.numpy(), np.exp(X) * (X + 1) * V, rtol=1e-6)
        zero_d = fwAD.unpack_dual(fwAD.make_dual(t(2.0, dtype), t(1.0, dtype)) ** 3)
        assert zero_d.tangent.shape == () and zero_d.tangent.item() == 12.0


def test_outputs_without_a_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(t(X), t(V))
        assert fwAD.unpack_dual(d.argmax()).tangent is None
        assert fwAD.unpack_dual(d > 1).tangent is None
        assert fwAD.unpack_dual(d.detach()).tangent is None
        plain = t(X)
        assert fwAD.unpack_dual(plain).primal is plain and fwAD.unpack_dual(plain).tangent is None
        y = d.exp()
    assert fwAD.unpack_dual(y).tangent is None  # the level closed: its tangents are gone


def test_in_place_writes_carry_the_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(t(X), t(V))
        z = d.clone()
        z.mul_(2)
        z.add_(d)
        np.testing.assert_allclose(fwAD.unpack_dual(z).tangent.numpy(), 3 * V)
        own = fwAD.make_dual(t(X).clone(), t(V))  # nothing else holds the primal: the dual is written in place
        own.mul_(3)
        np.testing.assert_allclose(fwAD.unpack_dual(own).tangent.numpy(), 3 * V)
        b = mg.zeros(3, dtype=mg.float64)
        b[1] = d[0] * 5
        b[2:] = d[1:2].exp()
        np.testing.assert_allclose(fwAD.unpack_dual(b).tangent.numpy(), [0, 5 * V[0], np.exp(X[1]) * V[1]])
        gone = d * 1
        gone.zero_()   # torch: still a dual, with a zero tangent (was: no tangent at all)
        np.testing.assert_array_equal(fwAD.unpack_dual(gone).tangent.numpy(), np.zeros(3))
        filled = d * 1
        filled.fill_(2.0)
        np.testing.assert_array_equal(fwAD.unpack_dual(filled).tangent.numpy(), np.zeros(3))


def test_reverse_mode_over_the_duals():
    x = t([1.0, 2.0]).requires_grad_()
    with fwAD.dual_level():
        d = fwAD.make_dual(x, mg.ones(2, dtype=mg.float64))
        primal, tangent = fwAD.unpack_dual((d * d).sin())
        assert primal.requires_grad and tangent.requires_grad
        (tangent.sum() + primal.sum()).backward()
    xs = np.array([1.0, 2.0])
    # d/dx [2x cos(x^2) + sin(x^2)] = 2cos(x^2) - 4x^2 sin(x^2) + 2x cos(x^2)
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(xs ** 2) - 4 * xs ** 2 * np.sin(xs ** 2)
                               + 2 * xs * np.cos(xs ** 2), rtol=1e-12)
    v = t([1.0, 2.0]).requires_grad_()
    with fwAD.dual_level():
        _, tangent = fwAD.unpack_dual(fwAD.make_dual(t([3.0, 4.0]), v).exp())
        tangent.sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), np.exp([3.0, 4.0]))


def test_explicit_levels_and_transforms_inside():
    level = fwAD.enter_dual_level()
    d = fwAD.make_dual(t([1.0, 2.0]), t([3.0, 4.0]), level=level)
    out = fwAD.unpack_dual(d.exp(), level=level)
    fwAD.exit_dual_level(level=level)
    np.testing.assert_allclose(out.tangent.numpy(), np.exp([1.0, 2.0]) * [3, 4])
    with fwAD.dual_level():   # a Jacobian of a function of a dual: the transforms see the tangent through
        d = fwAD.make_dual(t(X), t(V))
        g = mg.func.grad(lambda a: (a ** 3).sum())(d)
        np.testing.assert_allclose(fwAD.unpack_dual(g).tangent.numpy(), 6 * X * V)
        per = mg.func.vmap(lambda a: a.sin())(d)
        np.testing.assert_allclose(fwAD.unpack_dual(per).tangent.numpy(), np.cos(X) * V)


@pytest.mark.parametrize("call, error, message", [
    (lambda: fwAD.make_dual(t(X), t(V)), RuntimeError, "no level exists, make sure to enter_dual_level"),
    (lambda: fwAD.exit_dual_level(), RuntimeError, "no dual level is open"),
])
def test_refusals_outside_a_level(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("call, error, message", [
    (lambda: fwAD.make_dual(t([1.0, 2.0]), t([1.0])), RuntimeError, r"Tensor is of size \[2\] while the given "),
    (lambda: fwAD.make_dual(mg.arange(3), mg.arange(3)), ValueError, "Expected primal to be floating point"),
    (lambda: fwAD.make_dual(t(X), mg.arange(3)), ValueError, "Expected tangent to be floating point"),
    (lambda: fwAD.make_dual(fwAD.make_dual(t(X), t(V)), t(V)), RuntimeError, "already has a forward gradient"),
    (lambda: fwAD.make_dual(t(X), t(V), level=10 ** 9), RuntimeError, "Invalid level given to _make_dual"),
    # torch 2.13's TypeError inside a level (outside one it hands the value back); the engine answered (3.0, None)
    (lambda: fwAD.unpack_dual(3.0), TypeError,
     r"_unpack_dual\(\): argument 'dual' \(position 1\) must be Tensor, not float"),
])
def test_refusals_inside_a_level(call, error, message):
    with fwAD.dual_level(), pytest.raises(error, match=message):
        call()


def test_the_legacy_constructor_keeps_the_tangent():
    # torch.func.jvp(lambda x: torch.Tensor(x) * 2, (x,), (v,)) -> tangent 2 v (the alias carries it); was 0
    _, tangent = mg.func.jvp(lambda a: mg.Tensor(a) * 2, (t(X, "float32"),), (t(V, "float32"),))
    np.testing.assert_array_equal(tangent.numpy(), 2 * V)
    _, tangent = mg.func.jvp(lambda a: mg.DoubleTensor(a) * 2, (t(X),), (t(V),))
    np.testing.assert_array_equal(tangent.numpy(), 2 * V)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_in_place_writes_into_a_dual_change_its_primal_not_the_primals_tangent(dtype):
    # torch.func.jvp(lambda a: a.mul_(2), (x,), (v,)) -> (2x, 2v), and x is 2x afterwards; was a RuntimeError
    x = t(X, dtype)
    y, dy = mg.func.jvp(lambda a: a.mul_(2), (x,), (t(V, dtype),))
    np.testing.assert_array_equal(dy.numpy(), 2 * V)
    np.testing.assert_array_equal(x.numpy(), 2 * X)
    assert dy.dtype == x.dtype
    # torch: x[0] = x[1] * x[2] on the argument -> tangent [x1 v2 + x2 v1, v1, v2]
    _, dy = mg.func.jvp(lambda a: (a.__setitem__(0, a[1] * a[2]), a)[1], (t(X, dtype),), (t(V, dtype),))
    np.testing.assert_allclose(dy.numpy(), [X[1] * V[2] + X[2] * V[1], V[1], V[2]])
    jac = mg.func.jacfwd(lambda a: a.mul_(a))(t(X, dtype))
    np.testing.assert_allclose(jac.numpy(), np.diag(2 * X))
    with fwAD.dual_level():
        base = t(X, dtype) + 1
        d = fwAD.make_dual(base, t(V, dtype))
        d[0] = 5.0
        assert fwAD.unpack_dual(base).tangent is None   # torch: the base stays a plain tensor
        np.testing.assert_array_equal(base.numpy(), [5.0, X[1] + 1, X[2] + 1])
        np.testing.assert_array_equal(fwAD.unpack_dual(d).tangent.numpy(), [0.0, V[1], V[2]])


def test_nested_writes_and_the_refusal_that_remains():
    def inner(y):  # y carries the outer level's tangent: the write through the inner handle doubles it too
        return mg.func.jvp(lambda a: a.mul_(2), (y,), (mg.ones(3, dtype=mg.float64),))[1] * y

    x = t(X)
    value, tangent = mg.func.jvp(inner, (x,), (t(V),))   # torch.func: ([4, 8, 12], [4, 0, 8])
    np.testing.assert_array_equal(value.numpy(), 4 * X)
    np.testing.assert_array_equal(tangent.numpy(), 4 * V)
    assert x._tangents is None  # the caller's tensor takes the values, never a tangent
    x = t(X).requires_grad_()
    with fwAD.dual_level():   # a value saved for backward shares the memory: refused, never a stale tangent
        d = fwAD.make_dual(t(X) * 1, t(V))
        y = d * x
        with pytest.raises(RuntimeError, match="cannot carry its forward-mode tangent"):
            d.mul_(2)
        del y


def test_inference_mode_stops_tangents_where_no_grad_does_not():
    # torch.func.jvp of a function that runs in torch.inference_mode(): tangent 0; under no_grad: cos(x) v
    def in_inference(a):
        with mg.inference_mode():
            return a.sin()

    def in_no_grad(a):
        with mg.no_grad():
            return a.sin()

    def back_on(a):
        with mg.inference_mode(), mg.inference_mode(False):
            return a.sin()

    for dtype in ("float32", "float64"):
        x, v = t(X, dtype), t(V, dtype)
        np.testing.assert_array_equal(mg.func.jvp(in_inference, (x,), (v,))[1].numpy(), np.zeros(3))
        np.testing.assert_array_equal(mg.func.jvp(mg.inference_mode()(mg.sin), (x,), (v,))[1].numpy(), np.zeros(3))
        np.testing.assert_allclose(mg.func.jvp(in_no_grad, (x,), (v,))[1].numpy(), np.cos(X) * V, rtol=1e-6)
        np.testing.assert_allclose(mg.func.jvp(back_on, (x,), (v,))[1].numpy(), np.cos(X) * V, rtol=1e-6)
    with fwAD.dual_level():
        d = fwAD.make_dual(t(X), t(V))
        with mg.inference_mode():
            assert fwAD.unpack_dual(d.exp()).tangent is None
        np.testing.assert_allclose(fwAD.unpack_dual(d.exp()).tangent.numpy(), np.exp(X) * V)


def _through_views(mod):
    """The writes through views of torch's tests above, as functions of x: each returns the written base."""
    def view_of_intermediate(a):
        y = a * 1
        y[1:].mul_(3)
        return y

    def into_view_of_plain(a):
        b = mod.zeros(3, dtype=a.dtype, device=a.device)
        b[1:].copy_(a[:2])
        return b

    def relu_on_view(a):
        y = a - 2
        y[:2].relu_()
        return y

    def diagonal(a):
        m = mod.zeros(3, 3, dtype=a.dtype, device=a.device)
        m.diagonal().copy_(a)
        return m

    def transposed(a):
        m = mod.zeros(3, 2, dtype=a.dtype, device=a.device)
        m.t()[1].add_(a * a)
        return m

    return [view_of_intermediate, into_view_of_plain, relu_on_view, diagonal, transposed]


# torch.func.jvp(f, (x,), (v,))[1] for each function above, x = [1, 2, 3], v = [1, 0, 2]
_VIEW_TANGENTS = [[1.0, 0.0, 6.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0],
                  [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]], [[0.0, 2.0], [0.0, 0.0], [0.0, 12.0]]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_writes_through_views_reach_the_base_tangent(dtype):
    # before: RuntimeError 'cannot carry its forward-mode tangent' for every one of them
    for f, want in zip(_through_views(mg), _VIEW_TANGENTS):
        y, dy = mg.func.jvp(f, (t(X, dtype),), (t(V, dtype),))
        assert dy.dtype == y.dtype == getattr(mg, dtype)
        np.testing.assert_allclose(dy.numpy(), want, err_msg=f.__name__)
        jac = mg.func.jacfwd(f)(t(X, dtype))   # every column through the same writes
        np.testing.assert_allclose(np.tensordot(jac.numpy(), V, axes=1), want, rtol=1e-6, err_msg=f.__name__)
    with fwAD.dual_level():
        base = fwAD.make_dual(mg.zeros(3, dtype=dtype), mg.ones(3, dtype=dtype))
        base[:2].mul_(2)   # torch: the base's tangent [2, 2, 1]
        np.testing.assert_array_equal(fwAD.unpack_dual(base).tangent.numpy(), [2.0, 2.0, 1.0])
        other = base[2:]   # a view that does not overlap the write keeps its part
        base[:2].zero_()
        np.testing.assert_array_equal(fwAD.unpack_dual(base).tangent.numpy(), [0.0, 0.0, 1.0])
        np.testing.assert_array_equal(fwAD.unpack_dual(other).tangent.numpy(), [1.0])


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_writes_through_views_on_another_device_carry_the_cpu_tangents(device, dtype):
    # before: RuntimeError 'cannot carry its forward-mode tangent' off the host (a real GPU included)
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the stand-in device)

    if device == "strict-f32" and dtype == "float64":
        pytest.skip("strict-f32 refuses float64 arrays")
    for f, want in zip(_through_views(mg), _VIEW_TANGENTS):
        y, dy = mg.func.jvp(f, (t(X, dtype).to(device),), (t(V, dtype).to(device),))
        assert dy.device == y.device and dy.dtype == y.dtype == getattr(mg, dtype)
        on_cpu = mg.func.jvp(f, (t(X, dtype),), (t(V, dtype),))[1].numpy()
        np.testing.assert_array_equal(dy.to("cpu").numpy(), on_cpu, err_msg=f.__name__)
        np.testing.assert_allclose(on_cpu, want, err_msg=f.__name__)
    with fwAD.dual_level():
        base = fwAD.make_dual(mg.zeros(3, dtype=dtype, device=device), mg.ones(3, dtype=dtype, device=device))
        other = base[2:]
        base[:2].mul_(2)
        base[:2].zero_()
        np.testing.assert_array_equal(fwAD.unpack_dual(base).tangent.to("cpu").numpy(), [0.0, 0.0, 1.0])
        np.testing.assert_array_equal(fwAD.unpack_dual(other).tangent.to("cpu").numpy(), [1.0])


def test_writes_through_complex_views_on_another_device_carry_the_cpu_tangents():
    import minigrad_ckpt.testing.strict  # noqa: F401

    z = np.array([1 + 2j, -3 + 0.5j, 2 - 1j, 0.25 + 4j])

    def through_real_views(a):
        x = a * 1
        mg.view_as_real(x)[1:3, 0].mul_(3)   # the real parts of two elements
        x.imag[0] = a.real[3]                # an imaginary part from another element's real part
        return x

    got = {dev: mg.func.jvp(through_real_views, (mg.tensor(z, device=dev),),
                            (mg.tensor(z * 1j, device=dev),))[1].to("cpu").numpy() for dev in ("cpu", "strict")}
    np.testing.assert_array_equal(got["strict"], got["cpu"])
    # the tangent z*1j is [-2+1j, -0.5-3j, 1+2j, -4+0.25j]: the real parts of elements 1 and 2
    # tripled, element 0's imaginary part the real part of element 3's
    np.testing.assert_array_equal(got["cpu"], [-2 - 4j, -1.5 - 3j, 3 + 2j, -4 + 0.25j])
