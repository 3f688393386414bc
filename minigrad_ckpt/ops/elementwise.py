"""Elementwise ops: arithmetic, powers, exponentials, trigonometry, clip, where.

Broadcasting is NumPy's.  Each backward returns gradients of the broadcast
shape and lets the engine sum them down to each input's shape.

Two documented conventions live here:

* **Kinks** take the subgradient 0: ``abs'(0) = 0``; ``clip`` passes the
  gradient to ``x`` on the closed interval ``[lo, hi]``; ``maximum``/``minimum``
  split it evenly (½ each) between tied operands.
* **Singular points** (``sqrt`` and ``log`` at 0, ``x / y`` at ``y == 0``,
  ``x ** p`` at ``x == 0``): where the upstream gradient is exactly zero the
  gradient is zero, never ``0 * inf = nan``.  This is what keeps
  ``where(x > 0, sqrt(x), x)`` NaN-free at ``x == 0``: ``where`` hands the
  unselected branch a zero gradient, and a zero gradient stays zero.
"""

from __future__ import annotations

import math
from typing import Any

from .base import Op

_CONST = (int, float, bool)  # Python scalars: weakly typed constants, never differentiated


def _zero_where_g_is_zero(xp: Any, g: Any, value: Any) -> Any:
    """``value``, but 0 wherever the upstream gradient ``g`` is exactly 0."""
    return xp.where(g == 0, 0, value)


# ----------------------------------------------------------------- binary ops
class Add(Op):
    save_inputs = False

    def forward(self, xp, x, y):
        return x + y

    def backward(self, xp, g, out, x, y):
        return g, g

    def reference(self, np, x, y):
        return np.add(x, y)


class Sub(Op):
    save_inputs = False

    def forward(self, xp, x, y):
        return x - y

    def backward(self, xp, g, out, x, y):
        return g, -g

    def reference(self, np, x, y):
        return np.subtract(x, y)


class Mul(Op):
    def forward(self, xp, x, y):
        return x * y

    def backward(self, xp, g, out, x, y):
        gx = None if isinstance(x, _CONST) else g * y
        gy = None if isinstance(y, _CONST) else g * x
        return gx, gy

    def reference(self, np, x, y):
        return np.multiply(x, y)


class Div(Op):
    def forward(self, xp, x, y):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return x / y

    def backward(self, xp, g, out, x, y):
        if isinstance(y, _CONST) and y != 0:
            return g / y, None
        with xp.errstate(divide="ignore", invalid="ignore"):
            gx = _zero_where_g_is_zero(xp, g, g / y)
            if isinstance(y, _CONST):
                return gx, None
            gy = _zero_where_g_is_zero(xp, g, -g * x / (y * y))
        return gx, gy

    def reference(self, np, x, y):
        return np.divide(x, y)


class Pow(Op):
    """``x ** y``.  ``d/dx`` is 0 where ``y == 0`` (so ``0 ** 0`` has gradient 0);
    ``d/dy`` is 0 where ``x == 0`` and ``y >= 0``; negative bases give NaN for
    ``d/dy`` (``log`` of a negative number)."""

    save_output = True

    def forward(self, xp, x, y):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return x ** y

    def backward(self, xp, g, out, x, y):
        with xp.errstate(divide="ignore", invalid="ignore"):
            if isinstance(y, _CONST):
                if y == 0:
                    return g * 0, None
                gx = g * y * x ** (y - 1)
                # x ** (y - 1) is infinite at x == 0 only for y < 1
                return (gx if y >= 1 else _zero_where_g_is_zero(xp, g, gx)), None
            gx = xp.where(y == 0, 0, _zero_where_g_is_zero(xp, g, g * y * x ** (y - 1)))
            if isinstance(x, _CONST):
                # a constant base: d/dy x**y = x**y * log(x), log taken on the host
                log_x = math.log(x) if x > 0 else (0.0 if x == 0 else math.nan)
                gy = g * out * log_x
            else:
                safe = xp.logical_and(x == 0, y >= 0)
                gy = xp.where(safe, 0, _zero_where_g_is_zero(xp, g, g * out * xp.log(x)))
        return gx, gy

    def reference(self, np, x, y):
        return np.power(x, y)


class Maximum(Op):
    """Elementwise maximum; tied elements share the gradient evenly."""

    def forward(self, xp, x, y):
        return xp.maximum(x, y)

    def backward(self, xp, g, out, x, y):
        half_tie = (g * 0.5) * (x == y)
        return g * (x > y) + half_tie, g * (x < y) + half_tie

    def reference(self, np, x, y):
        return np.maximum(x, y)


class Minimum(Op):
    """Elementwise minimum; tied elements share the gradient evenly."""

    def forward(self, xp, x, y):
        return xp.minimum(x, y)

    def backward(self, xp, g, out, x, y):
        half_tie = (g * 0.5) * (x == y)
        return g * (x < y) + half_tie, g * (x > y) + half_tie

    def reference(self, np, x, y):
        return np.minimum(x, y)


