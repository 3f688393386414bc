"""Exponentially scaled special functions: ``erfcx(x) = exp(x^2) erfc(x)`` and the scaled
modified Bessel functions ``i0e(x) = exp(-|x|) I0(x)``, ``i1e(x) = exp(-|x|) I1(x)``.

Scaled, they stay finite where the unscaled ones overflow or underflow (``erfc``
underflows from x = 27, ``I0`` overflows from x = 713), so ``log_ndtr`` and the unscaled
Bessel functions are built on them.  Kernels (``backend.register_kernel``) written with
array-namespace functions only, so they run on NumPy, CuPy and the strict device; each
op's derivative is the others':

=====  =============================================  ==============================
fn     method                                         derivative
=====  =============================================  ==============================
erfcx  ``exp(x^2) erfc(x)`` below 1; Cephes' erfc     ``2 x erfcx(x) - 2/sqrt(pi)``
       rational functions P/Q (1..8), R/S (8..27)     (the asymptotic ``S - 1`` from
       without their ``exp(-x^2)``; the asymptotic    27 on, no cancellation)
       series ``S(x) / (x sqrt(pi))`` from 27
i0e    the power series of ``I0`` (all terms          ``i1e(x) - sign(x) i0e(x)``
       positive: no cancellation) times
       ``exp(-|x|)`` up to 30; Hankel's asymptotic
       series beyond
i1e    likewise for ``I1`` (odd)                      ``i0e(x) - i1e(x) (sign(x) + 1/x)``,
                                                      1/2 at 0
i0     ``i0e(x) exp(|x|)``                            ``i1(x)``
i1     ``i1e(x) exp(|x|)``                            ``(i0e(x) - i1e(x)/x) exp(|x|)``,
                                                      1/2 at 0
=====  =============================================  ==============================

``I0`` and ``I1`` are ops of their own, not products of the scaled ones with ``exp(|x|)``:
the product's derivative ``(i1e - sign i0e) exp|x| + i0e sign exp|x|`` cancels near 0
(``I0'(1e-8)`` came out with 8 correct digits, ``I0'(1e-300)`` as 0).

Accuracy in float64, against SciPy in ``tests/test_special_extended.py``: <= 1e-13
relative on the whole real line.
"""

from __future__ import annotations

import math
from typing import Any

from ..backend import half_in_float32, register_kernel
from .elementwise import UnaryElementwise
from .elementwise import horner as _horner
from .special import _ERFC_P, _ERFC_Q, _ERFC_R, _ERFC_S

_INV_SQRT_PI = 1 / math.sqrt(math.pi)
_SERIES_TERMS = 60  # the power series up to |x| = 30: terms below 1e-34 of the sum from k = 60 on
_ASYMPTOTIC_TERMS = 30  # Hankel's series from |x| = 30: the 30th term is below 1e-25


def _erfcx_asymptotic_minus_one(xp: Any, x: Any) -> Any:
    """``S(x) - 1`` of ``erfcx(x) = S(x) / (x sqrt(pi))``, ``S = sum_k (-1)^k (2k-1)!! / (2x^2)^k``
    (x >= 27: ten terms reach below 1e-22)."""
    u = 1 / (2 * x * x)
    term, total = x * 0 - 1.0 * u, x * 0 - 1.0 * u  # k = 1: -(1) u
    for k in range(2, 11):
        term = term * (-(2 * k - 1) * u)
        total = total + term
    return total


@register_kernel
@half_in_float32
def erfcx(xp, x):
    """``exp(x^2) erfc(x)`` (``xp.erfcx``): +inf from x = -26.6 down, ``1/(x sqrt(pi))`` for large x."""
    with xp.errstate(over="ignore", under="ignore", invalid="ignore"):
        low = xp.exp(x * x) * xp.erfc(xp.minimum(x, 1.0))
        mid_x = xp.clip(x, 1.0, 8.0)
        mid = _horner(_ERFC_P, mid_x) / _horner(_ERFC_Q, mid_x)
        far_x = xp.clip(x, 8.0, 27.0)
        far = _horner(_ERFC_R, far_x) / _horner(_ERFC_S, far_x)
        big_x = xp.maximum(x, 27.0)
        big = (1 + _erfcx_asymptotic_minus_one(xp, big_x)) * _INV_SQRT_PI / big_x
        r = xp.where(x < 1, low, xp.where(x < 8, mid, xp.where(x < 27, far, big)))
        r = xp.where(x == xp.inf, 0, r)
    return xp.where(xp.isnan(x), x, r)


