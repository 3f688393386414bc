"""The regularized incomplete gamma functions ``gammainc(a, x) = P(a, x)`` and
``gammaincc(a, x) = Q(a, x) = 1 - P(a, x)`` (SciPy's and PyTorch's names), for ``a > 0``,
``x >= 0``, and their derivative in ``x``.

Numerical Recipes' split: below ``x < a + 1`` the series ``P = x^a e^-x / Gamma(a + 1)
sum_n x^n / ((a + 1) ... (a + n))``, above it the continued fraction for ``Q`` (modified
Lentz); the other is ``1 -`` it.  A fixed 400 iterations, so every element runs the same
code: within 5e-12 of SciPy for ``a`` up to 1000 (``1 - P`` cancels a little where ``Q`` is small
below ``x < a + 1``) (beyond, SciPy switches to Temme's
uniform expansion; the iterations here are then too few).  ``d/dx P = x^(a-1) e^-x /
Gamma(a)``; the derivative in ``a`` is not offered (PyTorch's is not either).
"""

from __future__ import annotations

from typing import Any

from ..backend import register_kernel
from .base import Op

_ITERATIONS = 400


def _lower_series(xp: Any, a: Any, x: Any) -> Any:
    # x^a e^-x / Gamma(a + 1) times the sum, not (1/a) x^a e^-x / Gamma(a): for a tiny
    # (subnormal) a, 1/a overflows where the product is about 1
    term = total = xp.ones_like(x)
    for n in range(1, _ITERATIONS):
        term = term * x / (a + n)
        total = total + term
    return total * xp.exp(a * xp.log(x) - x - xp.gammaln(a + 1))


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
    return h * xp.exp(a * xp.log(x) - x - xp.gammaln(a))


def _split(xp: Any, a: Any, x: Any, upper: bool) -> Any:
    with xp.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        ok = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
        aa, xx = xp.where(ok, a, 1.0), xp.where(ok, x, 1.0)
        series = xx < aa + 1
        p = _lower_series(xp, aa, xp.where(series, xx, 0.5 * aa))
        q = _upper_fraction(xp, aa, xp.where(series, aa + 2, xx))
        value = xp.where(series, 1 - p if upper else p, q if upper else 1 - q)
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
def gammainc(xp, a, x):
    """The regularized lower incomplete gamma ``P(a, x)`` (``xp.gammainc``)."""
    return _split(xp, a, x, upper=False)


@register_kernel
def gammaincc(xp, a, x):
    """The regularized upper incomplete gamma ``Q(a, x) = 1 - P(a, x)`` (``xp.gammaincc``)."""
    return _split(xp, a, x, upper=True)


def _density(xp: Any, a: Any, x: Any) -> Any:
    """``d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)`` (0 at x = 0 for a > 1, inf for a < 1)."""
    with xp.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        return xp.exp((a - 1) * xp.log(x) - x - xp.gammaln(a))


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
