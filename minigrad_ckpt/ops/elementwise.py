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
  unselected branch a zero gradient, and a zero gradient stays zero.  Only
  the singular points are masked, so second derivatives through a zero
  upstream gradient (``d/da d/db [a * log(b)]`` at ``a = 0``) stay exact.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from ..backend import register_kernel
from .base import Op, add_tangents

_CONST = (int, float, bool)  # Python scalars: weakly typed constants, never differentiated


def _times_local(xp: Any, g: Any, local: Any) -> Any:
    """``g * local`` for a local derivative that may be infinite: where it is not
    finite and ``g`` is exactly 0 the result is 0 (never ``0 * inf = nan``).

    Only the singular points are masked, and the mask sits on ``local``, not
    on the product: where the derivative is finite the result is ``g * local``
    in value and, under ``create_graph=True``, in its derivatives too -- a
    mask on every ``g == 0`` made the mixed second derivative of ``a * log(b)``
    at ``a = 0`` vanish (issue 12 §2).  At a singular point the masked factor
    is 0, so the second-order backward through this product multiplies only
    finite numbers and stays NaN-free as well.
    """
    ok = xp.logical_or(xp.isfinite(local), g != 0)
    return g * xp.where(ok, local, 0)


# ----------------------------------------------------------------- binary ops
class Add(Op):
    save_inputs = False

    def forward(self, xp, x, y):
        return x + y

    def backward(self, xp, g, out, x, y):
        return g, g

    def jvp(self, xp, tangents, out, x, y):
        return add_tangents(*tangents)

    def reference(self, np, x, y):
        return np.add(x, y)


class Sub(Op):
    save_inputs = False

    def forward(self, xp, x, y):
        return x - y

    def backward(self, xp, g, out, x, y):
        return g, -g

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        return add_tangents(tx, None if ty is None else -ty)

    def reference(self, np, x, y):
        return np.subtract(x, y)


class Mul(Op):
    def forward(self, xp, x, y):
        return x * y

    def backward(self, xp, g, out, x, y):
        gx = None if isinstance(x, _CONST) else g * y
        gy = None if isinstance(y, _CONST) else g * x
        return gx, gy

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        return add_tangents(None if tx is None else tx * y, None if ty is None else x * ty)

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
            gx = _times_local(xp, g, 1 / y)
            if isinstance(y, _CONST):
                return gx, None
            gy = _times_local(xp, g, -x / (y * y))
        return gx, gy

    def jvp(self, xp, tangents, out, x, y):
        # d(x / y) = dx / y - (x / y) dy / y; zero tangents stay zero at y == 0
        tx, ty = tangents
        if isinstance(y, _CONST) and y != 0:
            return tx / y
        with xp.errstate(divide="ignore", invalid="ignore"):
            dx = None if tx is None else _times_local(xp, tx, 1 / y)
            dy = None if ty is None else _times_local(xp, ty, -out / y)
        return add_tangents(dx, dy)

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
                # x ** (y - 1) is infinite at x == 0 only for y < 1
                gx = g * (y * x ** (y - 1)) if y >= 1 else _times_local(xp, g, y * x ** (y - 1))
                return gx, None
            gx = xp.where(y == 0, 0, _times_local(xp, g, y * x ** (y - 1)))
            if isinstance(x, _CONST):
                # a constant base: d/dy x**y = x**y * log(x), log taken on the host
                log_x = math.log(x) if x > 0 else (0.0 if x == 0 else math.nan)
                gy = g * out * log_x
            else:
                safe = xp.logical_and(x == 0, y >= 0)
                gy = xp.where(safe, 0, _times_local(xp, g, out * xp.log(x)))
        return gx, gy

    def jvp(self, xp, tangents, out, x, y):
        # the same special cases as backward, with the tangent in place of g
        tx, ty = tangents
        dx = dy = None
        with xp.errstate(divide="ignore", invalid="ignore"):
            if tx is not None:
                if isinstance(y, _CONST):
                    if y == 0:
                        dx = tx * 0
                    else:
                        dx = tx * (y * x ** (y - 1)) if y >= 1 else _times_local(xp, tx, y * x ** (y - 1))
                else:
                    dx = xp.where(y == 0, 0, _times_local(xp, tx, y * x ** (y - 1)))
            if ty is not None:
                if isinstance(x, _CONST):
                    log_x = math.log(x) if x > 0 else (0.0 if x == 0 else math.nan)
                    dy = ty * out * log_x
                else:
                    safe = xp.logical_and(x == 0, y >= 0)
                    dy = xp.where(safe, 0, _times_local(xp, ty, out * xp.log(x)))
        return add_tangents(dx, dy)

    def reference(self, np, x, y):
        return np.power(x, y)


