"""The process group: one communicator and the collectives on raw arrays.

Two backends behind one small interface (``all_reduce``, ``iall_reduce``,
``broadcast``, ``all_gather``, ``barrier``, ``allgather_object``):

* ``mpi``: mpi4py's upper-case, buffer-interface methods on NumPy arrays.
  Nothing is pickled except ``allgather_object``'s small control messages
  (model signatures, RNG states, success flags).
* ``nccl``: CuPy's ``NcclCommunicator`` on CuPy arrays, on the current
  stream: no host copy.  The communicator's unique id travels over MPI when
  the job has more than one rank (MPI is then used only for management).

Every MPI collective is started non-blocking and waited for with a deadline
(``timeout``, set by ``init_process_group``): a collective that cannot
complete -- a rank died, diverged into other collectives, or stopped calling
them -- raises :class:`DistributedError` on the ranks that wait, instead of
hanging, and the job is ended (``MPI_Abort``) when that error is not handled,
or at exit if it was.  NCCL collectives are queued on the GPU stream and the
host does not wait for them: each is followed by a CUDA event that a watchdog
thread holds to the same deadline (:mod:`._watchdog`), aborting the
communicator and ending the job when one is missed.

mpi4py and CuPy are imported here, lazily, when a group is created.
"""

from __future__ import annotations

import atexit
import enum
import os
import pickle
import sys
import threading
import time
import traceback
import warnings
import zlib
from typing import Any

from ..backend import cupy_nccl, set_current_device_index
from ..backend import host_numpy as numpy
from ..user_frame import stacklevel_outside_the_engine
from ._watchdog import EventRequest, Watchdog

