"""The Hurwitz zeta function ``zeta(x, q) = sum_{k >= 0} (q + k)^-x`` (SciPy's and PyTorch's
``special.zeta``) for real ``x > 1`` and ``q > 0``, and its derivative in ``q``.

Euler-Maclaurin summation: the first ``N`` terms directly, the rest by the integral
``(q + N)^(1-x) / (x - 1)``, half the next term and 14 Bernoulli corrections
``B_2j / (2j)! x (x+1) ... (x+2j-2) (q + N)^(-x-2j+1)`` -- the rising factorial an array,
as ``x`` is one.  ``d/dq zeta(x, q) = -x zeta(x + 1, q)``; the derivative in ``x`` is not
offered (PyTorch's is not either), so ``x`` is an input without a gradient.
Poles and edges as SciPy: ``x = 1`` gives +inf, ``x < 1`` NaN, ``q <= 0`` NaN except at
the poles ``q = 0, -1, ...`` (+inf) and for integer ``x``, where the sum is real: SciPy's and
PyTorch's finite values, by a reflection onto positive ``q`` (:func:`_zeta_negative`).
"""

from __future__ import annotations

from typing import Any

from ..backend import half_in_float32, register_kernel
from .base import Op
from .special import _BERNOULLI

_TERMS = 24


def _zeta_positive(xp: Any, s: Any, a: Any) -> Any:
    """``sum_k (a + k)^-s`` for ``s > 1`` and ``a > 0`` (every element)."""
    total = s * 0
    for k in range(_TERMS):
        total = total + xp.power(a + k, -s)
    big = a + _TERMS
    total = total + xp.power(big, 1 - s) / (s - 1) + 0.5 * xp.power(big, -s)
    # x (x + 1) ... (x + 2j - 2) (q + N)^(-x-2j+1) as one running product, each step's
    # factors divided by q + N first: kept apart, the rising factorial overflows (float32
    # from x ~ 24) where the power underflows to 0, and inf * 0 is NaN
    term = s * xp.power(big, -s - 1)
    fact = 2.0  # (2j)!
    for j, b in enumerate(_BERNOULLI, start=1):
        total = total + (b / fact) * term
        term = term * ((s + 2 * j - 1) / big) * ((s + 2 * j) / big)
        fact *= (2 * j + 1) * (2 * j + 2)
    return total


def _zeta_negative(xp: Any, s: Any, q: Any) -> Any:
    """``zeta(s, q)`` for an integer ``s > 1`` and ``q < 0`` off the integers (every element),
    from positive arguments only: with ``r = q - floor(q)`` and ``c = ceil(q) - q`` (both in
    (0, 1), ``c`` exact), the ``-floor(q)`` terms ``(q + k)^-s`` below ``r`` are ``(-1)^s (j - r)^-s``
    for ``j = 1 .. -floor(q)``, so ``zeta(s, q) = zeta(s, r) + (-1)^s zeta(s, c) - (-1)^s zeta(s, 1 - q)``
    -- no sum as long as ``|q|``, as Cephes' (SciPy's and PyTorch's) direct one."""
    sign = 1 - 2 * xp.mod(s, 2)
    # the two largest sums first: for an odd s they cancel (exactly where r = c, as the terms do)
    near = _zeta_positive(xp, s, q - xp.floor(q)) + sign * _zeta_positive(xp, s, xp.ceil(q) - q)
    return near - sign * _zeta_positive(xp, s, 1 - q)


@register_kernel
@half_in_float32
def zeta(xp, x, q):
    """``sum_k (q + k)^-x`` for ``x > 1``, ``q > 0``, and for integer ``x`` (where every
    ``(q + k)^-x`` is real) ``q < 0`` too (``xp.zeta``)."""
    with xp.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        ok = (x > 1) & (q > 0)
        s = xp.where(ok, x, 2.0)
        total = _zeta_positive(xp, s, xp.where(ok, q, 1.0))
        pole = (x == 1) | ((q <= 0) & (q == xp.round(q)) & (x > 1))
        r = xp.where(ok, total, xp.where(pole, total * 0 + xp.inf, total * 0 + xp.nan))  # x's dtype kept
        negative = (q < 0) & (q != xp.round(q)) & (x > 1) & (x == xp.round(x)) & (x < xp.inf)
        if bool(xp.scalar(xp.any(negative))):
            # SciPy's and PyTorch's finite values there; NaN for a non-integer x ((q + k)^-x is complex)
            r = xp.where(negative, _zeta_negative(xp, xp.where(negative, x, 2.0), xp.where(negative, q, -0.5)), r)
        # x = +inf: only the terms with q + k < 1 survive (SciPy's limits: 0 for q > 1, 1 at q = 1, inf below)
        zero = xp.zeros_like(total)
        at_inf = xp.where(q > 1, zero, xp.where(q == 1, zero + 1, zero + xp.inf))
        r = xp.where((x == xp.inf) & (q > 0), at_inf, r)
        return xp.where(xp.isnan(x) | xp.isnan(q), x + q, r)


class Zeta(Op):
    """``zeta(x, q)`` (broadcast); gradient in ``q`` only: ``-x zeta(x + 1, q)``.  A gradient
    (or tangent) that must reach ``x`` is PyTorch's ``NotImplementedError``, raised when it is
    asked for, as PyTorch's backward raises it: the value, and the gradient in ``q``, can be had
    while ``x`` requires grad."""

    uses_needs_input_grad = True

    def forward(self, xp, x, q):
        return xp.zeta(x, q)

    def backward(self, xp, g, out, x, q, needs_input_grad=(False, True)):  # the engine says which
        if needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta' in x is not implemented (PyTorch's "
                                      "neither); detach x")
        return None, xp.sum_to(g * (-x * xp.zeta(x + 1, q)), q.shape)

    def jvp(self, xp, tangents, out, x, q):
        if tangents[0] is not None:
            raise NotImplementedError("the derivative for 'zeta' in x is not implemented; detach x")
        tq = tangents[1]
        return None if tq is None else tq * (-x * xp.zeta(x + 1, q))

    def reference(self, np, x, q):
        # the plain sum to 200000 terms plus the integral of the rest and half a term: enough for the
        # battery's x >= 1.5 (the truncation's next correction is below 1e-12 relative there)
        xs, qs = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(q, dtype=np.float64))
        out = np.empty(xs.shape)
        for i in np.ndindex(xs.shape):
            s, a = xs[i], qs[i]
            if s > 1 and a < 0 and a != np.round(a) and s == np.round(s) and s < np.inf:
                # the terms below 0 one by one (the samples' q >= -1: one or two), then q + m > 0
                m = -np.floor(a)
                out[i] = np.sum((a + np.arange(m)) ** -s) + _plain_sum(np, s, a + m)
            elif not (s > 1 and a > 0):
                pole = s == 1 or (s > 1 and a <= 0 and a == np.round(a))
                out[i] = np.inf if pole else np.nan
            else:
                out[i] = _plain_sum(np, s, a)
        dt = next(v.dtype for v in (x, q) if isinstance(v, np.ndarray))
        return out.astype(dt)


def _plain_sum(np: Any, s: float, a: float) -> float:
    """``zeta(s, a)`` for ``a > 0``: 200000 terms, the integral of the rest and half a term."""
    k = np.arange(200000.0)
    big = a + 200000.0
    return np.sum((a + k) ** -s) + big ** (1 - s) / (s - 1) + 0.5 * big ** -s