def _bessel_series(xp: Any, a: Any, order: int) -> Any:
    """``I_order(a)`` by its power series (``a >= 0``, used up to 30)."""
    q = a * a * 0.25
    term = a * 0 + 1.0 if order == 0 else a * 0.5
    total = term
    for k in range(1, _SERIES_TERMS):
        term = term * q / (k * (k + order))
        total = total + term
    return total


def _bessel_asymptotic(xp: Any, a: Any, order: int) -> Any:
    """``exp(-a) I_order(a)`` by Hankel's series ``(2 pi a)^(-1/2) sum_k (-1)^k a_k / a^k`` (a >= 30)."""
    mu = 4.0 * order * order
    term = a * 0 + 1.0
    total = term
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = term * (-(mu - (2 * k - 1) ** 2) / (8.0 * k)) / a
        total = total + term
    return total / (xp.sqrt(a) * math.sqrt(2 * math.pi))  # 2 pi a would overflow near the float's max


def _scaled_bessel(xp: Any, x: Any, order: int) -> Any:
    with xp.errstate(over="ignore", under="ignore", invalid="ignore"):
        a = xp.abs(x)
        near = _bessel_series(xp, xp.minimum(a, 30.0), order) * xp.exp(-xp.minimum(a, 30.0))
        far = _bessel_asymptotic(xp, xp.maximum(a, 30.0), order)
        r = xp.where(a <= 30, near, far)
        r = xp.where(a == xp.inf, 0, r)
        if order == 1:
            r = xp.where(xp.signbit(x), -r, r)  # odd: -0.0 at -0.0 and at -inf, as SciPy
    return xp.where(xp.isnan(x), x, r)


@register_kernel
@half_in_float32
def i0e(xp, x):
    """``exp(-|x|) I0(x)`` (``xp.i0e``), the scaled modified Bessel function of order 0."""
    return _scaled_bessel(xp, x, 0)


@register_kernel
@half_in_float32
def i1e(xp, x):
    """``exp(-|x|) I1(x)`` (``xp.i1e``), the scaled modified Bessel function of order 1 (odd)."""
    return _scaled_bessel(xp, x, 1)


def _i1e_over_x(xp: Any, x: Any, i1e_x: Any) -> Any:
    """``i1e(x) / x``, an even smooth function (1/2 at 0): below |x| = 1 as ``exp(-|x|)`` times the
    series ``sum_k (x^2/4)^k / (2 k! (k+1)!)``, so that its derivatives have no ``1/x`` to cancel."""
    small = xp.abs(x) < 1
    t = xp.where(small, x, 0.5)
    q = t * t * 0.25
    term = total = t * 0 + 0.5
    for k in range(1, 12):
        term = term * q / (k * (k + 1))
        total = total + term
    return xp.where(small, total * xp.exp(-xp.abs(t)), i1e_x / xp.where(small, 1.0, x))


