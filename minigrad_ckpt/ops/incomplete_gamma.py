"""The regularized incomplete gamma functions ``gammainc(a, x) = P(a, x)`` and
``gammaincc(a, x) = Q(a, x) = 1 - P(a, x)`` (SciPy's and PyTorch's names), for ``a > 0``,
``x >= 0``, and their derivative in ``x``.

Two methods, chosen per element and each computed on the elements that take it (gathered, as
``special._only_where``), and one factor:

- ``a >= 20`` with ``x`` near ``a`` (``|eta| <= 1`` below): Temme's uniform asymptotic expansion
  (DLMF 8.12.3-8.12.4), the method SciPy (Cephes) and PyTorch use there.  With ``lambda = x / a``
  and ``eta^2 / 2 = lambda - 1 - ln lambda`` (``eta`` of the sign of ``lambda - 1``),
  ``Q = erfc(eta sqrt(a / 2)) / 2 + exp(-a eta^2 / 2) / sqrt(2 pi a) sum_k c_k(eta) a^-k``.  The
  coefficients are derived here, in exact rationals, from DLMF 8.12.9 (``_temme_coefficients``).
- elsewhere below ``x < a + 1``: the series ``P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1)
  ... (a + n))``; above it the continued fraction for ``Q`` (modified Lentz), as Numerical Recipes
  splits them; the other function is ``1 -`` it.  Each element iterates until the rest of the
  series, or a step of the fraction, is below an ulp (tested every 16 steps, one synchronizing
  read a test; the elements still going are gathered), 400 steps at most: enough, since the
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
from .special import _only_where, _stirling_corr

_ITERATIONS = 400
_CHECK_EVERY = 16  # steps between convergence tests (each a synchronizing read)
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


def _everywhere(xp: Any, mask: Any, fn: Any, *arrays: Any) -> Any:
    """``fn(*arrays)`` on every element, ``mask`` or not: ``_only_where``'s stand-in for the
    derivative, which the differentiable namespace (``create_graph=True``) may compute, and which
    offers no gather or synchronizing read."""
    return fn(*arrays)


def _power_factor(xp: Any, a: Any, x: Any, branch: Any = _everywhere) -> Any:
    """``x^a e^-x / Gamma(a + 1)``, the factor before the series (and, times ``a``, before the
    continued fraction) for ``a > 0, x > 0``: the direct exponent for small ``a`` (``Gamma(a + 1)``,
    not ``a Gamma(a)``: for a subnormal ``a``, ``1/a`` overflows where the factor is about 1), the
    cancellation-free one (the module's docstring) from ``a >= 20``.  ``branch`` computes each on
    its elements (the kernels pass ``_only_where``)."""
    big = a >= _UNIFORM_FROM
    small = branch(xp, xp.logical_not(big), lambda s, v: xp.exp(s * xp.log(v) - v - xp.gammaln(s + 1)), a, x)
    # ln Gamma*(a): Stirling's series, betaln's (to a^-13, below 1e-20 from a = 20 on)
    scaled = branch(xp, big, lambda s, v: xp.exp(s * _log_ratio_less(xp, v, s) - _stirling_corr(xp, s))
                    / xp.sqrt(2 * math.pi * s), xp.where(big, a, _UNIFORM_FROM), x)
    return xp.where(big, scaled, small)


def _eta(xp: Any, a: Any, x: Any) -> Any:
    """Temme's variable: ``eta^2 / 2 = lambda - 1 - ln lambda``, ``lambda = x / a``, of the sign of
    ``x - a``."""
    return xp.sign(x - a) * xp.sqrt(-2 * _log_ratio_less(xp, x, a))


def _uniform_expansion(xp: Any, a: Any, eta: Any, upper: bool) -> Any:
    """Temme's expansion of ``Q`` (or ``P``) for ``a >= 20`` where it serves: ``|eta| <= 1``, inside
    the Taylor polynomials' reach."""
    sign = 1.0 if upper else -1.0
    total = eta * 0
    scale = eta * 0 + 1
    for row in _temme_coefficients():
        total = total + horner(row, eta) * scale
        scale = scale / a
    remainder = xp.exp(-0.5 * a * eta * eta) * total / xp.sqrt(2 * math.pi * a)
    return 0.5 * xp.erfc(sign * eta * xp.sqrt(a / 2)) + sign * remainder


def _iterated(xp: Any, step: Any, converged: Any, state: tuple[Any, ...]) -> tuple[Any, ...]:
    """``state`` (flat arrays, one element per problem) after ``step(state, n)`` for ``n = 1, 2,
    ...``, each element's until ``converged(state, n)`` holds for it, or ``_ITERATIONS``.  The test
    every ``_CHECK_EVERY`` steps (one synchronizing read of a count), and the elements still going
    are gathered: an element costs the steps it takes, not the slowest one's."""
    out = None
    index = xp.arange(state[0].shape[0])
    n = 1
    while True:
        for _ in range(min(_CHECK_EVERY, _ITERATIONS - n)):
            state = step(state, n)
            n += 1
        going = xp.logical_not(converged(state, n)) if n < _ITERATIONS else xp.zeros(index.shape, dtype=bool)
        count = xp.scalar(xp.count_nonzero(going))
        if count == index.shape[0] and n < _ITERATIONS:
            continue
        if out is None and count == 0:  # every one done together: nothing to scatter
            return state
        if out is None:
            out = tuple(xp.zeros_like(s) for s in state)
        done = xp.nonzero(xp.logical_not(going))[0]
        where = xp.take(index, done)
        for o, s in zip(out, state):
            xp.put_along_axis(o, where, xp.take(s, done), axis=0)
        if count == 0:
            return out
        keep = xp.nonzero(going)[0]
        index = xp.take(index, keep)
        state = tuple(xp.take(s, keep) for s in state)


def _flat(fn: Any) -> Any:
    """``fn`` of flat arrays, applied to arrays of any shape (``_only_where`` passes all of them
    whole where every element takes the branch)."""
    def on_any_shape(xp: Any, *arrays: Any) -> Any:
        return xp.reshape(fn(xp, *(xp.reshape(a, (-1,)) for a in arrays)), arrays[0].shape)
    return on_any_shape


@_flat
def _lower_series(xp: Any, a: Any, x: Any) -> Any:
    """``P`` by the series, to where the rest of it, less than ``term x / (a + n + 1 - x)`` (its
    ratios fall below ``x / (a + n + 1) < 1``), is below a quarter ulp of the sum."""
    eps = float(xp.finfo(x.dtype).eps) / 4

    def step(state: tuple[Any, ...], n: int) -> tuple[Any, ...]:
        a, x, term, total = state
        term = term * x / (a + n)
        return a, x, term, total + term

    def converged(state: tuple[Any, ...], n: int) -> Any:
        a, x, term, total = state
        return term * x <= eps * total * (a + n - x)  # n: the next term's index, n + 1 - 1

    one = xp.ones_like(x)
    a, x, _, total = _iterated(xp, step, converged, (a, x, one, one + 0))
    return total * _power_factor(xp, a, x, _only_where)


@_flat
def _upper_fraction(xp: Any, a: Any, x: Any) -> Any:
    """``Q`` by its continued fraction (modified Lentz), until a step changes it by less than an ulp."""
    info = xp.finfo(x.dtype)
    tiny = float(info.tiny / info.eps)  # Lentz's guard against a zero denominator, for the dtype
    eps = float(info.eps)

    def step(state: tuple[Any, ...], i: int) -> tuple[Any, ...]:
        a, x, b, c, d, h, delta = state
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = xp.where(xp.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = xp.where(xp.abs(c) < tiny, tiny, c)
        d = 1 / d
        delta = d * c
        return a, x, b, c, d, h * delta, delta

    def converged(state: tuple[Any, ...], i: int) -> Any:
        return xp.abs(state[-1] - 1) <= eps

    b = x + 1 - a
    d = 1 / b
    state = (a, x, b, b * 0 + 1 / tiny, d, d, d * 0)
    a, x, _, _, _, h, _ = _iterated(xp, step, converged, state)
    return h * (a * _power_factor(xp, a, x, _only_where))


def _split(xp: Any, a: Any, x: Any, upper: bool) -> Any:
    with xp.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        ok = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
        aa, xx = xp.where(ok, a, 1.0), xp.where(ok, x, 1.0)
        big = aa >= _UNIFORM_FROM
        eta = _only_where(xp, big, lambda s, v: _eta(xp, s, v), aa, xx)
        near_a = big & (xp.abs(eta) <= 1.0)
        value = _only_where(xp, near_a, lambda s, e: _uniform_expansion(xp, s, e, upper), aa, eta)
        rest = xp.logical_not(near_a)
        series = rest & (xx < aa + 1)
        fraction = rest & xp.logical_not(xx < aa + 1)
        p = _only_where(xp, series, lambda s, v: _lower_series(xp, s, v), aa, xx)
        q = _only_where(xp, fraction, lambda s, v: _upper_fraction(xp, s, v), aa, xx)
        value = xp.where(series, 1 - p if upper else p, xp.where(fraction, q if upper else 1 - q, value))
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
