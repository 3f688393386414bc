"""Operators right at their edges: huge and infinite arguments, real ``ddof``, negative
arguments of the special functions, empty matrices and axes, 0-d tensors under PyTorch's
``dim=``, and the keyword arguments people pass.  Expected values are the mathematical ones
(checked against SciPy/NumPy where those are right, and against PyTorch's answers, recorded
here as numbers)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck, gradgradcheck

F = mg.nn.functional
sp = pytest.importorskip("scipy.special")


def _grad(fn, *values, dtype="float64"):
    ts = [mg.tensor(v, dtype=dtype, requires_grad=True) for v in values]
    return [g.item() if g.ndim == 0 else g.numpy() for g in mg.grad(fn(*ts), ts)]


# ------------------------------------------------------------------- wrong answers
def test_var_and_std_take_a_real_ddof():
    x = np.random.default_rng(0).standard_normal((5, 5, 5))
    t = mg.tensor(x, requires_grad=True)
    assert mg.var(t, ddof=1.3).item() == pytest.approx(np.var(x, ddof=1.3), rel=1e-14)
    np.testing.assert_allclose(mg.std(t, axis=1, ddof=0.5).numpy(), np.std(x, axis=1, ddof=0.5), rtol=1e-14)
    assert t.var(correction=1.3).item() == pytest.approx(np.var(x, ddof=1.3), rel=1e-14)
    g = mg.grad(mg.var(t, ddof=1.3), [t])[0].numpy()
    np.testing.assert_allclose(g, 2 * (x - x.mean()) / (x.size - 1.3), rtol=1e-12)
    assert gradcheck(lambda a: mg.std(a, axis=0, ddof=0.7), (mg.tensor(x[0], requires_grad=True),))
    with pytest.raises(TypeError, match="ddof must be a number"):
        mg.var(t, ddof="1")


@pytest.mark.parametrize("x", [-0.5, -1.3, -2.7, -0.01, -10.25])
def test_the_derivative_of_digamma_is_right_below_zero(x):
    (g,) = _grad(mg.special.digamma, x)
    assert g == pytest.approx(sp.polygamma(1, x), rel=1e-9)
    assert mg.special.polygamma(2, mg.tensor(x, dtype="float64")).item() == pytest.approx(sp.polygamma(2, x), rel=1e-8)
    assert gradgradcheck(mg.special.gammaln, (mg.tensor([x], dtype="float64", requires_grad=True),))


def test_digamma_derivative_at_minus_one_half_and_the_poles():
    assert _grad(mg.special.digamma, -0.5)[0] == pytest.approx(8.934802200544679, rel=1e-12)  # pi^2 - psi1(1.5)
    poles = mg.special.polygamma(1, mg.tensor([0.0, -1.0, -2.0], dtype="float64")).numpy()
    assert np.all(np.isinf(poles))


@pytest.mark.parametrize("dtype, huge", [("float64", [5.8e39, 1e300, 5.5e61]), ("float32", [3.5e5, 5.8e7, 1e38])])
def test_erf_erfc_and_gelu_are_finite_for_huge_arguments(dtype, huge):
    x = np.array(huge + [np.inf, -np.inf] + [-h for h in huge], dtype=dtype)
    t = mg.tensor(x)
    np.testing.assert_array_equal(mg.erf(t).numpy(), np.sign(x))
    np.testing.assert_array_equal(mg.special.erfc(t).numpy(), np.where(x > 0, 0.0, 2.0))
    g = F.gelu(mg.tensor(np.array(huge, dtype=dtype)))
    np.testing.assert_array_equal(g.numpy(), np.array(huge, dtype=dtype))
    assert F.gelu(mg.tensor(np.array([-huge[0]], dtype=dtype))).item() == 0.0
    assert np.isnan(mg.erf(mg.tensor([np.nan])).item())
    assert mg.special.erfc(mg.tensor(27.0, dtype="float64")).item() == pytest.approx(sp.erfc(27.0), rel=1e-10)


@pytest.mark.parametrize("fn", [mg.logaddexp, mg.logaddexp2])
def test_logaddexp_gradients_are_exact_at_any_magnitude(fn):
    assert _grad(fn, 1e20, 1e20) == [0.5, 0.5]
    assert _grad(fn, 1e4, 1e4, dtype="float32") == [0.5, 0.5]
    assert _grad(fn, -np.inf, -np.inf) == [0.0, 0.0] and _grad(fn, np.inf, 1.0) == [1.0, 0.0]
    gx, gy = _grad(fn, 1e20 + 2**44, 1e20)
    assert gx + gy == pytest.approx(1.0) and gx > gy
    args = (mg.tensor([0.3, -1.2, 2.0], dtype="float64", requires_grad=True),
            mg.tensor([1.1, -0.4, 2.0], dtype="float64", requires_grad=True))
    assert gradcheck(fn, args) and gradgradcheck(fn, args)


def test_prelu_keeps_a_0d_input_0d_and_takes_a_0d_weight():
    assert F.prelu(mg.tensor(-2.0), mg.tensor([0.25])).shape == ()
    assert F.prelu(mg.tensor([-2.0, 3.0]), mg.tensor(0.25)).tolist() == [-0.5, 3.0]
    assert F.prelu(mg.ones(2, 3, 4) * -1, mg.tensor([0.1, 0.2, 0.3])).shape == (2, 3, 4)
    with pytest.raises(ValueError, match="one per channel"):
        F.prelu(mg.ones(2, 3), mg.tensor([0.1, 0.2]))


# --------------------------------------------------------- errors on valid input
def test_linalg_on_empty_matrices():
    z = mg.zeros(0, 0, dtype="float64", requires_grad=True)
    w, v = mg.linalg.eigh(z)
    assert w.shape == (0,) and v.shape == (0, 0)
    assert mg.linalg.eigvalsh(z).shape == (0,) and mg.linalg.svdvals(z).shape == (0,)
    u, s, vh = mg.linalg.svd(z)
    assert u.shape == (0, 0) and s.shape == (0,) and vh.shape == (0, 0)
    for ord in ("nuc", 2, "fro"):
        assert mg.linalg.norm(z, ord).item() == 0.0
    (w.sum() + v.sum()).backward()
    assert z.grad.shape == (0, 0)
    assert mg.linalg.svd(mg.zeros(3, 0, dtype="float64")).U.shape == (3, 3)


def test_eigvalsh_and_svdvals():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(mg.linalg.eigvalsh(mg.tensor(a)).numpy(), np.linalg.eigvalsh(a), rtol=1e-14)
    np.testing.assert_allclose(mg.linalg.svdvals(mg.tensor(a)).numpy(), np.linalg.svd(a, compute_uv=False))
    t = mg.tensor(2 * np.eye(2), requires_grad=True)
    mg.linalg.eigvalsh(t).sum().backward()  # defined at repeated eigenvalues: the trace's gradient
    np.testing.assert_allclose(t.grad.numpy(), np.eye(2), atol=1e-15)


def test_logsumexp_over_an_empty_axis_is_minus_infinity():
    z = mg.zeros(0, 3, dtype="float64", requires_grad=True)
    r = mg.logsumexp(z, axis=0)
    assert r.numpy().tolist() == [-np.inf] * 3
    r.sum().backward()
    assert z.grad.shape == (0, 3)
    assert mg.logsumexp(mg.zeros(0)).item() == -np.inf
    assert mg.special.logsumexp(mg.zeros(2, 0), axis=1).numpy().tolist() == [-np.inf, -np.inf]


def test_group_norm_of_an_empty_batch_and_tensordot_broadcasting_a_length_one_axis():
    assert F.group_norm(mg.zeros(0, 4, 3), 2).shape == (0, 4, 3)
    a = mg.ones(2, 3, requires_grad=True)
    b = mg.tensor(np.arange(4.0).reshape(1, 4), requires_grad=True)
    out = mg.tensordot(a, b, axes=([0], [0]))                     # PyTorch broadcasts b's length-1 axis
    np.testing.assert_array_equal(out.numpy(), 2 * np.arange(4.0)[None].repeat(3, 0))
    out.sum().backward()
    assert b.grad.tolist() == [[6.0, 6.0, 6.0, 6.0]]
    with pytest.raises(ValueError, match="shape mismatch"):
        mg.tensordot(mg.ones(2, 3), mg.ones(3, 4), axes=([0], [0]))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_modes_and_negative_widths_crop(mode):
    x = mg.tensor(np.arange(12.0).reshape(1, 3, 4), requires_grad=True)
    want = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    out = F.pad(x, (1, 2, 2, 1), mode=mode)
    np.testing.assert_array_equal(out.numpy(), np.pad(x.numpy(), ((0, 0), (2, 1), (1, 2)), mode=want))
    assert gradcheck(lambda t: F.pad(t, (1, 2, 2, 1), mode=mode), (mg.tensor(np.arange(12.0).reshape(1, 3, 4),
                                                                             requires_grad=True),))
    assert F.pad(mg.ones(3, 4), (-1, -1)).shape == (3, 2) and F.pad(mg.ones(3, 4), (1, -2)).shape == (3, 3)
    assert F.pad(mg.ones(2), (1, 1), value=5.0).tolist() == [5.0, 1.0, 1.0, 5.0]
    with pytest.raises(ValueError, match="mode must be"):
        F.pad(x, (1, 1), mode="mirror")


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "cumsum", "cumprod", "argmax", "argmin",
                                  "squeeze", "flip", "var", "std"])  # (logsumexp: SciPy's answers both)
@pytest.mark.parametrize("dim", [0, -1])
def test_a_0d_tensor_takes_dim_0_and_minus_1_with_pytorchs_spelling(name, dim):
    z = mg.tensor(2.0, dtype="float64", requires_grad=True)
    out = getattr(mg, name)(z, dim=dim)
    assert out.shape == ()
    with pytest.raises(ValueError, match="out of bounds"):
        getattr(mg, name)(z, axis=dim)                            # NumPy's spelling keeps NumPy's rule


def test_0d_softmax_transpose_and_sort_with_a_dim():
    z = mg.tensor(2.0)
    assert F.softmax(z, dim=0).item() == 1.0 and z.softmax(-1).item() == 1.0 and F.log_softmax(z, dim=0).item() == 0
    assert z.transpose(0, -1).item() == 2.0 and z.sort(0).indices.item() == 0 and mg.max(z, dim=0).values.item() == 2
    assert mg.take(z, mg.tensor(0), dim=0).shape == ()
    assert math.isnan(mg.var(mg.tensor(2.0), dim=0).item())     # one element, Bessel's correction: as PyTorch


# ------------------------------------------------------------ keyword arguments people pass
def test_division_rounding_modes_and_alpha():
    a, b = mg.tensor([7.0, -7.0]), mg.tensor([2.0, 2.0])
    assert mg.divide(a, b, rounding_mode="trunc").tolist() == [3.0, -3.0]
    assert mg.divide(a, b, rounding_mode="floor").tolist() == [3.0, -4.0]
    assert mg.divide(a, b).tolist() == [3.5, -3.5] and a.div(b, rounding_mode="floor").tolist() == [3.0, -4.0]
    assert mg.add(a, b, alpha=2).tolist() == [11.0, -3.0] and mg.subtract(a, b, alpha=0.5).tolist() == [6.0, -8.0]
    with pytest.raises(ValueError, match="rounding_mode"):
        mg.divide(a, b, rounding_mode="round")


def test_logit_eps_solve_triangular_left_and_to_keywords():
    p = mg.tensor([0.0, 0.5, 1.0], dtype="float64")
    np.testing.assert_allclose(mg.special.logit(p, eps=1e-6).numpy(), [math.log(1e-6 / (1 - 1e-6)), 0.0,
                                                                         math.log((1 - 1e-6) / 1e-6)], rtol=1e-9)
    t = np.array([[2.0, 0.0], [1.0, 3.0]])
    b = np.array([[1.0, 2.0], [3.0, 4.0]])
    x = mg.linalg.solve_triangular(mg.tensor(t), mg.tensor(b), upper=False, left=False)
    np.testing.assert_allclose(x.numpy() @ t, b, rtol=1e-12)
    x2 = mg.linalg.solve_triangular(mg.tensor(t), mg.tensor(b), lower=True)
    np.testing.assert_allclose(t @ x2.numpy(), b, rtol=1e-12)
    y = mg.tensor([1.0, 2.0])
    assert y.to(copy=True) is not y and y.to(copy=True).tolist() == [1.0, 2.0] and y.to("cpu") is y
    assert y.to(mg.float64, non_blocking=True, memory_format=None).dtype == np.float64


def test_index_add_of_broadcast_values_gives_the_values_shaped_gradient():
    # values broadcast against the indexed positions (a row added to three rows): the gradient
    # of the values is summed back to their shape, in first and second order
    rows = np.array([0, 2, 2])
    v = mg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    w = mg.tensor(np.arange(8.0).reshape(4, 2))
    out = mg.functional.indexing.index_add((4, 2), (rows,), v)
    np.testing.assert_array_equal(out.numpy(), [[1, 2], [0, 0], [2, 4], [0, 0]])
    (g,) = mg.grad((out * w).sum(), [v], create_graph=True)
    np.testing.assert_array_equal(g.numpy(), w.numpy()[rows].sum(0))
    (g * v).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), w.numpy()[rows].sum(0))
    assert mg.testing.gradcheck(lambda a: mg.functional.indexing.index_add((4, 2), (rows,), a), (v,))