class Maximum(Op):
    """Elementwise maximum; tied elements share the gradient evenly."""

    def forward(self, xp, x, y):
        return xp.maximum(x, y)

    def backward(self, xp, g, out, x, y):
        half_tie = (g * 0.5) * (x == y)
        return g * (x > y) + half_tie, g * (x < y) + half_tie

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        tie = x == y
        return add_tangents(None if tx is None else tx * (x > y) + (tx * 0.5) * tie,
                            None if ty is None else ty * (x < y) + (ty * 0.5) * tie)

    def reference(self, np, x, y):
        return np.maximum(x, y)


class Minimum(Op):
    """Elementwise minimum; tied elements share the gradient evenly."""

    def forward(self, xp, x, y):
        return xp.minimum(x, y)

    def backward(self, xp, g, out, x, y):
        half_tie = (g * 0.5) * (x == y)
        return g * (x < y) + half_tie, g * (x > y) + half_tie

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        tie = x == y
        return add_tangents(None if tx is None else tx * (x < y) + (tx * 0.5) * tie,
                            None if ty is None else ty * (x > y) + (ty * 0.5) * tie)

    def reference(self, np, x, y):
        return np.minimum(x, y)


# ------------------------------------------------------------------ unary ops
class Neg(Op):
    save_inputs = False

    def forward(self, xp, x):
        return -x

    def backward(self, xp, g, out, x):
        return -g

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

    def reference(self, np, x):
        return np.negative(x)


class Exp(Op):
    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        return xp.exp(x)

    def backward(self, xp, g, out, x):
        return g * out

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

    def reference(self, np, x):
        return np.exp(x)


class Log(Op):
    def forward(self, xp, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return xp.log(x)

    def backward(self, xp, g, out, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return _times_local(xp, g, 1 / x)

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

    def reference(self, np, x):
        return np.log(x)


class Log1p(Op):
    def forward(self, xp, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return xp.log1p(x)

    def backward(self, xp, g, out, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return _times_local(xp, g, 1 / (1 + x))

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

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
            return _times_local(xp, g, 0.5 / out)

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

    def reference(self, np, x):
        return np.sqrt(x)


class Abs(Op):
    """``abs``; subgradient 0 at 0."""

    def forward(self, xp, x):
        return xp.abs(x)

    def backward(self, xp, g, out, x):
        return g * xp.sign(x)

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

    def reference(self, np, x):
        return np.abs(x)


class Sin(Op):
    def forward(self, xp, x):
        return xp.sin(x)

    def backward(self, xp, g, out, x):
        return g * xp.cos(x)

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

    def reference(self, np, x):
        return np.sin(x)


class Cos(Op):
    def forward(self, xp, x):
        return xp.cos(x)

    def backward(self, xp, g, out, x):
        return -g * xp.sin(x)

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

    def reference(self, np, x):
        return np.cos(x)


class Tanh(Op):
    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        return xp.tanh(x)

    def backward(self, xp, g, out, x):
        return g * (1 - out * out)

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

    def reference(self, np, x):
        return np.tanh(x)


@register_kernel
def sigmoid(xp, x):
    """``1 / (1 + exp(-x))`` without overflow: ``exp(-|x|)`` is at most 1 (``xp.sigmoid``)."""
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e))


class Sigmoid(Op):
    """``1 / (1 + exp(-x))``, computed without overflow for large ``|x|``."""

    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        return xp.sigmoid(x)

    def backward(self, xp, g, out, x):
        return g * out * (1 - out)

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

    def reference(self, np, x):
        return np.exp(-np.logaddexp(0, -x))


@register_kernel
def erf(xp, x):
    """The error function (NumPy has none), within 3 ulp in float64 (``xp.erf``).

    Cephes' rational approximations: ``x T(x^2)/U(x^2)`` for ``|x| < 1``,
    else ``1 - exp(-x^2) P(|x|)/Q(|x|)``.  (Cephes switches to a third
    approximation beyond 8, where ``erfc`` is below 1e-28: ``erf`` is 1 to
    double precision there, and the P/Q tail underflows to exactly that.)
    """
    a = xp.abs(x)
    z = x * x
    small = x * _poly(_ERF_T, z) / _poly(_ERF_U, z)
    with xp.errstate(over="ignore", under="ignore", invalid="ignore"):
        tail = xp.exp(-z) * _poly(_ERF_P, a) / _poly(_ERF_Q, a)
    big = xp.where(x < 0, tail - 1, 1 - tail)
    return xp.where(a < 1, small, big).astype(x.dtype, copy=False)


def _poly(coeffs, x):
    r = x * 0 + coeffs[0]
    for c in coeffs[1:]:
        r = r * x + c
    return r


# Cephes ndtr.c coefficients (highest power first; Q and U have a leading 1).
_ERF_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
          4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
          9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2)
_ERF_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
          9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
          1.65666309194161350182e3, 5.57535340817727675546e2)
