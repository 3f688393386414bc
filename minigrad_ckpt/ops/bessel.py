"""``torch.special``'s Bessel functions that PyTorch declares without a derivative:
``spherical_bessel_j0`` and the unscaled modified Bessel functions ``modified_bessel_i0``,
``modified_bessel_i1``.

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
from typing import ClassVar

from ..backend import register_kernel
from .base import FunctionOp
from .scaled_special import I0, I1

#: the Taylor coefficients of sin(x)/x in x^2, PyTorch's (its constants -1/6, 1/120, ...)
_SINC_TAYLOR = (1.0, -1 / 6, 1 / 120, -1 / 5040, 1 / 362880, -1 / 39916800, 1 / 6227020800)


@register_kernel
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
