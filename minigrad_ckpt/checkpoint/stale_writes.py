"""Writes the version check cannot see, into values a checkpoint replays from.

A segment's replay starts from the values it kept in the forward pass: its
inputs, and the outputs a ``remat`` policy or a chain block keeps.  An in-place
write through the tensor itself (or ``.detach()``, which shares its version
counter) moves the version stamp, and the replay refuses (a kept input) or
recomputes (a kept output).  A write through ``.data`` does not: the alias has a
version counter of its own, as in PyTorch.  Without checkpointing such a write
only changes what an op saved -- the escape hatch's documented risk -- but a
replay would *recompute the forward pass* from the changed values, and every
activation after them would differ from the ones the loss was computed from.

So, from the end of a segment tree's forward pass until it lets its kept values
go, its kept memory is watched: a write guard (called before every in-place
write into any tensor) matches the written memory against it and marks the
kept value as written.  The replay then refuses a written input with a
:class:`~.segment.CheckpointError` and recomputes a written output -- what a
tracked write does.  The guard is installed only while some segment is watched:
in-place writes cost one dictionary look-up more, between a checkpointed
forward pass and its backward.
"""

from __future__ import annotations

import weakref
from typing import Any

from ..tensor import Tensor, add_write_guard, remove_write_guard

__all__ = ["watch", "unwatch"]

# id(memory owner) -> id(segment) -> [(weak owner, weak segment, what to mark: a kept value, or weakly a
# node)]: by segment, so that letting one go does not read the others' entries (a weight that 4,000
# segments read was 4,000 lists of up to 4,000 entries to filter, 1.2 s)
_watched: dict[int, dict[int, list[tuple[Any, Any, Any]]]] = {}
_guard_installed = [False]


def watch(segment: Any, memory: Any, item: Any) -> None:
    """Mark ``item`` (a ``_Kept`` value, or a node whose output ``segment`` keeps) as written
    when ``memory`` (an array's memory owner) is written in place, until :func:`unwatch`."""
    try:
        owner_ref = weakref.ref(memory)
    except TypeError:  # not weakly referenceable: nothing else can share it either
        return
    if not _guard_installed[0]:
        add_write_guard(_mark_written)
        _guard_installed[0] = True
    try:  # a node weakly (it holds its segment: this module must not keep either alive)
        item_ref = weakref.ref(item)
    except TypeError:  # a kept value (no reference to its segment)
        item_ref = lambda: item  # noqa: E731
    _watched.setdefault(id(memory), {}).setdefault(id(segment), []).append((owner_ref, weakref.ref(segment), item_ref))
    segment._watched_memory.add(id(memory))


def unwatch(segment: Any) -> None:
    """Stop watching ``segment``'s kept values (it let them go); the guard goes with the last.

    (Also called from ``Segment.__del__``, which the garbage collector may run while this
    thread holds the guards' lock: the lock is re-entrant for that.)"""
    for key in segment._watched_memory:
        by_segment = _watched.get(key)
        if by_segment is not None:
            by_segment.pop(id(segment), None)
            if not by_segment:
                del _watched[key]
    segment._watched_memory = set()
    if not _watched and _guard_installed[0]:
        _guard_installed[0] = False
        remove_write_guard(_mark_written)


def _mark_written(t: Tensor) -> None:
    """The write guard: ``t`` is about to be written in place."""
    if not _watched:
        return
    memory = t._device.xp.memory_owner(t._data)
    by_segment = _watched.get(id(memory))
    if by_segment is None:
        return
    for entries in list(by_segment.values()):  # (a copy: a segment marked may let its values go)
        for owner_ref, segment_ref, item_ref in entries:
            segment, item = segment_ref(), item_ref()
            if owner_ref() is memory and segment is not None and item is not None:
                segment._written_after_forward(item)
