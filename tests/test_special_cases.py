"""Documented conventions at ties, kinks, singular points and degenerate reductions.

The conventions are stated in the docstrings of ``ops/elementwise.py`` and
``ops/reduction.py``; each test below pins one of them with exact values.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg


def leaf(values, dtype="float64"):
    return mg.tensor(np.asarray(values, dtype=dtype), requires_grad=True)


def grad_of(fn, values, gradient=None, dtype="float64"):
    """``fn(x)`` and the gradient of ``x`` for upstream ``gradient`` (ones by default)."""
    x = leaf(values, dtype)
    out = fn(x)
    out.backward(gradient=np.ones(out.shape) if gradient is None else gradient)
    return out, x.grad.numpy()


@contextlib.contextmanager
def no_warnings():
    """Turn every warning (e.g. NumPy's RuntimeWarning) into an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# ------------------------------------------------------------- max / min ties
def test_max_reduction_ties_split_evenly():
    _, g = grad_of(lambda x: x.max(), [1.0, 3.0, 3.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 0.5, 0.5, 0.0])


def test_three_way_tie():
    _, g = grad_of(lambda x: x.min(), [2.0, 2.0, 5.0, 2.0])
    np.testing.assert_allclose(g, [1 / 3, 1 / 3, 0.0, 1 / 3], rtol=1e-15)


def test_max_along_axis_ties_per_slice():
    xv = np.array([[1.0, 4.0, 4.0], [7.0, 0.0, 7.0], [1.0, 2.0, 3.0]])
    _, g = grad_of(lambda x: x.max(axis=1), xv, gradient=np.array([2.0, 4.0, 6.0]))
    np.testing.assert_array_equal(g, [[0, 1, 1], [2, 0, 2], [0, 0, 6]])
    _, g = grad_of(lambda x: x.min(axis=0, keepdims=True), xv, gradient=np.ones((1, 3)))
    np.testing.assert_array_equal(g, [[0.5, 0, 0], [0, 1, 0], [0.5, 0, 1]])


def test_all_equal_slice():
    _, g = grad_of(lambda x: x.max(), np.full(4, 3.0))
    np.testing.assert_array_equal(g, np.full(4, 0.25))


def test_elementwise_maximum_minimum_ties_half_each():
    for fn in (mg.maximum, mg.minimum):
        x, y = leaf([1.0, 3.0, 2.0]), leaf([1.0, 2.0, 3.0])
        fn(x, y).sum().backward()
        if fn is mg.maximum:
            np.testing.assert_array_equal(x.grad.numpy(), [0.5, 1.0, 0.0])
            np.testing.assert_array_equal(y.grad.numpy(), [0.5, 0.0, 1.0])
        else:
            np.testing.assert_array_equal(x.grad.numpy(), [0.5, 0.0, 1.0])
            np.testing.assert_array_equal(y.grad.numpy(), [0.5, 1.0, 0.0])


def test_maximum_with_constant_at_tie_gives_half():
    _, g = grad_of(lambda x: mg.maximum(x, 0.0), [-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 0.5, 1.0])


# --------------------------------------------------------------------- kinks
def test_abs_at_zero_is_zero():
    _, g = grad_of(mg.abs, [-2.0, 0.0, -0.0, 3.0])
    np.testing.assert_array_equal(g, [-1.0, 0.0, 0.0, 1.0])


def test_clip_passes_gradient_on_closed_interval():
    _, g = grad_of(lambda x: mg.clip(x, 0.0, 1.0), [-1.0, 0.0, 0.5, 1.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 1.0, 1.0, 1.0, 0.0])


def test_clip_one_sided():
    _, g = grad_of(lambda x: mg.clip(x, None, 1.0), [-5.0, 1.0, 2.0])
    np.testing.assert_array_equal(g, [1.0, 1.0, 0.0])
    _, g = grad_of(lambda x: mg.clip(x, 0.0, None), [-5.0, 0.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 1.0, 1.0])


def test_clip_tensor_bounds_get_gradient_outside():
    x, lo, hi = leaf([-1.0, 0.5, 2.0]), leaf([0.0, 0.0, 0.0]), leaf([1.0, 1.0, 1.0])
    mg.clip(x, lo, hi).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(lo.grad.numpy(), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(hi.grad.numpy(), [0.0, 0.0, 1.0])


def test_sqrt_at_zero_is_inf_unless_upstream_is_zero():
    out, g = grad_of(mg.sqrt, [0.0, 4.0], gradient=np.array([1.0, 1.0]))
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0])
    assert g[0] == np.inf and g[1] == 0.25
    _, g = grad_of(mg.sqrt, [0.0, 4.0], gradient=np.array([0.0, 1.0]))
    np.testing.assert_array_equal(g, [0.0, 0.25])


