"""``mg.func``: forward mode (``jvp``) and the function transforms built on it and on backward."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as nnf
from minigrad_ckpt.func import (
    grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linearize,
    value_and_grad,
    vjp,
)
from minigrad_ckpt.grad_mode import forward_mode
from minigrad_ckpt.testing import GradcheckError, gradcheck

RNG = np.random.default_rng(0)


def t64(values):
    return mg.tensor(np.asarray(values, dtype=np.float64))


def f_sin_x(x):
    return mg.sin(x) * x


def test_jvp_is_the_directional_derivative():
    x = t64([0.5, 1.0, -2.0])
    v = t64([1.0, -2.0, 0.5])
    y, dy = jvp(f_sin_x, (x,), (v,))
    xn, vn = x.numpy(), v.numpy()
    np.testing.assert_allclose(y.numpy(), np.sin(xn) * xn, rtol=1e-15)
    np.testing.assert_allclose(dy.numpy(), (np.cos(xn) * xn + np.sin(xn)) * vn, rtol=1e-14)


def test_jvp_records_no_tape():
    x, v = t64([1.0, 2.0]), t64([1.0, 1.0])
    y, dy = jvp(lambda a: mg.exp(a).sum() * a, (x,), (v,))
    assert y.grad_fn is None and dy.grad_fn is None
    assert not y.requires_grad and not dy.requires_grad
    assert y._tangents is None  # the level's tangent does not leak out
    assert forward_mode.active == 0 and not forward_mode.levels


def test_several_arguments_and_outputs_and_constants():
    x, y = t64([1.0, 2.0]), t64([3.0, -1.0])
    vx, vy = t64([1.0, 0.0]), t64([0.5, 2.0])
    c = t64([7.0, 7.0])

    def f(a, b):
        return a * b, a + c, c * 2

    (p, s, k), (dp, ds, dk) = jvp(f, (x, y), (vx, vy))
    np.testing.assert_allclose(dp.numpy(), vx.numpy() * y.numpy() + x.numpy() * vy.numpy())
    np.testing.assert_allclose(ds.numpy(), vx.numpy())
    np.testing.assert_array_equal(dk.numpy(), [0.0, 0.0])  # does not depend on the primals
    np.testing.assert_array_equal(k.numpy(), [14.0, 14.0])


def test_jvp_has_aux_and_errors():
    x = t64([1.0, 2.0])
    y, dy, aux = jvp(lambda a: (a * a, {"note": a + 1}), (x,), (t64([1.0, 1.0]),), has_aux=True)
    np.testing.assert_allclose(aux["note"].numpy(), [2.0, 3.0])
    np.testing.assert_allclose(dy.numpy(), [2.0, 4.0])
    # (the error types are torch.func's, 2.13: RuntimeError, but ValueError for an integer primal)
    with pytest.raises(RuntimeError, match="shape"):
        jvp(f_sin_x, (x,), (t64([1.0]),))
    with pytest.raises(RuntimeError, match="2 primals but 1 tangents"):
        jvp(lambda a, b: a, (x, x), (x,))
    with pytest.raises(ValueError, match="floating"):
        jvp(lambda a: a, (mg.tensor([1, 2]),), (mg.tensor([1, 1]),))
    with pytest.raises(RuntimeError, match="tuple"):
        jvp(f_sin_x, x, x)
    with pytest.raises(RuntimeError, match="Tensor or a tuple of Tensors"):
        jvp(lambda a: 3.0, (x,), (x,))
    assert forward_mode.active == 0


def test_a_failing_function_closes_its_level():
    x = t64([1.0])
    with pytest.raises(ZeroDivisionError):
        jvp(lambda a: 1 / 0, (x,), (x,))
    assert forward_mode.active == 0 and not forward_mode.levels


def test_in_place_change_of_a_dual_carries_its_tangent():
    x = t64([1.0, 2.0])

    def f(a):
        b = a * 2
        b.add_(1.0)
        b.mul_(a)
        return b

    np.testing.assert_allclose(jvp(f, (x,), (t64([1.0, 1.0]),))[1].numpy(), 4 * x.numpy() + 1)


def test_float32_stays_float32():
    x = mg.tensor([1.0, 2.0], dtype="float32")
    y, dy = jvp(lambda a: mg.tanh(a) * 0.5 + a ** 2, (x,), (mg.tensor([1.0, 1.0], dtype="float32"),))
    assert y.dtype == np.float32 and dy.dtype == np.float32
    assert jacfwd(lambda a: mg.exp(a))(x).dtype == np.float32


# ---------------------------------------------------------------------------
# Jacobians, Hessians
# ---------------------------------------------------------------------------
def mlp(x, w, b):
    return mg.tanh(mg.matmul(w, x) + b)


def test_jacfwd_equals_jacrev():
    x = t64(RNG.standard_normal(3))
    w = t64(RNG.standard_normal((4, 3)))
    b = t64(RNG.standard_normal(4))
    for argnums in (0, 1, 2, (0, 2)):
        jf = jacfwd(mlp, argnums)(x, w, b)
        jr = jacrev(mlp, argnums)(x, w, b)
        for a, r in zip(jf if isinstance(argnums, tuple) else (jf,),
                        jr if isinstance(argnums, tuple) else (jr,)):
            np.testing.assert_allclose(a.numpy(), r.numpy(), rtol=1e-13, atol=1e-15)
    j = jacobian(mlp, 1)(x, w, b)
    assert j.shape == (4, 4, 3)
    # d tanh(Wx + b)_i / dW_jk = (1 - y_i^2) delta_ij x_k
    y = mlp(x, w, b).numpy()
    expected = np.einsum("i,ij,k->ijk", 1 - y ** 2, np.eye(4), x.numpy())
    np.testing.assert_allclose(j.numpy(), expected, rtol=1e-13, atol=1e-15)


def test_jacobian_structure_for_several_outputs():
    x, y = t64([1.0, 2.0]), t64([3.0])

    def f(a, b):
        return a * b, (a * a).sum()

    for jac in (jacfwd, jacrev):
        (ja, jb), (ka, kb) = jac(f, (0, 1))(x, y)
        assert ja.shape == (2, 2) and jb.shape == (2, 1) and ka.shape == (2,) and kb.shape == (1,)
        np.testing.assert_allclose(ja.numpy(), np.diag([3.0, 3.0]))
        np.testing.assert_allclose(jb.numpy(), [[1.0], [2.0]])
        np.testing.assert_allclose(ka.numpy(), [2.0, 4.0])
        np.testing.assert_array_equal(kb.numpy(), [0.0])


def rosenbrock(x):
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def rosenbrock_hessian(x):
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 2 - 400 * (x[i + 1] - x[i] ** 2) + 800 * x[i] ** 2
        h[i, i + 1] += -400 * x[i]
        h[i + 1, i] += -400 * x[i]
        h[i + 1, i + 1] += 200
    return h


def test_hessian_is_forward_over_reverse_and_matches_every_composition():
    xv = np.array([0.5, -1.2, 2.0, 0.3])
    x = t64(xv)
    expected = rosenbrock_hessian(xv)
    for h in (hessian(rosenbrock), jacfwd(jacrev(rosenbrock)), jacfwd(jacfwd(rosenbrock)),
              jacrev(jacrev(rosenbrock)), jacrev(jacfwd(rosenbrock))):
        np.testing.assert_allclose(h(x).numpy(), expected, rtol=1e-12, atol=1e-10)


def test_hessian_blocks_and_aux():
    x, y = t64([0.5, -1.0]), t64([2.0])

    def f(a, b):
        return (a * a * b).sum() + (b ** 3).sum(), b * 10

    (hxx, hxy), (hyx, hyy) = hessian(lambda a, b: f(a, b)[0], argnums=(0, 1))(x, y)
    np.testing.assert_allclose(hxx.numpy(), 2 * y.item() * np.eye(2))
    np.testing.assert_allclose(hxy.numpy(), 2 * x.numpy().reshape(2, 1))
    np.testing.assert_allclose(hyx.numpy(), 2 * x.numpy().reshape(1, 2))
    np.testing.assert_allclose(hyy.numpy(), [[6 * y.item()]])
    h, aux = hessian(f, has_aux=True)(x, y)
    assert aux.item() == 20.0
    np.testing.assert_allclose(h.numpy(), hxx.numpy())


def test_hessian_through_intermediates_saved_for_backward():
    # backward of the products reads saved intermediates (sin x, exp x): forward
    # mode over that backward must see how they move, not only the gradient
    xv = np.array([0.3, -0.7, 1.1])
    x = t64(xv)
    h = hessian(lambda a: (mg.sin(a) * mg.exp(a) * mg.sin(a)).sum())(x).numpy()
    d2 = np.exp(xv) * (4 * np.sin(xv) * np.cos(xv) + 2 * np.cos(xv) ** 2 - np.sin(xv) ** 2)
    np.testing.assert_allclose(h, np.diag(d2), rtol=1e-12, atol=1e-14)


def test_hvp_and_linearize():
    xv = np.array([0.5, -1.2, 2.0])
    x, v = t64(xv), t64([1.0, 2.0, -1.0])
    value, (hv,) = hvp(rosenbrock, (x,), (v,))
    np.testing.assert_allclose(value.item(), rosenbrock(x).item())
    np.testing.assert_allclose(hv.numpy(), rosenbrock_hessian(xv) @ v.numpy(), rtol=1e-12)

    calls = []

    def f(a):
        calls.append(1)
        return mg.sin(a) * a, a.sum()

    (y, s), jvp_fn = linearize(f, x)
    assert len(calls) == 1
    for u in (v, t64([0.0, 1.0, 0.0])):
        (dy, ds) = jvp_fn(u)
        (_, (ey, es)) = jvp(f, (x,), (u,))
        np.testing.assert_allclose(dy.numpy(), ey.numpy(), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(ds.numpy(), es.numpy(), rtol=1e-13)
    assert len(calls) == 3  # the two jvp checks above; jvp_fn itself never calls f


# ---------------------------------------------------------------------------
# Reverse-mode transforms
# ---------------------------------------------------------------------------
def test_vjp_grad_value_and_grad():
    x, y = t64([1.0, 2.0]), t64([3.0, 4.0])
    out, vjp_fn = vjp(lambda a, b: (a * b, a), x, y)
    gx, gy = vjp_fn((t64([1.0, 1.0]), t64([0.5, 0.5])))
    np.testing.assert_allclose(gx.numpy(), [3.5, 4.5])
    np.testing.assert_allclose(gy.numpy(), [1.0, 2.0])
    assert not out[0].requires_grad and not gx.requires_grad
    (g_unused,) = vjp(lambda a: t64([1.0]), x)[1](t64([1.0]))
    np.testing.assert_array_equal(g_unused.numpy(), [0.0, 0.0])

    loss = lambda a, b: (a * a * b).sum()  # noqa: E731
    np.testing.assert_allclose(grad(loss)(x, y).numpy(), 2 * x.numpy() * y.numpy())
    gx, gy = grad(loss, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gy.numpy(), x.numpy() ** 2)
    value, g = value_and_grad(loss, argnums=1)(x, y)
    assert value.item() == pytest.approx(19.0)
    (g2, aux) = grad(lambda a: ((a * a).sum(), a + 1), has_aux=True)(x)
    np.testing.assert_allclose(aux.numpy(), x.numpy() + 1)
    with pytest.raises(RuntimeError, match="one-element"):
        grad(lambda a: a * 2)(x)
    with pytest.raises(RuntimeError, match="out of range"):  # (torch.func's type)
        grad(loss, argnums=2)(x, y)


def test_second_and_third_derivatives_by_nesting_grad():
    x = t64(1.3)
    f = lambda a: mg.sin(a) * a  # noqa: E731
    d1, d2, d3 = grad(f), grad(grad(f)), grad(grad(grad(f)))
    xv = 1.3
    assert d1(x).item() == pytest.approx(np.cos(xv) * xv + np.sin(xv), rel=1e-14)
    assert d2(x).item() == pytest.approx(2 * np.cos(xv) - xv * np.sin(xv), rel=1e-14)
    assert d3(x).item() == pytest.approx(-3 * np.sin(xv) - xv * np.cos(xv), rel=1e-14)


def test_no_perturbation_confusion():
    # d/dx [x * d/dy (x + y)] at x = 1 is 1 (Siskind & Pearlmutter): the inner
    # derivative is 1 whatever x is; an engine mixing the two levels says 2
    one = t64(1.0)

    def fwd_outer(x):
        inner = jvp(lambda y: x + y, (one,), (one,))[1]
        return x * inner

    assert jvp(fwd_outer, (one,), (one,))[1].item() == 1.0

    def rev_outer(x):
        return x * grad(lambda y: x + y)(one)

    assert grad(rev_outer)(one).item() == 1.0
    assert jvp(rev_outer, (one,), (one,))[1].item() == 1.0
    assert grad(fwd_outer)(one).item() == 1.0


def test_transforms_compose_with_the_tape():
    # reverse over forward: mg.grad of a jvp result, with inputs that require grad
    x = mg.tensor([0.5, 1.5], dtype="float64", requires_grad=True)
    v = t64([1.0, 1.0])
    _, dy = jvp(lambda a: (a ** 3).sum(), (x,), (v,))
    assert dy.requires_grad
    (g,) = mg.grad(dy, [x])
    np.testing.assert_allclose(g.numpy(), 6 * x.numpy())
    # and a tangent that requires grad: d/dv of J v is J^T
    w = mg.tensor([2.0, -1.0], dtype="float64", requires_grad=True)
    _, dy = jvp(lambda a: mg.exp(a).sum(), (t64([0.0, 1.0]),), (w,))
    (gw,) = mg.grad(dy, [w])
    np.testing.assert_allclose(gw.numpy(), np.exp([0.0, 1.0]))


# ---------------------------------------------------------------------------
# The rest of the engine: no_grad, checkpointing, dropout, devices
# ---------------------------------------------------------------------------
def test_jvp_under_no_grad():
    x = mg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    with mg.no_grad():
        y, dy = jvp(lambda a: a * a, (x,), (t64([1.0, 1.0]),))
        h = hessian(lambda a: (a ** 3).sum())(x)
    assert not y.requires_grad and not dy.requires_grad
    np.testing.assert_allclose(dy.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(h.numpy(), np.diag(6 * x.numpy()))


def test_through_a_checkpointed_segment():
    xv = np.array([0.3, -0.8, 1.2])

    def block(a):
        return mg.tanh(mg.sin(a) * a)

    def f(a):
        return (mg.checkpoint.checkpoint(block, a) ** 2).sum()

    x = t64(xv)
    np.testing.assert_allclose(jvp(f, (x,), (t64([1.0, 0.0, 2.0]),))[1].item(),
                               jvp(lambda a: (block(a) ** 2).sum(), (x,), (t64([1.0, 0.0, 2.0]),))[1].item(),
                               rtol=1e-14)
    h_plain = hessian(lambda a: (block(a) ** 2).sum())(x).numpy()
    h_ckpt = hessian(f)(x).numpy()  # backward replays the segment; forward mode runs over it
    np.testing.assert_allclose(h_ckpt, h_plain, rtol=1e-12, atol=1e-14)


def test_dropout_masks_are_the_same_in_every_column():
    mg.manual_seed(5)
    x = t64(RNG.standard_normal(6))

    def f(a):
        return nnf.dropout(a * a, p=0.5)

    state = mg.get_rng_state()
    jf = jacfwd(f)(x)
    after_fwd = mg.get_rng_state()
    mg.set_rng_state(state)
    jr = jacrev(f)(x)
    assert mg.get_rng_state() == after_fwd  # jacfwd advanced the generator as one call does
    np.testing.assert_allclose(jf.numpy(), jr.numpy(), rtol=1e-15)
    d = np.diag(jf.numpy())
    kept = d != 0
    assert 0 < kept.sum() < 6  # some dropped, some kept
    np.testing.assert_allclose(d[kept], 2 * x.numpy()[kept] * 2.0, rtol=1e-15)


# ---------------------------------------------------------------------------
# gradcheck modes
# ---------------------------------------------------------------------------
class _Scaled(mg.ops.Op):
    """``x * 3`` with a jvp rule that can be made wrong (test-only, not registered)."""

    abstract = True  # keeps it out of the op registry
    name = "Scaled"
    save_inputs = False
    jvp_factor: float = 3.0  # an optional attribute: _Scaled(jvp_factor=...) makes jvp wrong

    def forward(self, xp, x):
        return x * 3.0

    def backward(self, xp, g, out, x):
        return g * 3.0

    def jvp(self, xp, tangents, out, x):
        return tangents[0] * self.jvp_factor


def test_gradcheck_checks_forward_mode():
    x = mg.tensor(RNG.standard_normal(3), requires_grad=True)
    good = _Scaled()
    assert gradcheck(lambda a: mg.tape.apply(good, a), x)
    bad = _Scaled(jvp_factor=3.03)
    assert gradcheck(lambda a: mg.tape.apply(bad, a), x, modes=("rev",))
    with pytest.raises(GradcheckError, match="forward-mode"):
        gradcheck(lambda a: mg.tape.apply(bad, a), x, modes=("fwd",))
    # loose enough for both to pass finite differences: the dot-product test still tells
    with pytest.raises(GradcheckError, match="forward and reverse mode disagree"):
        gradcheck(lambda a: mg.tape.apply(bad, a), x, atol=1e-2, rtol=1e-2)
    with pytest.raises(ValueError, match="modes"):
        gradcheck(lambda a: a * 2, x, modes=("sideways",))
    with pytest.raises(ValueError, match="order"):
        gradcheck(lambda a: a * 2, x, order=3)


def test_gradcheck_order_2_checks_forward_over_reverse():
    x = mg.tensor(RNG.standard_normal(3), requires_grad=True)
    assert gradcheck(lambda a: mg.sin(a) * a, x, order=2)

    class _Square(mg.ops.Op):
        abstract = True
        name = "Square"

        def forward(self, xp, x):
            return x * x

        def backward(self, xp, g, out, x):
            return g * 2 * x

        def jvp(self, xp, tangents, out, x):
            return tangents[0] * 2 * x

    sq = _Square()
    assert gradcheck(lambda a: mg.tape.apply(sq, a), x, order=2)


def test_named_tuple_results_come_back_as_their_type():
    """A function returning a named tuple (slogdet's (sign, logabsdet), a user's own) goes
    through every transform, and the results are that named tuple, as torch.func's: it was a
    leaf, so jvp said 'not a Tensor'.  Values: torch.func.jvp/jacrev of torch.linalg.slogdet
    at a = [[2, 1], [0.5, 3]], t = [[0.1, 0.2], [0.3, -0.4]] (torch 2.13)."""
    from collections import namedtuple

    a, t = t64([[2.0, 1.0], [0.5, 3.0]]), t64([[0.1, 0.2], [0.3, -0.4]])
    out, tan = jvp(mg.linalg.slogdet, (a,), (t,))
    assert type(out) is type(mg.linalg.slogdet(a)) and type(tan) is type(out)
    np.testing.assert_allclose(tan.logabsdet.numpy(), -0.16363636363636364, rtol=1e-14)
    assert float(tan.sign) == 0.0
    jac = jacrev(mg.linalg.slogdet)(a)
    np.testing.assert_allclose(jac.logabsdet.numpy(), [[6 / 11, -1 / 11], [-2 / 11, 4 / 11]], rtol=1e-14)
    pair = namedtuple("Pair", "first second")
    out, pull = vjp(lambda x: pair(x * 2, {"s": x.sum()}), a)
    assert type(out) is pair and list(out.second) == ["s"]
    (g,) = pull(pair(mg.ones_like(a), {"s": t64(3.0)}))
    np.testing.assert_array_equal(g.numpy(), np.full((2, 2), 5.0))
    with pytest.raises(RuntimeError, match=r"output\.first"):
        grad(lambda x: pair(1.0, x.sum()))(a)


def test_turning_off_requires_grad_of_a_transform_argument_is_refused():
    # torch.func.grad(lambda a: (a.requires_grad_(False) * 2).sum())(x) raises; mg gave a silent zero gradient
    x = t64([1.0, 2.0])
    for transform in (grad(lambda a: (a.requires_grad_(False) * 2).sum()),
                      jacrev(lambda a: a.requires_grad_(False) * 2)):
        with pytest.raises(RuntimeError, match="inside of a function being transformed"):
            transform(x)
    np.testing.assert_array_equal(grad(lambda a: (a.detach().requires_grad_(False) + a).sum())(x).numpy(), [1, 1])
    x.requires_grad_(True)
    x.requires_grad_(False)   # outside a transform, as before