_ERF_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
          7.00332514112805075473e3, 5.55923013010394962768e4)
_ERF_U = (1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
          2.26290000613890934246e4, 4.92673942608635921086e4)


class Erf(Op):
    """The error function; its derivative is ``2/sqrt(pi) * exp(-x^2)``."""

    def forward(self, xp, x):
        return xp.erf(x)

    def backward(self, xp, g, out, x):
        return g * (_TWO_OVER_SQRT_PI * xp.exp(-(x * x)))

    def jvp(self, xp, tangents, out, x):
        return self.backward(xp, tangents[0], out, x)  # diagonal Jacobian: J v = J^T v

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

    def jvp(self, xp, tangents, out, x, lo, hi):
        # the tangent of whichever operand is selected, with backward's masks
        tx, tlo, thi = tangents
        above_lo = True if lo is None else x >= lo
        below_hi = True if hi is None else x <= hi
        ordered = True if (lo is None or hi is None) else lo <= hi
        dx = None if tx is None else tx * xp.logical_and(xp.logical_and(above_lo, below_hi), ordered)
        dlo = None if tlo is None else tlo * xp.logical_and(x < lo, ordered)
        dhi = None if thi is None else thi * xp.logical_or(x > hi, xp.logical_not(ordered))
        return add_tangents(dx, dlo, dhi)

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

    def jvp(self, xp, tangents, out, cond, x, y):
        _, tx, ty = tangents
        return xp.where(cond, 0 if tx is None else tx, 0 if ty is None else ty)

    def reference(self, np, cond, x, y):
        return np.where(cond, x, y)


# ------------------------------------------------- more unary math (issue 14)
class _Smooth(Op):
    """An elementwise ``f(x)`` whose backward and jvp both multiply by ``f'(x)``.

    Subclasses define ``forward``, ``reference`` and ``derivative(xp, out, x)``;
    reverse mode is ``g * f'(x)`` and forward mode ``t * f'(x)``, so the two
    can never disagree.  ``singular`` ops (a derivative that is infinite at some
    point) keep a zero upstream gradient or tangent zero, as ``sqrt`` does.
    """

    abstract = True
    singular: ClassVar[bool] = False

    def derivative(self, xp: Any, out: Any, x: Any) -> Any:
        raise NotImplementedError

    def _times_derivative(self, xp: Any, v: Any, out: Any, x: Any) -> Any:
        with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
            d = self.derivative(xp, out, x)
            return _times_local(xp, v, d) if self.singular else v * d

    def backward(self, xp, g, out, x):
        return self._times_derivative(xp, g, out, x)

    def jvp(self, xp, tangents, out, x):
        (t,) = tangents
        return None if t is None else self._times_derivative(xp, t, out, x)


class Tan(_Smooth):
    """``tan``; ``tan' = 1 + tan^2`` (poles at ``pi/2 + k pi``)."""

    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        return xp.tan(x)

    def derivative(self, xp, out, x):
        return 1 + out * out

    def reference(self, np, x):
        return np.tan(x)


class Sinh(_Smooth):
    def forward(self, xp, x):
        with xp.errstate(over="ignore"):
            return xp.sinh(x)

    def derivative(self, xp, out, x):
        return xp.cosh(x)

    def reference(self, np, x):
        return np.sinh(x)


class Cosh(_Smooth):
    def forward(self, xp, x):
        with xp.errstate(over="ignore"):
            return xp.cosh(x)

    def derivative(self, xp, out, x):
        return xp.sinh(x)

    def reference(self, np, x):
        return np.cosh(x)


