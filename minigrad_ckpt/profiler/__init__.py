"""``mg.profiler``: PyTorch's ``torch.profiler`` -- where the time of a training step goes.

::

    from minigrad_ckpt.profiler import profile, record_function, ProfilerActivity

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

Each op's forward is an event named as PyTorch names its operator (``aten::mul``,
``aten::matmul``), each node's backward ``MulBackward0`` inside ``autograd::engine::evaluate_function:
MulBackward0``, each optimizer step ``Optimizer.step#SGD.step``, each ``record_function`` block its
name; they nest as they ran, and an event's self time is its time less its children's.  Times are
host (CPU) times from ``time.perf_counter_ns``: on a GPU device an op's time is the time to launch
it, as PyTorch's CPU column.  ``schedule(wait=, warmup=, active=, repeat=)`` with ``prof.step()``
records chosen steps and hands each finished cycle to ``on_trace_ready``.

What differs from PyTorch: the engine's ops are coarser than ATen's (one ``aten::linear``, not
``aten::t`` and ``aten::addmm`` inside it); ``profile_memory`` counts the bytes of the arrays each
event made, never a free; there are no device kernels, FLOPs or module hierarchy.  Profiling costs
nothing while no profiler runs: the timing wrappers are put on the op classes when one starts and
taken off when the last one stops (``minigrad_ckpt/profiler/recording.py``).
"""

from __future__ import annotations

import enum
import gzip
import json
import os
import shutil
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ..user_frame import stacklevel_outside_the_engine
from .events import EventList
from .recording import record_function
from .session import Session

__all__ = ["profile", "record_function", "schedule", "ProfilerAction", "ProfilerActivity",
           "tensorboard_trace_handler", "supported_activities"]


class ProfilerActivity(enum.Enum):
    """What to profile: ``CPU`` (the host, which is all this engine times); ``CUDA`` is accepted
    and records the host side of GPU work (the time to launch it)."""

    CPU = 0
    CUDA = 2
    XPU = 3
    MTIA = 4
    HPU = 5
    PrivateUse1 = 6


def supported_activities() -> set[ProfilerActivity]:
    """The activities a profile records: ``{ProfilerActivity.CPU}``."""
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    """What a schedule says of a step: not profiled, warming up, recorded, or recorded and then
    handed to ``on_trace_ready``."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """PyTorch's schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle steps, ``warmup``
    steps and ``active`` recorded steps (the last of them ``RECORD_AND_SAVE``: the cycle's trace is
    handed to ``on_trace_ready`` when the next step begins), ``repeat`` times (0: without end).
    ``skip_first_wait`` skips the first cycle's wait."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError(f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
                         f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
                         f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=stacklevel_outside_the_engine())

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise ValueError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE
    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False) -> Callable[[profile], None]:
    """An ``on_trace_ready`` that writes each cycle's Chrome trace into ``dir_name`` as
    ``{worker_name}.{time_ns}.pt.trace.json`` (``.gz`` with ``use_gzip``), where TensorBoard's
    profiler plugin finds it (``worker_name``: ``{hostname}_{pid}`` by default)."""
    def handler_fn(prof: profile) -> None:
        nonlocal worker_name
        try:
            os.makedirs(dir_name, exist_ok=True)
        except OSError as e:
            raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{worker_name}.{time.time_ns()}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)
    return handler_fn


