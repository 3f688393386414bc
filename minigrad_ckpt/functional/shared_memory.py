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
from ..grad_mode import state as _grad_state
from ..ops.base import Op
from ..tape import apply
from ..tensor import Tensor, history_sharers, set_shared_memory_writer
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


def _followers(target: Tensor, sharers: list[Tensor], result: Tensor, what: str) -> list[tuple[Tensor, Tensor]]:
    """Each sharer the write reaches, with its history after the write, recorded before it (the
    old values are still in the memory): ``where(reached, result's element, old value)``.  A
    complex tensor and a float view of its parts (``.real``, ``view_as_real``) are matched part
    by part: real and imaginary parts are elements of the floats' dtype."""
    xp = target._device.xp
    if not _surely_apart(target._data):
        written = host_numpy.sort(_part_addresses(target._data, xp))
        if (written[1:] == written[:-1]).any():  # (as_strided, unfold; expand is refused before)
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
        positions, sources = _reach(target._data, s._data, xp)
        if positions.size:
            followers.append((s, _after_write(s, flat, positions, sources, xp)))
    return followers


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
