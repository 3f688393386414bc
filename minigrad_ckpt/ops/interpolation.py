"""Linear interpolation, ``lerp(start, end, weight)``, as PyTorch's kernel computes it and its
derivatives read it.

The value is taken from the nearer end -- ``start + w (end - start)`` where ``|w| < 0.5``, else
``end - (end - start)(1 - w)`` -- so that ``w = 1`` gives ``end`` exactly; float16 arrays are
computed in float32 and rounded once (PyTorch's "opmath").  PyTorch's CPU kernel takes each of those
as one fused multiply-add, which NumPy lacks: here the product is rounded, then the sum, so about a
quarter of float32 and float64 values are a unit in the last place off PyTorch's (docs/from-pytorch.md,
"Where PyTorch rounds once").  A number weight is rounded to that
dtype first, as PyTorch converts it; its *derivatives* read it as given, as PyTorch's backward
does (``grad * (1 - weight.toDouble())``).  One op rather than a composition of subtractions,
products and a select: the composition's chain rule read the rounded weight, and an infinite
gradient met ``inf - inf`` in it (NaN, where PyTorch's product rule gives inf).
"""

from __future__ import annotations

from typing import Any

from ..backend import HALF, half_in_float32, host_numpy, rounded_to_half
from .base import Op
from .elementwise import _to_float32 as _widened  # (float16 arrays in float32, others as they are)


def _interpolate(xp: Any, start: Any, end: Any, w: Any) -> Any:
    """PyTorch's ``lerp`` of arrays (or numbers, for a tangent that is missing) with ``w``
    already in the dtype they compute in."""
    diff = end - start  # (diff first in each product: NumPy's complex64 product is not commutative bit for bit)
    if isinstance(w, (int, float, complex)):
        return start + diff * w if abs(w) < 0.5 else end - diff * (1 - w)
    return xp.where(xp.abs(w) < 0.5, start + diff * w, end - diff * (1 - w))


def _narrowed(a: Any, like: Any) -> Any:
    if getattr(like, "dtype", None) is not HALF:
        return a
    return rounded_to_half(a)


def _in_dtype_of(weight: Any, like: Any) -> Any:
    """A (0-d) weight of another dtype rounded to ``like``'s, as PyTorch's kernel reads it."""
    return weight if weight.dtype == like.dtype else weight.astype(like.dtype)


def _times_scalar(g: Any, scalar: Any) -> Any:
    """``g`` times a 0-d array of another dtype as PyTorch multiplies by a CPU scalar: the scalar's
    value read in ``g``'s compute dtype (float32 for float16), the product rounded once."""
    wide = _widened(g)
    return _narrowed(wide * scalar.astype(wide.dtype), g)


def _zero_or(t: Any) -> Any:
    return 0 if t is None else t


class Lerp(Op):
    """``lerp(start, end, weight)`` for a number ``weight`` (PyTorch's ``LerpBackward0``):
    ``d/dstart = g (1 - weight)``, ``d/dend = g weight``, the weight as the caller gave it."""

    weight: Any
    save_inputs = False
    grad_fn_name = "LerpBackward0"

    def _in_opmath(self, a: Any) -> Any:
        """The weight rounded to the dtype ``a`` computes in: its real part's, float32 for float16."""
        dtype = host_numpy.dtype(host_numpy.float32 if a.dtype is HALF else a.dtype)
        if isinstance(self.weight, complex) and dtype.kind == "c":
            return complex(dtype.type(self.weight))
        return float(dtype.type(0).real.dtype.type(self.weight))

    @half_in_float32  # (start and end share a dtype: the weight's opmath is float32 for float16 too)
    def forward(self, xp, start, end):
        return _interpolate(xp, start, end, self._in_opmath(start))

    def backward(self, xp, g, out, start, end):
        # the product with the weight as given (a Python number: NumPy rounds it to g's dtype, as
        # PyTorch's product with a scalar), float16 in float32 and rounded once
        wide = _widened(g)
        return _narrowed(wide * (1 - self.weight), g), _narrowed(wide * self.weight, g)

    def jvp(self, xp, tangents, out, start, end):
        ts, te = tangents
        if ts is None and te is None:
            return None
        t = _interpolate(xp, _widened(_zero_or(ts)), _widened(_zero_or(te)), self._in_opmath(out))
        return xp.broadcast_to(_narrowed(t, out), out.shape)

    def reference(self, np, start, end):
        w = self.weight
        return start + w * (end - start) if abs(w) < 0.5 else end - (end - start) * (1 - w)


class LerpByTensor(Op):
    """``lerp(start, end, weight)`` for a ``weight`` tensor (PyTorch's ``LerpBackward1``):
    ``g (1 - weight)``, ``g weight`` and ``g (end - start)``.  A weight of the tensors' dtype is
    read in that dtype.  A 0-d weight of another floating dtype is taken as PyTorch takes it: the
    value reads it rounded to the tensors' dtype, the backward takes ``1 - weight`` in the weight's
    own dtype and multiplies ``g`` by it (and by the weight) read in ``g``'s compute dtype, as its
    product with a CPU scalar reads the scalar's original value -- rounding the weight to the
    tensors' dtype first put a third to two fifths of the gradients a unit off PyTorch's."""

    grad_fn_name = "LerpBackward1"
    #: start's and end's gradients read the weight; the weight's, ``g (end - start)``, reads start and
    #: end -- and the weight too, as PyTorch 2.13 refuses a write into it there (allowed only where it is)
    grad_reads = ((2,), (2,), (0, 1, 2))

    def forward(self, xp, start, end, weight):
        wide = _widened
        return _narrowed(_interpolate(xp, wide(start), wide(end), wide(_in_dtype_of(weight, start))), start)

    def backward(self, xp, g, out, start, end, weight):
        if weight.dtype == g.dtype:
            return g * (1 - weight), g * weight, g * (end - start)
        return _times_scalar(g, 1 - weight), _times_scalar(g, weight), g * (end - start)

    def jvp(self, xp, tangents, out, start, end, weight):
        ts, te, tw = tangents
        t = None
        if ts is not None or te is not None:
            w = _widened(_in_dtype_of(weight, out))
            t = _narrowed(_interpolate(xp, _widened(_zero_or(ts)), _widened(_zero_or(te)), w), out)
        if tw is not None:
            t = tw * (end - start) if t is None else t + tw * (end - start)
        return None if t is None else xp.broadcast_to(t, out.shape)

    def reference(self, np, start, end, weight):
        return np.where(np.abs(weight) < 0.5, start + weight * (end - start), end - (end - start) * (1 - weight))