class profile:
    """PyTorch's ``torch.profiler.profile``: a context manager (or ``start()``/``stop()``) that
    records the thread that enters it.  ``schedule`` and ``step()`` choose which steps are
    recorded; ``on_trace_ready(prof)`` runs at the end of each active cycle, when
    ``key_averages()``, ``events()`` and ``export_chrome_trace(path)`` read that cycle (all of
    the cycles with ``acc_events=True``).  Without a schedule everything from enter to exit is one
    cycle.  ``record_shapes`` notes each op's input shapes, ``profile_memory`` the bytes of the
    arrays it made, ``with_stack`` the user's source line that ran it."""

    def __init__(self, *, activities: Iterable[ProfilerActivity] | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[[profile], Any] | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config: Any = None, execution_trace_observer: Any = None,
                 acc_events: bool = False, use_cuda: bool | None = None) -> None:
        activities = set(supported_activities() if activities is None else activities)
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead", FutureWarning,
                          stacklevel=stacklevel_outside_the_engine())
        for a in activities:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"Expected ProfilerActivity, got {type(a).__name__}")
        if not activities:
            raise ValueError("No valid profiler activities found")
        _warn_unmeasured(with_flops, with_modules, execution_trace_observer)
        self.activities = activities
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.acc_events = acc_events
        self.schedule = schedule or _default_schedule_fn
        self.record_steps = schedule is not None  # step markers ("ProfilerStep#3") only with a schedule
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._session: Session | None = None
        self._events: EventList | None = None
        self._step_range: record_function | None = None
        self._metadata: dict[str, Any] = {}  # what add_metadata gave the cycle now running
        self._running = False

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._running = True
        self._transit(ProfilerAction.NONE, self.current_action)
        self._enter_step()

    def stop(self) -> None:
        self._exit_step()
        self._transit(self.current_action, None)
        self._running = False

    def add_metadata(self, key: str, value: str) -> None:
        """Write ``"key": "value"`` at the top of this cycle's Chrome trace (PyTorch's; ignored
        while the profiler is not started, as PyTorch's)."""
        if self._running:
            self._metadata[key] = str(value)

    def add_metadata_json(self, key: str, value: str) -> None:
        """Write ``"key": <value>`` at the top of this cycle's Chrome trace, ``value`` a JSON text
        (``"[1,2,3]"``).  Text that is not JSON is refused here, where PyTorch writes it into the
        trace as it is and the trace no longer loads."""
        parsed = json.loads(value)
        if self._running:
            self._metadata[key] = parsed

    def step(self) -> None:
        """The next step begins: act on what the schedule says of it."""
        self._exit_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._enter_step()

    def _enter_step(self) -> None:
        if self.record_steps:
            self._step_range = record_function("ProfilerStep#" + str(self.step_num))
            self._step_range.__enter__()

    def _exit_step(self) -> None:
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None

    # ------------------------------------------------------------- the schedule's transitions
    def _transit(self, prev: ProfilerAction, now: ProfilerAction | None) -> None:
        """PyTorch's action map (``now`` None: the profiler stops)."""
        for action in _ACTIONS.get((prev, now), ()):
            if isinstance(action, str):
                warnings.warn(action, stacklevel=stacklevel_outside_the_engine())
            else:
                action(self)

    def _start_trace(self) -> None:
        self._session = Session(self.record_shapes, self.profile_memory, self.with_stack)
        self._session.start()

    def _stop_trace(self) -> None:
        if self._session is None:
            return
        events = self._session.stop()
        self._session = None
        events.metadata, self._metadata = self._metadata, {}
        if self.acc_events and self._events is not None:
            events = self._events.followed_by(events)
        self._events = events

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # ------------------------------------------------------------- results
    def events(self) -> EventList:
        """The events of the last finished cycle (every cycle with ``acc_events``)."""
        if self._events is None:
            raise RuntimeError("the profiler has no results yet: they are ready when it stops (or at the end "
                               "of an active cycle of its schedule)")
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        """The events averaged by name (by name and input shapes with ``group_by_input_shape``)."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """Write the events as a Chrome trace (JSON) file."""
        self.events().export_chrome_trace(path)

    def export_stacks(self, path: str | os.PathLike, metric: str = "self_cpu_time_total") -> None:
        """Write PyTorch's flame-graph input: a line per event with a stack, ``frame;frame;... value``."""
        _export_stacks(self.events(), path, metric, self.with_stack)


_N, _W, _R, _S = ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE
_start, _stop, _ready = profile._start_trace, profile._stop_trace, profile._trace_ready
#: PyTorch's ``profile.action_map``: (previous action, this step's action) -> what to do; WARMUP
#: prepares nothing here (there is no tracer to warm up), so PyTorch's ``prepare_trace`` is left out.
_ACTIONS: dict[tuple[ProfilerAction, ProfilerAction | None], tuple] = {
    (_N, _R): (_start,), (_N, _S): (_start,),
    (_W, _N): ("Incorrect schedule: WARMUP followed by NONE", _start, _stop),
    (_W, _R): (_start,), (_W, _S): (_start,),
    (_R, _N): ("Incorrect schedule: RECORD followed by NONE", _stop),
    (_R, _W): ("Incorrect schedule: RECORD followed by WARMUP", _stop),
    (_S, _N): (_stop, _ready), (_S, _W): (_stop, _ready),
    (_S, _R): (_stop, _ready, _start), (_S, _S): (_stop, _ready, _start),
    (_W, None): (_start, _stop), (_R, None): (_stop, _ready), (_S, None): (_stop, _ready),
}


def _warn_unmeasured(with_flops: bool, with_modules: bool, observer: Any) -> None:
    for flag, what in ((with_flops, "with_flops (FLOPs are not counted)"),
                       (with_modules, "with_modules (module hierarchy is not recorded)"),
                       (observer is not None, "execution_trace_observer (no execution trace is written)")):
        if flag:
            warnings.warn(f"this engine's profiler ignores {what}", stacklevel=stacklevel_outside_the_engine())


def _export_stacks(events: EventList, path: str | os.PathLike, metric: str, with_stack: bool) -> None:
    if not with_stack:
        raise RuntimeError("export_stacks() requires with_stack=True")
    if metric not in ("self_cpu_time_total", "self_cuda_time_total"):
        raise ValueError("metric should be one of: ['self_cpu_time_total', 'self_cuda_time_total']")
    table = str.maketrans(" ;\t\n", "____")
    with open(path, "w", encoding="utf-8") as f:
        for e in events:
            value = int(getattr(e, metric.replace("cuda", "device")))
            if e.stack and value > 0:
                f.write(";".join(entry.translate(table) for entry in reversed(e.stack)) + f" {value}\n")
