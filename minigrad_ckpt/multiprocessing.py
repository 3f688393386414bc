"""PyTorch's ``torch.multiprocessing``: Python's :mod:`multiprocessing`, and ``spawn``.

PyTorch's module is the standard library's, plus ``spawn``/``start_processes``
(run ``fn(i, *args)`` in ``nprocs`` new processes and report a child's failure in
the parent) and tensors that cross process boundaries through shared memory.
Here the first two are the same:

    import minigrad_ckpt.multiprocessing as mp

    def work(i, scale):
        print(i, scale)

    if __name__ == "__main__":
        mp.spawn(work, args=(2.0,), nprocs=2)   # work(0, 2.0) and work(1, 2.0), then join

A child that raises makes ``spawn`` terminate the others and raise
:class:`ProcessRaisedException` with the child's traceback; one that exits
another way raises :class:`ProcessExitedException` (its exit code or signal).
On Linux a child gets SIGINT when the parent dies, as PyTorch's, so a killed
parent leaves no children running.

**What is different.** A tensor passed to another process is pickled: the child
gets a copy, never the parent's memory (``Tensor.share_memory_`` and
``Module.share_memory`` are not offered; the latter says so when called), so Hogwild-style training, where
processes update one shared model, does not carry over.  The sharing strategies
exist so that scripts setting them run, and change nothing.  Distributed
training does not start here either: the world of ``mg.distributed`` comes from
MPI, so start a ``torchrun`` script with ``python -m minigrad_ckpt.distributed.run``
and an ``mp.spawn(main, nprocs=N)`` script with ``mpiexec -n N`` (see
``docs/distributed.md``); ``init_process_group(rank=..., world_size=...)`` in a
spawned child says so.

As PyTorch's, a tensor with a history (a non-leaf that requires grad) is refused
at the process boundary -- a queue's ``put``, a pipe's ``send``, a pool's or a
spawned process's arguments, a DataLoader worker's batch: its copy would arrive
as a fresh leaf whose gradients reach nothing here.  Send ``t.detach()``.
"""

from __future__ import annotations

import ctypes as _ctypes
import multiprocessing as _mp
import os as _os
import pickle as _pickle
import signal as _signal
import sys as _sys
import time as _time
import traceback as _traceback
import warnings as _warnings
from collections.abc import Callable
from multiprocessing import *  # noqa: F403  (PyTorch's module is the standard library's, re-exported)
from multiprocessing import connection as _connection
from multiprocessing.reduction import ForkingPickler as _ForkingPickler
from typing import Any

from .nn import Parameter as _Parameter
from .tensor import Tensor as _Tensor
from .user_frame import stacklevel_outside_the_engine

_PR_SET_PDEATHSIG = 1  # prctl(2)
_SHARING_STRATEGIES = frozenset({"file_descriptor", "file_system"})
_sharing_strategy = "file_descriptor"



def _reduce_tensor(t: _Tensor) -> Any:
    """How a tensor crosses a process boundary: pickled as its values (``Tensor.__reduce_ex__``),
    unless it has a history.  Without this check a non-leaf went through and arrived as a leaf
    that requires grad: a child's backward through it silently never reached the parent's graph."""
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
                           "does not support crossing process boundaries.  If you just want to transfer the "
                           "data, call detach() on the tensor before serializing (e.g., putting it on the queue).")
    return t.__reduce_ex__(_pickle.HIGHEST_PROTOCOL)


# every multiprocessing channel pickles with ForkingPickler, whose table is looked up by exact type
for _cls in (_Tensor, _Parameter):
    _ForkingPickler.register(_cls, _reduce_tensor)


