"""The accuracy gate of the inverse error functions and ``ndtri`` against SciPy (a test-only
reference), over their whole domains and out to the extremes (``|y| -> 1``, ``p -> 0`` and 1,
subnormal inputs), in float64 and float32: the bounds are what the iterated (Halley) kernels
reached before Wichura's rational approximations replaced them, so the faster kernels are
held to the same accuracy."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import minigrad_ckpt as mg

sc = pytest.importorskip("scipy.special")
RNG = np.random.default_rng(20240607)


def logu(lo, hi, n=20000):
    return 10 ** RNG.uniform(np.log10(lo), np.log10(hi), n)


def _max_rel(actual, expected):
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    ok = np.isfinite(expected) & (expected != 0)
    assert np.array_equal(np.isnan(actual), np.isnan(expected))
    return float(np.max(np.abs(actual[ok] / expected[ok] - 1)))


NEAR_ONE = 1 - logu(1e-16, 0.5)
Y = np.concatenate([RNG.uniform(-1, 1, 50000), NEAR_ONE, -NEAR_ONE, logu(1e-300, 1), -logu(1e-300, 1)])
Z = np.concatenate([RNG.uniform(0, 2, 50000), logu(1e-300, 1), 2 - logu(1e-16, 1), 1 + RNG.uniform(-1e-3, 1e-3, 5000)])
P = np.concatenate([RNG.uniform(0, 1, 50000), logu(1e-300, 0.5), 1 - logu(1e-16, 0.5)])
CASES = [("erfinv", mg.special.erfinv, sc.erfinv, Y, 9e-16, 4e-7),
         ("erfcinv", mg.special.erfcinv, sc.erfcinv, Z, 1.2e-15, 4e-7),
         ("ndtri", mg.special.ndtri, sc.ndtri, P, 1.2e-15, 4e-7)]


@pytest.mark.parametrize("name, fn, ref, x, tol64, tol32", CASES, ids=[c[0] for c in CASES])
def test_inverse_matches_scipy_to_the_last_bits(name, fn, ref, x, tol64, tol32):
    assert _max_rel(fn(mg.tensor(x)).numpy(), ref(x)) <= tol64
    x32 = x.astype(np.float32)
    # float32 against the float64 reference rounded to float32, where the input is a normal number
    # (a subnormal erfinv(y) and its rounded reference may be half a unit apart either way)
    normal = np.abs(x32) >= np.finfo(np.float32).tiny
    actual, expected = fn(mg.tensor(x32[normal])).numpy(), ref(x32[normal].astype(np.float64)).astype(np.float32)
    assert _max_rel(actual, expected) <= tol32


def test_subnormal_arguments_are_the_linear_term_rounded_once():
    # erfinv(y) = sqrt(pi)/2 y (1 + pi y^2 / 12 + ...): exactly rounded from 50 digits of sqrt(pi)/2
    # (SciPy's is a few units of the subnormals off there)
    slope = Fraction("0.88622692545275801364908374167057259139877472806119")
    y = np.array([5e-324, 2e-323, 1e-310, -3.35322354e-320, 1e-20], np.float64)
    expected = [float(Fraction(v) * slope) for v in y]
    np.testing.assert_array_equal(mg.special.erfinv(mg.tensor(y)).numpy(), expected)
    y32 = np.array([1.4e-45, 5.6e-45, 1e-40], np.float32)
    expected = np.array([float(Fraction(float(v)) * slope) for v in y32]).astype(np.float32)
    np.testing.assert_array_equal(mg.special.erfinv(mg.tensor(y32)).numpy(), expected)


def test_deep_tail_of_erfcinv_and_ndtri():
    # erfcinv(5e-324) = 27.2132932108129..., mpmath's (SciPy answers inf there)
    assert abs(mg.special.erfcinv(mg.tensor([5e-324], dtype=mg.float64)).item() / 27.21329321081295 - 1) < 1e-15
    p = np.array([1e-300, 1e-200, 1e-100, 1e-20])
    np.testing.assert_allclose(mg.special.ndtri(mg.tensor(p, dtype=mg.float64)).numpy(), sc.ndtri(p), rtol=1e-15)
    assert str(mg.special.ndtri(mg.tensor([0.5])).item()) == "0.0"