def test_log_at_zero():
    out, g = grad_of(mg.log, [0.0, 2.0], gradient=np.array([1.0, 1.0]))
    assert out.data[0] == -np.inf and g[0] == np.inf
    _, g = grad_of(mg.log, [0.0, 2.0], gradient=np.array([0.0, 1.0]))
    np.testing.assert_array_equal(g, [0.0, 0.5])


# ---------------------------------------------------- where never leaks NaN
def test_where_sqrt_at_zero_has_gradient_one():
    xv = [0.0, 4.0, -1.0]
    out, g = grad_of(lambda x: mg.where(x > 0, mg.sqrt(x), x).sum(), xv)
    np.testing.assert_array_equal(out.numpy(), 0.0 + 2.0 - 1.0)
    np.testing.assert_array_equal(g, [1.0, 0.25, 1.0])


def test_where_reciprocal_at_zero_has_gradient_zero():
    out, g = grad_of(lambda x: mg.where(x != 0, 1 / x, 0.0), [0.0, 2.0, -4.0],
                     gradient=np.ones(3))
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.5, -0.25])
    np.testing.assert_array_equal(g, [0.0, -0.25, -1 / 16])


def test_where_log_of_negative_not_selected():
    _, g = grad_of(lambda x: mg.where(x > 0, mg.log(x), 0.0).sum(), [-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.5])


def test_mask_after_reciprocal_has_no_nan():
    _, g = grad_of(lambda x: (1 / x)[x != 0].sum(), [0.0, 2.0, 0.0, 0.5])
    np.testing.assert_array_equal(g, [0.0, -0.25, 0.0, -4.0])


def test_where_nan_stays_in_its_own_element():
    # a NaN gradient in a *selected* element must not spread to its neighbours
    _, g = grad_of(lambda x: mg.where(x > -10, mg.sqrt(x), 0.0).sum(), [-1.0, 4.0])
    assert np.isnan(g[0])
    assert g[1] == 0.25


# ------------------------------------------------------------------------ pow
def test_zero_to_the_zero():
    x, y = leaf([0.0]), leaf([0.0])
    out = x**y
    np.testing.assert_array_equal(out.numpy(), [1.0])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0])
    np.testing.assert_array_equal(y.grad.numpy(), [0.0])


def test_d_dexponent_at_zero_base_is_zero():
    x, y = leaf([0.0, 0.0, 2.0]), leaf([2.5, 1.0, 3.0])
    (x**y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [0.0, 0.0, 8 * np.log(2.0)], rtol=1e-15)
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 12.0])


@pytest.mark.parametrize("shape", [(), (3,), (2, 2), (0,), (2, 0), (0, 3, 1)], ids=str)
@pytest.mark.parametrize("values", ["zeros", "mixed"])
def test_x_pow_zero_has_zero_gradient(shape, values):
    n = int(np.prod(shape))
    base = np.zeros(shape) if values == "zeros" else np.linspace(-2, 2, n).reshape(shape)
    for exponent in ("python", "tensor"):
        x = leaf(base)
        out = x**0 if exponent == "python" else x ** mg.zeros(shape, dtype="float64")
        np.testing.assert_array_equal(out.numpy(), np.ones(shape))
        out.sum().backward()
        g = x.grad.numpy()
        assert type(g) is np.ndarray and g.shape == shape
        np.testing.assert_array_equal(g, np.zeros(shape))


def test_negative_base_integer_exponent():
    x = leaf([-2.0, -0.5])
    (x**2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-4.0, -1.0])
    x = leaf([-2.0, -0.5])
    (x**3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [12.0, 0.75])


def test_negative_base_tensor_exponent_dy_is_nan():
    x, y = leaf([-2.0]), leaf([2.0])
    (x**y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-4.0])
    assert np.isnan(y.grad.numpy()[0])  # log of a negative base (documented)


def test_negative_base_fractional_exponent_is_nan():
    out, g = grad_of(lambda x: x**0.5, [-4.0], gradient=np.ones(1))
    assert np.isnan(out.numpy()[0]) and np.isnan(g[0])


BASES = [0.0, -1.5, 2.0]
EXPONENTS = [0.0, 0.5, 1.0, 2.0, -1.0, 2.5]


@pytest.mark.parametrize("p", EXPONENTS)
def test_pow_table_constant_exponent(p):
    xv = np.array(BASES)
    out, g = grad_of(lambda x: x**p, xv, gradient=np.ones(3))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out.numpy(), xv**p)
        expected = np.zeros(3) if p == 0 else p * xv ** (p - 1)
    np.testing.assert_allclose(g, expected, rtol=1e-15)  # NaN/inf positions must match


