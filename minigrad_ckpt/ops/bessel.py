"""``torch.special``'s Bessel functions that PyTorch declares without a derivative:
``spherical_bessel_j0``, ``bessel_j0``, ``bessel_j1``, ``bessel_y0``, ``bessel_y1``, the unscaled modified
Bessel functions ``modified_bessel_i0``, ``modified_bessel_i1``, ``airy_ai``, and ``modified_bessel_k0``,
``_k1`` (scaled or not).

``bessel_j0``/``_j1`` are our own, not PyTorch's Cephes fits: the power series below 2, Miller's
backward recurrence up to 25 and Hankel's asymptotic expansion beyond, each within 1-2 eps of the
exact value absolutely (``tests/test_bessel_without_gradient.py`` checks against mpmath's); so are
``bessel_y0``/``_y1``: the series below 2, Neumann's series on the same Miller recurrence up to 25,
Hankel's expansion beyond.
``modified_bessel_k0``/``_k1`` and their ``scaled_`` twins (``e^x K``) likewise: the series below 1,
the trapezoid rule on ``e^x K(x) = int_0^inf exp(-x (cosh t - 1)) cosh(n t) dt`` up to 25 (exponentially
accurate for an integrand analytic in a strip), the asymptotic expansion beyond.

``spherical_bessel_j0(x) = sin(x) / x`` is PyTorch's case for case: 0 at +-inf, its Taylor
polynomial to ``x^12`` below ``|x| = 0.5`` (1 at 0, and no ``sin(x) / x`` cancellation there).
The modified Bessel functions are the kernels ``xp.i0``, ``xp.i1`` of
:mod:`.scaled_special` (``mg.special.i0``/``i1``'s values); PyTorch's ``modified_bessel_i0`` is
the same function as its ``i0`` under another name, without the gradient.  At +-inf they are
the limits (``I0 = inf``, ``I1 = +-inf``, as ``mg.special.i0``/``i1`` and PyTorch's ``i0``), where
PyTorch's ``modified_bessel_i0``/``_i1`` answer NaN (its Chebyshev series evaluated at inf).

None is recorded (``differentiable = False``): the results do not require grad, as PyTorch's.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, ClassVar

from ..backend import half_in_float32, register_kernel
from .base import FunctionOp
from .scaled_special import I0, I1

#: the Taylor coefficients of sin(x)/x in x^2, PyTorch's (its constants -1/6, 1/120, ...)
_SINC_TAYLOR = (1.0, -1 / 6, 1 / 120, -1 / 5040, 1 / 362880, -1 / 39916800, 1 / 6227020800)


@register_kernel
@half_in_float32
def spherical_bessel_j0(xp, x):
    """``sin(x) / x``: 0 at +-inf, the Taylor polynomial below 0.5 (PyTorch's cases)."""
    with xp.errstate(invalid="ignore", divide="ignore", over="ignore"):
        near = xp.abs(x) < 0.5
        z = x * x
        series = _SINC_TAYLOR[-1] + z * 0
        for c in reversed(_SINC_TAYLOR[:-1]):
            series = c + z * series
        far = xp.where(near, 1, x)
        ratio = xp.sin(far) / far
        return xp.where(xp.isinf(x), xp.zeros_like(x), xp.where(near, series, ratio))


_EULER = 0.5772156649015329
#: where the power series (below), Miller's backward recurrence and Hankel's expansion (from) take over
_SERIES_BELOW, _HANKEL_FROM = 2.0, 25.0
_MILLER_START = 90  # J_90(x) / J_0(x) < 1e-40 for x < 25: the start's error is far below an ulp
_HANKEL_TERMS = 40  # the terms' smallest (k ~ 2x = 50) is beyond; at k = 40, x = 25: < 1e-20


def _power_series(xp: Any, x: Any, order: int) -> Any:
    """``J_order(x) = sum_k (-1)^k (x/2)^(2k + order) / (k! (k + order)!)`` for ``|x| < 2``: 16
    terms reach below an ulp, and no two cancel much (the largest is the first)."""
    h = (x / 2) * (x / 2)
    term = x / 2 if order else xp.ones_like(x)
    total = term
    for k in range(1, 16):
        term = term * -h / (k * (k + order))
        total = total + term
    return total


def _miller(xp: Any, x: Any) -> tuple[Any, Any, Any, Any]:
    """``(J0, J1, S0, S1)`` for ``2 <= x < 25`` by Miller's algorithm: ``J_(k-1) = (2k/x) J_k - J_(k+1)``
    run down from a tiny ``J_90``, normalized by ``J0 + 2 (J2 + J4 + ...) = 1`` (the recurrence is
    stable downwards; a value past 1e20 rescales the running sums, so float32 never overflows).
    ``S0 = sum_m (-1)^m J_2m / m`` and its derivative ``S1 = sum_m (-1)^m (J_(2m-1) - J_(2m+1)) / 2m``
    are Neumann's series of ``Y0`` and ``Y1`` (A&S 9.1.88), gathered on the way down."""
    upper, current = xp.zeros_like(x), xp.full_like(x, 1e-30)
    total, s0, s1 = xp.zeros_like(x), xp.zeros_like(x), xp.zeros_like(x)
    for k in range(_MILLER_START, 0, -1):
        upper, current = current, (2 * k / x) * current - upper  # current is J_n, n = k - 1
        n = k - 1
        if n % 2 == 0 and n > 0:
            total, s0 = total + 2 * current, s0 + ((-1) ** (n // 2) / (n // 2)) * current
        elif n % 2 == 1:  # J_(2j+1)'s coefficient in S1: from m = j + 1 and m = j
            j = n // 2
            s1 = s1 + ((-1) ** (j + 1) * (1 / (2 * j + 2) + (1 / (2 * j) if j else 0))) * current
        scale = xp.where(xp.abs(current) > 1e20, xp.full_like(x, 1e-20), xp.ones_like(x))
        upper, current, total, s0, s1 = upper * scale, current * scale, total * scale, s0 * scale, s1 * scale
    total = total + current
    return current / total, upper / total, s0 / total, s1 / total


def _hankel(xp: Any, x: Any, order: int, second: bool = False) -> Any:
    """Hankel's expansion for ``x >= 25``: ``sqrt(2/(pi x)) (P cos w - Q sin w)``,
    ``w = x - order pi/2 - pi/4``, with ``cos w``, ``sin w`` from ``cos x``, ``sin x`` (no rounding
    of ``x - pi/4``: exact to the last digits for huge ``x``)."""
    mu = 4 * order * order
    p, q, a = xp.ones_like(x), xp.zeros_like(x), xp.ones_like(x)
    for k in range(1, _HANKEL_TERMS):
        a = a * ((mu - (2 * k - 1) ** 2) / (8 * k)) / x
        signed = a if (k // 2) % 2 == 0 else -a
        if k % 2:
            q = q + signed
        else:
            p = p + signed
    c, s = xp.cos(x), xp.sin(x)
    # sqrt(2) cos w and sqrt(2) sin w
    cw, sw = (c + s, s - c) if order == 0 else (s - c, -(s + c))
    if second:  # Y: sqrt(2/(pi x)) (P sin w + Q cos w)
        return xp.sqrt(1 / (math.pi * x)) * (p * sw + q * cw)
    return xp.sqrt(1 / (math.pi * x)) * (p * cw - q * sw)


def _bessel_j(xp: Any, x: Any, order: int) -> Any:
    """``J_order(x)`` for ``order`` 0 or 1: each method on the inputs of its range (the others
    see a harmless stand-in), 0 at +-inf (the limit), NaN at NaN; ``J1`` odd, ``J0`` even."""
    with xp.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        ax = xp.abs(x)
        low, high = ax < _SERIES_BELOW, ax >= _HANKEL_FROM
        series = _power_series(xp, xp.where(low, ax, 1.0), order)
        miller = _miller(xp, xp.where(low | high, 3.0, ax))[order]
        hankel = _hankel(xp, xp.where(high & ~xp.isinf(ax), ax, 30.0), order)
        value = xp.where(low, series, xp.where(high, hankel, miller))
        value = xp.where(xp.isinf(ax), xp.zeros_like(x), value)
        return xp.where(x < 0, -value, value) if order else value


def _log_series(xp: Any, x: Any, order: int, sign: int) -> tuple[Any, Any, Any]:
    """The three pieces of the series of ``K`` (``sign = 1``) and ``Y`` (``sign = -1``) for small ``x``:
    ``ln(x/2)`` (as ``ln x - ln 2``: ``x / 2`` underflows at the smallest subnormal),
    ``plain = sum_k t_k`` and ``weighted = sum_k c_k t_k`` with ``t_k = (sign x^2/4)^k / (k! (k+order)!)``
    and ``c_k = H_k`` (order 0) or ``psi(k+1) + psi(k+2) = 2 (H_k - gamma) + 1/(k+1)`` (order 1)."""
    h = sign * (x / 2) * (x / 2)
    term, harmonic, plain = xp.ones_like(x), 0.0, xp.ones_like(x)
    weighted = xp.zeros_like(x) if order == 0 else (1 - 2 * _EULER) * term
    for k in range(1, 20):
        term, harmonic = term * h / (k * (k + order)), harmonic + 1 / k
        weight = harmonic if order == 0 else 2 * (harmonic - _EULER) + 1 / (k + 1)
        plain, weighted = plain + term, weighted + weight * term
    return xp.log(x) - math.log(2), plain, weighted


def _y_series(xp: Any, x: Any, order: int) -> Any:
    """``Y0``, ``Y1`` for ``0 < x < 2`` by their series (A&S 9.1.13, 9.1.11):
    ``Y0 = 2/pi ((ln(x/2) + gamma) J0 - sum_k H_k (-x^2/4)^k / k!^2)`` and
    ``Y1 = -2/(pi x) + 2/pi ln(x/2) J1 - x/(2 pi) sum_k (psi(k+1) + psi(k+2)) (-x^2/4)^k / (k! (k+1)!)``."""
    log_half, plain, weighted = _log_series(xp, x, order, -1)
    if order == 0:
        return (2 / math.pi) * ((log_half + _EULER) * plain - weighted)
    return -2 / (math.pi * x) + (2 / math.pi) * log_half * (plain * x / 2) - (x / (2 * math.pi)) * weighted


def _bessel_y(xp: Any, x: Any, order: int) -> Any:
    """``Y_order(x)`` for ``x > 0``: the series below 2, Neumann's series on Miller's J's to 25
    (``Y1 = -Y0'``), Hankel's expansion beyond; -inf at 0, NaN below 0 and at NaN, 0 at +inf."""
    with xp.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        low, high = x < _SERIES_BELOW, x >= _HANKEL_FROM
        series = _y_series(xp, xp.where(low & (x > 0), x, 1.0), order)
        mx = xp.where(low | high, 3.0, x)
        j0, j1, s0, s1 = _miller(xp, mx)
        log_term = xp.log(mx / 2) + _EULER
        neumann = (log_term * j0 - 2 * s0) if order == 0 else -(j0 / mx - log_term * j1 - 2 * s1)
        hankel = _hankel(xp, xp.where(high & (x < xp.inf), x, 30.0), order, second=True)
        value = xp.where(low, series, xp.where(high, hankel, (2 / math.pi) * neumann))
        pole = x == 0 if order == 0 else xp.isinf(1 / x) & (x >= 0)
        value = xp.where(pole, xp.full_like(x, -xp.inf), value)
        value = xp.where(x == xp.inf, xp.zeros_like(x), value)
        return xp.where((x < 0) | xp.isnan(x), xp.full_like(x, xp.nan), value)


#: the trapezoid rule's step and end for e^x K(x) = int_0^inf exp(-x (cosh t - 1)) cosh(order t) dt on
#: [1, 25): the integrand is analytic in a strip, so the error falls as exp(-2 pi b / h) (below an ulp
#: for h = 1/10), and past t = 5 it is below exp(-72)
_K_STEP, _K_END = 0.1, 5.0


def _k_series(xp: Any, x: Any, order: int) -> Any:
    """``K0``, ``K1`` for ``0 < x < 1`` by their series (Abramowitz-Stegun 9.6.13, 9.6.11):
    ``K0 = -(ln(x/2) + gamma) I0(x) + sum_k H_k (x^2/4)^k / k!^2`` and
    ``K1 = 1/x + ln(x/2) I1(x) - x/4 sum_k (psi(k+1) + psi(k+2)) (x^2/4)^k / (k! (k+1)!)``;
    no two terms cancel much below 1."""
    log_half, plain, weighted = _log_series(xp, x, order, 1)
    if order == 0:
        return weighted - (log_half + _EULER) * plain
    return 1 / x + log_half * (plain * x / 2) - (x / 4) * weighted


def _k_scaled_integral(xp: Any, x: Any, order: int) -> Any:
    """``e^x K_order(x)`` for ``1 <= x < 25``: the trapezoid rule on its integral, the smallest terms
    first."""
    steps = int(round(_K_END / _K_STEP))
    total = xp.zeros_like(x)
    for j in range(steps, -1, -1):
        t = j * _K_STEP
        weight = (0.5 if j == 0 else 1.0) * math.cosh(order * t) * _K_STEP
        total = total + weight * xp.exp(x * (-2 * math.sinh(t / 2) ** 2))
    return total


def _k_scaled_asymptotic(xp: Any, x: Any, order: int) -> Any:
    """``e^x K_order(x) = sqrt(pi/(2x)) sum_k a_k(order) / x^k`` for ``x >= 25`` (40 terms)."""
    mu = 4 * order * order
    total, a = xp.ones_like(x), xp.ones_like(x)
    for k in range(1, _HANKEL_TERMS):
        a = a * ((mu - (2 * k - 1) ** 2) / (8 * k)) / x
        total = total + a
    return xp.sqrt((math.pi / 2) / x) * total


def _bessel_k(xp: Any, x: Any, order: int, scaled: bool) -> Any:
    """``K_order(x)``, or ``e^x K_order(x)``: +inf at 0 (and for ``K1`` where ``1/x`` overflows), NaN
    below 0 and at NaN, 0 at +inf."""
    with xp.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        low, high = x < 1, x >= _HANKEL_FROM
        small = _k_series(xp, xp.where(low & (x > 0), x, 0.5), order)
        mid = _k_scaled_integral(xp, xp.where(low | high, 2.0, x), order)
        large = _k_scaled_asymptotic(xp, xp.where(high & (x < xp.inf), x, 30.0), order)
        big = xp.where(high, large, mid)
        value = xp.where(low, small * xp.exp(x), big) if scaled else xp.where(low, small, big * xp.exp(-x))
        # K0 at the smallest subnormal is -ln(x/2) ~ 744.6; K1 ~ 1/x overflows: +inf
        pole = x == 0 if order == 0 else xp.isinf(1 / x) & (x >= 0)
        value = xp.where(pole, xp.full_like(x, xp.inf), value)
        value = xp.where(x == xp.inf, xp.zeros_like(x), value)
        return xp.where((x < 0) | xp.isnan(x), xp.full_like(x, xp.nan), value)


#: Ai(0) = 3^(-2/3) / Gamma(2/3) and Ai'(0) = -3^(-1/3) / Gamma(1/3)
_AI_0, _AI_PRIME_0 = 0.35502805388781723926, -0.25881940379280679840
#: below -10 Ai's oscillating expansion (zeta >= 21: its error < e^(-2 zeta)); from 1 on K_(1/3)
_AIRY_EXPANSION_BELOW, _AIRY_K_FROM, _AIRY_STEP, _AIRY_TERMS = -10.0, 1.0, 0.25, 30


def _airy_taylor(xp: Any, x: Any) -> Any:
    """``Ai(x)`` for ``-10 <= x < 1``: ``y'' = x y`` solved from ``Ai(0)``, ``Ai'(0)`` by Taylor steps of
    at most 1/4 toward each ``x`` (30 terms: ``a_(n+2) = (x0 a_n + a_(n-1)) / ((n+1)(n+2))``).  Both
    solutions oscillate with bounded amplitude below 0 and grow slowly to 1, so the steps' roundings
    stay within an ulp or so of the largest values."""
    at, y, dy = xp.zeros_like(x), xp.full_like(x, _AI_0), xp.full_like(x, _AI_PRIME_0)
    for _ in range(int(-_AIRY_EXPANSION_BELOW / _AIRY_STEP) + 1):
        d = xp.clip(x - at, -_AIRY_STEP, _AIRY_STEP)
        coeffs = [y, dy, at * y / 2]
        for n in range(1, _AIRY_TERMS):
            coeffs.append((at * coeffs[n] + coeffs[n - 1]) / ((n + 1) * (n + 2)))
        value, slope = coeffs[-1], (len(coeffs) - 1) * coeffs[-1]
        for n in range(len(coeffs) - 2, -1, -1):
            value = value * d + coeffs[n]
            if n:
                slope = slope * d + n * coeffs[n]
        at, y, dy = at + d, value, slope
    return y


def _airy_oscillating(xp: Any, x: Any) -> Any:
    """``Ai(x)`` for ``x < -10``: ``(sin(w) P - cos(w) Q) / (sqrt(pi) |x|^(1/4))``, ``w = zeta + pi/4``,
    ``zeta = 2/3 |x|^(3/2)``, ``P``, ``Q`` the even and odd terms of ``sum (-1)^k u_k / zeta^k`` (A&S 10.4.60)."""
    z = -x
    zeta = (2 / 3) * z * xp.sqrt(z)
    p, q, term = xp.ones_like(x), xp.zeros_like(x), xp.ones_like(x)
    for k in range(1, _AIRY_TERMS):
        term = term * ((6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k)) / zeta
        signed = term if (k // 2) % 2 == 0 else -term
        if k % 2:
            q = q + signed
        else:
            p = p + signed
    w = zeta + math.pi / 4
    return (xp.sin(w) * p - xp.cos(w) * q) / (math.sqrt(math.pi) * xp.sqrt(xp.sqrt(z)))


def _airy_ai(xp: Any, x: Any) -> Any:
    """``Ai(x)``: the oscillating expansion below -10, Taylor steps from 0 to 1,
    ``sqrt(x/3)/pi K_(1/3)(2/3 x^(3/2))`` beyond (its scaled integral, or expansion from zeta = 25);
    0 at +-inf (the limit), NaN at NaN."""
    with xp.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        low, high = x < _AIRY_EXPANSION_BELOW, x >= _AIRY_K_FROM
        oscillating = _airy_oscillating(xp, xp.where(low & (x > -xp.inf), x, -20.0))
        middle = _airy_taylor(xp, xp.where(low | high, 0.0, x))
        xk = xp.where(high & (x < xp.inf), x, 2.0)
        zeta = (2 / 3) * xk * xp.sqrt(xk)
        far = zeta >= _HANKEL_FROM
        scaled = xp.where(far, _k_scaled_asymptotic(xp, xp.where(far, zeta, 30.0), 1 / 3),
                          _k_scaled_integral(xp, xp.where(far, 2.0, zeta), 1 / 3))
        decaying = xp.sqrt(xk / 3) / math.pi * scaled * xp.exp(-zeta)
        value = xp.where(low, oscillating, xp.where(high, decaying, middle))
        return xp.where(xp.isinf(x), xp.zeros_like(x), value)


def _register(name: str, doc: str, compute: Any) -> Any:
    """Register ``compute(xp, x)`` as the kernel ``xp.<name>``."""

    def kernel(xp, x):
        return compute(xp, x)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = doc
    return register_kernel(half_in_float32(kernel))


_register("airy_ai", "The Airy function ``Ai(x)``.", _airy_ai)
for _order in (0, 1):
    _register(f"bessel_j{_order}", f"The Bessel function of the first kind of order {_order}.",
              lambda xp, x, order=_order: _bessel_j(xp, x, order))
    _register(f"bessel_y{_order}", f"The Bessel function of the second kind of order {_order}.",
              lambda xp, x, order=_order: _bessel_y(xp, x, order))
    _register(f"modified_bessel_k{_order}", f"The modified Bessel function of the second kind of order {_order}.",
              lambda xp, x, order=_order: _bessel_k(xp, x, order, False))
    _register(f"scaled_modified_bessel_k{_order}", f"``e^x`` times ``modified_bessel_k{_order}``.",
              lambda xp, x, order=_order: _bessel_k(xp, x, order, True))


class _WithoutDerivative(FunctionOp):
    """A function PyTorch declares no derivative for: never recorded, so nothing is saved."""

    abstract = True
    differentiable = False
    save_inputs = False


class SphericalBesselJ0(_WithoutDerivative):
    """``sin(x) / x``."""

    fn = "spherical_bessel_j0"

    def reference(self, np, x):
        def one(v: float) -> float:
            if math.isinf(v):
                return 0.0
            return 1.0 if v == 0 else math.sin(v) / v

        return np.vectorize(one, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


class _ModifiedBessel(_WithoutDerivative):
    """``I0`` or ``I1`` without the derivative: the kernel and reference of the differentiable op."""

    abstract = True
    twin: ClassVar[type[FunctionOp]]

    def reference(self, np, x):
        return self.twin().reference(np, x)


class ModifiedBesselI0(_ModifiedBessel):
    """``I0(x)`` (PyTorch's ``modified_bessel_i0``)."""

    fn, twin = "i0", I0


class ModifiedBesselI1(_ModifiedBessel):
    """``I1(x)`` (PyTorch's ``modified_bessel_i1``)."""

    fn, twin = "i1", I1



class _BesselJ(_WithoutDerivative):
    """``J0`` or ``J1``.  The reference is Bessel's integral ``(1/2pi) int_0^2pi cos(n t - x sin t) dt``
    by the trapezoid rule (exponentially accurate for a periodic integrand, with more points than
    ``2|x| + 64``), and for ``|x| > 1e4`` Hankel's expansion to ``1/x^3``."""

    abstract = True
    order: ClassVar[int]

    def reference(self, np, x):
        def one(v: float) -> float:
            if math.isnan(v) or math.isinf(v):
                return v if math.isnan(v) else 0.0
            a = abs(v)
            if a > 1e4:
                mu = 4 * self.order**2
                p = 1 - (mu - 1) * (mu - 9) / (128 * a) / a
                q = (mu - 1) / (8 * a) - (mu - 1) * (mu - 9) * (mu - 25) / (3072 * a) / a / a
                w = a - (2 * self.order + 1) * math.pi / 4
                r = math.sqrt(2 / (math.pi * a)) * (p * math.cos(w) - q * math.sin(w))
            else:
                t = np.linspace(0, 2 * math.pi, int(2 * a) + 65, endpoint=False)
                r = float(np.mean(np.cos(self.order * t - a * np.sin(t))))
            return -r if self.order and v < 0 else r

        return np.vectorize(one, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


class BesselJ0(_BesselJ):
    """``J0(x)`` (PyTorch's ``bessel_j0``: no derivative)."""

    fn, order = "bessel_j0", 0


class BesselJ1(_BesselJ):
    """``J1(x)`` (PyTorch's ``bessel_j1``: no derivative)."""

    fn, order = "bessel_j1", 1


class _BesselK(_WithoutDerivative):
    """``K0`` or ``K1``, scaled by ``e^x`` or not.  The reference: ``int_0^inf exp(-x cosh t) cosh(n t) dt``
    (scaled: ``exp(-x (cosh t - 1))``) by the trapezoid rule with a step of 1/64 to where the integrand
    is below e^-100, in float64 -- the integral everywhere, not the kernel's series and expansion."""

    abstract = True
    order: ClassVar[int]
    scaled: ClassVar[bool]

    def reference(self, np, x):
        def one(v: float) -> float:
            if math.isnan(v) or v < 0:
                return math.nan
            if v == 0:
                return math.inf
            if v > 1e4:  # the integrand's width, ~1/sqrt(v), is below the step: Hankel's expansion to 1/v^2
                mu = 4 * self.order**2
                r = math.sqrt(math.pi / (2 * v)) * (1 + (mu - 1) / (8 * v) + (mu - 1) * (mu - 9) / (128 * v * v))
                return r if self.scaled else r * math.exp(-v)
            t = np.arange(0.0, max(12.0, math.log(400 / v)), 1 / 64)
            f = np.exp(-v * (2 * np.sinh(t / 2) ** 2)) * np.cosh(self.order * t)
            r = (float(np.sum(f)) - 0.5 * float(f[0])) / 64
            return r if self.scaled else r * math.exp(-v)

        return np.vectorize(one, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


class ModifiedBesselK0(_BesselK):
    """``K0(x)`` (PyTorch's ``modified_bessel_k0``: no derivative)."""

    fn, order, scaled = "modified_bessel_k0", 0, False


class ModifiedBesselK1(_BesselK):
    """``K1(x)`` (PyTorch's ``modified_bessel_k1``)."""

    fn, order, scaled = "modified_bessel_k1", 1, False


class ScaledModifiedBesselK0(_BesselK):
    """``e^x K0(x)`` (PyTorch's ``scaled_modified_bessel_k0``)."""

    fn, order, scaled = "scaled_modified_bessel_k0", 0, True


class ScaledModifiedBesselK1(_BesselK):
    """``e^x K1(x)`` (PyTorch's ``scaled_modified_bessel_k1``)."""

    fn, order, scaled = "scaled_modified_bessel_k1", 1, True


class _BesselY(_WithoutDerivative):
    """``Y0`` or ``Y1``.  The reference: for ``x <= 50`` the series of :func:`_y_series` summed in
    exact rational arithmetic (no cancellation, however large its terms), then the logarithm and
    Euler's constant in float64; beyond, Hankel's expansion to ``1/x^3``."""

    abstract = True
    order: ClassVar[int]

    def reference(self, np, x):
        with np.errstate(over="ignore"):  # -2/(pi x) is -inf at the smallest subnormals
            return np.vectorize(self._one, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)

    def _one(self, v: float) -> float:
        if math.isnan(v) or v < 0:
            return math.nan
        if v == 0 or math.isinf(v) or (self.order == 1 and (2 / math.pi) / v == math.inf):
            return 0.0 if math.isinf(v) else -math.inf  # Y1 ~ -2/(pi x) overflows below ~3.5e-309
        log_half = math.log(v) - math.log(2)  # v / 2 underflows at the smallest subnormal
        if v > 50:
            mu = 4 * self.order**2
            p = 1 - (mu - 1) * (mu - 9) / (128 * v) / v
            q = (mu - 1) / (8 * v) - (mu - 1) * (mu - 9) * (mu - 25) / (3072 * v) / v / v
            w = v - (2 * self.order + 1) * math.pi / 4
            return math.sqrt(2 / (math.pi * v)) * (p * math.sin(w) + q * math.cos(w))
        quarter = -Fraction(v) ** 2 / 4
        term, harmonic, plain, weighted = Fraction(1), Fraction(0), Fraction(1), Fraction(0)
        if self.order == 0:
            for k in range(1, int(3 * v) + 40):
                term, harmonic = term * quarter / (k * k), harmonic + Fraction(1, k)
                plain, weighted = plain + term, weighted - harmonic * term
            return 2 / math.pi * ((log_half + _EULER) * float(plain) + float(weighted))
        weighted = Fraction(1)  # 2 H_0 + 1/1
        for k in range(1, int(3 * v) + 40):
            term, harmonic = term * quarter / (k * (k + 1)), harmonic + Fraction(1, k)
            plain, weighted = plain + term, weighted + (2 * harmonic + Fraction(1, k + 1)) * term
        j1 = v / 2 * float(plain)
        return -2 / (math.pi * v) + 2 / math.pi * (log_half + _EULER) * j1 - v / (2 * math.pi) * float(weighted)


class BesselY0(_BesselY):
    """``Y0(x)`` (PyTorch's ``bessel_y0``: no derivative)."""

    fn, order = "bessel_y0", 0


class BesselY1(_BesselY):
    """``Y1(x)`` (PyTorch's ``bessel_y1``: no derivative)."""

    fn, order = "bessel_y1", 1


class AiryAi(_WithoutDerivative):
    """``Ai(x)`` (PyTorch's ``airy_ai``: no derivative).  The reference is the Maclaurin series
    ``Ai(x) = Ai(0) f(x) + Ai'(0) g(x)`` in float64, good for ``|x| <= 2`` (beyond, ``f`` and ``g``
    grow and cancel), 0 at +-inf and beyond 110 (underflow), NaN elsewhere."""

    fn = "airy_ai"

    def reference(self, np, x):
        def one(v: float) -> float:
            if math.isinf(v) or v > 110:
                return 0.0  # the limit at either end; beyond 110, exp(-2/3 x^1.5) underflows too
            if math.isnan(v) or abs(v) > 2:
                return math.nan
            cube, tf, tg = v**3, 1.0, v
            f, g = tf, tg
            for k in range(1, 40):
                tf, tg = tf * cube / ((3 * k - 1) * (3 * k)), tg * cube / ((3 * k) * (3 * k + 1))
                f, g = f + tf, g + tg
            return _AI_0 * f + _AI_PRIME_0 * g

        return np.vectorize(one, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)