__all__ = ["ProcessGroup", "ReduceOp", "Work", "Future", "DistributedError", "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 1800.0  # seconds: PyTorch's default for its CPU process groups (30 minutes)


class DistributedError(RuntimeError):
    """A collective step failed or timed out on some rank."""


class ReduceOp(str, enum.Enum):
    """How a reduction combines the ranks' values.  PyTorch's names (``ReduceOp.SUM``, ``AVG``,
    ``PRODUCT``, ``MIN``, ``MAX``) and the engine's strings (``"sum"``, ``"mean"``, ``"product"``,
    ``"min"``, ``"max"``) name the same ops: a member compares equal to its string."""

    SUM = "sum"
    MEAN = "mean"
    AVG = "mean"  # PyTorch's name for the mean: an alias of MEAN
    PRODUCT = "product"
    MAX = "max"
    MIN = "min"
    BAND = "band"  # bitwise and, or, exclusive or: integer and bool tensors (PyTorch's)
    BOR = "bor"
    BXOR = "bxor"


class _DeprecatedReduceOp:
    """PyTorch's deprecated ``dist.reduce_op`` (older tutorials write ``op=dist.reduce_op.SUM``): the
    members of :class:`ReduceOp` under the old name, each look-up a ``FutureWarning`` pointing at
    ``ReduceOp``, as PyTorch's."""

    def __getattr__(self, name: str) -> ReduceOp:
        if name.startswith("__"):  # (copy, pickle and inspect probe dunders: not a member look-up)
            raise AttributeError(name)
        warnings.warn("`mg.distributed.reduce_op` is deprecated, please use `mg.distributed.ReduceOp` instead",
                      FutureWarning, stacklevel=stacklevel_outside_the_engine())
        try:
            return ReduceOp[name]
        except KeyError:
            raise AttributeError(f"'reduce_op' object has no attribute '{name}'") from None

    def __dir__(self) -> list[str]:
        return list(ReduceOp.__members__)

    def __repr__(self) -> str:  # (no address: docs/api.md lists it, and would change each generation)
        return "reduce_op (PyTorch's deprecated name of ReduceOp)"


reduce_op = _DeprecatedReduceOp()


def _import_mpi() -> Any:
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise ImportError(
            "minigrad_ckpt.distributed needs mpi4py and an MPI library: pip install \".[distributed]\" "
            "(mpi4py + the MPICH wheel), or mpi4py built against your cluster's MPI"
        ) from exc
    return MPI


def _contiguous(arr: Any, xp: Any) -> tuple[Any, bool]:
    """A C-contiguous array to communicate through, and whether it is a copy."""
    if arr.flags.c_contiguous:
        return arr, False
    return xp.ascontiguousarray(arr), True


def _as_bytes_of_truth(arr: Any, op: ReduceOp) -> tuple[Any, ReduceOp]:
    """A bool array as the bytes (0 or 1) it is stored in, and the op on them that is PyTorch's
    reduction of truth values: any for ``SUM``/``MAX``/``BOR``, all for ``PRODUCT``/``MIN``/``BAND`` (neither MPI nor
    NCCL sums a bool; a view, so the result lands in ``arr``)."""
    if op is ReduceOp.BXOR:  # 0 and 1 stay 0 and 1
        return arr.view("uint8"), op
    return arr.view("uint8"), (ReduceOp.MAX if op in (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.BOR) else ReduceOp.MIN)


def _flip_negative_floats(keys: Any) -> None:
    """Turn a float array's bits (viewed as signed integers of its width) into integers ordered as
    the floats are, in place, and back again (the map is its own inverse): a negative float's bits
    grow with its magnitude, so all but the sign bit are flipped."""
    negative = keys < 0
    keys[negative] ^= numpy.iinfo(keys.dtype).max


class Future:
    """PyTorch's ``torch.futures.Future``, for the collectives' :class:`Work`: ``wait()`` and
    ``value()`` give the result (or raise the error it was completed with), ``then(callback)``
    is a Future of ``callback(self)``, ``add_done_callback(callback)`` calls it with this one.
    A callback given to an unfinished Future runs when ``set_result``/``set_exception`` finish it
    (the collectives' Futures are finished when they are made: their callbacks run at once)."""

    __slots__ = ("_value", "_error", "_done", "_callbacks")

    def __init__(self) -> None:
        self._value: Any = None
        self._error: BaseException | None = None
        self._done = False
        self._callbacks: list[Any] = []

    def done(self) -> bool:
        return self._done

    def wait(self) -> Any:
        if not self._done:  # nothing here runs in the background that could finish it later
            raise RuntimeError("Future.wait() on a Future nobody has finished (set_result was never called)")
        if self._error is not None:
            raise self._error
        return self._value

    def value(self) -> Any:
        return self.wait()

    def set_result(self, result: Any) -> None:
        self._finish(result, None)

    def set_exception(self, error: BaseException) -> None:
        self._finish(None, error)

    def _finish(self, result: Any, error: BaseException | None) -> None:
        if self._done:
            raise RuntimeError("Future can only be marked completed once (set_result or set_exception)")
        self._value, self._error, self._done = result, error, True
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def add_done_callback(self, callback: Any) -> None:
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def then(self, callback: Any) -> Future:
        chained = Future()

        def run(done: Future) -> None:
            try:
                result = callback(done)
            except Exception as exc:  # PyTorch's: the chained Future holds it, wait() raises it, wrapped
                error = RuntimeError(f"Got the following error when running the callback: {type(exc).__name__}: "
                                     f"{exc}")
                error.__cause__ = exc
                chained.set_exception(error)
            else:
                chained.set_result(result)

        self.add_done_callback(run)
        return chained


class Work:
    """A started non-blocking collective: ``wait()`` completes it (within the group's
    timeout, else :class:`DistributedError`) and returns True, as PyTorch's; ``test()``
    (PyTorch: ``is_completed()``) polls.  ``Work(None)`` is one already complete.
    ``outputs`` are the tensors the collective writes: ``result()`` after completion, and the
    value of ``get_future()`` (PyTorch's ``Work.get_future``)."""

    __slots__ = ("_req", "done", "_group", "_what", "_outputs", "_on_done", "_status")

    def __init__(self, req: Any, group: ProcessGroup | None = None, what: str = "a collective",
                 outputs: list[Any] | None = None, on_done: Any = None) -> None:
        self._req = req
        self.done = req is None
        self._group, self._what = group, what
        self._outputs = [] if outputs is None else list(outputs)
        self._on_done = on_done  # run once when it completes (a receive copies into its tensor then)
        self._status: Any = None  # a receive's MPI status: who sent the message

    def _completed(self) -> bool:
        self.done = True
        on_done, self._on_done = self._on_done, None
        if on_done is not None:
            on_done()
        return True

    def test(self) -> bool:
        if not self.done and self._req.Test():
            self._completed()
        return self.done

    def wait(self, timeout: Any = None) -> bool:
        if self.done:
            return True
        if self._group is None:
            self._req.Wait()
        else:
            self._group.wait_for(self._req, self._what)
        return self._completed()

    def is_completed(self) -> bool:
        return self.test()

    def is_success(self) -> bool:
        """Whether it completed without error (an error raises instead, so: whether it completed)."""
        return self.test()

    def source_rank(self) -> int:
        """The rank that sent what a receive got (PyTorch's, for ``irecv`` from any rank)."""
        if self._status is None:
            raise RuntimeError("sourceRank() may only be called on work objects that correspond to a recv or "
                               "recv-from-any call.")
        self.wait()
        return int(self._status.Get_source())

    def exception(self) -> None:
        """PyTorch's: the error it completed with -- never one here (an error raises instead)."""
        return None

    def synchronize(self) -> None:
        """PyTorch's (for a GPU stream): here, wait for it."""
        self.wait()

    def result(self) -> list[Any]:
        """The tensors the collective wrote (PyTorch's error before it completed)."""
        if not self.test():
            raise RuntimeError("Work needs to be completed before calling result(). Should call wait() before "
                               "result().")
        return list(self._outputs)

    def get_future(self) -> Future:
        """A :class:`Future` of :meth:`result` (completing this Work first, within the group's timeout)."""
        self.wait()
        future = Future()
        future.set_result(list(self._outputs))
        return future


# MPI moves a started collective forward only inside MPI calls, so a wait that sleeps
# between its tests stalls the transfer: a 7 MiB all-reduce of two ranks, 2.8 ms when
# both spin as MPI's own Wait does, took 15-25 ms when the waits slept up to 5 ms
# after 200 tests.  So a wait spins for its first _SPIN_SECONDS (a collective of
# ranks in step completes within that), and only a longer one -- a rank far behind,
# or one that died, which the deadline catches -- sleeps, at most _MAX_PAUSE per test.
_SPIN_SECONDS = 0.05
_MAX_PAUSE = 0.001
_yield = getattr(os, "sched_yield", lambda: time.sleep(0))


class _WithStatus:
    """An MPI request whose tests fill ``status`` (a receive from any rank: who sent it)."""

    __slots__ = ("req", "status")

    def __init__(self, req: Any, status: Any) -> None:
        self.req, self.status = req, status

    def Test(self) -> bool:  # noqa: N802 (MPI's name, which wait_for calls)
        return bool(self.req.Test(self.status))


class ProcessGroup:
    """A communicator over all ranks of the job (see the module docstring)."""

    def __init__(self, backend: str, comm: Any, rank: int, size: int, MPI: Any) -> None:
        self.backend = backend
        self.comm = comm          # the mpi4py communicator (management on the NCCL backend), or None
        self.rank = rank
        self.size = size
        self._MPI = MPI
        self._nccl: Any = None
        self._watchdog: Watchdog | None = None
        self._nccl_aborted = False
        self._closed = False
        self._old_hooks: tuple | None = None
        self.local_rank = 0
        self.timeout = DEFAULT_TIMEOUT
        self.failed: str | None = None  # why a collective timed out: the group is unusable then
        self.node_comm: Any = None  # every rank, when all run on one machine (else None)
        self._windows: list[tuple[Any, int]] = []  # shared-memory windows and their bytes, freed with the group

    # ------------------------------------------------------------ creation
    @classmethod
    def create(cls, backend: str) -> ProcessGroup:
        MPI = _import_mpi()
        if not MPI.Is_initialized():
            MPI.Init()
        comm = MPI.COMM_WORLD.Dup()  # our own context: user MPI traffic cannot match ours
        group = cls(backend, comm, comm.Get_rank(), comm.Get_size(), MPI)
        if group.size > 1:  # this rank's index among the ranks on its machine (picks its GPU)
            node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=group.rank)
            group.local_rank = node.Get_rank()
            if node.Get_size() == group.size:  # one machine: sums can go through shared memory
                group.node_comm = node
            else:
                node.Free()
        if backend == "nccl":
            group._init_nccl()
        return group

    def _init_nccl(self) -> None:
        cupy, nccl = cupy_nccl()
        # One process per GPU: the rank's index on its machine picks the device, which is then
        # what "cuda", x.cuda() and model.cuda() mean in this process (mg.cuda.set_device's)
        index = self.local_rank % cupy.cuda.runtime.getDeviceCount()
        cupy.cuda.Device(index).use()
        set_current_device_index("cuda", index)
        uid = nccl.get_unique_id() if self.rank == 0 else None
        uid = self.comm.bcast(uid, root=0)
        self._use_nccl(cupy, nccl, nccl.NcclCommunicator(self.size, uid, self.rank))

    def _use_nccl(self, cupy: Any, nccl: Any, communicator: Any) -> None:
        """Communicate through ``communicator`` (CuPy's ``NcclCommunicator``; ``nccl`` is the
        module of its constants), with its collectives held to the timeout by a watchdog."""
        self._nccl = communicator
        self._cupy = cupy
        self._nccl_mod = nccl
        self._watchdog = Watchdog(self)

    def _queued(self, what: str) -> Any:
        """After an NCCL collective was queued: a CUDA event on the stream behind it, watched."""
        event = self._cupy.cuda.Event(block=False, disable_timing=True)
        event.record(self._cupy.cuda.get_current_stream())
        self._watchdog.watch(event, what)
        return event

    # ------------------------------------------------------- helpers (NCCL)
    def _nccl_dtype(self, dtype: Any) -> int:
        n = self._nccl_mod
        table = {"float16": n.NCCL_FLOAT16, "float32": n.NCCL_FLOAT32, "float64": n.NCCL_FLOAT64,
                 "int8": n.NCCL_INT8, "uint8": n.NCCL_UINT8, "int32": n.NCCL_INT32, "uint32": n.NCCL_UINT32,
                 "int64": n.NCCL_INT64, "uint64": n.NCCL_UINT64}
        try:
            return table[str(dtype)]
        except KeyError:
            raise TypeError(f"the 'nccl' backend cannot communicate {dtype}") from None

    def _nccl_op(self, op: ReduceOp) -> int:
        if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):  # NCCL has no bitwise reductions
            raise ValueError(f"Cannot use ReduceOp.{op.name} with NCCL")
        name = {ReduceOp.SUM: "NCCL_SUM", ReduceOp.MEAN: "NCCL_SUM", ReduceOp.PRODUCT: "NCCL_PROD",
                ReduceOp.MAX: "NCCL_MAX", ReduceOp.MIN: "NCCL_MIN"}[op]
        return getattr(self._nccl_mod, name)

    def _mpi_op(self, op: ReduceOp) -> Any:
        M = self._MPI
        return {ReduceOp.SUM: M.SUM, ReduceOp.MEAN: M.SUM, ReduceOp.PRODUCT: M.PROD, ReduceOp.MAX: M.MAX,
                ReduceOp.MIN: M.MIN, ReduceOp.BAND: M.BAND, ReduceOp.BOR: M.BOR, ReduceOp.BXOR: M.BXOR}[op]

    def _check(self, arr: Any) -> None:
        self._usable()
        on_gpu = type(arr).__module__.startswith("cupy")
        if on_gpu and self.backend != "nccl":
            raise RuntimeError("a CUDA tensor needs the 'nccl' backend: init_process_group('nccl')")
        if not on_gpu and self.backend == "nccl":
            raise RuntimeError("the 'nccl' backend communicates CUDA tensors; this one is on the CPU "
                               "(use init_process_group('mpi') for CPU tensors)")

    def wait_for(self, req: Any, what: str) -> None:
        """Complete the started MPI request ``req``, or raise :class:`DistributedError` once
        ``self.timeout`` seconds have passed (polling: MPI's Wait cannot be interrupted)."""
        if not req.Test():
            start = time.monotonic()
            deadline, pause = start + self.timeout, 0.0
            while not req.Test() and self.failed is None:
                now = time.monotonic()
                if now > deadline:
                    self._fail(what)
                if now - start > _SPIN_SECONDS:  # a long wait: back off, but keep testing often
                    pause = min(_MAX_PAUSE, max(1e-5, pause * 2))
                    time.sleep(pause)
                else:  # spinning: let a process this one waits for have the core, if they share one
                    _yield()
        if self.failed is not None:  # the NCCL watchdog failed the group meanwhile (its abort ends waits)
            raise DistributedError(f"{what} cannot be trusted: {self.failed}; ending the job")

    def _fail(self, what: str) -> None:
        self.failed = (f"{what} did not complete within {self.timeout:g} s on rank {self.rank} of {self.size}: "
                       f"another rank died, diverged into other collectives, or stopped calling them")
        atexit.register(self._abort_at_exit)  # a caught error still ends the job
        if self._nccl is not None:
            self._abort_nccl()
        raise DistributedError(self.failed + "; ending the job")

    def _abort_nccl(self) -> None:
        """``ncclCommAbort``: the queued collectives' kernels return (a host waiting is released)."""
        if self._nccl_aborted:
            return
        communicator, self._nccl_aborted = self._nccl, True
        try:
            communicator.abort()
        except Exception as exc:  # already aborted, or an NCCL too old to abort: nothing else to do
            sys.stderr.write(f"[rank {self.rank}] could not abort the NCCL communicator: {exc}\n")

    def _abort_at_exit(self) -> None:
        sys.stderr.write(f"[rank {self.rank}] {self.failed}; aborting all {self.size} ranks\n")
        self.abort(1)

    def _mpi(self, req: Any, what: str) -> None:
        self.wait_for(req, what)

    # ---------------------------------------------------------- collectives
    def agree(self, arr: Any, what: str) -> None:
        """Refuse, on every rank, a collective whose ranks hand in arrays of different shapes or dtypes
        (MPI would reduce the shorter one's bytes with part of the longer, or reinterpret them:
        rank-different results without an error; PyTorch's gloo aborts).  One small all-gather of a
        checksum of each rank's dtype and shape, so every rank sees the same answer."""
        if self.backend == "nccl" or self.size == 1:
            return
        mine = numpy.array([zlib.crc32(f"{arr.dtype.str}{tuple(arr.shape)}".encode())], dtype=numpy.int64)
        every = numpy.empty(self.size, dtype=numpy.int64)
        self._mpi(self.comm.Iallgather(mine, every), what)
        if (every != every[0]).any():
            others = numpy.nonzero(every != mine[0])[0].tolist()
            raise RuntimeError(f"{what}: the ranks' tensors differ in shape or dtype: rank {self.rank}'s is "
                               f"{arr.dtype} {tuple(arr.shape)}, rank(s) {others} hand in another")

    def all_reduce(self, arr: Any, op: ReduceOp = ReduceOp.SUM) -> None:
        """Reduce ``arr`` across ranks in place."""
        self._check(arr)
        op = ReduceOp(op)
        if arr.dtype.kind == "b":
            arr, op = _as_bytes_of_truth(arr, op)
        if self.backend == "nccl":
            buf, copied = _contiguous(arr, self._cupy)
            stream = self._cupy.cuda.get_current_stream()
            self._nccl.allReduce(buf.data.ptr, buf.data.ptr, buf.size, self._nccl_dtype(buf.dtype),
                                 self._nccl_op(op), stream.ptr)
            self._queued("all_reduce")
        else:
            buf, copied = _contiguous(arr, numpy)
            if op in (ReduceOp.MAX, ReduceOp.MIN) and buf.dtype.kind == "f":
                self._extremum_of_floats(buf, op)
            else:
                self._mpi(self.comm.Iallreduce(self._MPI.IN_PLACE, buf, op=self._mpi_op(op)), "all_reduce")
        if op is ReduceOp.MEAN:
            buf /= self.size
        if copied:
            arr[...] = buf

    def _extremum_of_floats(self, buf: Any, op: ReduceOp) -> None:
        """MAX or MIN of floats, in place, with the same bits on every rank.

        MPI's MAX and MIN compare with ``>`` and ``<``: whether a NaN survives, and which of
        ``-0.0`` and ``0.0`` does, depends on which operand it is, and MPICH combines the ranks in
        another order on each rank, so replicas would get different answers.  Here the floats are
        reduced as integers whose order is the floats' total order (``-0.0 < 0.0``), which MPI
        reduces the same in any order; NaN propagates, as ``torch.maximum`` does (made the largest
        key for MAX, the smallest for MIN, and written back as NaN)."""
        nan = numpy.isnan(buf)
        buf[nan] = numpy.nan if op is ReduceOp.MAX else -numpy.nan
        keys = buf.view(f"i{buf.dtype.itemsize}")
        _flip_negative_floats(keys)
        self._mpi(self.comm.Iallreduce(self._MPI.IN_PLACE, keys, op=self._mpi_op(op)), "all_reduce")
        _flip_negative_floats(keys)
        buf[numpy.isnan(buf)] = numpy.nan

    def iall_reduce(self, buf: Any) -> Work:
        """Start a sum over ranks of the contiguous ``buf``, in place; ``wait()`` the result."""
        self._check(buf)
        if self.backend == "nccl":
            stream = self._cupy.cuda.get_current_stream()
            # Queued on the current stream after the kernels that produced buf:
            # later work on the stream sees the result, no host round trip.
            self._nccl.allReduce(buf.data.ptr, buf.data.ptr, buf.size, self._nccl_dtype(buf.dtype),
                                 self._nccl_mod.NCCL_SUM, stream.ptr)
            self._queued("a gradient all-reduce")
            return Work(None)
        return Work(self.comm.Iallreduce(self._MPI.IN_PLACE, buf, op=self._MPI.SUM), self, "a gradient all-reduce")

    def test_all(self, works: list[Work]) -> None:
        """Let MPI progress started collectives (it does so only inside MPI calls)."""
        for w in works:
            if not w.test():
                break

    def broadcast(self, arr: Any, src: int = 0) -> None:
        self._check(arr)
        if self.backend == "nccl":
            buf, copied = _contiguous(arr, self._cupy)
            stream = self._cupy.cuda.get_current_stream()
            self._nccl.bcast(buf.data.ptr, buf.size, self._nccl_dtype(buf.dtype), src, stream.ptr)
            self._queued("broadcast")
        else:
            buf, copied = _contiguous(arr, numpy)
            self._mpi(self.comm.Ibcast(buf, root=src), "broadcast")
        if copied:
            arr[...] = buf

    def all_gather(self, arr: Any) -> Any:
        """A new array of shape ``(world, *arr.shape)``: every rank's ``arr``."""
        self._check(arr)
        if self.backend == "nccl":
            xp = self._cupy
            buf, _ = _contiguous(arr, xp)
            out = xp.empty((self.size, *arr.shape), dtype=arr.dtype)
            stream = xp.cuda.get_current_stream()
            self._nccl.allGather(buf.data.ptr, out.data.ptr, buf.size, self._nccl_dtype(buf.dtype), stream.ptr)
            self._queued("all_gather")
            return out
        buf, _ = _contiguous(arr, numpy)
        out = numpy.empty((self.size, *arr.shape), dtype=arr.dtype)
        self._mpi(self.comm.Iallgather(buf, out), "all_gather")
        return out

    # ------------------------------------------------ point to point, all to all (MPI)
    def _mpi_only(self, arr: Any, what: str) -> None:
        self._check(arr)
        if self.backend == "nccl":
            raise NotImplementedError(f"{what} on the 'nccl' backend is not offered (CPU tensors on 'mpi' are)")

    def isend(self, buf: Any, dst: int, tag: int) -> Work:
        """Start sending the contiguous ``buf`` to rank ``dst``: ``wait()`` for it (``buf`` untouched till then)."""
        self._mpi_only(buf, "send")
        return Work(self.comm.Isend(buf, dest=dst, tag=tag), self, f"a send to rank {dst}")

    def irecv(self, buf: Any, src: int | None, tag: int, on_done: Any = None) -> tuple[Work, Any]:
        """Start receiving into the contiguous ``buf`` from rank ``src`` (``None``: any rank); the
        status tells the sender once the Work completes."""
        self._mpi_only(buf, "recv")
        status = self._MPI.Status()
        source = self._MPI.ANY_SOURCE if src is None else src
        req = _WithStatus(self.comm.Irecv(buf, source=source, tag=tag), status)
        what = f"a receive from {'any rank' if src is None else f'rank {src}'}"
        work = Work(req, self, what, on_done=on_done)
        work._status = status
        return work, status

    def all_to_all(self, send: Any, send_counts: list[int], recv: Any, recv_counts: list[int]) -> None:
        """Rank ``r``'s ``send_counts[j]`` elements of the flat ``send`` to rank ``j``, in rank order
        into the flat ``recv`` (``recv_counts[i]`` from rank ``i``)."""
        self._mpi_only(send, "all_to_all")

        def starts(counts: list[int]) -> list[int]:
            return [sum(counts[:i]) for i in range(len(counts))]

        self._mpi(self.comm.Ialltoallv([send, (send_counts, starts(send_counts))],
                                       [recv, (recv_counts, starts(recv_counts))]), "all_to_all")

    def barrier(self) -> None:
        self._usable()
        if self.backend == "nccl":  # the GPU's queued collectives first, within the timeout
            self.wait_for(EventRequest(self._queued("barrier")), "barrier (waiting for the GPU's collectives)")
        self._mpi(self.comm.Ibarrier(), "barrier")

    def allgather_object(self, obj: Any) -> list[Any]:
        """Small control data (signatures, flags, states) from every rank, in rank order (pickled)."""
        self._usable()
        data = numpy.frombuffer(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), dtype=numpy.uint8)
        sizes = numpy.empty(self.size, dtype=numpy.int64)
        self._mpi(self.comm.Iallgather(numpy.array([data.size], dtype=numpy.int64), sizes), "allgather_object")
        out = numpy.empty(int(sizes.sum()), dtype=numpy.uint8)
        offsets = numpy.concatenate([[0], numpy.cumsum(sizes)[:-1]])
        self._mpi(self.comm.Iallgatherv(data, [out, sizes, offsets, self._MPI.BYTE]), "allgather_object")
        return [pickle.loads(out[o:o + n].tobytes()) for o, n in zip(offsets.tolist(), sizes.tolist())]

    def bcast_object(self, obj: Any, root: int = 0) -> Any:
        """``obj`` of rank ``root`` on every rank (pickled)."""
        self._usable()
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL) if self.rank == root else b""
        size = numpy.array([len(data)], dtype=numpy.int64)
        self._mpi(self.comm.Ibcast(size, root=root), "bcast_object")
        buf = numpy.frombuffer(data, dtype=numpy.uint8).copy() if self.rank == root else numpy.empty(
            int(size[0]), dtype=numpy.uint8)
        self._mpi(self.comm.Ibcast(buf, root=root), "bcast_object")
        return obj if self.rank == root else pickle.loads(buf.tobytes())

    def _usable(self) -> None:
        if self._closed:
            raise RuntimeError("the process group was destroyed")
        if self.failed is not None:
            raise DistributedError(f"the process group is unusable: {self.failed}")

    # -------------------------------------------------------------- failure
    def install_abort_on_exception(self) -> None:
        """An unhandled exception on any rank aborts the job (MPI_Abort): the other
        ranks would otherwise wait forever in a collective this rank never joins."""
        old_sys, old_thread = sys.excepthook, threading.excepthook

        def abort(exc_type: Any, exc: Any, tb: Any) -> None:
            sys.stderr.write(f"[rank {self.rank}] unhandled exception; aborting all {self.size} ranks\n")
            traceback.print_exception(exc_type, exc, tb)
            self.abort(1)

        def abort_thread(args: Any) -> None:
            if args.exc_type is SystemExit:
                return
            abort(args.exc_type, args.exc_value, args.exc_traceback)

        sys.excepthook = abort
        threading.excepthook = abort_thread
        self._old_hooks = (old_sys, old_thread)

    def abort(self, code: int = 1) -> None:
        """MPI_Abort on the whole job: every rank ends with a non-zero exit."""
        sys.stdout.flush()
        sys.stderr.flush()
        # mpiexec kills every process at once on an abort, and what a rank printed but
        # mpiexec had not yet forwarded -- often the very message saying why -- is lost.
        time.sleep(0.3)
        self._MPI.COMM_WORLD.Abort(code)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._old_hooks is not None:
            sys.excepthook, threading.excepthook = self._old_hooks
        if self._watchdog is not None:
            self._watchdog.stop()
        if self._nccl is not None and not self._nccl_aborted:
            self._nccl.destroy()
        if self._windows and self.failed is None and self._all_ranks_closing():
            for win, _ in self._windows:  # freeing one waits for every rank: all are here
                win.Unlock_all()
                win.Free()
        self._windows = []  # else MPI's finalize at exit lets them go
        if self.node_comm is not None:
            self.node_comm.Free()
            self.node_comm = None
        self.comm.Free()

    def register_window(self, win: Any, nbytes: int) -> None:
        """Keep a shared-memory window made on ``node_comm`` until the group is destroyed
        (freeing one is collective: it happens in ``close``, which every rank calls)."""
        self._windows.append((win, nbytes))

    def free_window(self, win: Any) -> None:
        """Free a window every rank registered and frees now (collective)."""
        self._windows = [(w, n) for w, n in self._windows if w is not win]
        win.Unlock_all()
        win.Free()

    @property
    def shared_window_bytes(self) -> int:
        """The bytes of the shared-memory windows this group holds."""
        return sum(n for _, n in self._windows)

    def _all_ranks_closing(self, seconds: float = 10.0) -> bool:
        """Whether every rank reaches ``close`` within ``seconds`` (a rank that exits without
        destroying the group never does; freeing a window would wait for it forever)."""
        req = self.node_comm.Ibarrier()
        deadline = time.monotonic() + min(seconds, self.timeout)
        while not req.Test():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)
        return True

    def __repr__(self) -> str:
        return f"ProcessGroup(backend={self.backend!r}, rank={self.rank}, size={self.size})"