# ------------------------------------------------------------------ unary ops
class Neg(Op):
    save_inputs = False

    def forward(self, xp, x):
        return -x

    def backward(self, xp, g, out, x):
        return -g

    def reference(self, np, x):
        return np.negative(x)


class Exp(Op):
    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        return xp.exp(x)

    def backward(self, xp, g, out, x):
        return g * out

    def reference(self, np, x):
        return np.exp(x)


class Log(Op):
    def forward(self, xp, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return xp.log(x)

    def backward(self, xp, g, out, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return _zero_where_g_is_zero(xp, g, g / x)

    def reference(self, np, x):
        return np.log(x)


class Log1p(Op):
    def forward(self, xp, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return xp.log1p(x)

    def backward(self, xp, g, out, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return _zero_where_g_is_zero(xp, g, g / (1 + x))

    def reference(self, np, x):
        return np.log1p(x)


class Sqrt(Op):
    """``sqrt``; its derivative at 0 is ``+inf`` (0 for a zero upstream gradient)."""

    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        with xp.errstate(invalid="ignore"):
            return xp.sqrt(x)

    def backward(self, xp, g, out, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return _zero_where_g_is_zero(xp, g, g / (2 * out))

    def reference(self, np, x):
        return np.sqrt(x)


class Abs(Op):
    """``abs``; subgradient 0 at 0."""

    def forward(self, xp, x):
        return xp.abs(x)

    def backward(self, xp, g, out, x):
        return g * xp.sign(x)

    def reference(self, np, x):
        return np.abs(x)


class Sin(Op):
    def forward(self, xp, x):
        return xp.sin(x)

    def backward(self, xp, g, out, x):
        return g * xp.cos(x)

    def reference(self, np, x):
        return np.sin(x)


class Cos(Op):
    def forward(self, xp, x):
        return xp.cos(x)

    def backward(self, xp, g, out, x):
        return -g * xp.sin(x)

    def reference(self, np, x):
        return np.cos(x)


class Tanh(Op):
    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        return xp.tanh(x)

    def backward(self, xp, g, out, x):
        return g * (1 - out * out)

    def reference(self, np, x):
        return np.tanh(x)


class Sigmoid(Op):
    """``1 / (1 + exp(-x))``, computed without overflow for large ``|x|``."""

    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        return xp.sigmoid(x)

    def backward(self, xp, g, out, x):
        return g * out * (1 - out)

    def reference(self, np, x):
        return np.exp(-np.logaddexp(0, -x))


class Erf(Op):
    """The error function; its derivative is ``2/sqrt(pi) * exp(-x^2)``."""

    def forward(self, xp, x):
        return xp.erf(x)

    def backward(self, xp, g, out, x):
        return g * (_TWO_OVER_SQRT_PI * xp.exp(-(x * x)))

    def reference(self, np, x):
        erf = np.vectorize(math.erf, otypes=[np.float64])
        return erf(x.astype(np.float64)).astype(x.dtype)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class Clip(Op):
    """``minimum(maximum(x, lo), hi)``; ``lo``/``hi`` may be None, scalars or tensors.

    ``x`` gets the gradient on the closed interval ``[lo, hi]``; below it the
    gradient goes to ``lo``, above it to ``hi`` (and all of it to ``hi`` when
    ``lo > hi``, since the result is then ``hi`` everywhere).
    """

    def forward(self, xp, x, lo, hi):
        if lo is None and hi is None:
            return x + 0
        if lo is None:
            return xp.minimum(x, hi)
        if hi is None:
            return xp.maximum(x, lo)
        return xp.minimum(xp.maximum(x, lo), hi)

    def backward(self, xp, g, out, x, lo, hi):
        above_lo = True if lo is None else x >= lo
        below_hi = True if hi is None else x <= hi
        ordered = True if (lo is None or hi is None) else lo <= hi
        gx = g * xp.logical_and(xp.logical_and(above_lo, below_hi), ordered)
        glo = None if lo is None else g * xp.logical_and(x < lo, ordered)
        ghi = None if hi is None else g * xp.logical_or(x > hi, xp.logical_not(ordered))
        return gx, glo, ghi

    def reference(self, np, x, lo, hi):
        if lo is None and hi is None:
            return x.copy()
        if lo is None:
            return np.minimum(x, hi)
        if hi is None:
            return np.maximum(x, lo)
        return np.minimum(np.maximum(x, lo), hi)


class Where(Op):
    """``cond ? x : y``.  The unselected branch gets an exactly-zero gradient."""

    save_inputs = (0,)

    def forward(self, xp, cond, x, y):
        return xp.where(cond, x, y)

    def backward(self, xp, g, out, cond, x, y):
        return None, xp.where(cond, g, 0), xp.where(cond, 0, g)

    def reference(self, np, cond, x, y):
        return np.where(cond, x, y)
