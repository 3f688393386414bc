"""What a profiler hands back: events, their averages, PyTorch's table and a Chrome trace.

PyTorch's ``torch.autograd.profiler_util`` in this engine's terms.  A :class:`FunctionEvent` is one
timed range -- an op's forward (``aten::mul``), a node's backward (``MulBackward0``, inside
``autograd::engine::evaluate_function: MulBackward0``), an optimizer step, a ``record_function``
block -- with its children, the ranges that ran inside it on the same thread.  Times are
microseconds (floats) from the start of the profile, as PyTorch's; a parent's time includes its
children's, and ``self_cpu_time_total`` is what is left once they are taken out.

:class:`EventList` is a list of events with PyTorch's methods: ``key_averages()`` (one
:class:`FunctionEventAvg` per name, or per name and input shapes), ``table()`` (the text table
of ``prof.key_averages().table(sort_by="self_cpu_time_total")``, column for column) and
``export_chrome_trace(path)`` (a JSON file ``chrome://tracing`` and Perfetto open).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Any

from .table import _format_time, build_table

__all__ = ["Interval", "FunctionEvent", "FunctionEventAvg", "EventList"]

#: ``FunctionEvent.scope``: PyTorch's ``at::RecordScope`` values the engine uses.
FUNCTION, BACKWARD_FUNCTION, USER_SCOPE = 0, 1, 7


class Interval:
    """A time range in microseconds: ``start``, ``end`` and ``elapsed_us()``."""

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        return self.end - self.start


class _Times:
    """The formatted and averaged views PyTorch's events share (``cpu_time``, ``cpu_time_str``...)."""

    count: int
    cpu_time_total: float
    self_cpu_time_total: float
    # This engine measures host time only: device columns are zero, as PyTorch's on a CPU run.
    device_time_total = self_device_time_total = 0.0
    device_memory_usage = self_device_memory_usage = 0

    @property
    def cpu_time(self) -> float:
        """Average CPU time of one call, in microseconds."""
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    @property
    def device_time(self) -> float:
        return 0.0

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)


