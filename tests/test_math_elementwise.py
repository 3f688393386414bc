"""NumPy's elementwise functions beyond the op battery: operators,
Tensor methods, NumPy's sign conventions, and the points the battery's smooth
domains stay away from (sinc near 0, kinks, singular points)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import functional as mf


def _t(values, **kw):
    return mg.tensor(np.asarray(values, dtype=np.float64), dtype="float64", **kw)


def test_mod_operator_follows_python_and_numpy_signs():
    x = _t([5.5, -5.5, 5.5, -5.5], requires_grad=True)
    y = _t([2.0, 2.0, -2.0, -2.0], requires_grad=True)
    r = x % y
    np.testing.assert_array_equal(r.numpy(), np.mod(x.numpy(), y.numpy()))
    np.testing.assert_array_equal((x % 2).numpy(), [1.5, 0.5, 1.5, 0.5])
    np.testing.assert_array_equal((7.0 % y).numpy(), np.mod(7.0, y.numpy()))
    gx, gy = mg.grad(r.sum(), [x, y])
    np.testing.assert_array_equal(gx.numpy(), [1, 1, 1, 1])
    np.testing.assert_array_equal(gy.numpy(), -np.floor(x.numpy() / y.numpy()))
    assert mf.remainder is mf.mod


def test_fmod_takes_the_sign_of_the_dividend():
    x = _t([5.5, -5.5], requires_grad=True)
    y = _t([2.0, 2.0], requires_grad=True)
    r = mf.fmod(x, y)
    np.testing.assert_array_equal(r.numpy(), [1.5, -1.5])
    _, gy = mg.grad(r.sum(), [x, y])
    np.testing.assert_array_equal(gy.numpy(), [-2.0, 2.0])


def test_mod_by_zero_is_nan_without_warnings():
    with np.errstate(all="raise"):
        assert math.isnan((_t([1.0]) % 0.0).item())


def test_python_round_and_the_round_method():
    x = _t([0.5, 1.5, 2.675, -0.25], requires_grad=True)
    np.testing.assert_array_equal(round(x).numpy(), np.round(x.numpy()))
    np.testing.assert_array_equal(round(x, 2).numpy(), np.round(x.numpy(), 2))
    np.testing.assert_array_equal(x.round(1).numpy(), np.round(x.numpy(), 1))
    (g,) = mg.grad(mf.round(x).sum(), [x])
    np.testing.assert_array_equal(g.numpy(), 0)
    with pytest.raises(TypeError, match="decimals"):
        mf.round(x, 1.5)


@pytest.mark.parametrize("fn", ["floor", "ceil", "trunc", "round"])
def test_step_functions_have_zero_gradients_of_every_order(fn):
    x = _t([-1.7, -0.5, 0.0, 0.5, 2.3], requires_grad=True)
    (g,) = mg.grad((getattr(mf, fn)(x) * x).sum(), [x], create_graph=True)
    np.testing.assert_array_equal(g.numpy(), getattr(np, fn)(x.numpy()))
    (h,) = mg.grad(g.sum(), [x], allow_unused=True)
    assert h is None or not h.numpy().any()


def test_sinc_derivatives_near_and_at_zero():
    # the series branch (|x| < 0.1) against the exact derivative, and its continuity at 0.1
    xs = np.array([0.0, 1e-8, -1e-4, 0.03, 0.0999999, 0.1, 0.1000001, 0.7])
    x = _t(xs, requires_grad=True)
    (g,) = mg.grad(mf.sinc(x).sum(), [x], create_graph=True)
    px = np.pi * xs
    with np.errstate(invalid="ignore", divide="ignore"):
        exact = np.where(xs == 0, 0.0, (np.cos(px) * px - np.sin(px)) / (px * xs))
    exact[1] = -np.pi ** 2 / 3 * xs[1]  # the closed form cancels to nothing at 1e-8
    np.testing.assert_allclose(g.numpy()[1:], exact[1:], rtol=1e-9, atol=1e-12)
    assert g.numpy()[0] == 0.0
    (h,) = mg.grad(g.sum(), [x])
    assert h.numpy()[0] == pytest.approx(-np.pi ** 2 / 3, rel=1e-12)  # sinc''(0)


@pytest.mark.parametrize("fn, point", [("arcsin", 1.0), ("arccos", -1.0), ("arccosh", 1.0),
                                       ("arctanh", 1.0), ("cbrt", 0.0), ("log2", 0.0),
                                       ("log10", 0.0), ("reciprocal", 0.0)])
def test_singular_points_keep_a_zero_upstream_gradient_zero(fn, point):
    x = _t([point, 0.5], requires_grad=True)
    y = mg.where(x == point, 0.0, getattr(mf, fn)(x))
    (g,) = mg.grad(y.sum(), [x])
    assert g.numpy()[0] == 0.0


def test_arctan2_and_hypot_at_the_origin_have_zero_subgradients():
    y = _t([0.0, 1.0], requires_grad=True)
    x = _t([0.0, 1.0], requires_grad=True)
    gy, gx = mg.grad(mf.arctan2(y, x).sum(), [y, x])
    np.testing.assert_allclose(gy.numpy(), [0.0, 0.5])
    np.testing.assert_allclose(gx.numpy(), [0.0, -0.5])
    gx, gy = mg.grad(mf.hypot(x, y).sum(), [x, y])
    np.testing.assert_allclose(gx.numpy(), [0.0, 2 ** -0.5])


def test_logaddexp_of_two_minus_infinities():
    x = _t([-np.inf, 0.0], requires_grad=True)
    r = mf.logaddexp(x, x)
    assert r.numpy()[0] == -np.inf
    (g,) = mg.grad(r.sum(), [x])
    np.testing.assert_allclose(g.numpy(), [0.0, 1.0])


def test_float32_constants_stay_float32():
    x = mg.tensor([0.25, 0.5], dtype="float32", requires_grad=True)
    for fn in ("log2", "log10", "exp2", "sinc", "cbrt", "tan"):
        y = getattr(mf, fn)(x)
        (g,) = mg.grad(y.sum(), [x])
        assert y.dtype == np.float32 and g.dtype == np.float32, fn


def test_reciprocal_of_a_float32_subnormal_is_inf_without_a_warning() -> None:
    # 1 / 1e-45 overflows float32: forward silenced division by zero but not the overflow
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = mg.reciprocal(mg.tensor(np.array(1e-45, dtype=np.float32)))
    assert out.dtype == np.float32 and np.isposinf(out.numpy())


@pytest.mark.parametrize("subscripts", ["ij->ji", "ii->i", "ij->ij"])
def test_einsum_output_is_its_own_array(subscripts: str) -> None:
    # np.einsum returns a view of its one operand for these; an op's output must not alias
    # its input unless the op declares is_view (a write into it would change the input unseen)
    x = np.arange(4.0).reshape(2, 2)
    out = mg.einsum(subscripts, mg.from_numpy(x))
    assert not np.shares_memory(out.numpy(), x)
    out += 1.0
    assert np.array_equal(x, np.arange(4.0).reshape(2, 2))
