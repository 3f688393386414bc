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

A write into a tensor that shares its memory with others (a view, the base
of a view: the tensors listed in its version box) reaches them too: each
element they share with the written tensor -- found by memory address --
takes its new tangent, as PyTorch's views and bases do -- those of the same
*lineage* (``Tensor._dual_lineage``): a dual handle (a transform's argument,
``forward_ad.make_dual``'s tensor), ``detach()`` and ``unpack_dual``'s primal
start a tangent chain of their own, so the primal, its views and the detached
source take the new values and keep their tangents (none, for a plain one), as
PyTorch's do.  What cannot be carried is refused with a
``RuntimeError``, never dropped: a value saved for backward holding the memory,
tangents that are themselves recorded or moved by another level.  The mapping
works on every device: addresses come from shapes and strides, on the host.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from .. import functional as _F
from ..backend import fill_scalar, host_numpy, number_beside_half
from ..functional.shape import pad as _pad
from ..functional.shared_memory import element_addresses
from ..grad_mode import forward_mode as _forward
from ..ops import indexing as _ix
from ..tape import apply
from ..tensor import Tensor, out_of_place_writes, refuse_index_put_cast, refuse_value_shape, without_leading_ones
from .captures import refuse_if_captured

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
    refuse_if_captured(target, kind)  # a tangent into a tensor the transformed function closes over
    sharers = _sharers(target, mine.keys() | theirs.keys())
    if sharers is None or (sharers and kind == "set"):
        _refuse(kind)
    if kind == "set":  # the target holds the source's array from now on, of whatever shape: its tangents too
        return {**{k: _F.zeros_like(operand) for k in mine}, **theirs}  # (a constant's: zero, as fill_'s)
    old = Tensor._wrap(target._data.copy(), None, target._device)
    old._tangents = mine or None
    new = _TWINS[kind](old, operand, index)
    after = {k: _fit(t, target) for k, t in _open(new._tangents).items()}
    for k in mine.keys() - after.keys():  # overwritten by a constant (zero_, fill_): still a dual, tangent 0,
        after[k] = _F.zeros_like(mine[k])  # as PyTorch's forward AD keeps it
    if sharers:
        _carry_into_sharers(target, sharers, after, kind)
    return after


def _fit(t: Tensor, target: Tensor) -> Tensor:
    if t.dtype != target.dtype:
        t = _F.astype(t, target.dtype)
    if t.shape != target.shape:
        t = _F.broadcast_to(t, target.shape)
    return t


def _refuse(kind: str) -> None:
    raise RuntimeError(
        f"{kind}: this in-place write cannot carry its forward-mode tangent: the tensor shares "
        f"its memory or version with another tensor (a view or the base of one, an argument "
        f"of the transform, or a value saved for backward), which would keep a stale "
        f"tangent. Write into a fresh tensor (mg.zeros(...), x.clone()) or build the result "
        f"out of place (mg.where, mg.stack, mg.concatenate)")


def _sharers(target: Tensor, levels: set) -> list[Tensor] | None:
    """The live tensors that share ``target``'s memory and version box and must follow the write
    (views, bases of the same lineage at one of ``levels`` or at a level of their own), or None if
    something else holds the box (a node that saved the value)."""
    box = target._version_box
    if len(box) == 1:
        listed: list[Tensor] = []
    elif not isinstance(box[1], list):  # a parameter's views are not listed
        return None
    else:
        listed = [o for r in box[1] if (o := r()) is not None and o is not target and o._version_box is box]
    # references: ``box`` here, getrefcount's argument, the target's slot, each listed tensor's slot
    held = sys.getrefcount(box) - 3 - len(listed)
    if held and held != _stamp_readers(box, [target, *listed]):
        return None
    # The others take the new values only: the primal of a dual handle (a transform's argument,
    # ``make_dual``'s tensor) and its views, a detached alias -- as in PyTorch.
    return [o for o in listed if _linked_levels(o, target, levels | _open(o._tangents).keys())]


def _stamp_readers(box: list, tensors: list[Tensor]) -> int:
    """How many references to ``box`` are checkpoint segments' holding it as the version of an
    output of theirs (``Segment.version_box_reads``, over the segments the ``tensors`` were made
    in): they read its stamp only, to recompute rather than take an output written in place since
    -- no value saved for backward, which would keep a stale tangent."""
    roots = {id(r): r for t in tensors if t._node is not None and t._node.segment is not None
             for r in [t._node.segment._root_segment]}
    return sum(r.version_box_reads(box) for r in roots.values())


def _lineage_root(t: Tensor, level: int) -> tuple | None:
    """Where ``t``'s tangent chain at ``level`` starts (see ``Tensor._dual_lineage``)."""
    chain = t._dual_lineage
    while chain is not None and chain[0] is not None and level not in chain[0]:
        chain = chain[1]
    return chain


def _linked_levels(s: Tensor, target: Tensor, levels: Any) -> set:
    """The ``levels`` at which a write into ``target`` reaches ``s``'s tangent."""
    return {k for k in levels if _lineage_root(s, k) is _lineage_root(target, k)}


def _carry_into_sharers(target: Tensor, sharers: list[Tensor], after: dict, kind: str) -> None:
    """Give every view and base of ``target`` the tangents the write makes: the elements they share
    with ``target`` (found by memory address) take ``target``'s new tangent, the rest keep theirs
    (zero where they had none, as PyTorch's base of a view written with a dual value).  The mapping
    is computed on the host from shapes and strides (no device memory is read) and applied on the
    tensors' device.  A tangent that is itself recorded or moved by another level (``jvp`` of
    ``jacfwd``, of ``grad``) is placed by differentiable ops, so that what carries it follows;
    a complex one is refused."""
    tangents = [after] + [_open(s._tangents) for s in sharers]
    linked = [_linked_levels(s, target, after.keys() | old.keys()) for s, old in zip(sharers, tangents[1:])]
    differentiable = any(v._requires_grad or _open(v._tangents) for t in tangents for v in t.values())
    if (any(s._device != target._device or _part_size(s._data) != _part_size(target._data) for s in sharers)
            or any((set(old) - set(after)) & ks for old, ks in zip(tangents[1:], linked))
            or (differentiable and any(s.dtype.kind == "c" or target.dtype.kind == "c" for s in sharers))):
        _refuse(kind)
    xp = target._device.xp
    written = _part_addresses(target._data, xp)
    order = host_numpy.argsort(written, kind="stable")
    for s, old, ks in zip(sharers, tangents[1:], linked):
        at = _part_addresses(s._data, xp)
        pos = host_numpy.minimum(host_numpy.searchsorted(written[order], at), max(written.size - 1, 0))
        hit = written[order][pos] == at if written.size else host_numpy.zeros(at.shape, bool)  # (an empty view)
        hit_on_device, source = xp.asarray(hit), xp.asarray(order[pos[hit]])  # explicit transfers
        carried = {k: t for k, t in after.items() if k in ks}  # (the levels of another lineage keep theirs)
        place = _placed_by_ops if differentiable else _placed_in_arrays
        new = {**old, **place(s, old, carried, hit_on_device, source)}
        s._tangents = new
        if s._node is not None:
            s._node.tangents = new


def _placed_in_arrays(s: Tensor, old: dict, after: dict, hit: Any, source: Any) -> dict:
    """``s``'s new tangents: its elements where ``hit`` is true take the written tangent's parts
    ``source``, the others keep ``old``'s (zero where ``s`` had none) -- in fresh arrays."""
    xp = s._device.xp
    new = {}
    for k, t in after.items():
        values = _parts(old[k]._data if k in old else xp.zeros(s.shape, dtype=s.dtype), xp)
        values[hit] = _parts(t._data, xp)[source]
        new[k] = Tensor._wrap(_from_parts(values, s.shape, s.dtype), None, s._device)
    return new


def _placed_by_ops(s: Tensor, old: dict, after: dict, hit: Any, source: Any) -> dict:
    """:func:`_placed_in_arrays` by a gather and a ``where`` (real dtypes), whose forward mode
    and tape carry the tangents' own tangents and history."""
    xp = s._device.xp
    index = xp.zeros(s._data.size, dtype="int64")
    index[hit] = source
    picked = Tensor._wrap(index.reshape(s.shape), None, s._device)
    mask = Tensor._wrap(hit.reshape(s.shape), None, s._device)
    new = {}
    for k, t in after.items():
        kept = old[k] if k in old else _F.zeros_like(s)
        new[k] = _F.where(mask, _F.take(_F.reshape(t, (-1,)), picked), kept)
    return new


# A complex tensor's views may be real (``z.real``, ``z.imag``, ``view_as_real(z)``), so the
# mapping works on real parts: a complex element is two parts, its real part at the element's
# address and its imaginary part half an item further on.
def _part_size(a: Any) -> int:
    return a.itemsize // 2 if a.dtype.kind == "c" else a.itemsize


def _part_addresses(a: Any, xp: Any) -> Any:
    """The memory address of each real part of ``a``'s elements, flattened (see :func:`_parts`)."""
    at = element_addresses(a, xp)
    return (at[:, None] + host_numpy.array([0, a.itemsize // 2])).reshape(-1) if a.dtype.kind == "c" else at


def _parts(a: Any, xp: Any) -> Any:
    """The real parts of ``a``'s elements, flattened in C order (real, imaginary for complex ``a``), a copy."""
    return xp.stack([xp.real(a), xp.imag(a)], axis=-1).reshape(-1) if a.dtype.kind == "c" else a.reshape(-1).copy()


def _from_parts(values: Any, shape: tuple, dtype: Any) -> Any:
    # the pairs are a fresh C-ordered array, so viewing them as complex reinterprets (real, imag)
    # in place: no arithmetic that could turn an infinite part into NaN
    return values.reshape(shape) if host_numpy.dtype(dtype).kind != "c" else values.view(dtype).reshape(shape)


def _as_operand(value: Any, target: Tensor) -> Any:
    if isinstance(value, Tensor):
        if value._device is not target._device:  # a CPU scalar tensor moves, as PyTorch's (else an error)
            value = target._on_my_device(value, "in-place write")
        return value if value.dtype == target.dtype else _F.astype(value, target.dtype)
    return Tensor._wrap(target._device.xp.asarray(value, dtype=target.dtype), None, target._device)


def _scaling_operand(value: Any, target: Tensor) -> Any:
    """:func:`_as_operand` of ``x.mul_(value)``/``x.div_(value)``, but beside a float16 ``target`` a
    number, a 0-d tensor, or an integer tensor of one element stays what it is: the write scales in
    float32 there, as ``x * value`` does (``functional.arguments.beside_number_in_float32``), and so
    does its tangent."""
    if target.dtype.itemsize == 2 and target.dtype.kind == "f":
        if isinstance(value, (int, float)) or (isinstance(value, Tensor) and value._device is target._device and (
                value.ndim == 0 or number_beside_half(value._data, target.ndim))):
            return value
    return _as_operand(value, target)


def _setitem(old: Tensor, value: Any, index: Any) -> Tensor:
    """``old`` with ``old[index] = value``, out of place: every element names its source."""
    if isinstance(value, Tensor):
        refuse_index_put_cast(old, index, value)
    xp = old._device.xp
    region = old._data[index].shape
    size = math.prod(region)  # from the shape, on the host: no read of device memory
    if size == 0 and not (isinstance(value, Tensor) and (value.requires_grad or value._tangents)):
        shaped = value if value.__class__ in (bool, int, float, complex) or hasattr(value, "shape") else (
            _as_operand(value, old))  # (a list or tuple is read for its shape, as the written path reads it)
        refuse_value_shape(old, index, shaped, None)  # (an empty region takes only a value that fits it)
        return old  # nothing is written (a mask that selects nothing, an empty slice); a dual value
        # goes on, so that old becomes a dual with a zero tangent there, as PyTorch's
    # A number, or a one-element constant, is placed by a where that reads it as it is: a value of
    # old's size built from it would be a constant no node saves, which a checkpoint would keep.
    if value.__class__ in (bool, int, float, complex):
        number = host_numpy.asarray(fill_scalar("__setitem__", value, old._data.dtype), dtype=old._data.dtype).item()
        return _F.where(Tensor._wrap(_written(index, old), None, old._device), number, old)
    value = _as_operand(value, old)
    if value.numel() == 1 and not value.requires_grad:
        placed = _F.broadcast_to(_F.reshape(value, ()), old.shape)
        return _F.where(Tensor._wrap(_written(index, old), None, old._device), placed, old)
    if value.ndim > len(region):  # PyTorch drops a value's leading 1s: a (1, 4) value fills a row of 4
        value = _F.reshape(value, without_leading_ones(value.shape, len(region)))
    block = _block(index, old.shape) if size else None
    if block is not None:  # a block (ints, unit-step slices): the value padded to old's shape and picked by a
        written = _written(index, old)  # mask -- three passes over old, where an index map of int64 and
        # a gather cost ten (out[t] = h, T = 100 steps of 64x256: 3.6 s -> 0.3 s)
        placed = _pad(_F.reshape(_F.broadcast_to(value, region), block[0]), block[1])
        return _F.where(Tensor._wrap(written, None, old._device), placed, old)
    source = xp.full(old.shape, -1, dtype="int64")
    source[index] = xp.arange(size, dtype="int64").reshape(region)
    written = source >= 0  # (an index array may repeat a place: PyTorch's gradient, _ix.IndexPut's)
    put = _ix.IndexPut(index=index, written=written, source=xp.where(written, source, 0) if size else None)
    return apply(put, old, _F.broadcast_to(value, region))


def _written(index: Any, old: Tensor) -> Any:
    """A mask of ``old``'s shape, true where ``old[index]`` is."""
    written = old._device.xp.zeros(old.shape, dtype=bool)
    written[index] = True
    return written


def _block(index: tuple, shape: tuple[int, ...]) -> tuple | None:
    """For a normalized index of ints and unit-step slices, the region as a block of ``shape``:
    its shape (1 for an int) and the pad widths around it; None for any other index."""
    if len(index) > len(shape):
        return None
    sizes, widths = [], []
    for part, n in zip(index + (slice(None),) * (len(shape) - len(index)), shape):
        if part.__class__ is int:
            i = part % n
            sizes.append(1)
            widths.append((i, n - i - 1))
        elif part.__class__ is slice and part.indices(n)[2] == 1:
            start, stop, _ = part.indices(n)
            stop = max(start, stop)
            sizes.append(stop - start)
            widths.append((start, n - stop))
        else:
            return None
    return tuple(sizes), tuple(widths)


def _fill(old: Tensor, value: Any, index: Any) -> Tensor:
    if not isinstance(value, Tensor):  # a number by PyTorch's checked conversion, as off the tape
        value = fill_scalar("fill_", value, old.dtype)
    return _F.broadcast_to(_as_operand(value, old), old.shape)


_TWINS = {
    "setitem": _setitem,
    "copy": _fill,
    "fill": _fill,
    "zero": lambda old, value, index: _fill(old, 0, index),  # one zero, broadcast (as fill_ is)
    "add": lambda old, other, index: old + _as_operand(other, old),
    "subtract": lambda old, other, index: old - _as_operand(other, old),
    "multiply": lambda old, other, index: old * _scaling_operand(other, old),
    "divide": lambda old, other, index: old / _scaling_operand(other, old),
}
out_of_place_writes.update(_TWINS)  # the recorded writes of the tape use them too