class Arcsin(_Smooth):
    """``arcsin`` on ``[-1, 1]``; ``1 / sqrt(1 - x^2)`` is infinite at ``x = +-1``."""

    singular = True

    def forward(self, xp, x):
        with xp.errstate(invalid="ignore"):
            return xp.arcsin(x)

    def derivative(self, xp, out, x):
        return 1 / xp.sqrt(1 - x * x)

    def reference(self, np, x):
        return np.arcsin(x)


class Arccos(_Smooth):
    """``arccos`` on ``[-1, 1]``; ``-1 / sqrt(1 - x^2)`` is infinite at ``x = +-1``."""

    singular = True

    def forward(self, xp, x):
        with xp.errstate(invalid="ignore"):
            return xp.arccos(x)

    def derivative(self, xp, out, x):
        return -1 / xp.sqrt(1 - x * x)

    def reference(self, np, x):
        return np.arccos(x)


class Arctan(_Smooth):
    def forward(self, xp, x):
        return xp.arctan(x)

    def derivative(self, xp, out, x):
        return 1 / (1 + x * x)

    def reference(self, np, x):
        return np.arctan(x)


class Arcsinh(_Smooth):
    def forward(self, xp, x):
        return xp.arcsinh(x)

    def derivative(self, xp, out, x):
        return 1 / xp.sqrt(x * x + 1)

    def reference(self, np, x):
        return np.arcsinh(x)


class Arccosh(_Smooth):
    """``arccosh`` on ``[1, inf)``; ``1 / sqrt(x^2 - 1)`` is infinite at ``x = 1``."""

    singular = True

    def forward(self, xp, x):
        with xp.errstate(invalid="ignore"):
            return xp.arccosh(x)

    def derivative(self, xp, out, x):
        return 1 / xp.sqrt(x * x - 1)

    def reference(self, np, x):
        return np.arccosh(x)


