"""Forward mode through in-place writes: the written tensor takes the tangent along.

``y = mg.zeros(3); y[0] = x[1] * x[2]`` inside ``mg.func.jvp`` writes a value
that carries a tangent into a tensor that carries none.  As in PyTorch's
forward AD, ``y``'s tangent becomes what the write makes of it -- here zero
except ``y[0]``, which gets the tangent of ``x[1] * x[2]`` -- and the same
for every in-place method (``__setitem__``, ``copy_``, ``fill_``, ``zero_``,
``add_``, ``sub_``, ``mul_``, ``div_``, ``set_``).

How: each write has an out-of-place twin built from differentiable ops (a
``where`` that places the value, ``old * other`` for ``mul_``, ...).  Before
the array is overwritten, :func:`tangents_after_write` runs the twin on a copy
of the old value that carries the old tangents; forward mode pushes the
tangents through the twin's ops (every open level, nested levels included),
and the written tensor takes the twin's tangents.  The twin runs only when a
tangent is involved; otherwise the write costs one check.

What cannot be carried is refused with a ``RuntimeError``, never dropped: a
write into a tensor that shares its memory or its version with another one
(a view, the base of a view, a value saved for backward) would leave the
others without the tangent.  The one sharer allowed is the primal of a dual
handle (a transform's argument, ``forward_ad.make_dual``'s tensor) that
carries no tangent: it takes the new values and stays a plain tensor, as
PyTorch's base of a dual view does.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from .. import functional as _F
from ..grad_mode import forward_mode as _forward
from ..tensor import Tensor, out_of_place_writes

__all__ = ["tangents_after_write"]


def _open(tangents: dict | None) -> dict:
    if not tangents:
        return {}
    return {k: v for k, v in tangents.items() if k in _forward.levels}


def tangents_after_write(target: Tensor, kind: str, operand: Any = None, index: Any = None) -> dict | None:
    """The tangents ``target`` has after the in-place write ``kind`` of ``operand``
    (at ``index`` for ``setitem``), or ``None`` if no tangent is involved.

    Called by the in-place methods of Tensor, before they write (the old value
    is still there), while forward mode is on.  A tensor that had a tangent
    keeps one: a constant written over all of it (``zero_``, ``fill_``) leaves
    a zero tangent, as in PyTorch's forward AD.
    """
    mine = _open(target._tangents)
    theirs = _open(operand._tangents) if isinstance(operand, Tensor) else {}
    if not mine and not theirs:
        return None
    _refuse_shared(target, kind)
    if kind == "set":
        same = isinstance(operand, Tensor) and operand.shape == target.shape and operand.dtype == target.dtype
        return dict(theirs) if same else {}
    old = Tensor._wrap(target._data.copy(), None, target._device)
    old._tangents = mine or None
    new = _TWINS[kind](old, operand, index)
    after = {k: _fit(t, target) for k, t in _open(new._tangents).items()}
    for k in mine.keys() - after.keys():  # overwritten by a constant (zero_, fill_): still a dual, tangent 0,
        after[k] = _F.zeros_like(mine[k])  # as PyTorch's forward AD keeps it
    return after


def _fit(t: Tensor, target: Tensor) -> Tensor:
    if t.dtype != target.dtype:
        t = _F.astype(t, target.dtype)
    if t.shape != target.shape:
        t = _F.broadcast_to(t, target.shape)
    return t


def _refuse_shared(target: Tensor, kind: str) -> None:
    # References to the version box: the target's own slot and getrefcount's
    # argument.  Any other holder is a tensor sharing the memory (a view, a
    # base, a dual handle) or a node that saved the value for backward -- but
    # the primal a dual handle was made from is no obstacle while it carries no
    # tangent: it takes the new values and stays without one, as in PyTorch.
    others = sys.getrefcount(target._version) - 2
    if others == 1 and _untangented_primal(target):
        return
    if others > 0:
        raise RuntimeError(
            f"{kind}: this in-place write cannot carry its forward-mode tangent: the tensor shares "
            f"its memory or version with another tensor (a view or the base of one, an argument "
            f"of the transform, or a value saved for backward), which would keep a stale "
            f"tangent. Write into a fresh tensor (mg.zeros(...), x.clone()) or build the result "
            f"out of place (mg.where, mg.stack, mg.concatenate)")


def _untangented_primal(target: Tensor) -> bool:
    """Whether ``target`` is a dual handle whose live primal shares its version box and carries no open tangent."""
    made_from = target.__dict__.get("_dual_of")
    primal = made_from() if made_from is not None else None
    return primal is not None and primal._version is target._version and not _open(primal._tangents)


def _as_operand(value: Any, target: Tensor) -> Any:
    if isinstance(value, Tensor):
        return value if value.dtype == target.dtype else _F.astype(value, target.dtype)
    return Tensor._wrap(target._device.xp.asarray(value, dtype=target.dtype), None, target._device)


def _setitem(old: Tensor, value: Any, index: Any) -> Tensor:
    """``old`` with ``old[index] = value``, out of place: every element names its source."""
    xp = old._device.xp
    region = old._data[index].shape
    size = math.prod(region)  # from the shape, on the host: no read of device memory
    if size == 0:
        return old  # nothing is written (a mask that selects nothing, an empty slice)
    source = xp.full(old.shape, -1, dtype="int64")
    source[index] = xp.arange(size, dtype="int64").reshape(region)
    written = source >= 0
    placed = _F.reshape(_F.broadcast_to(_as_operand(value, old), region), (-1,))
    gathered = _F.take(placed, Tensor._wrap(xp.where(written, source, 0), None, old._device))
    return _F.where(Tensor._wrap(written, None, old._device), gathered, old)


def _fill(old: Tensor, value: Any, index: Any) -> Tensor:
    return _F.broadcast_to(_as_operand(value, old), old.shape)


_TWINS = {
    "setitem": _setitem,
    "copy": _fill,
    "fill": _fill,
    "zero": lambda old, value, index: _F.zeros_like(old),
    "add": lambda old, other, index: old + _as_operand(other, old),
    "subtract": lambda old, other, index: old - _as_operand(other, old),
    "multiply": lambda old, other, index: old * _as_operand(other, old),
    "divide": lambda old, other, index: old / _as_operand(other, old),
}
out_of_place_writes.update(_TWINS)  # the recorded writes of the tape use them too