class FunctionEvent(_Times):
    """One timed range: ``name``, ``thread``, ``time_range`` (an :class:`Interval` in microseconds),
    ``cpu_children`` and ``cpu_parent``, ``input_shapes`` (with ``record_shapes``: a list per
    input, ``[]`` for a number), ``cpu_memory_usage`` (with ``profile_memory``: bytes of the arrays
    the range made, its children's included), ``stack`` (with ``with_stack``), ``count`` (1) and
    ``scope`` (0 a function, 1 a backward function, 7 a ``record_function`` block)."""

    def __init__(self, id: int, name: str, thread: int, start_us: float, end_us: float,
                 input_shapes: list | None = None, stack: list | None = None, scope: int = FUNCTION,
                 cpu_memory_usage: int = 0, trace_name: str | None = None, is_user_annotation: bool = False,
                 sequence_nr: int = -1) -> None:
        self.id = id
        self.node_id = -1
        self.name = name
        self.trace_name = name if trace_name is None else trace_name
        self.overload_name = ""
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = thread
        self.kernels: list = []
        self.count = 1
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.input_shapes = [] if input_shapes is None else input_shapes
        self.stack = [] if stack is None else stack
        self.scope = scope
        self.use_device = None
        self.cpu_memory_usage = cpu_memory_usage
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.sequence_nr = sequence_nr
        self.device_type = "CPU"
        self.flops = 0
        self.is_user_annotation = is_user_annotation

    @property
    def key(self) -> str:
        """What :meth:`EventList.key_averages` groups by: the name."""
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:
        """This range's time less its children's: where the time went, counted once."""
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(child.cpu_memory_usage for child in self.cpu_children)

    def append_cpu_child(self, child: FunctionEvent) -> None:
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent: FunctionEvent) -> None:
        self.cpu_parent = parent

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[child.id for child in self.cpu_children]} thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg(_Times):
    """The events of one key added up: ``count``, ``cpu_time_total``, ``self_cpu_time_total``,
    ``cpu_memory_usage``, ``self_cpu_memory_usage``; ``cpu_time`` is the average per call."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes: Any = None
        self.overload_name = ""
        self.stack: list | None = None
        self.scope: int | None = None
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.cpu_children: list | None = None
        self.cpu_parent: FunctionEvent | None = None
        self.device_type = "CPU"
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops = 0

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        if self.key is None:  # the first event: its descriptive fields
            self.key = other.key
            self.cpu_parent, self.cpu_children = other.cpu_parent, other.cpu_children
            self.input_shapes, self.stack, self.scope = other.input_shapes, other.stack, other.scope
            self.is_user_annotation = other.is_user_annotation
        if other.key != self.key:
            raise ValueError(f"cannot add an event of key {other.key!r} to the average of {self.key!r}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        return self

    def __iadd__(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        return self.add(other)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of :class:`FunctionEvent` (or, from :meth:`key_averages`, of :class:`FunctionEventAvg`)
    with PyTorch's ``table``, ``key_averages``, ``total_average`` and ``export_chrome_trace``."""

    def __init__(self, *args: Any, profile_memory: bool = False, base_time_ns: int = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._profile_memory = profile_memory
        self._base_time_ns = base_time_ns
        #: ``profile.add_metadata``'s keys and values, written at the top of the Chrome trace.
        self.metadata: dict[str, Any] = {}

    def followed_by(self, later: EventList) -> EventList:
        """These events and then ``later``'s (a later recording, ``acc_events``) on one time line: each
        recording's times count from its own start, so ``later``'s are moved by the time between the
        two starts (and its ids follow these) -- put side by side as they were, the cycles overlapped."""
        shift_us = (later._base_time_ns - self._base_time_ns) / 1000
        for e in later:
            e.time_range = Interval(e.time_range.start + shift_us, e.time_range.end + shift_us)
            e.id += len(self)
        joined = EventList([*self, *later], profile_memory=self._profile_memory, base_time_ns=self._base_time_ns)
        joined.metadata = {**self.metadata, **later.metadata}
        return joined

    def __str__(self) -> str:
        return self.table()

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0) -> EventList:
        """One :class:`FunctionEventAvg` per name, in order of first appearance -- per name and input
        shapes with ``group_by_input_shapes`` (then each average keeps its shapes), per name and top
        ``group_by_stack_n`` stack entries with that."""
        stats: dict[tuple, FunctionEventAvg] = defaultdict(FunctionEventAvg)
        for event in self:
            key: tuple = (event.key,)
            if group_by_input_shapes:
                key += (str(event.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(event.stack[:group_by_stack_n])
            stats[key].add(event)
        averages = EventList(stats.values(), profile_memory=self._profile_memory, base_time_ns=self._base_time_ns)
        for avg in averages:
            avg.stack = (avg.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                avg.input_shapes = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        """Every event added into one average, keyed ``"Total"``."""
        total = FunctionEventAvg()
        for event in self:
            total.key = event.key  # (add checks keys; the total mixes them)
            total.add(event)
        total.key = "Total"
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int | None = 75,
              max_name_column_width: int | None = 55, max_shapes_column_width: int | None = 80,
              header: str | None = None, top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """PyTorch's table of these events, a row each: name, self CPU time (and its share of the
        total), CPU time with children, average, memory (with ``profile_memory``), number of calls,
        input shapes (where recorded) and source lines (with ``with_stack``).  ``sort_by`` names an
        attribute, largest first: ``"self_cpu_time_total"``, ``"cpu_time_total"``, ``"cpu_time"``,
        ``"count"``, ``"cpu_memory_usage"``, ``"self_cpu_memory_usage"`` (``cuda`` spellings read the
        device columns, zero here)."""
        return build_table(self, sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width, header=header,
                           profile_memory=self._profile_memory, top_level_events_only=top_level_events_only,
                           time_unit=time_unit)

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """Write the events as a Chrome trace (JSON with ``traceEvents``: one complete event, ``"ph":
        "X"``, per range, times in microseconds), for ``chrome://tracing`` or https://ui.perfetto.dev."""
        pid = os.getpid()
        base_us = self._base_time_ns / 1000
        trace: list[dict[str, Any]] = [
            {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}},
            {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "args": {"labels": "CPU"}}]
        for tid in dict.fromkeys(e.thread for e in self):
            trace.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                          "args": {"name": f"thread {tid} (python)"}})
        for e in self:
            args: dict[str, Any] = {"External id": e.id}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            if e.sequence_nr >= 0:
                args["Sequence number"] = e.sequence_nr
            trace.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                          "name": e.trace_name, "pid": pid, "tid": e.thread,
                          "ts": base_us + e.time_range.start, "dur": e.time_range.elapsed_us(), "args": args})
        document = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
                    "baseTimeNanoseconds": self._base_time_ns, "traceEvents": trace, "traceName": str(path)}
        document.update(self.metadata)
        document.update(_distributed_info())
        with open(path, "w", encoding="utf-8") as f:
            json.dump(document, f)


def _distributed_info() -> dict[str, Any]:
    """PyTorch's ``distributedInfo`` of a trace (which rank's it is) in a job of several processes."""
    from .. import distributed
    if not distributed.is_initialized():
        return {}
    return {"distributedInfo": {"backend": distributed.get_backend(), "rank": distributed.get_rank(),
                                "world_size": distributed.get_world_size()}}