class Arctanh(_Smooth):
    """``arctanh`` on ``(-1, 1)``; ``1 / (1 - x^2)`` is infinite at ``x = +-1``."""

    singular = True

    def forward(self, xp, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return xp.arctanh(x)

    def derivative(self, xp, out, x):
        return 1 / (1 - x * x)

    def reference(self, np, x):
        return np.arctanh(x)


class Log2(_Smooth):
    """``log2``; like ``log``, singular at 0."""

    singular = True

    def forward(self, xp, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return xp.log2(x)

    def derivative(self, xp, out, x):
        return 1 / (x * _LN2)

    def reference(self, np, x):
        return np.log2(x)


class Log10(_Smooth):
    """``log10``; like ``log``, singular at 0."""

    singular = True

    def forward(self, xp, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return xp.log10(x)

    def derivative(self, xp, out, x):
        return 1 / (x * _LN10)

    def reference(self, np, x):
        return np.log10(x)


class Exp2(_Smooth):
    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        with xp.errstate(over="ignore"):
            return xp.exp2(x)

    def derivative(self, xp, out, x):
        return out * _LN2

    def reference(self, np, x):
        return np.exp2(x)


class Expm1(_Smooth):
    """``exp(x) - 1``, accurate for small ``x``."""

    save_inputs = False
    save_output = True

    def forward(self, xp, x):
        with xp.errstate(over="ignore"):
            return xp.expm1(x)

    def derivative(self, xp, out, x):
        return out + 1

    def reference(self, np, x):
        return np.expm1(x)


class Sinc(_Smooth):
    """NumPy's normalized ``sinc(x) = sin(pi x) / (pi x)`` (1 at 0).

    The derivative ``(cos(pi x) - sinc(x)) / x`` cancels catastrophically near
    0, so ``|x| < 0.1`` uses its Taylor series (exact at 0, where it is 0,
    and differentiable again for second derivatives).
    """

    def forward(self, xp, x):
        return _sinc(xp, x)

    def derivative(self, xp, out, x):
        small = xp.abs(x) < 0.1
        xs = xp.where(small, x, 1)  # both branches are evaluated: keep each finite
        # sinc'(x) = sum_k>=1 (-1)^k 2k pi^2k x^(2k-1) / (2k+1)!, 7 terms: < 1e-17 at 0.1
        z = (math.pi * xs) ** 2
        series = xs * _poly_horner(_SINC_D, z)
        xb = xp.where(small, 1, x)
        formula = (xp.cos(math.pi * xb) - _sinc(xp, xb)) / xb
        return xp.where(small, series, formula)

    def reference(self, np, x):
        return np.sinc(x)


def _sinc(xp: Any, x: Any) -> Any:
    px = math.pi * x
    zero = x == 0
    return xp.where(zero, 1, xp.sin(px) / xp.where(zero, 1, px))


def _poly_horner(coeffs: tuple[float, ...], z: Any) -> Any:
    """``sum coeffs[k] * z**k`` (lowest power first) by Horner's rule."""
    r = z * 0 + coeffs[-1]
    for c in coeffs[-2::-1]:
        r = r * z + c
    return r


# sinc'(x) / x as a polynomial in z = (pi x)^2: coefficient k is (-1)^(k+1) 2(k+1) pi^2 / (2k+3)!
_SINC_D = tuple((-1) ** (k + 1) * 2 * (k + 1) * math.pi ** 2 / math.factorial(2 * k + 3) for k in range(7))


class Square(_Smooth):
    def forward(self, xp, x):
        return x * x

    def derivative(self, xp, out, x):
        return 2 * x

    def reference(self, np, x):
        return np.square(x)


class Reciprocal(_Smooth):
    """``1 / x``; singular at 0."""

    save_inputs = False
    save_output = True
    singular = True

    def forward(self, xp, x):
        with xp.errstate(divide="ignore"):
            return 1 / x

    def derivative(self, xp, out, x):
        return -(out * out)

    def reference(self, np, x):
        with np.errstate(divide="ignore"):
            return np.reciprocal(x)


class Cbrt(_Smooth):
    """The real cube root; ``1 / (3 cbrt(x)^2)`` is infinite at 0."""

    save_inputs = False
    save_output = True
    singular = True

    def forward(self, xp, x):
        return xp.cbrt(x)

    def derivative(self, xp, out, x):
        return 1 / (3 * (out * out))

    def reference(self, np, x):
        return np.cbrt(x)


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


class _Step(Op):
    """A piecewise-constant function (floor, ceil, round, trunc): gradient 0.

    The true derivative is 0 except at the jumps, where it does not exist;
    0 is returned everywhere (as NumPy-based peers and PyTorch do).
    """

    abstract = True
    save_inputs = False
    fn = ""

    def forward(self, xp, x):
        return getattr(xp, self.fn)(x)

    def backward(self, xp, g, out, x):
        return g * 0

    def jvp(self, xp, tangents, out, x):
        (t,) = tangents
        return None if t is None else t * 0

    def reference(self, np, x):
        return getattr(np, self.fn)(x)


class Floor(_Step):
    fn = "floor"


class Ceil(_Step):
    fn = "ceil"


class Trunc(_Step):
    fn = "trunc"


class Round(_Step):
    """Round half to even to ``decimals`` places (NumPy's ``round``); gradient 0."""

    decimals: int

    def forward(self, xp, x):
        return xp.round(x, self.decimals)

    def reference(self, np, x):
        return np.round(x, self.decimals)


# ------------------------------------------------ more binary math (issue 14)
class Arctan2(Op):
    """``arctan2(y, x)``, the angle of the point ``(x, y)``.

    ``d/dy = x / (x^2 + y^2)``, ``d/dx = -y / (x^2 + y^2)``; at the origin,
    where neither exists, both are taken as 0.
    """

    def forward(self, xp, y, x):
        return xp.arctan2(y, x)

    def backward(self, xp, g, out, y, x):
        r2 = x * x + y * y
        safe = xp.where(r2 == 0, 1, r2)
        gy = None if isinstance(y, _CONST) else xp.where(r2 == 0, 0, g * x / safe)
        gx = None if isinstance(x, _CONST) else xp.where(r2 == 0, 0, -g * y / safe)
        return gy, gx

    def jvp(self, xp, tangents, out, y, x):
        ty, tx = tangents
        r2 = x * x + y * y
        safe = xp.where(r2 == 0, 1, r2)
        num = (0 if ty is None else ty * x) - (0 if tx is None else tx * y)
        return xp.where(r2 == 0, 0, num / safe)

    def reference(self, np, y, x):
        return np.arctan2(y, x)


class Hypot(Op):
    """``sqrt(x^2 + y^2)`` without overflow; gradient ``(x, y) / hypot``, 0 at the origin (a kink)."""

    save_output = True

    def forward(self, xp, x, y):
        return xp.hypot(x, y)

    def backward(self, xp, g, out, x, y):
        zero = out == 0
        scaled = xp.where(zero, 0, g / xp.where(zero, 1, out))
        gx = None if isinstance(x, _CONST) else scaled * x
        gy = None if isinstance(y, _CONST) else scaled * y
        return gx, gy

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        zero = out == 0
        num = (0 if tx is None else tx * x) + (0 if ty is None else ty * y)
        return xp.where(zero, 0, num / xp.where(zero, 1, out))

    def reference(self, np, x, y):
        return np.hypot(x, y)


class LogAddExp(Op):
    """``log(exp(x) + exp(y))`` without overflow; gradients are the softmax weights.

    Where both operands are ``-inf`` the result is ``-inf`` and the gradients 0.
    """

    save_output = True

    def forward(self, xp, x, y):
        return xp.logaddexp(x, y)

    def backward(self, xp, g, out, x, y):
        base = xp.where(out == -xp.inf, 0, out)
        gx = None if isinstance(x, _CONST) else g * xp.exp(x - base)
        gy = None if isinstance(y, _CONST) else g * xp.exp(y - base)
        return gx, gy

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        base = xp.where(out == -xp.inf, 0, out)
        return (0 if tx is None else tx * xp.exp(x - base)) + (0 if ty is None else ty * xp.exp(y - base))

    def reference(self, np, x, y):
        return np.logaddexp(x, y)


class LogAddExp2(Op):
    """``log2(2**x + 2**y)`` without overflow; gradients ``2**(x - out)`` and ``2**(y - out)``."""

    save_output = True

    def forward(self, xp, x, y):
        return xp.logaddexp2(x, y)

    def backward(self, xp, g, out, x, y):
        base = xp.where(out == -xp.inf, 0, out)
        gx = None if isinstance(x, _CONST) else g * xp.exp2(x - base)
        gy = None if isinstance(y, _CONST) else g * xp.exp2(y - base)
        return gx, gy

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        base = xp.where(out == -xp.inf, 0, out)
        return (0 if tx is None else tx * xp.exp2(x - base)) + (0 if ty is None else ty * xp.exp2(y - base))

    def reference(self, np, x, y):
        return np.logaddexp2(x, y)


class Mod(Op):
    """``x mod y`` with the sign of ``y`` (Python's ``%``, NumPy's ``mod``/``remainder``).

    ``x - floor(x / y) * y``: ``d/dx = 1``, ``d/dy = -floor(x / y)``; the jumps
    where ``x / y`` is an integer have no derivative (the one-sided value is
    returned).  ``y == 0`` gives NaN, as NumPy.
    """

    save_output = True

    def forward(self, xp, x, y):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return xp.mod(x, y)

    def backward(self, xp, g, out, x, y):
        return _remainder_grads(xp, g, out, x, y)

    def jvp(self, xp, tangents, out, x, y):
        return _remainder_jvp(xp, tangents, out, x, y)

    def reference(self, np, x, y):
        return np.mod(x, y)


class Fmod(Op):
    """``x mod y`` with the sign of ``x`` (C's ``fmod``): ``x - trunc(x / y) * y``.

    ``d/dx = 1``, ``d/dy = -trunc(x / y)``; jumps as for ``mod``.
    """

    save_output = True

    def forward(self, xp, x, y):
        with xp.errstate(divide="ignore", invalid="ignore"):
            return xp.fmod(x, y)

    def backward(self, xp, g, out, x, y):
        return _remainder_grads(xp, g, out, x, y)

    def jvp(self, xp, tangents, out, x, y):
        return _remainder_jvp(xp, tangents, out, x, y)

    def reference(self, np, x, y):
        return np.fmod(x, y)


def _quotient(xp: Any, out: Any, x: Any, y: Any) -> Any:
    """The integer ``q`` with ``x = q * y + out`` (read back from the remainder).

    ``round`` removes the rounding error of ``(x - out) / y``; it is a step
    function, so under ``create_graph`` the quotient is a constant, as it
    should be.
    """
    with xp.errstate(divide="ignore", invalid="ignore"):
        return xp.round((x - out) / y)


def _remainder_grads(xp: Any, g: Any, out: Any, x: Any, y: Any) -> tuple:
    gx = None if isinstance(x, _CONST) else g + 0
    gy = None if isinstance(y, _CONST) else -g * _quotient(xp, out, x, y)
    return gx, gy


def _remainder_jvp(xp: Any, tangents: tuple, out: Any, x: Any, y: Any) -> Any:
    tx, ty = tangents
    r = 0 if tx is None else tx + 0
    if ty is not None:
        r = r - ty * _quotient(xp, out, x, y)
    return r
