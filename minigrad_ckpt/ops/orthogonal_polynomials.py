"""The classical orthogonal polynomials of ``torch.special``: Chebyshev's ``T``, ``U``, ``V``,
``W`` and their shifted twins on ``[0, 1]``, Hermite's ``H`` (physicists') and ``He``
(probabilists'), Laguerre's ``L`` and Legendre's ``P`` -- each ``f(x, n)`` of a broadcast pair.

PyTorch's definitions, case for case (``aten/src/ATen/native/Math.h``), since its values at the
edges are its own rather than the mathematical limits:

* the degree is ``n`` truncated toward zero (``n = 2.7`` is 2, ``n = -0.5`` is 0); a NaN, an
  infinite or an out-of-int64 ``n`` is a negative degree, and every negative degree gives 0;
* the endpoints (``|x| = 1``, or ``x = 0, 1`` for the shifted ones) are given exactly;
* Chebyshev inside ``(-1, 1)`` from degree 7 (9 for ``U``, ``V``, ``W``; 7 and 5 for the shifted
  ``U``/``V`` and ``W``) by the trigonometric form (``T_n(cos t) = cos(n t)``), elsewhere by the
  three-term recurrence -- run to the degree, so the cost is the largest degree's; an element
  whose recurrence reaches NaN (overflow: ``inf - inf``) stops there, with NaN;
* Hermite beyond degree 128 (float32) or 512 (float64) is NaN;
* a NaN ``x`` is NaN from degree 1 on (1 at degree 0).  PyTorch's own loops stop before their
  first step there and return an uninitialized variable for ``U``, ``V``, ``W`` (shifted or not),
  Laguerre and Legendre at degrees >= 2 (garbage: ``6.9e-310``, ``377448.0``); NaN is what its
  other polynomials and its intent give.

None is differentiable (PyTorch declares no derivative): the ops are never recorded, and their
outputs do not require grad.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..backend import half_in_float32, register_kernel
from .base import FunctionOp

_INT64_LIMIT = 2.0**63


def _degree(xp: Any, n: Any) -> Any:
    """PyTorch's ``static_cast<int64_t>(n)`` of a float ``n``, kept as a float: truncated toward
    zero; NaN, +-inf and ``|n| >= 2^63`` (x86's conversion gives INT64_MIN) are -1."""
    valid = xp.isfinite(n) & (xp.abs(xp.where(xp.isfinite(n), n, 0)) < _INT64_LIMIT)
    return xp.where(valid, xp.trunc(xp.where(valid, n, 0)), -1)


def _parity_sign(xp: Any, d: Any) -> Any:
    """``(-1)^d`` in ``d``'s float dtype (a ``where`` of ints would be int64, and float64 beside float32)."""
    return 1 - 2 * xp.mod(d, 2)


def _recurrence(xp: Any, d: Any, p: Any, q: Any, step: Callable[[int, Any, Any], Any], active: Any) -> Any:
    """``q`` after the steps ``j = 1 .. d - 1`` of ``(p, q) -> (q, step(j, p, q))`` where ``active``
    (``q`` unchanged elsewhere).  Ends once every element still running is NaN (PyTorch's loop
    stops at a NaN, whose result is NaN): a degree of 10^9 at ``x = 2`` overflows within ~1000."""
    q = xp.where(active, q, q)  # the broadcast shape (q may be x's alone); never 0 * q: x may be inf
    p = xp.where(active, xp.ones_like(q), xp.ones_like(q))
    last = xp.where(active, d - 1, 0)
    j = 1
    while True:
        running = last >= j
        if not bool(xp.scalar(xp.any(running & ~xp.isnan(q)))):
            return q
        r = step(j, p, q)
        p, q = xp.where(running, q, p), xp.where(running, r, q)
        j += 1


def _select(xp: Any, cases: list[tuple[Any, Any]], default: Any) -> Any:
    """The first case's value whose condition holds (PyTorch's chain of early returns)."""
    out = default
    for cond, value in reversed(cases):
        out = xp.where(cond, value, out)
    return out


def _chebyshev_family(xp: Any, x: Any, n: Any, kind: str, shifted: bool) -> Any:
    """Chebyshev's polynomial of ``kind`` (``"t"``, ``"u"``, ``"v"``, ``"w"``) at ``x``, or the
    shifted one (``P*(x) = P(2x - 1)``) -- PyTorch's cases in PyTorch's order."""
    with xp.errstate(invalid="ignore", divide="ignore", over="ignore"):
        d = _degree(xp, n)
        y = x + x - 1 if shifted else x
        first = {"t": y, "u": y + y, "v": y + y - 1, "w": y + y + 1}[kind]
        inside = xp.abs(y) < 1
        trig_from = {"t": 6, "u": 6 if shifted else 8, "v": 6 if shifted else 8, "w": 4 if shifted else 8}[kind]
        trig = _chebyshev_trig(xp, xp.where(inside, y, 0), d, kind, shifted)
        top, bottom = (x == 1, x == 0) if shifted else ((xp.abs(x) == 1) & (x > 0), (xp.abs(x) == 1) & (x < 0))
        at_top, at_bottom = _chebyshev_ends(xp, d, kind)
        looping = (d >= 2) & ~top & ~bottom & ~((d > trig_from) & inside)
        two_y = y + y
        q = _recurrence(xp, d, 1, first, lambda j, p, q: two_y * q - p, looping)
        return _select(xp, [(d < 0, 0), (top, at_top), (bottom, at_bottom), ((d > trig_from) & inside, trig),
                            (d == 0, 1), (d == 1, first)], q).astype(x.dtype)


def _chebyshev_ends(xp: Any, d: Any, kind: str) -> tuple[Any, Any]:
    """The values at the top (``x = 1``) and bottom (``x = -1``; 0 when shifted) of the interval."""
    sign = _parity_sign(xp, d)
    return {"t": (1, sign), "u": (d + 1, sign * (d + 1)), "v": (1, sign * (d + d + 1)),
            "w": (d + d + 1, sign)}[kind]


def _chebyshev_trig(xp: Any, y: Any, d: Any, kind: str, shifted: bool) -> Any:
    """The trigonometric form inside ``(-1, 1)`` (``t = acos y``), with PyTorch's fallbacks where
    its denominator is degenerate."""
    t = xp.arccos(y)
    if kind == "t":
        return xp.cos(d * t)
    sign = _parity_sign(xp, d)
    if kind == "u":
        s = xp.sin(t)
        return xp.where(s != 0, xp.sin((d + 1) * t) / s, (d + 1) * xp.cos((d + 1) * t) / y)
    half = t / 2
    if kind == "v":
        return xp.where(xp.sin(half) != 1, xp.cos((d + 0.5) * t) / xp.cos(half), sign * (d + d + 1))
    degenerate = sign if shifted else xp.where(y > 0, d + d + 1, sign)
    return xp.where(xp.cos(half) != 1, xp.sin((d + 0.5) * t) / xp.sin(half), degenerate)


def _hermite_limit(x: Any) -> int:
    return 128 if x.dtype.itemsize <= 4 else 512


def _chebyshev_kernel(kind: str, shifted: bool) -> Any:
    """The kernel ``xp.<[shifted_]chebyshev_polynomial_<kind>>(x, n)``: one per kind and interval."""

    def kernel(xp, x, n):
        return _chebyshev_family(xp, x, n, kind, shifted)

    kernel.__name__ = kernel.__qualname__ = f"{'shifted_' if shifted else ''}chebyshev_polynomial_{kind}"
    kernel.__doc__ = f"Chebyshev's polynomial ``{kind.upper()}_n({'2x - 1' if shifted else 'x'})`` (PyTorch's cases)."
    return register_kernel(kernel)


for _kind in "tuvw":  # the kinds: first to fourth
    _chebyshev_kernel(_kind, shifted=False)
    _chebyshev_kernel(_kind, shifted=True)


def _simple_family(xp: Any, x: Any, n: Any, first: Any, step: Any, cases: list[tuple[Any, Any]]) -> Any:
    """A polynomial by its recurrence from ``(1, first)``, after PyTorch's early ``cases`` (the
    first ones: 0 for a negative degree; the last ones: 1 at degree 0, ``first`` at degree 1)."""
    d = _degree(xp, n)
    cases = [(d < 0, 0)] + [(c(d), v) for c, v in cases] + [(d == 0, 1), (d == 1, first)]
    looping = d >= 2
    for cond, _ in cases:
        looping = looping & ~cond
    q = _recurrence(xp, d, 1, first, step, looping)
    return _select(xp, cases, q).astype(x.dtype)


@register_kernel
@half_in_float32
def hermite_polynomial_h(xp, x, n):
    """The physicists' Hermite polynomial ``H_n(x)``; NaN beyond degree 128 (float32) / 512."""
    with xp.errstate(invalid="ignore", over="ignore"):
        two_x = x + x
        nan = xp.nan * x
        return _simple_family(xp, x, n, two_x, lambda j, p, q: two_x * q - (2 * j) * p,
                              [(lambda d: d > _hermite_limit(x), nan)])


@register_kernel
@half_in_float32
def hermite_polynomial_he(xp, x, n):
    """The probabilists' Hermite polynomial ``He_n(x)``; NaN beyond degree 128 (float32) / 512."""
    with xp.errstate(invalid="ignore", over="ignore"):
        nan = xp.nan * x
        return _simple_family(xp, x, n, x, lambda j, p, q: x * q - j * p, [(lambda d: d > _hermite_limit(x), nan)])


@register_kernel
@half_in_float32
def laguerre_polynomial_l(xp, x, n):
    """Laguerre's polynomial ``L_n(x)``; 1 at ``x = 0``."""
    with xp.errstate(invalid="ignore", over="ignore"):
        one_minus_x = 1 - x
        step = lambda j, p, q: ((2 * j + one_minus_x) * q - j * p) / (j + 1)  # noqa: E731
        return _simple_family(xp, x, n, one_minus_x, step, [(lambda d: x == 0, 1)])


@register_kernel
@half_in_float32
def legendre_polynomial_p(xp, x, n):
    """Legendre's polynomial ``P_n(x)``; exact at ``x = +-1``."""
    with xp.errstate(invalid="ignore", over="ignore"):
        ends = lambda d: xp.where(x > 0, 1, _parity_sign(xp, d))  # noqa: E731
        step = lambda j, p, q: ((2 * j + 1) * x * q - j * p) / (j + 1)  # noqa: E731
        return _simple_family_ends(xp, x, n, step, ends)


def _simple_family_ends(xp: Any, x: Any, n: Any, step: Any, ends: Any) -> Any:
    d = _degree(xp, n)
    return _simple_family(xp, x, n, x, step, [(lambda _: xp.abs(x) == 1, ends(d))])


# ------------------------------------------------------------------------- ops
class _Polynomial(FunctionOp):
    """``fn(x, n)`` of two tensors of one float dtype (the functional layer promotes them): no
    derivative, as PyTorch's (never recorded, so nothing is saved)."""

    abstract = True
    differentiable = False
    save_inputs = False

    def reference(self, np, x, n):
        xs, ns = np.broadcast_arrays(np.asarray(x), np.asarray(n))
        kind = xs.dtype.type
        out = [_reference_value(np, self.fn, kind, kind(a), kind(b)) for a, b in zip(xs.ravel(), ns.ravel())]
        return np.asarray(out, dtype=xs.dtype).reshape(xs.shape)


class ChebyshevPolynomialT(_Polynomial):
    fn = "chebyshev_polynomial_t"


class ChebyshevPolynomialU(_Polynomial):
    fn = "chebyshev_polynomial_u"


class ChebyshevPolynomialV(_Polynomial):
    fn = "chebyshev_polynomial_v"


class ChebyshevPolynomialW(_Polynomial):
    fn = "chebyshev_polynomial_w"


class ShiftedChebyshevPolynomialT(_Polynomial):
    fn = "shifted_chebyshev_polynomial_t"


class ShiftedChebyshevPolynomialU(_Polynomial):
    fn = "shifted_chebyshev_polynomial_u"


class ShiftedChebyshevPolynomialV(_Polynomial):
    fn = "shifted_chebyshev_polynomial_v"


class ShiftedChebyshevPolynomialW(_Polynomial):
    fn = "shifted_chebyshev_polynomial_w"


class HermitePolynomialH(_Polynomial):
    fn = "hermite_polynomial_h"


class HermitePolynomialHe(_Polynomial):
    fn = "hermite_polynomial_he"


class LaguerrePolynomialL(_Polynomial):
    fn = "laguerre_polynomial_l"


class LegendrePolynomialP(_Polynomial):
    fn = "legendre_polynomial_p"


# --------------------------------------------------------- reference (host, one element at a time)
def _reference_value(np: Any, fn: str, kind: Any, x: Any, n: Any) -> Any:
    """PyTorch's scalar code for one element, in the dtype's own arithmetic (``kind``)."""
    d = int(n) if math.isfinite(n) and abs(float(n)) < _INT64_LIMIT else -1
    if d < 0:
        return kind(0)
    if fn in ("hermite_polynomial_h", "hermite_polynomial_he"):
        if d > (128 if kind(0).itemsize <= 4 else 512) and d > 1:
            return kind("nan")
        two = fn == "hermite_polynomial_h"
        p, q = kind(1), (x + x if two else x)
        for j in range(1, d):
            p, q = q, ((x + x) * q - kind(2 * j) * p if two else x * q - kind(j) * p)
        return kind(1) if d == 0 else q
    if fn == "laguerre_polynomial_l":
        if x == 0 or d == 0:
            return kind(1)
        p, q = kind(1), kind(1) - x
        for j in range(1, d):
            p, q = q, ((kind(2 * j) + (kind(1) - x)) * q - kind(j) * p) / kind(j + 1)
        return q
    if fn == "legendre_polynomial_p":
        if abs(x) == 1:
            return kind(1) if x > 0 or d % 2 == 0 else kind(-1)
        p, q = kind(1), x
        for j in range(1, d):
            p, q = q, (kind(2 * j + 1) * x * q - kind(j) * p) / kind(j + 1)
        return kind(1) if d == 0 else q
    return _chebyshev_reference(np, fn, kind, x, d)


def _chebyshev_reference(np: Any, fn: str, kind: Any, x: Any, d: int) -> Any:
    shifted = fn.startswith("shifted")
    letter = fn[-1]
    y = x + x - kind(1) if shifted else x
    sign = kind(1) if d % 2 == 0 else kind(-1)
    dd = kind(d)
    top, bottom = {"t": (1, sign), "u": (dd + 1, sign * (dd + 1)), "v": (1, sign * (dd + dd + 1)),
                   "w": (dd + dd + 1, sign)}[letter]
    if (x == 1) if shifted else (abs(x) == 1 and x > 0):
        return kind(top)
    if (x == 0) if shifted else (abs(x) == 1):
        return kind(bottom)
    trig_from = {"t": 6, "u": 6 if shifted else 8, "v": 6 if shifted else 8, "w": 4 if shifted else 8}[letter]
    if d > trig_from and abs(y) < 1:
        with np.errstate(all="ignore"):
            t = np.arccos(y)
            if letter == "t":
                return np.cos(dd * t)
            if letter == "u":
                return np.sin((dd + 1) * t) / np.sin(t) if np.sin(t) != 0 else (dd + 1) * np.cos((dd + 1) * t) / y
            if letter == "v":
                return np.cos((dd + kind(0.5)) * t) / np.cos(t / 2) if np.sin(t / 2) != 1 else sign * (dd + dd + 1)
            fallback = sign if shifted or y <= 0 else dd + dd + 1
            return np.sin((dd + kind(0.5)) * t) / np.sin(t / 2) if np.cos(t / 2) != 1 else kind(fallback)
    first = {"t": y, "u": y + y, "v": y + y - kind(1), "w": y + y + kind(1)}[letter]
    if d <= 1:
        return kind(1) if d == 0 else first
    p, q = kind(1), first
    with np.errstate(all="ignore"):
        for _ in range(2, d + 1):
            if q != q:
                break
            p, q = q, (y + y) * q - p
    return q
