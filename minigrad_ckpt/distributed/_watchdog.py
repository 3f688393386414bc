"""Deadlines for NCCL collectives: they run on the GPU, where the host never waits for them.

An NCCL collective is queued on the current CUDA stream and the call returns
at once; later work on the stream is ordered after it, so nothing on the host
waits -- and MPI's way of timing out (polling the request until a deadline,
``ProcessGroup.wait_for``) has nothing to poll.  So the group records a CUDA
event on the stream after each NCCL collective and hands it to the
:class:`Watchdog`, with the group's ``timeout`` as its deadline.  A thread
polls the events; one the stream has not reached by its deadline -- a rank
died, diverged into other collectives, or stopped calling them -- makes the
group *fail* (``ProcessGroup._fail``):

* the communicator is aborted (``ncclCommAbort``): the collective's kernels
  return, so a host blocked in a synchronize (``.numpy()``, ``.item()``) is
  released;
* every later collective of the group raises :class:`DistributedError`;
* ``DistributedError`` is raised on the watchdog thread: an unhandled
  exception, which in a multi-rank job ends the whole job (``MPI_Abort``,
  through the ``threading.excepthook`` that ``init_process_group`` installs),
  as a timed-out MPI collective does.

The host waits the group makes itself (``barrier``) poll an event the same way
(:class:`EventRequest` with ``wait_for``) and raise on the waiting thread.
"""

from __future__ import annotations

import threading
import time
from typing import Any

__all__ = ["Watchdog", "EventRequest"]


class EventRequest:
    """A CUDA event seen as an MPI request: ``Test()`` is whether the stream has reached it."""

    __slots__ = ("event",)

    def __init__(self, event: Any) -> None:
        self.event = event

    def Test(self) -> bool:  # noqa: N802  (mpi4py's name: ProcessGroup.wait_for polls either)
        return bool(self.event.done)


class Watchdog:
    """Watches the NCCL collectives queued on the GPU (see the module docstring).

    ``group`` is the :class:`~minigrad_ckpt.distributed.ProcessGroup`: its
    ``timeout`` sets each deadline, its ``_fail`` is called (on the watchdog's
    thread) with what did not complete.  The thread starts with the first
    collective and polls ``timeout / 20`` apart (between 10 ms and 1 s).
    """

    def __init__(self, group: Any) -> None:
        self._group = group
        self._watched: list[tuple[Any, float, str]] = []  # (event, deadline, what)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, event: Any, what: str) -> None:
        """Fail the group unless the stream reaches ``event`` within the timeout."""
        with self._lock:
            self._watched.append((event, time.monotonic() + self._group.timeout, what))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="nccl-watchdog", daemon=True)
                self._thread.start()

    @property
    def pending(self) -> int:
        """How many watched collectives the stream has not been seen to complete yet."""
        with self._lock:
            return len(self._watched)

    def _run(self) -> None:
        while not self._stop.wait(min(1.0, max(0.01, self._group.timeout / 20))):
            expired = self._expired()
            if expired is not None:
                self._group._fail(expired)  # raises DistributedError here: see the module docstring

    def _expired(self) -> str | None:
        """Forget the completed collectives; what the first one past its deadline was, if any."""
        with self._lock:
            watched = list(self._watched)
        now = time.monotonic()
        done = set()
        for item in watched:
            event, deadline, what = item
            if event.done:
                done.add(id(item))
            elif now > deadline:
                return what
        with self._lock:
            self._watched = [w for w in self._watched if id(w) not in done]
        return None

    def stop(self) -> None:
        self._stop.set()
