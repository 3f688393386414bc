"""``mg.autograd.profiler``: PyTorch's legacy profiler API (``torch.autograd.profiler``).

::

    with mg.autograd.profiler.profile() as prof:
        y = x * 2
        with mg.autograd.profiler.record_function("label-z"):
            z = y ** 3
        z.sum().backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))

The same recording as :mod:`minigrad_ckpt.profiler` (its docstring says what is recorded and how
it differs from PyTorch's), without a schedule: everything between enter and exit, in the thread
that entered.  ``profile(enabled=False)`` records nothing, and its ``with ... as prof`` binds None,
as PyTorch's.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from ..profiler import _export_stacks, _warn_unmeasured
from ..profiler.events import EventList, FunctionEvent, FunctionEventAvg, Interval
from ..profiler.recording import record_function
from ..profiler.session import Session
from ..user_frame import stacklevel_outside_the_engine

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg", "Interval"]


class profile:
    """PyTorch's ``torch.autograd.profiler.profile``: a context manager that records the ops
    (forward and backward), optimizer steps and ``record_function`` blocks run in its thread;
    afterwards ``function_events`` holds them, ``key_averages()`` averages them by name,
    ``table()`` prints them and ``export_chrome_trace(path)`` writes them for a trace viewer.
    ``record_shapes`` notes each op's input shapes, ``profile_memory`` the bytes of the arrays it
    made, ``with_stack`` the user's source lines.  Not reentrant: one ``with`` per object."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: str | None = None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config: Any = None, acc_events: bool = False) -> None:
        self.enabled = enabled
        if not enabled:
            return
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use ``use_device = 'cuda'`` "
                          "instead.", FutureWarning, stacklevel=stacklevel_outside_the_engine())
        if not use_cpu:
            raise ValueError("profile(use_cpu=False) would record nothing: this engine's events are host (CPU) "
                             "events")
        _warn_unmeasured(with_flops, with_modules, None)
        self.use_device = "cuda" if use_cuda else use_device
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.acc_events = acc_events
        self.entered = False
        self._session: Session | None = None
        self._function_events: EventList | None = None

    def __enter__(self) -> profile | None:
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._session = Session(self.record_shapes, self.profile_memory, self.with_stack)
        self._session.start()
        return self

    def __exit__(self, *exc: object) -> bool:
        if not self.enabled or self._session is None:
            return False
        events = self._session.stop()
        self._session = None
        if self.acc_events and self._function_events is not None:
            events = self._function_events.followed_by(events)
        self._function_events = events
        self.entered = not self.acc_events and self.entered  # (acc_events: may be entered again)
        return False

    def __repr__(self) -> str:
        return "<unfinished mg.autograd.profile>" if self._events_or_none() is None else repr(self._function_events)

    def __str__(self) -> str:
        return "<unfinished mg.autograd.profile>" if self._events_or_none() is None else str(self._function_events)

    def _events_or_none(self) -> EventList | None:
        return getattr(self, "_function_events", None)

    def _events(self) -> EventList:
        events = self._events_or_none()
        if events is None:
            raise RuntimeError("the profiler has no results yet: profile(...) must be entered and exited "
                               "(a with block) before its events are read")
        return events

    @property
    def function_events(self) -> EventList:
        """Every event recorded, in order of start."""
        return self._events()

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of the events' self times: the time recorded, counted once (microseconds)."""
        return self._events().self_cpu_time_total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int | None = 75,
              max_name_column_width: int | None = 55, max_shapes_column_width: int | None = 80,
              header: str | None = None, top_level_events_only: bool = False) -> str:
        """The table of every event (see :meth:`EventList.table`); usually wanted of ``key_averages()``."""
        return self._events().table(sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
                                    max_name_column_width=max_name_column_width,
                                    max_shapes_column_width=max_shapes_column_width, header=header,
                                    top_level_events_only=top_level_events_only)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        """The events averaged by name (by name and input shapes with ``group_by_input_shape``)."""
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self) -> FunctionEventAvg:
        """Every event added into one average."""
        return self._events().total_average()

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """Write the events as a Chrome trace (JSON) file."""
        self._events().export_chrome_trace(path)

    def export_stacks(self, path: str | os.PathLike, metric: str = "self_cpu_time_total") -> None:
        """Write PyTorch's flame-graph input (needs ``with_stack=True``)."""
        _export_stacks(self._events(), path, metric, self.with_stack)
