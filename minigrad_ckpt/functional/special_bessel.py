"""``mg.special``'s Bessel functions under ``torch.special``'s names, without a derivative as
PyTorch's: ``spherical_bessel_j0``, ``bessel_j0``, ``bessel_j1``, ``modified_bessel_i0``,
``modified_bessel_i1`` (the ops of
:mod:`minigrad_ckpt.ops.bessel`).  An integer or bool input is computed in the default float
dtype; the result never requires grad, so ``backward`` through it is the engine's error for a
tensor that does not require grad -- PyTorch's too.  (``mg.special.i0``/``i1`` are the
differentiable ``I0``, ``I1``.)
"""

from __future__ import annotations

from typing import Any

from ..ops import bessel as _bessel
from ..tensor import Tensor
from .special import _of_reals

_SPHERICAL_J0 = _bessel.SphericalBesselJ0()
_I0, _I1 = _bessel.ModifiedBesselI0(), _bessel.ModifiedBesselI1()
_J0, _J1 = _bessel.BesselJ0(), _bessel.BesselJ1()


def spherical_bessel_j0(input: Any) -> Tensor:  # noqa: A002 (PyTorch's keyword)
    """The spherical Bessel function of the first kind of order 0, ``sin(x) / x`` (1 at 0, 0 at +-inf)."""
    return _of_reals("spherical_bessel_j0", _SPHERICAL_J0, input)


def modified_bessel_i0(input: Any) -> Tensor:  # noqa: A002 (PyTorch's keyword)
    """``I0(x)``, the modified Bessel function of the first kind of order 0 (no gradient)."""
    return _of_reals("modified_bessel_i0", _I0, input)


def modified_bessel_i1(input: Any) -> Tensor:  # noqa: A002 (PyTorch's keyword)
    """``I1(x)``, the modified Bessel function of the first kind of order 1 (no gradient)."""
    return _of_reals("modified_bessel_i1", _I1, input)


def bessel_j0(input: Any) -> Tensor:  # noqa: A002 (PyTorch's keyword)
    """``J0(x)``, the Bessel function of the first kind of order 0 (0 at +-inf; no gradient)."""
    return _of_reals("bessel_j0", _J0, input)


def bessel_j1(input: Any) -> Tensor:  # noqa: A002 (PyTorch's keyword)
    """``J1(x)``, the Bessel function of the first kind of order 1 (0 at +-inf; no gradient)."""
    return _of_reals("bessel_j1", _J1, input)
