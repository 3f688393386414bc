"""More elementwise functions (``rsqrt``, ``copysign``, ``fmax``, ``lerp``, ``nan_to_num``,
``floor_divide``/``//``, the float-class tests, ...), NaN-aware and paired reductions, ``cov``/
``corrcoef``, and differences and integrals (``diff``, ``gradient``, ``trapezoid``): values
against NumPy and SciPy, gradients in both modes and to second order, the strict device, the
methods and the errors.  PyTorch's answers are in ``test_operators_vs_torch.py``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.integrate
from operator_checks import check_everywhere

import minigrad_ckpt as mg

rng = np.random.default_rng(11)
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 1e308, -5e-324])


def test_float_classes_and_nan_to_num_match_numpy():
    t = mg.tensor(SPECIALS)
    for name in ("isinf", "isposinf", "isneginf", "signbit", "isnan", "isfinite"):
        np.testing.assert_array_equal(getattr(mg, name)(t).numpy(), getattr(np, name)(SPECIALS), err_msg=name)
        np.testing.assert_array_equal(getattr(t, name)().numpy(), getattr(np, name)(SPECIALS), err_msg=name)
    np.testing.assert_array_equal(mg.nan_to_num(t).numpy(), np.nan_to_num(SPECIALS))
    np.testing.assert_array_equal(mg.nan_to_num(t, 1.0, 2.0, -2.0).numpy(), np.nan_to_num(SPECIALS, nan=1.0,
                                                                                         posinf=2.0, neginf=-2.0))
    f32 = np.array([np.nan, np.inf, -np.inf, 0.0, -1.5], np.float32)
    np.testing.assert_array_equal(mg.nan_to_num(mg.tensor(f32)).numpy(), np.nan_to_num(f32))
    x = mg.tensor(SPECIALS, requires_grad=True)
    mg.nan_to_num(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


def test_floor_divide_is_numpys_and_its_derivative_is_zero():
    x, y = rng.standard_normal(200) * 5, rng.standard_normal(200) * 2
    y[::17], x[::13], y[::11], x[::11] = 0.0, 0.0, 0.1, 1.0
    with np.errstate(all="ignore"):
        want = np.floor_divide(x, y)
    got = (mg.tensor(x) // mg.tensor(y)).numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    assert (mg.tensor([1.0]) // 0.1).item() == 9.0 and (7 // mg.tensor([2.0, -2.0])).tolist() == [3.0, -4.0]
    assert (mg.tensor([7, -7]) // 2).tolist() == [3, -4] and (mg.tensor([7]) // 2).dtype == mg.int64
    t = mg.tensor([1.5, -2.5], requires_grad=True)
    (t // 0.7).sum().backward()
    assert t.grad.tolist() == [0.0, 0.0]
    with pytest.raises(ZeroDivisionError, match="integer division by zero"):
        mg.tensor([1, 2]) // mg.tensor([1, 0])


def test_elementwise_functions_match_numpy_and_differentiate():
    x, y = rng.standard_normal(7), rng.standard_normal(7)
    pos = np.abs(x) + 0.2
    pairs = [(mg.rsqrt(mg.tensor(pos)), 1 / np.sqrt(pos)), (mg.frac(mg.tensor(3 * x)), np.fmod(3 * x, 1)),
             (mg.deg2rad(mg.tensor(x)), np.deg2rad(x)), (mg.rad2deg(mg.tensor(x)), np.rad2deg(x)),
             (mg.ldexp(mg.tensor(x), mg.tensor([1, 2, 3, -1, 0, 4, 2])), np.ldexp(x, [1, 2, 3, -1, 0, 4, 2])),
             (mg.copysign(mg.tensor(x), mg.tensor(y)), np.copysign(x, y)),
             (mg.copysign(mg.tensor(x), -0.0), np.copysign(x, -0.0)),
             (mg.lerp(mg.tensor(x), mg.tensor(y), 0.3), x + 0.3 * (y - x)),
             (mg.heaviside(mg.tensor([-1.0, 0.0, 2.0, np.nan]), 0.5), np.heaviside([-1.0, 0.0, 2.0, np.nan], 0.5)),
             (mg.nextafter(mg.tensor(x), mg.tensor(y)), np.nextafter(x, y)),
             (mg.xlogy(mg.tensor(x), mg.tensor(pos)), x * np.log(pos))]
    for got, want in pairs:
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)
    a, b = np.array([1.0, np.nan, 3.0, np.nan]), np.array([2.0, 1.0, np.nan, np.nan])
    np.testing.assert_array_equal(mg.fmax(mg.tensor(a), mg.tensor(b)).numpy(), np.fmax(a, b))
    np.testing.assert_array_equal(mg.fmin(mg.tensor(a), mg.tensor(b)).numpy(), np.fmin(a, b))
    check_everywhere(mg.rsqrt, pos)
    check_everywhere(mg.frac, x + 0.01)
    check_everywhere(lambda t, e: mg.ldexp(t, e), x, y)
    check_everywhere(lambda t, u: mg.copysign(t, u), x, y)
    check_everywhere(lambda t, u: mg.fmax(t, u), x, y)
    check_everywhere(lambda t, u: mg.fmin(t, u), x, y)
    check_everywhere(lambda t, u, w: mg.lerp(t, u, w), x, y, np.linspace(0.05, 0.95, 7))
    check_everywhere(lambda v: mg.heaviside(mg.tensor([-1.0, 0.0, 2.0], device=v.device), v), np.array(0.25))
    check_everywhere(lambda t: mg.nan_to_num(t), x)
    check_everywhere(lambda t: mg.logit(t, eps=0.1), np.array([0.05, 0.3, 0.5, 0.8, 0.95]))


def test_where_with_the_condition_alone_is_nonzero():
    m = np.array([[True, False], [True, True]])
    assert [t.tolist() for t in mg.where(mg.tensor(m))] == [list(i) for i in np.where(m)]
    with pytest.raises(TypeError, match="both x and y"):
        mg.where(mg.tensor(m), 1.0)


def test_nan_reductions_count_nonzero_aminmax_var_std_mean():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan]])
    np.testing.assert_array_equal(mg.nansum(mg.tensor(x), axis=1).numpy(), np.nansum(x, axis=1))
    np.testing.assert_array_equal(mg.nanmean(mg.tensor(x), dim=0, keepdim=True).numpy(),
                                  np.nanmean(x, axis=0, keepdims=True))
    np.testing.assert_array_equal(mg.count_nonzero(mg.tensor(x - 1), axis=0).numpy(), np.count_nonzero(x - 1, 0))
    y = rng.standard_normal((3, 4))
    lo, hi = mg.aminmax(mg.tensor(y), dim=1)
    assert np.array_equal(lo.numpy(), y.min(1)) and np.array_equal(hi.numpy(), y.max(1))
    v, m = mg.var_mean(mg.tensor(y), 1)
    np.testing.assert_allclose(v.numpy(), y.var(1, ddof=1)) and np.testing.assert_allclose(m.numpy(), y.mean(1))
    s, _ = mg.std_mean(mg.tensor(y), correction=0)
    np.testing.assert_allclose(s.numpy(), y.std())
    check_everywhere(lambda t: mg.nansum(t, dim=1), x)
    check_everywhere(lambda t: mg.nanmean(t, dim=1), x)
    check_everywhere(lambda t: mg.aminmax(t, dim=0).max, y)
    check_everywhere(lambda t: mg.var_mean(t, 1, keepdim=True)[0] + mg.std_mean(t, 0, keepdim=True)[0], y)


def test_cov_and_corrcoef_match_numpy_with_weights():
    y, f, a = rng.standard_normal((3, 6)), np.array([1, 2, 1, 3, 1, 2]), rng.random(6) + 0.2
    np.testing.assert_allclose(mg.cov(mg.tensor(y)).numpy(), np.cov(y), rtol=1e-13)
    np.testing.assert_allclose(mg.cov(mg.tensor(y), rowvar=False, bias=True).numpy(), np.cov(y, rowvar=False,
                                                                                             bias=True), rtol=1e-13)
    np.testing.assert_allclose(mg.cov(mg.tensor(y), fweights=f, aweights=a).numpy(),
                               np.cov(y, fweights=f, aweights=a), rtol=1e-13)
    np.testing.assert_allclose(mg.cov(mg.tensor(y[0]), mg.tensor(y[1])).numpy(), np.cov(y[0], y[1]), rtol=1e-13)
    np.testing.assert_allclose(mg.corrcoef(mg.tensor(y)).numpy(), np.corrcoef(y), rtol=1e-13)
    check_everywhere(lambda t, w: mg.cov(t, fweights=f, aweights=w), y, a)
    check_everywhere(mg.corrcoef, y)


def test_differences_and_integrals_match_numpy_and_scipy():
    y, xs = rng.standard_normal((3, 6)), np.cumsum(rng.random(6)) + 0.1
    np.testing.assert_allclose(mg.diff(mg.tensor(y), 2, 0).numpy(), np.diff(y, 2, 0))
    np.testing.assert_allclose(mg.diff(mg.tensor(y), prepend=0.5, append=y[:, :2]).numpy(),
                               np.diff(y, prepend=0.5, append=y[:, :2]))
    assert mg.diff(mg.tensor([True, True, False])).tolist() == [False, True]
    for edge_order in (1, 2):
        got = mg.gradient(mg.tensor(y), 0.5, xs, edge_order=edge_order)
        for g, w in zip(got, np.gradient(y, 0.5, xs, edge_order=edge_order)):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-12)
    assert isinstance(mg.gradient(mg.tensor(xs)), mg.Tensor)                       # NumPy: one tensor
    assert isinstance(mg.gradient(mg.tensor(xs), spacing=1.0), tuple)               # PyTorch: a tuple
    np.testing.assert_allclose(mg.trapezoid(mg.tensor(y), mg.tensor(xs)).numpy(), np.trapezoid(y, xs))
    np.testing.assert_allclose(mg.trapezoid(mg.tensor(y), dx=0.3, axis=0).numpy(), np.trapezoid(y, dx=0.3, axis=0))
    np.testing.assert_allclose(mg.cumulative_trapezoid(mg.tensor(y), mg.tensor(xs)).numpy(),
                               scipy.integrate.cumulative_trapezoid(y, xs))
    check_everywhere(lambda t: mg.diff(t, 2, prepend=1.0), y)
    check_everywhere(lambda t: mg.gradient(t, 0.5, xs, edge_order=2)[1], y)
    check_everywhere(lambda t, u: mg.trapezoid(t, u), y, xs)
    check_everywhere(lambda t, u: mg.cumulative_trapezoid(t, u), y, xs)


def test_diff_edges_keep_their_value_beside_integers():
    """A number or a lower-dim tensor as ``prepend``/``append`` (NumPy's reading; PyTorch refuses
    them) joins in the dtype it and the input promote to, as ``x + value`` does: it was cast to
    the input's dtype first, so ``prepend=0.5`` beside int32 became 0 and the first difference
    came out 1 (NumPy: 0.5)."""
    i = np.array([1, 2, 4], dtype=np.int32)
    got = mg.diff(mg.tensor(i), prepend=0.5)
    assert got.dtype == mg.float32 and got.tolist() == [0.5, 1.0, 2.0]             # a number: weak
    assert mg.diff(mg.tensor(i), append=np.float64(7.5)).tolist() == [1.0, 2.0, 3.5]
    assert mg.diff(mg.tensor(i), prepend=mg.tensor(0.5)).tolist() == [0.5, 1.0, 2.0]
    assert mg.diff(mg.tensor(i), prepend=0).dtype == mg.int32                     # same kind: kept
    assert mg.diff(mg.tensor([[1, 2], [3, 5]]), dim=0, prepend=mg.tensor([0.5, 0.5])).tolist() == [
        [0.5, 1.5], [2.0, 3.0]]
    b = np.array([True, False])
    assert mg.diff(mg.tensor(b), prepend=2).tolist() == np.diff(b, prepend=2).tolist() == [-1, -1]
    assert mg.diff(mg.tensor(b), prepend=True).tolist() == [False, True]         # bools stay bools


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"dimension size to be at least edge_order\+1 \(3\), got 2"):
        mg.gradient(mg.tensor([1.0, 2.0]), edge_order=2)
    with pytest.raises(ValueError, match="gradient: 3 coordinates for a dim of 4 samples"):
        mg.gradient(mg.tensor([1.0, 2.0, 3.0, 4.0]), np.array([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="diff: the order n must be non-negative"):
        mg.diff(mg.tensor([1.0, 2.0]), -1)
    with pytest.raises(ValueError, match="diff: needs at least one dim"):
        mg.diff(mg.tensor(1.0))
    with pytest.raises(TypeError, match="trapezoid: pass either x or dx"):
        mg.trapezoid(mg.tensor([1.0, 2.0]), mg.tensor([0.0, 1.0]), dx=1.0)
    with pytest.raises(ValueError, match="cov\\(\\): expected input to have two or fewer dimensions"):
        mg.cov(mg.tensor(np.zeros((2, 2, 2))))


def test_edge_conventions_where_the_gradient_differs_from_pytorchs():
    # copysign: d/dx is the sign factor everywhere, also at x = ±inf (PyTorch: result / x = NaN there)
    x = mg.tensor([np.inf, -np.inf, 2.0], dtype="float64", requires_grad=True)
    mg.copysign(x, -1.0).sum().backward()
    assert x.grad.tolist() == [-1.0, 1.0, -1.0]
    # logcumsumexp: an all -inf prefix carries no mass and passes gradient 0 (PyTorch: NaN)
    y = mg.tensor([-np.inf, 0.0, 1.0], dtype="float64", requires_grad=True)
    out = mg.logcumsumexp(y, 0)
    assert out.tolist()[0] == -np.inf
    out.sum().backward()
    assert np.all(np.isfinite(y.grad.numpy())) and y.grad.tolist()[0] == 0.0


def test_renorm_scales_the_slices_above_maxnorm():
    x = rng.standard_normal((3, 4)) * 3
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    want = x * np.where(norms > 2.5, 2.5 / (norms + 1e-7), 1.0)
    np.testing.assert_allclose(mg.renorm(mg.tensor(x), 2, 0, 2.5).numpy(), want, rtol=1e-14)
    check_everywhere(lambda t: mg.renorm(t, 2, 0, 2.5), x)
    check_everywhere(lambda t: mg.renorm(t, 3, 1, 1.0), x)
