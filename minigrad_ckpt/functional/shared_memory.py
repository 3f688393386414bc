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
* where the written tensor is a view of a live base that holds it whole,
  the base takes that ``where`` history and every view it holds -- the written
  one too -- takes its elements of the base's new value, as PyTorch
  regenerates a view from its base after a write: a read of a view then passes
  through the base's history, so ``mg.grad`` with respect to the base, a hook
  or ``retain_grad`` on it count it, and those on a view count the reads of
  that view alone (where the base is gone, the written view takes a history of
  its own for the same reason);
* the memory's version moves, so a node that saved the old values refuses at
  backward ("modified by an in-place operation"), as PyTorch's does.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from ..grad_mode import state as _grad_state
from ..ops.base import Op
from ..tape import apply
from ..tensor import Tensor, history_root, history_sharers, set_shared_memory_writer
from . import complex_numbers as _complex_numbers
from . import elementwise as _elementwise
from . import indexing as _indexing
from . import shape as _shape

__all__ = ["write_into_shared_memory", "element_addresses"]


def write_into_shared_memory(target: Tensor, result: Tensor, what: str) -> Tensor:
    """Write ``result`` (``target``'s new value, on the tape, same shape and dtype) into
    ``target``'s memory and move the histories of the tensors that show it (module docstring)."""
    sharers = _history_sharers(target) if target._data.size else []
    followers, result = _followers(target, sharers, result, what) if sharers else ([], result)
    target.prepare_write()  # (an asynchronous snapshot or a checkpoint segment may copy first)
    target._data[...] = result._data
    target._bump_version()
    shows = getattr(_grad_state.recorder, "now_shows", None)  # a checkpoint segment recording
    for sharer, new in followers:
        if sharer._custom_function_view is not None:  # the custom Function's backward would be bypassed
            new = apply(StaleCustomFunctionView(message=_stale_view_refusal(sharer._custom_function_view)), new)
        sharer._take_history(new)
        if shows is not None:
            shows(new._node, sharer._data)
    if shows is not None:
        shows(result._node, target._data)
    return target._take_history(result)


class StaleCustomFunctionView(Op):
    """The history a custom Function's view output (``Tensor._custom_function_view``) takes when its base
    or another view of it is written in place: the values, and at backward PyTorch's refusal -- its
    regenerated ``grad_fn`` would bypass the Function's ``backward`` (PyTorch refuses at the next use)."""

    abstract = True  # an internal marker, not a math op: outside the registry and its battery
    message: str
    save_inputs = False

    def forward(self, xp, x):
        return x

    def backward(self, xp, g, out, x):
        raise RuntimeError(self.message)

    def jvp(self, xp, tangents, out, x):
        raise RuntimeError(self.message)


def _stale_view_refusal(refusal: str) -> str:
    """PyTorch's words for a custom Function's view output whose base was written, from those refusing
    a write into it (``Tensor._custom_function_view``)."""
    return refusal.replace("is being modified inplace", "its base or another view of its base has been modified "
                                                         "inplace", 1)


def _history_sharers(target: Tensor) -> list[Tensor]:
    """The tensors whose histories the write moves (:func:`history_sharers`), but a view made in
    no_grad mode: it sees the values and stays a constant, as it was made."""
    return [o for o in history_sharers(target) if not o._no_grad_view]


def _followers(target: Tensor, sharers: list[Tensor], result: Tensor,
               what: str) -> tuple[list[tuple[Tensor, Tensor]], Tensor]:
    """Each sharer the write reaches, with its history after the write, recorded before it (the
    old values are still in the memory): ``where(reached, result's element, old value)``; and the
    written tensor's own new history -- ``result``, or, below a base, its elements of the base's new
    value (:func:`_through_the_base`).  A complex tensor and a float view of its parts (``.real``,
    ``view_as_real``) are matched part by part: real and imaginary parts are elements of the
    floats' dtype."""
    xp = target._device.xp
    if not _surely_apart(target._data):
        written = host_numpy.sort(_part_addresses(target._data, xp))
        if (written[1:] == written[:-1]).any():  # (as_strided, unfold; expand is refused before)
            raise RuntimeError(f"{what}: unsupported operation: more than one element of the written-to tensor "
                               f"refers to a single memory location; clone() it first")
    reached = []
    for s in sharers:
        if s.dtype.kind not in "fc":  # (an integer view: no history to follow)
            continue
        if _part_dtype(s) != _part_dtype(target):
            if _ranges_meet(s._data, target._data, xp):
                raise RuntimeError(f"{what}: an in-place change through a view of another dtype ({s.dtype} "
                                   f"shares memory with {target.dtype}) is not recorded; write it out of place")
            continue
        reached.append((s, *_reach(target._data, s._data, xp)))  # (positions empty: not reached)
    flat = _shape.reshape(_parts(result), (-1,))
    root = history_root(target)
    base = None if root is None or root is target else _base_of(target, root, reached)
    if base is not None:
        return _through_the_base(target, base, reached, flat, xp)
    followers = [(s, _after_write(s, flat, positions, sources, xp)) for s, positions, sources in reached
                 if positions.size]
    if root is None:  # a view whose base is gone: a history of its own, which its siblings' reads pass by
        every = host_numpy.arange(_part_count(target))
        result = _after_write(target, flat, every, every, xp)
    return followers, result