class ProcessException(Exception):
    """A process started by :func:`spawn` failed; ``error_index`` is its index, ``error_pid`` its
    process id (PyTorch's names)."""

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """The function a process ran raised; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process ended without an exception from its function: an exit code or a signal."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: str | None = None) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _end_with_the_parent() -> None:
    """On Linux, ask for SIGINT when the parent dies, as PyTorch's children do: without it a child
    outlived a parent that was killed (SIGKILL, the OOM killer), running on with nobody to join it."""
    if not _sys.platform.startswith("linux"):
        return
    try:
        _ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, _signal.SIGINT)
    except (OSError, AttributeError):  # no C library to ask: the child lives as before
        return
    parent = _mp.parent_process()
    if parent is not None and _os.getppid() != parent.pid:  # it died before the request
        raise KeyboardInterrupt


# What an MPI launcher tells the processes it starts (MPICH's Hydra, Open MPI, PMIx).
_MPI_LAUNCHER_PREFIXES = ("PMI_", "PMIX_", "HYDRA_", "MPIR_", "OMPI_", "MPI_LOCALRANKID", "MPI_LOCALNRANKS")


def _forget_the_mpi_launcher() -> None:
    """A spawned child is no rank of the parent's ``mpiexec``: with the launcher's variables it
    inherited, its MPI start-up talked to the parent's launcher connection and the job aborted with
    ``PMI_Init failed`` (an ``mp.spawn`` script started with ``mpiexec``).  Without them it is a
    one-process world, whose ``init_process_group(rank=i, world_size=n)`` says how to start the job."""
    for name in [n for n in _os.environ if n.startswith(_MPI_LAUNCHER_PREFIXES)]:
        del _os.environ[name]


def _run(fn: Callable[..., Any], i: int, args: tuple, error_pipe: Any) -> None:
    """A child's body: ``fn(i, *args)``; an exception's traceback goes to the parent."""
    try:
        _end_with_the_parent()
        _forget_the_mpi_launcher()
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is stopping every child
    except Exception:
        error_pipe.send(_traceback.format_exc())
        _sys.exit(1)


class ProcessContext:
    """The processes :func:`start_processes` started; :meth:`join` waits for them."""

    def __init__(self, processes: list, error_pipes: list) -> None:
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}
        # a traceback is read as soon as it comes: one longer than a pipe holds blocks its child
        # until read, and a parent waiting for that child to end first waited forever
        self._error_pipes = {pipe: i for i, pipe in enumerate(error_pipes)}
        self._tracebacks: dict[int, str] = {}

    def pids(self) -> list[int]:
        return [p.pid for p in self.processes]

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds (``None``: until one ends); ``True`` once every process
        has ended well.  The first that failed ends the others and raises its exception: they get
        ``grace_period`` seconds to end by themselves, then SIGTERM, then as long again (30 s
        without a grace period) before SIGKILL, as PyTorch's."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in self._wait_for_an_end(timeout):
            i = self.sentinels.pop(sentinel)
            self.processes[i].join()
            if self.processes[i].exitcode != 0:
                failed = i
                break
        if failed is None:
            return not self.sentinels
        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():  # SIGTERM is handled by Python's main thread only: one stuck elsewhere ignores it
                p.kill()
            p.join()
        raise self._failure(failed)

    def _wait_for_an_end(self, timeout: float | None) -> list:
        """The sentinels of processes that ended within ``timeout``, reading tracebacks as they come."""
        end = None if timeout is None else _time.monotonic() + timeout
        while True:
            left = None if end is None else max(0.0, end - _time.monotonic())
            ready = _connection.wait([*self.sentinels, *self._error_pipes], timeout=left)
            for pipe in [r for r in ready if r in self._error_pipes]:
                self._read_traceback(pipe)
            ended = [r for r in ready if r in self.sentinels]
            if ended or not ready or (end is not None and _time.monotonic() >= end):
                return ended

    def _read_traceback(self, pipe: Any) -> None:
        i = self._error_pipes.pop(pipe)
        try:
            self._tracebacks[i] = pipe.recv()
        except EOFError:  # the child ended without sending one
            pass
        pipe.close()

    def _join_all(self, timeout: float) -> None:
        """Wait for the processes to end, ``timeout`` seconds for all of them together."""
        end = _time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0.0, end - _time.monotonic()))

    def _failure(self, i: int) -> ProcessException:
        pid, code = self.processes[i].pid, self.processes[i].exitcode
        pipe = next((p for p, j in self._error_pipes.items() if j == i), None)
        if pipe is not None and pipe.poll():
            self._read_traceback(pipe)
        if i in self._tracebacks:
            return ProcessRaisedException(f"\n\n-- Process {i} terminated with the following error:\n"
                                          f"{self._tracebacks[i]}", i, pid)
        if code < 0:
            try:
                name = _signal.Signals(-code).name
            except ValueError:  # a number Python has no name for
                name = f"<Unknown signal {-code}>"
            return ProcessExitedException(f"process {i} terminated with signal {name}", i, pid, code, name)
        return ProcessExitedException(f"process {i} terminated with exit code {code}", i, pid, code)


def start_processes(fn: Callable[..., Any], args: tuple = (), nprocs: int = 1, join: bool = True,
                    daemon: bool = False, start_method: str = "spawn") -> ProcessContext | None:
    """Run ``fn(i, *args)`` for ``i`` in ``range(nprocs)``, each in a new process started with
    ``start_method``; with ``join`` wait for all (``None``), else return their :class:`ProcessContext`."""
    ctx = _mp.get_context(start_method)
    processes, pipes = [], []
    for i in range(nprocs):
        reader, writer = ctx.Pipe(duplex=False)
        process = ctx.Process(target=_run, args=(fn, i, tuple(args), writer), daemon=daemon)
        process.start()
        writer.close()  # only the child holds it now: its end is the end of the pipe
        processes.append(process)
        pipes.append(reader)
    context = ProcessContext(processes, pipes)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn: Callable[..., Any], args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
          start_method: str = "spawn") -> ProcessContext | None:
    """PyTorch's ``torch.multiprocessing.spawn``: :func:`start_processes` with the ``"spawn"`` start
    method (another one works, with PyTorch's warning to call ``start_processes`` for it)."""
    if start_method != "spawn":
        _warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a "
                       f"different start_method use:\n\t\t torch.multiprocessing.start_processes(...)",
                       FutureWarning, stacklevel=stacklevel_outside_the_engine())
    return start_processes(fn, args, nprocs, join, daemon, start_method)


def get_all_sharing_strategies() -> set[str]:
    """PyTorch's names for how tensors are shared; here tensors are copied, so none changes anything."""
    return set(_SHARING_STRATEGIES)


def get_sharing_strategy() -> str:
    return _sharing_strategy


def set_sharing_strategy(new_strategy: str) -> None:
    """Accept one of :func:`get_all_sharing_strategies` (a script's setting runs; tensors are still copied)."""
    global _sharing_strategy
    if new_strategy not in _SHARING_STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}: one of {sorted(_SHARING_STRATEGIES)}")
    _sharing_strategy = new_strategy
