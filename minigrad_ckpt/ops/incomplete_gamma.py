"""The regularized incomplete gamma functions ``gammainc(a, x) = P(a, x)`` and
``gammaincc(a, x) = Q(a, x) = 1 - P(a, x)`` (SciPy's and PyTorch's names), for ``a > 0``,
``x >= 0``, and their derivative in ``x``.

Two methods, chosen per element (every element runs the same code, as a GPU would), and one factor:

- ``a >= 20`` with ``x`` near ``a`` (``|eta| <= 1`` below): Temme's uniform asymptotic expansion
  (DLMF 8.12.3-8.12.4), the method SciPy (Cephes) and PyTorch use there.  With ``lambda = x / a``
  and ``eta^2 / 2 = lambda - 1 - ln lambda`` (``eta`` of the sign of ``lambda - 1``),
  ``Q = erfc(eta sqrt(a / 2)) / 2 + exp(-a eta^2 / 2) / sqrt(2 pi a) sum_k c_k(eta) a^-k``.  The
  coefficients are derived here, in exact rationals, from DLMF 8.12.9 (``_temme_coefficients``).
- elsewhere below ``x < a + 1``: the series ``P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1)
  ... (a + n))``; above it the continued fraction for ``Q`` (modified Lentz), as Numerical Recipes
  splits them; the other function is ``1 -`` it.  A fixed 400 iterations: enough, since the
  expansion takes the elements near ``x = a`` where these converge slowly for large ``a``.
- For ``a >= 20`` the factor ``x^a e^-x / Gamma(a)`` is ``sqrt(a / 2 pi) exp(a (ln lambda - lambda
  + 1)) / Gamma*(a)``, with Stirling's series for ``Gamma*``: its exponent then carries no
  cancellation of terms of size ``a ln a``, which cost 1e-10 of relative accuracy at ``a = 1e5``.

Within 1e-13 of 50-digit values (mpmath), or within the problem's conditioning where that is
more (``x`` moved by a few ulp moves ``P`` by ``density * x * ulp``), for ``a`` up to 1e8 and
beyond (``tests/test_incomplete_gamma_large_a.py``); SciPy and PyTorch lose 70% of ``P`` at
``a = 1e9``, ``x = a - 5 sqrt(a)``, where their series stops at 2000 terms.  ``d/dx P = x^(a-1) e^-x /
Gamma(a)``, by the same factor; the derivative in ``a`` is not offered (PyTorch's is not either).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

from ..backend import half_in_float32, register_kernel
from .base import Op
from .elementwise import horner
from .special import _stirling_corr

_ITERATIONS = 400
_UNIFORM_FROM = 20.0  # the least a the expansion serves (its terms fall below 1e-17 by the 12th)
_TERMS, _POWERS = 12, 30  # c_0 .. c_11 a^-11, each as a Taylor polynomial of degree 29 in eta


def _bernoulli(count: int) -> list[Fraction]:
    """``B_0 .. B_count`` exactly, by their recurrence ``sum_k C(m + 1, k) B_k = 0``."""
    b = [Fraction(1)]
    for m in range(1, count + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


def _gamma_star_log_series(count: int) -> list[Fraction]:
    """Stirling's series ``ln Gamma*(a) = sum_m B_2m / (2m (2m - 1) a^(2m - 1))`` as the
    coefficients of ``a^0 .. a^-count``, where ``Gamma(a) = sqrt(2 pi / a) (a / e)^a Gamma*(a)``."""
    b = _bernoulli(count + 1)
    logs = [Fraction(0)] * (count + 1)
    for m in range(1, (count + 1) // 2 + 1):
        logs[2 * m - 1] = b[2 * m] / (2 * m * (2 * m - 1))
    return logs


@functools.cache
def _temme_coefficients() -> tuple[tuple[float, ...], ...]:
    """``d[k][n]``, the Taylor coefficients ``c_k(eta) = sum_n d[k][n] eta^n`` (DLMF 8.12.9):
    ``c_0 = 1 / (lambda - 1) - 1 / eta``, ``c_k = c_(k-1)' / eta + (-1)^k gamma_k / (lambda - 1)``
    with ``gamma_k`` the coefficients of ``Gamma*(a) ~ sum gamma_k a^-k``.  Exact rationals, made
    once (a tenth of a second) and rounded to floats at the end."""
    degree = _POWERS + 2 * _TERMS + 2  # each step of the recurrence takes two powers of eta off
    # mu = lambda - 1 = sum_n b_n eta^n, from mu - ln(1 + mu) = eta^2 / 2, i.e. mu mu' = eta (1 + mu)
    b = [Fraction(0), Fraction(1)]
    for n in range(2, degree + 2):
        b.append((b[n - 1] - sum(b[i] * (n + 1 - i) * b[n + 1 - i] for i in range(2, n))) / (n + 1))
    # 1 / mu = (1 / eta) sum_n inv[n] eta^n
    inv = [Fraction(1)]
    for n in range(1, degree + 1):
        inv.append(-sum(b[k + 1] * inv[n - k] for k in range(1, n + 1)))
    logs = _gamma_star_log_series(_TERMS)
    gamma = [Fraction(1)] + [Fraction(0)] * _TERMS  # exp of the log series, by e' = (log)' e
    for n in range(1, _TERMS + 1):
        gamma[n] = sum(k * logs[k] * gamma[n - k] for k in range(1, n + 1)) / n
    c = inv[1:]  # c_0's Taylor coefficients: 1 / mu less its pole 1 / eta
    table = [c[:_POWERS]]
    for k in range(1, _TERMS):
        # c_(k-1)' / eta has the pole c_(k-1)[1] / eta, which gamma_k / mu's cancels exactly
        c = [(n + 2) * c[n + 2] + (-1) ** k * gamma[k] * inv[n + 1] for n in range(len(c) - 2)]
        table.append(c[:_POWERS])
    return tuple(tuple(float(v) for v in reversed(row)) for row in table)  # highest power first


def _log_ratio_less(xp: Any, x: Any, a: Any) -> Any:
    """``ln(x / a) - (x - a) / a`` (``ln(1 + s) - s`` with ``s = (x - a) / a``) for ``x, a > 0``,
    without cancellation: with ``u = s / (2 + s)``, ``ln(1 + s) = 2 atanh(u)``
    and ``s = 2u / (1 - u)`` give ``-s u + 2 u^3 (1/3 + u^2/5 + ...)``, whose terms do not cancel;
    18 terms reach 1e-17 for ``|u| <= 1/3``.  Beyond, the direct difference loses < 2 bits
    (``ln(x / a)``, not ``log1p(s)``: ``s`` near -1 has lost ``x``'s digits)."""
    s = (x - a) / a  # x - a is exact where x is near a (Sterbenz), where it matters
    u = s / (2 + s)  # not (x - a) / (x + a): x + a overflows for the largest floats
    near = xp.abs(u) <= 1 / 3
    u = xp.where(near, u, 0.0)
    u2 = u * u
    tail = u2 * 0 + 1 / 37
    for j in range(17, 0, -1):
        tail = tail * u2 + 1 / (2 * j + 1)
    return xp.where(near, 2 * u * u2 * tail - s * u, xp.log(x / a) - s)


def _power_factor(xp: Any, a: Any, x: Any) -> Any:
    """``x^a e^-x / Gamma(a + 1)``, the factor before the series (and, times ``a``, before the
    continued fraction) for ``a > 0, x > 0``: the direct exponent for small ``a`` (``Gamma(a + 1)``,
    not ``a Gamma(a)``: for a subnormal ``a``, ``1/a`` overflows where the factor is about 1), the
    cancellation-free one (the module's docstring) from ``a >= 20``."""
    small = xp.exp(a * xp.log(x) - x - xp.gammaln(a + 1))
    big = xp.where(a >= _UNIFORM_FROM, a, _UNIFORM_FROM)
    # ln Gamma*(a): Stirling's series, betaln's (to a^-13, below 1e-20 from a = 20 on)
    scaled = xp.exp(big * _log_ratio_less(xp, x, big) - _stirling_corr(xp, big)) / xp.sqrt(2 * math.pi * big)
    return xp.where(a >= _UNIFORM_FROM, scaled, small)


def _uniform_expansion(xp: Any, a: Any, x: Any, upper: bool) -> tuple[Any, Any]:
    """Temme's expansion of ``Q`` (or ``P``) for ``a >= 20`` (other elements get a = 20 and give
    values not used), and where it serves: ``|eta| <= 1``, inside the Taylor polynomials' reach."""
    aa = xp.where(a >= _UNIFORM_FROM, a, _UNIFORM_FROM)
    eta = xp.sign(x - aa) * xp.sqrt(-2 * _log_ratio_less(xp, x, aa))
    sign = 1.0 if upper else -1.0
    total = eta * 0
    scale = eta * 0 + 1
    for row in _temme_coefficients():
        total = total + horner(row, eta) * scale
        scale = scale / aa
    remainder = xp.exp(-0.5 * aa * eta * eta) * total / xp.sqrt(2 * math.pi * aa)
    value = 0.5 * xp.erfc(sign * eta * xp.sqrt(aa / 2)) + sign * remainder
    return value, (a >= _UNIFORM_FROM) & (xp.abs(eta) <= 1.0)


def _lower_series(xp: Any, a: Any, x: Any) -> Any:
    term = total = xp.ones_like(x)
    for n in range(1, _ITERATIONS):
        term = term * x / (a + n)
        total = total + term
    return total * _power_factor(xp, a, x)


def _upper_fraction(xp: Any, a: Any, x: Any) -> Any:
    info = xp.finfo(x.dtype)
    tiny = float(info.tiny / info.eps)  # Lentz's guard against a zero denominator, for the dtype
    b = x + 1 - a
    c = b * 0 + 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, _ITERATIONS):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = xp.where(xp.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = xp.where(xp.abs(c) < tiny, tiny, c)
        d = 1 / d
        h = h * d * c
    return h * (a * _power_factor(xp, a, x))


def _split(xp: Any, a: Any, x: Any, upper: bool) -> Any:
    with xp.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        ok = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
        aa, xx = xp.where(ok, a, 1.0), xp.where(ok, x, 1.0)
        series = xx < aa + 1
        p = _lower_series(xp, aa, xp.where(series, xx, 0.5 * aa))
        q = _upper_fraction(xp, aa, xp.where(series, aa + 2, xx))
        value = xp.where(series, 1 - p if upper else p, q if upper else 1 - q)
        expansion, near_a = _uniform_expansion(xp, aa, xx, upper)
        value = xp.where(near_a, expansion, value)
        at_zero, at_inf = (1.0, 0.0) if upper else (0.0, 1.0)
        zero = value * 0  # the constants below as arrays of the inputs' dtype
        edge = xp.where(x == 0, zero + at_zero, xp.where(x == xp.inf, zero + at_inf, zero + xp.nan))
        r = xp.where(ok, value, xp.where((a > 0) & xp.isfinite(a) & (x >= 0), edge, zero + xp.nan))
        # a = 0: P(0, x) = 1 for x > 0, the limit PyTorch and SciPy take (the mass sits at 0)
        r = xp.where((a == 0) & (x > 0), zero + at_inf, r)
        # a = inf: every finite x >= 0 lies at the bottom of the distribution (P = 0, Q = 1), as
        # PyTorch and SciPy answer; x = inf beside it stays NaN
        r = xp.where((a == xp.inf) & (x >= 0) & xp.isfinite(x), zero + at_zero, r)
        return xp.where(xp.isnan(a) | xp.isnan(x), a + x, r)


@register_kernel
@half_in_float32
def gammainc(xp, a, x):
    """The regularized lower incomplete gamma ``P(a, x)`` (``xp.gammainc``)."""
    return _split(xp, a, x, upper=False)


@register_kernel
@half_in_float32
def gammaincc(xp, a, x):
    """The regularized upper incomplete gamma ``Q(a, x) = 1 - P(a, x)`` (``xp.gammaincc``)."""
    return _split(xp, a, x, upper=True)


def _density(xp: Any, a: Any, x: Any) -> Any:
    """``d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)`` (0 at x = 0 for a > 1, inf for a < 1); from
    ``a >= 20``, ``a / x`` times ``_power_factor``, which keeps its accuracy for large ``a``."""
    with xp.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        # x^(a-1) as 1 where a = 1, x = 0 included (0 * log 0 is NaN): d/dx P(1, x) = e^-x, 1 at 0
        direct = xp.exp(xp.where(a == 1, 0.0, (a - 1) * xp.log(x)) - x - xp.gammaln(a))
        inside = (a >= _UNIFORM_FROM) & (x > 0) & (x < xp.inf)
        xx = xp.where(inside, x, 1.0)
        return xp.where(inside, _power_factor(xp, a, xx) * (a / xx), direct)


class _IncompleteGamma(Op):
    """What Gammainc and Gammaincc share: the derivative in ``x`` is the gamma density (times
    ``sign``); no gradient in ``a`` -- one that must reach ``a`` is PyTorch's
    ``NotImplementedError``, raised when it is asked for (the value, and the gradient in ``x``,
    can be had while ``a`` requires grad)."""

    abstract = True  # a base class, not an op of its own: not registered
    sign = 1.0
    uses_needs_input_grad = True

    def backward(self, xp, g, out, a, x, needs_input_grad=(False, True)):  # the engine says which
        if needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{type(self).__name__.lower()}' in a is not "
                                      "implemented (PyTorch's neither); detach a")
        return None, xp.sum_to(g * (self.sign * _density(xp, a, x)), x.shape)

    def jvp(self, xp, tangents, out, a, x):
        if tangents[0] is not None:
            raise NotImplementedError(f"the derivative for '{type(self).__name__.lower()}' in a is not "
                                      "implemented; detach a")
        tx = tangents[1]
        return None if tx is None else tx * (self.sign * _density(xp, a, x))

    def _reference(self, np: Any, a: Any, x: Any, upper: bool) -> Any:
        # P by the series in float64 with as many terms as it takes (the battery's a, x are small)
        import math
        aa, xx = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
        out = np.empty(aa.shape)
        for i in np.ndindex(aa.shape):
            s, v = aa[i], xx[i]
            if s == 0 and v > 0:  # the limit a -> 0 (PyTorch's, SciPy's): P = 1
                out[i] = 0.0 if upper else 1.0
                continue
            if s == math.inf and 0 <= v < math.inf:  # a -> inf with x finite (PyTorch's, SciPy's): P = 0
                out[i] = 1.0 if upper else 0.0
                continue
            if not (s > 0 and v >= 0 and math.isfinite(s)):
                out[i] = math.nan
                continue
            if v > 1e4 * max(1.0, s) or (s < 1e-200 and v > 0):  # P is 1 to double precision there (far
                # beyond the mode; or a -> 0, where Gamma(a) ~ 1/a): the series would overflow
                out[i] = 0.0 if upper else 1.0
                continue
            term = total = 1 / s
            n = 1
            while term > 1e-18 * total and n < 100000:
                term *= v / (s + n)
                total += term
                n += 1
            p = total * math.exp(s * math.log(v) - v - math.lgamma(s)) if v > 0 else 0.0
            out[i] = 1 - p if upper else p
        dt = next(t.dtype for t in (a, x) if isinstance(t, np.ndarray))
        return out.astype(dt)


class Gammainc(_IncompleteGamma):
    """``P(a, x)``; gradient in ``x`` only: ``x^(a-1) e^-x / Gamma(a)``."""

    def forward(self, xp, a, x):
        return xp.gammainc(a, x)

    def reference(self, np, a, x):
        return self._reference(np, a, x, upper=False)


class Gammaincc(_IncompleteGamma):
    """``Q(a, x)``; gradient in ``x`` only: ``-x^(a-1) e^-x / Gamma(a)``."""

    sign = -1.0

    def forward(self, xp, a, x):
        return xp.gammaincc(a, x)

    def reference(self, np, a, x):
        return self._reference(np, a, x, upper=True)
