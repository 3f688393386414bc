"""Recorded in-place writes into memory that other tensors share: views, bases, aliases.

``h = x * 2; h[:, 0] *= 3`` changes a *view* of ``h`` in place while ``h``
requires grad.  A tensor nobody else sees takes a recorded change as a new
array (:meth:`Tensor._rebase`); a view cannot, since its base, its sibling
views and any alias would keep the old values.  So, as in PyTorch, the change
goes into the memory, and the tape follows every tensor that shows it:

* the written tensor takes the history of the result (``v * 3``, computed from
  a recorded copy of ``v``: :meth:`Tensor._write_source`);
* every other live tensor that shares the memory *and the history* -- the
  views and bases listed in the memory's version box, in the written tensor's
  alias group -- whose elements the write reaches (found by memory address)
  takes the history ``where(reached, the result's element, its old value)``:
  gradients reach both the values it keeps and the ones written, as
  PyTorch's ``CopySlices`` and its regenerated view histories do.  A detached
  alias (``detach()``, ``.data``, ``from_numpy``'s wrapper and its views) sees
  the values but keeps its history, as in PyTorch;
* the memory's version moves, so a node that saved the old values refuses at
  backward ("modified by an in-place operation"), as PyTorch's does.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from ..tensor import Tensor, set_shared_memory_writer
from . import complex_numbers as _complex_numbers
from . import elementwise as _elementwise
from . import indexing as _indexing
from . import shape as _shape

__all__ = ["write_into_shared_memory", "element_addresses"]


def write_into_shared_memory(target: Tensor, result: Tensor, what: str) -> Tensor:
    """Write ``result`` (``target``'s new value, on the tape, same shape and dtype) into
    ``target``'s memory and move the histories of the tensors that show it (module docstring)."""
    sharers = _history_sharers(target) if target._data.size else []
    followers = _followers(target, sharers, result, what) if sharers else []
    target.prepare_write()  # (an asynchronous snapshot or a checkpoint segment may copy first)
    target._data[...] = result._data
    target._bump_version()
    for sharer, new in followers:
        sharer._take_history(new)
    return target._take_history(result)


def _history_sharers(target: Tensor) -> list[Tensor]:
    """The live tensors other than ``target`` listed in its memory's version box, of its alias
    group; a view made in no_grad mode sees the values and stays a constant, as it was made."""
    box = target._version
    if len(box) == 1 or box[1].__class__ is not list:
        return []
    group = target._alias_group
    return [o for r in box[1] if (o := r()) is not None and o is not target and o._alias_group is group
            and not o._no_grad_view]


def _followers(target: Tensor, sharers: list[Tensor], result: Tensor, what: str) -> list[tuple[Tensor, Tensor]]:
    """Each sharer the write reaches, with its history after the write, recorded before it (the
    old values are still in the memory): ``where(reached, result's element, old value)``.  A
    complex tensor and a float view of its parts (``.real``, ``view_as_real``) are matched part
    by part: real and imaginary parts are elements of the floats' dtype."""
    xp = target._device.xp
    written = _part_addresses(target._data, xp)
    order = host_numpy.argsort(written, kind="stable")
    ordered = written[order]
    if ordered.size > 1 and (ordered[1:] == ordered[:-1]).any():  # (as_strided; expand is refused before)
        raise RuntimeError(f"{what}: unsupported operation: more than one element of the written-to tensor "
                           f"refers to a single memory location; clone() it first")
    flat = _shape.reshape(_parts(result), (-1,))
    followers = []
    for s in sharers:
        if s.dtype.kind not in "fc":  # (an integer view: no history to follow)
            continue
        if _part_dtype(s) != _part_dtype(target):
            if _ranges_meet(s._data, target._data, xp):
                raise RuntimeError(f"{what}: an in-place change through a view of another dtype ({s.dtype} "
                                   f"shares memory with {target.dtype}) is not recorded; write it out of place")
            continue
        at = _part_addresses(s._data, xp)
        pos = host_numpy.minimum(host_numpy.searchsorted(ordered, at), ordered.size - 1)
        reached = ordered[pos] == at
        if reached.any():
            followers.append((s, _after_write(s, flat, order[pos], reached, xp)))
    return followers


def _after_write(s: Tensor, flat: Tensor, source: Any, reached: Any, xp: Any) -> Tensor:
    """``s``'s value after the write, on the tape: its parts ``reached`` take the written parts
    ``flat[source]``, the others keep ``s``'s old history."""
    shape = s.shape + (2,) if s.dtype.kind == "c" else s.shape
    values = _indexing.take(flat, Tensor.constant(xp.asarray(source.reshape(shape)), s._device))
    if not reached.all():
        old = Tensor._wrap(s._data, s._node, s._device)
        old._requires_grad, old._tangents = s._requires_grad, s._tangents
        hit = Tensor.constant(xp.asarray(reached.reshape(shape)), s._device)
        values = _elementwise.where(hit, values, _parts(old))
    return _complex_numbers.view_as_complex(values) if s.dtype.kind == "c" else values


def _parts(t: Tensor) -> Tensor:
    """``t``'s real parts: itself, or for a complex ``t`` its (real, imaginary) pairs (``(..., 2)``)."""
    return _complex_numbers.view_as_real(t) if t.dtype.kind == "c" else t


def _part_dtype(t: Tensor) -> Any:
    return host_numpy.finfo(t.dtype).dtype  # (a complex dtype's: its parts' float dtype)


def _part_addresses(a: Any, xp: Any) -> Any:
    """The address of each real part of ``a``'s elements (a complex element's real part, then its
    imaginary part), in the order of :func:`_parts`."""
    at = element_addresses(a, xp)
    if a.dtype.kind == "c":
        at = host_numpy.stack([at, at + a.itemsize // 2], axis=-1).reshape(-1)
    return at


def element_addresses(a: Any, xp: Any) -> Any:
    """The memory address of each element of ``a`` (any device's array), flattened in C order, as
    a host int64 array: shapes and strides are host metadata, so no device memory is read."""
    offsets = host_numpy.asarray(xp.address(a), dtype="int64")
    for n, stride in zip(a.shape, a.strides):
        offsets = offsets[..., None] + host_numpy.arange(n, dtype="int64") * stride
    return offsets.reshape(-1)


def _ranges_meet(a: Any, b: Any, xp: Any) -> bool:
    """Whether the byte ranges ``a`` and ``b`` span meet (a conservative test of overlap)."""
    def span(x: Any) -> tuple[int, int]:
        start = xp.address(x)
        low = sum(s * (n - 1) for n, s in zip(x.shape, x.strides) if s < 0)
        high = sum(s * (n - 1) for n, s in zip(x.shape, x.strides) if s > 0)
        return start + low, start + high + x.itemsize
    (a0, a1), (b0, b1) = span(a), span(b)
    return a.size > 0 and b.size > 0 and a0 < b1 and b0 < a1


set_shared_memory_writer(write_into_shared_memory)