def _base_of(target: Tensor, root: Tensor, reached: list) -> tuple | None:
    """The entry of ``reached`` (each sharer, with the parts the write reaches) for ``root``, the live
    tensor ``target``'s memory's other holders are views of (:func:`history_root`), where it holds
    every part of ``target``; else None."""
    whole = _part_count(target)
    return next((e for e in reached if e[0] is root and e[1].size == whole), None)


def _through_the_base(target: Tensor, base: tuple, reached: list, flat: Tensor,
                      xp: Any) -> tuple[list[tuple[Tensor, Tensor]], Tensor]:
    """Histories after a write into ``target``, a view of the live ``base``: the base takes
    ``where(reached, written, old)``, and ``target`` and every sharer the base holds whole -- one the
    write did not reach too, as PyTorch regenerates every view of a base whose version moved -- take
    their elements of that (PyTorch's ``CopySlices`` and the views it regenerates); a sharer the base
    does not hold whole (none, where the base is the memory's owner) keeps ``where`` of its own."""
    owner, positions, sources = base
    owner_new = _after_write(owner, flat, positions, sources, xp)
    owner_flat = _shape.reshape(_parts(owner_new), (-1,))
    followers = [(owner, owner_new)]
    for s, positions, sources in reached:
        if s is owner:
            continue
        inside, at = _reach(owner._data, s._data, xp)
        if inside.size == _part_count(s):
            followers.append((s, _after_write(s, owner_flat, inside, at, xp)))
        elif positions.size:
            followers.append((s, _after_write(s, flat, positions, sources, xp)))
    inside, at = _reach(owner._data, target._data, xp)
    return followers, _after_write(target, owner_flat, inside, at, xp)


def _part_count(t: Tensor) -> int:
    return t._data.size * 2 if t.dtype.kind == "c" else t._data.size


def _reach(t: Any, s: Any, xp: Any) -> tuple[Any, Any]:
    """The parts of ``s`` a write into ``t`` reaches, as two host arrays: their positions among
    ``s``'s parts (C order) and the positions among ``t``'s parts they take their values from.
    Where either is one contiguous block, an address is a position -- no search over the other
    (``x[:, 0] *= 2`` of a large ``x`` reads the addresses of the column, not of ``x``); otherwise
    the addresses are matched by sorting."""
    unit = _part_bytes(t)
    if t.flags.c_contiguous:
        offset = _part_addresses(s, xp) - xp.address(t)
        reached = (offset >= 0) & (offset < t.size * t.itemsize) & (offset % unit == 0)
        return host_numpy.nonzero(reached)[0], offset[reached] // unit
    if s.flags.c_contiguous:
        offset = _part_addresses(t, xp) - xp.address(s)
        inside = (offset >= 0) & (offset < s.size * s.itemsize) & (offset % unit == 0)
        return offset[inside] // unit, host_numpy.nonzero(inside)[0]
    written = _part_addresses(t, xp)
    order = host_numpy.argsort(written, kind="stable")
    at = _part_addresses(s, xp)
    pos = host_numpy.minimum(host_numpy.searchsorted(written[order], at), written.size - 1)
    reached = written[order][pos] == at
    return host_numpy.nonzero(reached)[0], order[pos][reached]


def _surely_apart(a: Any) -> bool:
    """Whether no two elements of ``a`` share memory, read from its strides: each dim's stride at
    least spans the dims inside it (a view made by slicing, transposing or reshaping).  False
    means "maybe" (overlapping windows, or an unusual layout): then the addresses decide."""
    dims = sorted((abs(st), n) for st, n in zip(a.strides, a.shape) if n > 1)
    span = a.itemsize
    for stride, n in dims:
        if stride < span:
            return False
        span = stride * n
    return True


def _part_bytes(a: Any) -> int:
    return a.itemsize // 2 if a.dtype.kind == "c" else a.itemsize


def _after_write(s: Tensor, flat: Tensor, positions: Any, sources: Any, xp: Any) -> Tensor:
    """``s``'s value after the write, on the tape: its parts at ``positions`` take the written
    parts ``flat[sources]``, the others keep ``s``'s old history -- scattered into zeros and
    picked by a mask, so the cost beyond one pass over ``s`` is the overlap's."""
    shape = s.shape + (2,) if s.dtype.kind == "c" else s.shape
    n = int(host_numpy.prod(shape))
    if positions.size == n:  # every part of s is written: s is the written values, in its order
        source = host_numpy.empty(n, dtype="int64")
        source[positions] = sources
        new = _indexing.take(flat, Tensor.constant(xp.asarray(source), s._device))
    else:
        values = _indexing.take(flat, Tensor.constant(xp.asarray(sources), s._device))
        written = _indexing.index_add((n,), (Tensor.constant(xp.asarray(positions), s._device),), values)
        hit = host_numpy.zeros(n, dtype=bool)
        hit[positions] = True
        old = Tensor._wrap(s._data, s._node, s._device)
        old._requires_grad, old._tangents = s._requires_grad, s._tangents
        new = _elementwise.where(Tensor.constant(xp.asarray(hit), s._device), written,
                                 _shape.reshape(_parts(old), (n,)))
    new = _shape.reshape(new, shape)
    return _complex_numbers.view_as_complex(new) if s.dtype.kind == "c" else new


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
