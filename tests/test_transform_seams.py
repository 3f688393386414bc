"""Where the function transforms meet the rest of the engine: checkpointing, closures, in-place writes.

Each test is a whole program that crosses a seam -- a backward pass run
*inside* a checkpointed function, a transform of a function that closes over
what another part made -- checked against float64 central differences, or
against the same program without the seam (``checkpoint`` replaced by a plain
call), which must give bit for bit the same numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_func_closures import central_jacobian, t64

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import func as F

X0 = np.array([0.3, 0.5, -0.2])
W0 = np.array([0.7, -0.4, 0.9])


# ---------------------------------------------------------------------------
# A backward pass inside a checkpointed function
# ---------------------------------------------------------------------------
# The segment is still recording when the inner backward needs the saved values
# it dropped: they are replayed from what it recorded so far, and nothing is freed
# that the backward of the segment's result needs afterwards.
WRAPPERS = {
    "plain": lambda f, *a: f(*a),
    "checkpoint": lambda f, *a: ck.checkpoint(f, *a),
    "nested checkpoints": lambda f, *a: ck.checkpoint(lambda *b: ck.checkpoint(f, *b) * 1.0, *a),
    "a closed checkpoint before the grad": lambda f, *a: ck.checkpoint(
        lambda x, w: f(ck.checkpoint(lambda t: mg.sin(t) + t, x) - mg.sin(x), w), *a),
    "remat, saving nothing": lambda f, *a: ck.remat(f)(*a),
    "remat, saving everything": lambda f, *a: ck.remat(f, ck.save_everything)(*a),
}


def _grads_inside(x, w):
    """A gradient and a gradient of a gradient taken inside, closing over ``w``."""
    h = lambda a: (mg.sin(a * w) * mg.exp(a)).sum()  # noqa: E731
    g = F.grad(h)(x)
    gg = F.grad(lambda a: (F.grad(h)(a) ** 2).sum())(x)
    return mg.tanh(g * w) + gg * x


def _mg_grad_inside(x, w):
    y = mg.sin(x * w) * x
    (g,) = mg.grad(y.sum(), [x], create_graph=True)
    (h,) = mg.grad((mg.exp(x) * w).sum(), [x], retain_graph=True)  # no graph: a constant from here on
    return g * w + h * x


def _backward_inside(x, w):
    p = mg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    (mg.sin(x.detach() * p) ** 2).sum().backward()
    return x * p.grad * w


@pytest.mark.parametrize("wrap", WRAPPERS)
@pytest.mark.parametrize("body", [_grads_inside, _mg_grad_inside, _backward_inside])
def test_a_backward_pass_inside_a_checkpointed_function(wrap, body):
    """The reproducer: ``mg.func.grad`` (or ``mg.grad``, or ``.backward()``) called in a
    checkpointed function met the dropped saved values and failed with a TypeError."""
    x, w = t64(X0, True), t64(W0, True)
    out = WRAPPERS[wrap](body, x, w)
    xr, wr = t64(X0, True), t64(W0, True)
    ref = body(xr, wr)
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    (out ** 2).sum().backward()
    (ref ** 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), xr.grad.numpy())
    np.testing.assert_array_equal(w.grad.numpy(), wr.grad.numpy())


@pytest.mark.parametrize("wrap", ["checkpoint", "nested checkpoints", "remat, saving nothing"])
def test_second_derivatives_through_a_segment_that_took_a_gradient(wrap):
    x, w = t64(X0, True), t64(W0, True)
    out = WRAPPERS[wrap](_grads_inside, x, w)
    (gx,) = mg.grad(out.sum(), [x], create_graph=True)
    (gw,) = mg.grad((gx ** 2).sum(), [w])
    xr, wr = t64(X0, True), t64(W0, True)
    (gxr,) = mg.grad(_grads_inside(xr, wr).sum(), [xr], create_graph=True)
    (gwr,) = mg.grad((gxr ** 2).sum(), [wr])
    np.testing.assert_allclose(gw.numpy(), gwr.numpy(), rtol=1e-12, atol=1e-12)


def test_jacobians_of_a_function_whose_checkpointed_segment_takes_a_gradient():
    def f(x):  # d/db sum(sin(b) b^2), times x: the segment runs a backward pass in its forward
        return ck.checkpoint(lambda a: F.grad(lambda b: (mg.sin(b) * b ** 2).sum())(a) * a, x)

    def f_np(b):
        return (np.cos(b) * b ** 2 + 2 * b * np.sin(b)) * b

    want = central_jacobian(f_np, X0)
    np.testing.assert_allclose(F.jacrev(f)(t64(X0)).numpy(), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(F.jacfwd(f)(t64(X0)).numpy(), want, rtol=1e-6, atol=1e-7)
    hess = central_jacobian(lambda a: central_jacobian(lambda b: f_np(b).sum(), a, 1e-5), X0, 1e-4)
    np.testing.assert_allclose(F.hessian(lambda x: f(x).sum())(t64(X0)).numpy(), hess, rtol=1e-4, atol=1e-5)


def test_a_backward_without_retain_graph_inside_frees_only_what_it_went_through():
    """As without checkpointing: the nodes it passed are freed (a second backward through
    them is an error), the rest of the segment stays for the backward of its result."""
    x = t64(X0, True)

    def body(a):
        y = mg.sin(a) * a
        (g,) = mg.grad(y.sum(), [a])
        z = mg.exp(a) * g
        return z, y

    z, y = ck.checkpoint(body, x)
    z.sum().backward()  # the exp and the product after the inner backward: still replayable
    np.testing.assert_allclose(x.grad.numpy(), np.exp(X0) * (np.cos(X0) * X0 + np.sin(X0)))
    with pytest.raises(RuntimeError, match="second time"):
        y.sum().backward()


# ---------------------------------------------------------------------------
# Forward mode through in-place writes, on the strict stand-in devices
# ---------------------------------------------------------------------------
# ``t[index] = value`` inside jvp computed the written region's size on the device
# (``int(xp.prod(xp.asarray(shape)))``): an implicit read of device memory, and a
# float64 array on a float32-only device; and a write into an empty region (a mask
# that selects nothing, an empty slice) failed with an IndexError.  Every write, on
# every device, must give the tangent the CPU gives, and that central differences give.
WRITES = {
    "an element": lambda y, x: y.__setitem__(1, x[4]),
    "a slice": lambda y, x: y.__setitem__(slice(0, 2), x[4:]),
    "an index tensor, twice": lambda y, x: y.__setitem__(_index(x, [2, 2]), x[4:]),
    "a mask": lambda y, x: y.__setitem__(y > 0.25, x[5]),
    "a mask that selects nothing": lambda y, x: y.__setitem__(y > 5.0, x[5]),
    "an empty slice": lambda y, x: y.__setitem__(slice(1, 1), x[5]),
    "a constant": lambda y, x: y.__setitem__(0, 1.5),
    "everything": lambda y, x: y.__setitem__(Ellipsis, x[3:]),
    "index_put_": lambda y, x: y.index_put_((_index(x, [0, 2]),), x[4:]),
    "masked_fill_": lambda y, x: y.masked_fill_(_index(x, [True, False, True]), x[5]),
    "mul_": lambda y, x: y.mul_(x[:3]),
    "clamp_": lambda y, x: y.clamp_(min=x[3:]),
}


def _index(like, values):
    return mg.tensor(np.array(values), device=like.device)


def _written(write, x):
    y = x[:3] * x[3:]
    write(y, x)
    return y * 1.0


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("write", WRITES)
def test_in_place_writes_carry_tangents_on_every_device(device, write):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the devices)

    x0 = np.array([0.3, 0.8, 0.45, 0.6, 0.35, 0.7], dtype=np.float32)
    v0 = np.array([1.0, -0.5, 0.25, 2.0, -1.0, 0.5], dtype=np.float32)
    fn = lambda x: _written(WRITES[write], x)  # noqa: E731
    y, dy = F.jvp(fn, (mg.tensor(x0, device=device),), (mg.tensor(v0, device=device),))
    ycpu, dycpu = F.jvp(fn, (mg.tensor(x0),), (mg.tensor(v0),))
    assert dy.device == y.device == mg.tensor(x0, device=device).device and dy.dtype == np.float32
    np.testing.assert_allclose(dy.numpy(), dycpu.numpy(), rtol=1e-6, atol=1e-6)
    want = central_jacobian(lambda a: _written(WRITES[write], t64(a)).numpy(), x0.astype(np.float64)) @ v0
    np.testing.assert_allclose(dycpu.numpy(), want, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------
# Complex numbers: refused where a transform would silently drop a part
# ---------------------------------------------------------------------------
# jacrev of a holomorphic function gave conj(J) (reverse mode's gradient convention)
# where jacfwd gave J; jacrev of a real-to-complex function kept only the real part
# of each column; a complex tangent or cotangent for a real value lost its imaginary
# part with only a NumPy warning.  Each is now a TypeError that says what to use.
Z0 = np.array([0.3 + 0.2j, -0.5 + 1.0j])


@pytest.mark.parametrize("jac", [F.jacfwd, F.jacrev])
@pytest.mark.parametrize("case", ["complex to complex", "real to complex", "complex to real", "in a pytree"])
def test_jacobians_of_complex_inputs_or_outputs_are_refused(jac, case):
    x, z = t64(X0[:2]), mg.tensor(Z0)
    f, args = {
        "complex to complex": (lambda z: mg.sin(z) * z, (z,)),
        "real to complex": (lambda x: mg.exp(x * 1j), (x,)),
        "complex to real": (lambda z: mg.abs(z) ** 2, (z,)),
        "in a pytree": (lambda d: d["a"] * mg.abs(d["b"]), ({"a": x, "b": z},)),
    }[case]
    with pytest.raises(TypeError, match=r"complex \(complex128\).*jvp .*vjp"):
        jac(f)(*args)


def test_the_hessian_of_a_real_function_of_complex_numbers_is_refused():
    with pytest.raises(TypeError, match="complex"):
        F.hessian(lambda z: (mg.abs(z) ** 2).sum())(mg.tensor(Z0))


def test_a_real_function_with_complex_values_inside_still_has_a_jacobian():
    def f(x):
        return mg.real(mg.exp(x * 1j) * (1 + 2j)) * x

    def f_np(x):
        return np.real(np.exp(x * 1j) * (1 + 2j)) * x

    want = central_jacobian(f_np, X0)
    np.testing.assert_allclose(F.jacrev(f)(t64(X0)).numpy(), want, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(F.jacfwd(f)(t64(X0)).numpy(), want, rtol=1e-7, atol=1e-9)


def test_a_complex_tangent_or_cotangent_for_a_real_value_is_refused():
    x = t64(X0)
    v = mg.tensor(X0 + 1j)
    with pytest.raises(TypeError, match="tangents 0 is complex .* primal is real"):
        F.jvp(mg.sin, (x,), (v,))
    with pytest.raises(TypeError, match="cotangents 0 is complex .* output is real"):
        F.vjp(mg.sin, x)[1](v)
    with pytest.raises(TypeError, match="tangents 0 is complex"):
        F.linearize(mg.sin, x)[1](v)
    with pytest.raises(TypeError, match="tangents 0 is complex"):
        F.hvp(lambda t: mg.sin(t).sum(), (x,), (v,))
    # a real tangent for a complex primal is exact, and works
    _, dz = F.jvp(lambda z: z * z, (mg.tensor(Z0),), (t64([1.0, 0.0]),))
    np.testing.assert_allclose(dz.numpy(), [2 * Z0[0], 0.0])


# ---------------------------------------------------------------------------
# Tensors passed to nn.functional: none is a silent constant
# ---------------------------------------------------------------------------
# F.batch_norm / F.instance_norm in evaluation detached the running statistics: a
# mean or variance that requires grad, or carries a tangent (an argument of jvp, a
# parameter the function closes over), got a zero derivative without a word.
def _eval_norms():
    import minigrad_ckpt.nn.functional as NF

    return {
        "batch_norm": lambda x, m, v: NF.batch_norm(x, m, v, t64([1.5, 0.5, 2.0]), t64([0.1, 0.2, 0.3])),
        "instance_norm": lambda x, m, v: NF.instance_norm(x[..., None], m, v, use_input_stats=False)[..., 0],
    }


@pytest.mark.parametrize("norm", ["batch_norm", "instance_norm"])
@pytest.mark.parametrize("which", [1, 2])
def test_running_statistics_in_evaluation_are_differentiated(norm, which):
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((4, 3)), rng.standard_normal(3), rng.uniform(0.5, 1.5, 3)]
    u = t64(rng.standard_normal((4, 3)))
    fn = _eval_norms()[norm]

    def normalized(x, stat):  # the statistic ``which`` replaced by ``stat``
        args = [x] + [t64(a) for a in arrays[1:]]
        args[which] = stat
        return fn(*args)

    def of(stat):
        return normalized(t64(arrays[0]), stat)

    jac = central_jacobian(lambda a: of(t64(a)).numpy(), arrays[which])
    v = rng.standard_normal(3)
    np.testing.assert_allclose(F.jvp(of, (t64(arrays[which]),), (t64(v),))[1].numpy(), jac @ v, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(F.jacrev(of)(t64(arrays[which])).numpy(), jac, rtol=1e-6, atol=1e-8)

    def penalty(stat):  # closes over the statistic: the gradient of a gradient penalty reaches it
        g = F.grad(lambda x: (normalized(x, stat) ** 2 * u).sum())(t64(arrays[0]))
        return (g ** 2).sum()

    stat = t64(arrays[which], requires_grad=True)
    penalty(stat).backward()
    want = central_jacobian(lambda a: penalty(t64(a)).numpy(), arrays[which])
    np.testing.assert_allclose(stat.grad.numpy(), want, rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------------------
# A value changed in place between a recorded backward and a second one
# ---------------------------------------------------------------------------
# A recorded backward (create_graph) wraps each saved array in a Tensor of its own; the
# second-order nodes watched those wrappers' versions, not the original tensors'.  A
# second backward that never reaches the first-order node -- with respect to the
# cotangent, as linearize's product is -- silently used the changed values.
def test_linearize_after_a_closed_over_tensor_changed_in_place_is_refused():
    w = t64([1.0, 2.0])
    _, jvp_fn = F.linearize(lambda x: mg.sin(x * w) * w, t64([0.5, 0.7]))
    np.testing.assert_allclose(jvp_fn(t64([1.0, 1.0])).numpy(), np.cos([0.5, 1.4]) * [1.0, 4.0])
    w.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        jvp_fn(t64([1.0, 1.0]))


def test_a_second_backward_with_respect_to_the_cotangent_sees_in_place_changes():
    w = t64([1.0, 2.0])
    x = t64([0.5, 0.7], True)
    u = t64([1.0, 1.0], True)
    (g,) = mg.grad(mg.sin(x * w) * w, [x], grad_outputs=[u], create_graph=True)
    (d,) = mg.grad(g.sum(), [u], retain_graph=True)  # before the change: the derivative
    np.testing.assert_allclose(d.numpy(), np.cos([0.5, 1.4]) * [1.0, 4.0])
    w.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        mg.grad(g.sum(), [u])


# ---------------------------------------------------------------------------
# A gradient hook registered inside a transform belongs to that transform
# ---------------------------------------------------------------------------
# ``h.register_hook(fn)`` in the function changes the gradient the transform computes.
# jacrev(grad(f)) differentiates that gradient as a function of x; its backward went
# through the same node and applied ``fn`` again (torch.func applies it once, and so
# did mg's own hessian, forward over reverse).
def _hooked(x):
    h = mg.sin(x)
    h.register_hook(lambda g: g * 3)
    return (h * x).sum()


def test_a_hook_inside_an_inner_transform_does_not_fire_in_the_outer_one():
    x = t64(X0)
    g = F.grad(_hooked)(x)  # the hook triples d/dh: 3 x cos x + sin x
    np.testing.assert_allclose(g.numpy(), 3 * X0 * np.cos(X0) + np.sin(X0))
    want = np.diag(4 * np.cos(X0) - 3 * X0 * np.sin(X0))
    np.testing.assert_allclose(F.jacrev(F.grad(_hooked))(x).numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(F.jacfwd(F.grad(_hooked))(x).numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(F.hessian(_hooked)(x).numpy(), want, rtol=1e-12, atol=1e-12)
    xr = t64(X0, True)
    F.grad(_hooked)(xr).sum().backward()  # the tape's own backward of the gradient: the same
    np.testing.assert_allclose(xr.grad.numpy(), np.diag(want), rtol=1e-12, atol=1e-12)
