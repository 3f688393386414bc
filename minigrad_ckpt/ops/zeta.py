"""The Hurwitz zeta function ``zeta(x, q) = sum_{k >= 0} (q + k)^-x`` (SciPy's and PyTorch's
``special.zeta``) for real ``x > 1`` and ``q > 0``, and its derivative in ``q``.

Euler-Maclaurin summation: the first ``N`` terms directly, the rest by the integral
``(q + N)^(1-x) / (x - 1)``, half the next term and 14 Bernoulli corrections
``B_2j / (2j)! x (x+1) ... (x+2j-2) (q + N)^(-x-2j+1)`` -- the rising factorial an array,
as ``x`` is one.  ``d/dq zeta(x, q) = -x zeta(x + 1, q)``; the derivative in ``x`` is not
offered (PyTorch's is not either), so ``x`` is an input without a gradient.
Poles and edges as SciPy: ``x = 1`` gives +inf, ``x < 1`` NaN, ``q <= 0`` NaN except at
the poles ``q = 0, -1, ...`` (+inf) and for integer ``x`` (SciPy's finite values there are
not offered: NaN).
"""

from __future__ import annotations

from ..backend import register_kernel
from .base import Op
from .special import _BERNOULLI

_TERMS = 24


@register_kernel
def zeta(xp, x, q):
    """``sum_k (q + k)^-x`` for ``x > 1``, ``q > 0`` (``xp.zeta``)."""
    with xp.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        ok = (x > 1) & (q > 0)
        s = xp.where(ok, x, 2.0)
        a = xp.where(ok, q, 1.0)
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
        pole = (x == 1) | ((q <= 0) & (q == xp.round(q)) & (x > 1))
        r = xp.where(ok, total, xp.where(pole, total * 0 + xp.inf, total * 0 + xp.nan))  # x's dtype kept
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
            if not (s > 1 and a > 0):
                pole = s == 1 or (s > 1 and a <= 0 and a == np.round(a))
                out[i] = np.inf if pole else np.nan
                continue
            k = np.arange(200000.0)
            big = a + 200000.0
            out[i] = np.sum((a + k) ** -s) + big ** (1 - s) / (s - 1) + 0.5 * big ** -s
        dt = next(v.dtype for v in (x, q) if isinstance(v, np.ndarray))
        return out.astype(dt)