class Erfcx(UnaryElementwise):
    """``exp(x^2) erfc(x)``; derivative ``2 x erfcx(x) - 2/sqrt(pi)``."""

    save_output = True
    quiet = True  # below -26.6 the value is inf and so is the derivative: inf - const, no warning

    def forward(self, xp, x):
        return xp.erfcx(x)

    def derivative(self, xp, out, x):
        # where, not maximum: at x = 27 exactly maximum would split the second derivative between
        # its two equal arguments and the asymptotic branch, which where picks there, would get half
        big = xp.where(x < 27, 27.0, x)
        asymptotic = _erfcx_asymptotic_minus_one(xp, big) * (2 * _INV_SQRT_PI)
        return xp.where(x < 27, 2 * x * out - 2 * _INV_SQRT_PI, asymptotic)

    def reference(self, np, x):
        def f(v: float) -> float:
            if v < 25:
                try:  # (erfc is 2 far left: the value overflows where exp(v^2) does, or past it, v < -26.64)
                    return math.exp(v * v) * math.erfc(v)
                except OverflowError:
                    return math.inf
            # continued fraction (Lentz) for large v: erfcx = 1 / (sqrt(pi) (v + 1/2/(v + 1/(v + 3/2/(v + ...)))))
            t = v
            for k in range(60, 0, -1):
                t = v + (k / 2) / t
            return 1 / (math.sqrt(math.pi) * t)

        with np.errstate(over="ignore"):  # (the product past float64's range: inf, as the op's)
            return np.vectorize(f, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


def _bessel_reference(np: Any, x: Any, order: int) -> Any:
    """``exp(-|x|) I_order(x)`` by the integral ``(1/pi) int_0^pi exp(x cos t - |x|) cos(order t) dt``
    (the trapezoid rule on a periodic integrand: exact to rounding with 400 points)."""
    t = np.linspace(0.0, np.pi, 401)
    x64 = x.astype(np.float64)[..., None]
    with np.errstate(all="ignore"):  # +-inf and huge x: replaced below
        vals = np.exp(x64 * np.cos(t) - np.abs(x64)) * np.cos(order * t)
    w = np.full(t.shape, np.pi / 400)
    w[0] = w[-1] = np.pi / 800
    out = np.sum(vals * w, axis=-1) / np.pi
    # Beyond |x| = 500 the integrand is a spike at t = 0 narrower than the grid: Hankel's
    # expansion instead (five terms: exact to 1e-12 there), and 0 at +-inf
    a = np.abs(x64[..., 0])
    a_safe = np.where(a > 500, a, 1000.0)
    term, series = np.ones_like(a_safe), np.ones_like(a_safe)
    for k in range(1, 6):
        term = term * (-(4 * order ** 2 - (2 * k - 1) ** 2) / (8 * k)) / a_safe
        series = series + term
    far = series / (np.sqrt(2 * np.pi) * np.sqrt(a_safe)) * np.where(x64[..., 0] < 0, (-1.0) ** order, 1.0)
    out = np.where(a > 500, far, out)
    return np.where(np.isnan(x64[..., 0]), np.nan, out).astype(x.dtype)


class I0e(UnaryElementwise):
    """``exp(-|x|) I0(x)``; derivative ``i1e(x) - sign(x) i0e(x)``."""

    save_output = True

    def forward(self, xp, x):
        return xp.i0e(x)

    def derivative(self, xp, out, x):
        return xp.i1e(x) - xp.sign(x) * out

    def reference(self, np, x):
        return _bessel_reference(np, x, 0)


class I1e(UnaryElementwise):
    """``exp(-|x|) I1(x)``; derivative ``i0e(x) - i1e(x) (sign(x) + 1/x)`` (1/2 at 0; ``i1e(x)/x``
    by its series near 0)."""

    save_output = True

    def forward(self, xp, x):
        return xp.i1e(x)

    def derivative(self, xp, out, x):
        return xp.i0e(x) - out * xp.sign(x) - _i1e_over_x(xp, x, out)

    def reference(self, np, x):
        return _bessel_reference(np, x, 1)


def _unscaled(xp: Any, scaled: Any, x: Any, odd: bool) -> Any:
    """``scaled * exp(|x|)``, the exponential in two halves so that the product overflows only
    where it is above the float's range (``I0(712)`` is finite, ``exp(712)`` is not); the limit
    at ``+-inf``: ``x`` for the odd ``I1``, ``|x|`` for the even ``I0``."""
    a = xp.abs(x)
    with xp.errstate(over="ignore", invalid="ignore"):
        half = xp.exp(a * 0.5)
        r = scaled * half * half
    return xp.where(xp.isinf(x), x if odd else a, r)


@register_kernel
@half_in_float32
def i0(xp, x):
    """``I0(x)`` (``xp.i0``), the modified Bessel function of order 0: ``i0e(x) exp(|x|)``."""
    return _unscaled(xp, xp.i0e(x), x, odd=False)


@register_kernel
@half_in_float32
def i1(xp, x):
    """``I1(x)`` (``xp.i1``), the modified Bessel function of order 1 (odd): ``i1e(x) exp(|x|)``."""
    return _unscaled(xp, xp.i1e(x), x, odd=True)


class I0(UnaryElementwise):
    """``I0(x)``; derivative ``I1(x)``."""

    def forward(self, xp, x):
        return xp.i0(x)

    def derivative(self, xp, out, x):
        return xp.i1(x)

    def reference(self, np, x):
        return _unscaled(np, _bessel_reference(np, x, 0), x, odd=False)


class I1(UnaryElementwise):
    """``I1(x)``; derivative ``I0(x) - I1(x)/x``, taken as ``(i0e(x) - i1e(x)/x) exp(|x|)`` with
    ``i1e(x)/x`` by its series near 0 (1/2 there), +inf at +-inf."""

    save_output = True

    def forward(self, xp, x):
        return xp.i1(x)

    def derivative(self, xp, out, x):
        return _unscaled(xp, xp.i0e(x) - _i1e_over_x(xp, x, xp.i1e(x)), x, odd=False)

    def reference(self, np, x):
        return _unscaled(np, _bessel_reference(np, x, 1), x, odd=True)