@pytest.mark.parametrize("p", EXPONENTS)
def test_pow_table_tensor_exponent(p):
    xv = np.array(BASES)
    x, y = leaf(xv), leaf(np.full(3, p))
    (x**y).backward(gradient=np.ones(3))
    with np.errstate(all="ignore"):
        gx = np.zeros(3) if p == 0 else p * xv ** (p - 1)
        gy = np.where((xv == 0) & (p >= 0), 0.0, xv**p * np.log(xv))
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-15)
    np.testing.assert_allclose(y.grad.numpy(), gy, rtol=1e-15)


def test_constant_base_power():
    _, g = grad_of(lambda y: 2.0**y, [0.0, 3.0], gradient=np.ones(2))
    np.testing.assert_allclose(g, [np.log(2.0), 8 * np.log(2.0)], rtol=1e-15)
    _, g = grad_of(lambda y: 0.0**y, [2.0, 0.5], gradient=np.ones(2))
    np.testing.assert_array_equal(g, [0.0, 0.0])


# ----------------------------------------------------------------------- prod
@pytest.mark.parametrize("values, grad", [
    ([2.0, 3.0, 4.0], [12.0, 8.0, 6.0]),
    ([2.0, 0.0, 4.0], [0.0, 8.0, 0.0]),
    ([0.0, 3.0, 0.0], [0.0, 0.0, 0.0]),
    ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    ([0.0], [1.0]),
    ([-2.0, 0.0], [0.0, -2.0]),
])
def test_prod_with_zeros(values, grad):
    out, g = grad_of(mg.prod, values)
    assert out.item() == np.prod(values)
    np.testing.assert_array_equal(g, grad)
    assert not np.isnan(g).any()


def test_prod_along_axis_mixed_zero_counts():
    xv = np.array([[2.0, 0.0, 4.0], [1.0, 2.0, 3.0], [0.0, 5.0, 0.0]])
    out, g = grad_of(lambda x: x.prod(axis=1), xv, gradient=np.array([1.0, 10.0, 100.0]))
    np.testing.assert_array_equal(out.numpy(), [0.0, 6.0, 0.0])
    np.testing.assert_array_equal(g, [[0, 8, 0], [60, 30, 20], [0, 0, 0]])


# ------------------------------------------------------------------ logsumexp
@pytest.mark.parametrize("values, value, grad", [
    ([1e4, -1e4, 0.0], 1e4, [1.0, 0.0, 0.0]),
    ([1e4, 1e4], 1e4 + np.log(2.0), [0.5, 0.5]),
    ([-1e4, -1e4, -1e4], -1e4 + np.log(3.0), [1 / 3, 1 / 3, 1 / 3]),
    ([-1e4, 1e4], 1e4, [0.0, 1.0]),
])
def test_logsumexp_large_logits_float32(values, value, grad):
    with no_warnings():
        out, g = grad_of(mg.logsumexp, values, dtype="float32")
    assert out.dtype == np.float32 and g.dtype == np.float32
    assert np.isfinite(out.numpy()) and np.isfinite(g).all()
    np.testing.assert_allclose(out.numpy(), value, rtol=1e-7)
    # the gradient is exp(x - lse); lse itself is only known to ~1 ulp of 1e4
    # in float32 (about 1e-3), which bounds the gradient's relative accuracy
    np.testing.assert_allclose(g, grad, rtol=1e-3, atol=1e-30)
    np.testing.assert_allclose(g.sum(), 1.0, rtol=1e-3)


def test_logsumexp_shift_invariance_float32():
    xv = np.array([[0.5, -1.0, 2.0], [3.0, 3.0, -2.0]], dtype=np.float32)
    base, gbase = grad_of(lambda x: mg.logsumexp(x, axis=1), xv, gradient=np.ones(2), dtype="float32")
    for c in (1e4, -1e4):
        shifted, gs = grad_of(lambda x: mg.logsumexp(x, axis=1), xv + np.float32(c),
                              gradient=np.ones(2), dtype="float32")
        assert np.isfinite(shifted.numpy()).all() and np.isfinite(gs).all()
        np.testing.assert_allclose(shifted.numpy() - np.float32(c), base.numpy(), atol=2e-3)
        np.testing.assert_allclose(gs, gbase, rtol=2e-3, atol=1e-6)
    softmax = np.exp(xv - xv.max(1, keepdims=True))
    softmax /= softmax.sum(1, keepdims=True)
    np.testing.assert_allclose(gbase, softmax, rtol=1e-6)


def test_logsumexp_all_minus_inf_slice():
    with no_warnings():
        out, g = grad_of(mg.logsumexp, [-np.inf, -np.inf])
    assert out.item() == -np.inf
    np.testing.assert_array_equal(g, [0.0, 0.0])


