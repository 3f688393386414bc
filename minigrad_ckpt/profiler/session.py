"""One recording, start to stop, turned into PyTorch's events: what both profilers share.

``torch.autograd.profiler.profile`` (the legacy one) is one session; ``torch.profiler.profile``
is a session per active cycle of its schedule.  A session records the ranges of the thread that
started it (:mod:`.recording`) and, when it stops, builds one :class:`~.events.FunctionEvent`
per range with its parent and children as they nested.
"""

from __future__ import annotations

import time
from typing import Any

from . import recording
from .events import EventList, FunctionEvent

__all__ = ["Session", "events_of"]


class Session:
    """Record from :meth:`start` to :meth:`stop`; :attr:`events` is then the :class:`EventList`."""

    def __init__(self, record_shapes: bool = False, profile_memory: bool = False, with_stack: bool = False) -> None:
        self.collector = recording.Collector(record_shapes, profile_memory, with_stack)
        self.profile_memory = profile_memory
        self.events: EventList | None = None
        self.start_ns = 0
        self.wall_ns = 0

    def start(self) -> None:
        self.start_ns, self.wall_ns = recording.clock(), time.time_ns()
        self.collector.start()

    def stop(self) -> EventList:
        self.collector.stop()
        self.events = events_of(self.collector.ranges, self.start_ns, self.profile_memory, self.wall_ns)
        self.collector.ranges = []
        return self.events


def events_of(ranges: list[recording.Range], start_ns: int, profile_memory: bool = False,
              wall_ns: int = 0) -> EventList:
    """The events of ``ranges`` in order of their start, each with its nearest recorded
    ancestor as ``cpu_parent`` (a range opened before recording began is not one)."""
    ranges = sorted(ranges, key=lambda r: (r.start, -r.end))
    built: dict[int, FunctionEvent] = {}
    events = EventList(profile_memory=profile_memory, base_time_ns=wall_ns)
    for i, r in enumerate(ranges):
        name, trace_name = r.name, r.trace_name
        if name.startswith("ProfilerStep#"):  # PyTorch's: grouped as one key, each step its own trace name
            name, trace_name = "ProfilerStep*", r.name
        e = FunctionEvent(id=i, name=name, thread=r.thread, start_us=(r.start - start_ns) / 1000,
                          end_us=(r.end - start_ns) / 1000, input_shapes=r.shapes, stack=r.stack, scope=r.scope,
                          cpu_memory_usage=r.own_bytes if profile_memory else 0, trace_name=trace_name,
                          is_user_annotation=r.user)
        built[id(r)] = e
        events.append(e)
    for r in ranges:
        parent = _recorded_parent(r, built)
        if parent is not None:
            child = built[id(r)]
            child.set_cpu_parent(parent)
            parent.append_cpu_child(child)
    if profile_memory:
        for e in sorted(events, key=_depth, reverse=True):  # a parent's bytes include its children's
            if e.cpu_parent is not None:
                e.cpu_parent.cpu_memory_usage += e.cpu_memory_usage
    return events


def _recorded_parent(r: recording.Range, built: dict[int, FunctionEvent]) -> FunctionEvent | None:
    p = r.parent
    while p is not None and id(p) not in built:
        p = p.parent
    return None if p is None else built[id(p)]


def _depth(e: Any) -> int:
    d = 0
    while e.cpu_parent is not None:
        e, d = e.cpu_parent, d + 1
    return d
