"""Saving without stopping: the background writer of ``save_snapshot(..., blocking=False)``.

The training loop pays only for the *capture*: references to every array, and
the plain data beside them (RNG, optimizer scalars, registered objects).  The
arrays are copied by copy-on-write (:mod:`.copy_on_write`): the writer thread
copies them first, beside the loop, and a write the loop makes into an array
not copied yet copies it just before -- so the snapshot is the state of the
call whatever the next steps change.  Then one background thread per manager
writes, checksums and commits the snapshots in the order they were asked for,
exactly as a blocking save does (atomic file, then the manifest).  The copies
go into *staging* buffers that are reused from one save to the next (once a
save is written its buffers are free again): a copy into memory already mapped
is a memcpy, while fresh memory pays a page fault per 4 KiB -- several times
the copy itself.

:class:`SaveHandle` is what the call returns: ``wait()``, ``done()``,
``result()`` (the snapshot's path).  A save that failed is raised by its
handle, and -- once -- by the manager's next ``save_snapshot`` or ``wait()``,
so a failure is never silent.  The writer thread is not a daemon: the
interpreter finishes the saves in flight before it exits.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .copy_on_write import PendingArrays
from .layout import copy_keeping_layout, memory_order

__all__ = ["SaveHandle", "BackgroundWriter"]


class SaveHandle:
    """An asynchronous save: ``done()`` polls, ``wait()`` blocks until it is written (raising
    its error, if any), ``result()`` is ``wait()`` returning the snapshot's path."""

    def __init__(self, future: concurrent.futures.Future, iteration: int) -> None:
        self._future = future
        self.iteration = iteration
        self.reported = False  # its failure was raised to the caller already

    def done(self) -> bool:
        return self._future.done()

    def wait(self, timeout: float | None = None) -> Path:
        try:
            return self._future.result(timeout)
        except concurrent.futures.TimeoutError:
            raise TimeoutError(f"the snapshot of iteration {self.iteration} is still being written") from None
        except BaseException:
            self.reported = True
            raise

    def result(self, timeout: float | None = None) -> Path:
        return self.wait(timeout)

    def __repr__(self) -> str:
        state = "written" if self.done() and self._future.exception() is None else (
            "failed" if self.done() else "in flight")
        return f"SaveHandle(iteration={self.iteration}, {state})"


class _Done(concurrent.futures.Future):
    """A future that is already resolved (a rank whose part of a collective save is written)."""

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.set_result(value)


def completed(value: Any, iteration: int) -> SaveHandle:
    return SaveHandle(_Done(value), iteration)


class BackgroundWriter:
    """One writer thread (made on first use), the handles it has not reported, and the staging
    buffers of the last save that finished."""

    def __init__(self) -> None:
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._handles: list[SaveHandle] = []
        self._lock = threading.Lock()
        self._free: dict[str, Any] = {}   # name -> a staging buffer no save is using

    def pending(self, arrays: dict[str, Any]) -> PendingArrays:
        """``arrays`` held by reference until copied (:mod:`.copy_on_write`), each copy going
        into a free staging buffer of the same shape, dtype, kind and memory layout where there
        is one (the copy keeps the array's layout, which the snapshot stores: :mod:`.layout`)."""
        with self._lock:
            free, self._free = self._free, {}

        def stage(name: str, arr: Any) -> Any:
            buf = free.pop(name, None)
            if (buf is not None and type(buf) is type(arr) and buf.shape == arr.shape and buf.dtype == arr.dtype
                    and memory_order(buf) == memory_order(arr)):
                buf[...] = arr
                return buf
            return copy_keeping_layout(arr)

        return PendingArrays(arrays, stage)

    def submit(self, write: Callable[[], Path], iteration: int, pending: PendingArrays | None = None) -> SaveHandle:
        """Run ``write`` on the writer thread, after copying ``pending``'s arrays (if given)."""
        def run() -> Path:
            try:
                return write()
            finally:
                if pending is not None:
                    pending.release()  # a save that failed before copying: stop waiting
                    with self._lock:
                        self._free = dict(pending.copies)  # written: the next capture may reuse them

        with self._lock:
            if self._pool is None:
                # Its thread is joined at interpreter exit: outstanding saves are finished.
                self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="snapshot-writer")
            handle = SaveHandle(self._pool.submit(run), iteration)
            self._handles.append(handle)
        return handle

    def raise_failure(self) -> None:
        """Raise the first failure no caller has seen yet (once); forget finished handles."""
        with self._lock:
            finished = [h for h in self._handles if h.done()]
            self._handles = [h for h in self._handles if not h.done()]
        for h in finished:
            exc = h._future.exception()
            if exc is not None and not h.reported:
                h.reported = True
                raise exc

    def wait(self) -> None:
        """Finish every save in flight, then raise the first unreported failure."""
        with self._lock:
            pending = list(self._handles)
        concurrent.futures.wait([h._future for h in pending])
        self.raise_failure()