# ------------------------------------------------------------------- var/std
def test_var_std_regular():
    xv = np.array([1.0, 2.0, 4.0])
    for ddof in (0, 1, 2):
        out, g = grad_of(lambda x, d=ddof: mg.var(x, ddof=d), xv)
        np.testing.assert_allclose(out.item(), np.var(xv, ddof=ddof), rtol=1e-15)
        np.testing.assert_allclose(g, 2 * (xv - xv.mean()) / (3 - ddof), rtol=1e-14)
        out, g = grad_of(lambda x, d=ddof: mg.std(x, ddof=d), xv)
        s = np.std(xv, ddof=ddof)
        np.testing.assert_allclose(out.item(), s, rtol=1e-15)
        np.testing.assert_allclose(g, (xv - xv.mean()) / ((3 - ddof) * s), rtol=1e-14)


@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("fn", [mg.var, mg.std])
def test_constant_input_has_zero_gradient(fn, ddof):
    with no_warnings():
        out, g = grad_of(lambda x: fn(x, ddof=ddof), np.full(4, 2.5))
    assert out.item() == 0.0
    np.testing.assert_array_equal(g, np.zeros(4))


def test_constant_slice_along_axis():
    xv = np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]])
    _, g = grad_of(lambda x: mg.std(x, axis=1), xv, gradient=np.ones(2))
    np.testing.assert_array_equal(g[0], [0.0, 0.0, 0.0])
    s = np.std([1.0, 2.0, 3.0])
    np.testing.assert_allclose(g[1], np.array([-1.0, 0.0, 1.0]) / (3 * s), rtol=1e-15)


@pytest.mark.parametrize("values, ddof", [
    ([1.0, 2.0, 4.0], 3),
    ([1.0, 2.0, 4.0], 4),
    ([5.0], 1),
    ([2.0, 2.0, 2.0], 3),
])
@pytest.mark.parametrize("fn", ["var", "std"])
def test_ddof_at_least_n_follows_numpy(fn, values, ddof):
    """Docstring: for ``N - ddof <= 0`` the value is NumPy's (inf or nan) and so is
    the gradient -- observed: never a Python exception, never a warning."""
    with no_warnings():
        out, g = grad_of(lambda x: getattr(mg, fn)(x, ddof=ddof), values)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(np, fn)(np.array(values), ddof=ddof)
    assert not np.isfinite(expected)
    np.testing.assert_array_equal(out.numpy(), expected)  # same inf / nan
    assert g.shape == (len(values),)
    assert not np.isfinite(g).any()


def test_var_ddof_at_least_n_gradient_signs():
    # var = sum(d^2) / 0 = inf; its gradient 2 d / 0 is inf with the sign of d
    _, g = grad_of(lambda x: mg.var(x, ddof=3), [1.0, 2.0, 4.0])
    np.testing.assert_array_equal(g, [-np.inf, -np.inf, np.inf])


@pytest.mark.parametrize("fn", [mg.var, mg.std])
def test_var_std_of_empty(fn):
    with no_warnings():
        out, g = grad_of(lambda x: fn(x, ddof=0), np.zeros(0))  # (NumPy's meaning, said: no warning)
    assert np.isnan(out.item())
    assert g.shape == (0,)


# -------------------------------------------------------- empty reductions
def test_mean_over_empty_axis_is_nan_with_empty_gradient():
    with no_warnings():
        x = leaf(np.zeros((3, 0)))
        m = x.mean(axis=1)
        assert m.shape == (3,) and np.isnan(m.numpy()).all()
        m.sum().backward()
    assert x.grad.shape == (3, 0)

    with no_warnings():
        x = leaf(np.zeros((0, 3)))
        m = x.mean(axis=0)
        assert np.isnan(m.numpy()).all()
        m.backward(gradient=np.ones(3))
    assert x.grad.shape == (0, 3)

    with no_warnings():
        x = leaf(np.zeros(0))
        m = x.mean()
        assert np.isnan(m.item())
        m.backward()
    assert x.grad.shape == (0,)


def test_mean_over_non_empty_axis_of_empty_tensor():
    x = leaf(np.zeros((0, 3)))
    m = x.mean(axis=1)
    assert m.shape == (0,)
    m.sum().backward()
    assert x.grad.shape == (0, 3)


def test_sum_over_empty_is_zero():
    x = leaf(np.zeros((0, 3)))
    s = x.sum(axis=0)
    np.testing.assert_array_equal(s.numpy(), [0.0, 0.0, 0.0])
    s.sum().backward()
    assert x.grad.shape == (0, 3)


@pytest.mark.parametrize("fn", [mg.max, mg.min, mg.argmax])  # logsumexp is -inf there (tests/test_op_edges.py)
def test_extreme_over_empty_axis_raises(fn):
    with pytest.raises(ValueError, match=r"Expected reduction dim to be specified for input.numel\(\) == 0"):
        fn(mg.zeros(0))
    with pytest.raises(ValueError, match="Expected reduction dim 1 to have non-zero size"):  # (PyTorch's words)
        fn(mg.zeros(2, 0), axis=1)
