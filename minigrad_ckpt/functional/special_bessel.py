"""``mg.special``'s Bessel functions under ``torch.special``'s names, without a derivative as
PyTorch's: ``spherical_bessel_j0``, ``bessel_j0``, ``bessel_j1``, ``bessel_y0``, ``bessel_y1``, ``modified_bessel_i0``,
``modified_bessel_i1``, ``modified_bessel_k0``, ``modified_bessel_k1`` and their ``scaled_`` twins
and ``airy_ai`` (the ops of :mod:`minigrad_ckpt.ops.bessel`).  An integer or bool input is computed in the default float
dtype; the result never requires grad, so ``backward`` through it is the engine's error for a
tensor that does not require grad -- PyTorch's too.  (``mg.special.i0``/``i1`` are the
differentiable ``I0``, ``I1``.)
"""

from __future__ import annotations

from typing import Any

from ..ops import bessel as _bessel
from ..tensor import Tensor
from .special import _of_reals
from .special_polynomials import named


def _public(name: str, op: Any, doc: str) -> Any:
    """The public ``mg.special.<name>(input)`` of ``op`` (no gradient), with PyTorch's keyword name."""

    def function(input: Any) -> Tensor:  # noqa: A002 (PyTorch's keyword)
        return _of_reals(name, op, input)

    return named(function, name, doc + " No gradient, as PyTorch's.")


spherical_bessel_j0 = _public(
    "spherical_bessel_j0", _bessel.SphericalBesselJ0(),
    "The spherical Bessel function of the first kind of order 0, ``sin(x) / x`` (1 at 0, 0 at +-inf).")
bessel_j0 = _public(
    "bessel_j0", _bessel.BesselJ0(),
    "``J0(x)``, the Bessel function of the first kind of order 0 (0 at +-inf).")
bessel_j1 = _public(
    "bessel_j1", _bessel.BesselJ1(),
    "``J1(x)``, the Bessel function of the first kind of order 1 (0 at +-inf).")
airy_ai = _public(
    "airy_ai", _bessel.AiryAi(),
    "The Airy function ``Ai(x)`` (0 at +-inf, the limits).")
bessel_y0 = _public(
    "bessel_y0", _bessel.BesselY0(),
    "``Y0(x)``, the Bessel function of the second kind of order 0 (-inf at 0, NaN below, 0 at +inf).")
bessel_y1 = _public(
    "bessel_y1", _bessel.BesselY1(),
    "``Y1(x)``, the Bessel function of the second kind of order 1 (-inf at 0, NaN below, 0 at +inf).")
modified_bessel_i0 = _public(
    "modified_bessel_i0", _bessel.ModifiedBesselI0(),
    "``I0(x)``, the modified Bessel function of the first kind of order 0.")
modified_bessel_i1 = _public(
    "modified_bessel_i1", _bessel.ModifiedBesselI1(),
    "``I1(x)``, the modified Bessel function of the first kind of order 1.")
modified_bessel_k0 = _public(
    "modified_bessel_k0", _bessel.ModifiedBesselK0(),
    "``K0(x)``, the modified Bessel function of the second kind of order 0 (+inf at 0, NaN below).")
modified_bessel_k1 = _public(
    "modified_bessel_k1", _bessel.ModifiedBesselK1(),
    "``K1(x)``, the modified Bessel function of the second kind of order 1 (+inf at 0, NaN below).")
scaled_modified_bessel_k0 = _public(
    "scaled_modified_bessel_k0", _bessel.ScaledModifiedBesselK0(),
    "``e^x K0(x)``, finite where ``K0`` underflows (``~ sqrt(pi / (2x))``).")
scaled_modified_bessel_k1 = _public(
    "scaled_modified_bessel_k1", _bessel.ScaledModifiedBesselK1(),
    "``e^x K1(x)``, finite where ``K1`` underflows.")
