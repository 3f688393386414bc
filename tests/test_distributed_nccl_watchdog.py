"""The NCCL backend's collectives are held to the group's timeout, without a GPU: a stand-in
for CuPy (streams, events) and for the NCCL communicator, whose collectives can be made to
hang, are given to a ProcessGroup, and its watchdog must abort the communicator and fail the
group instead of letting the job wait forever.  (``tests/gpu/test_nccl.py`` runs the real
backend where CuPy sees a GPU.)"""

from __future__ import annotations

import atexit
import threading
import time
import types

import numpy as np
import pytest

from minigrad_ckpt.distributed import DistributedError, ProcessGroup


class FakeStream:
    """A CUDA stream: work queued after a collective that hangs never completes."""

    ptr = 1

    def __init__(self):
        self.stuck = False


class FakeEvent:
    def __init__(self, block=False, disable_timing=False):
        self.stream = None

    def record(self, stream):
        self.stream = stream

    @property
    def done(self):
        return not self.stream.stuck


class FakeArray:
    """What the group reads of a CuPy array (its module name says 'cupy')."""

    __module__ = "cupy._stand_in"

    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.float32)
        self.flags = types.SimpleNamespace(c_contiguous=True)
        self.data = types.SimpleNamespace(ptr=id(self))
        self.size, self.dtype, self.shape = self.values.size, self.values.dtype, self.values.shape


class FakeCommunicator:
    """CuPy's NcclCommunicator; with ``hang``, every collective sticks the stream until abort()."""

    def __init__(self, stream):
        self.stream, self.hang, self.aborted, self.calls = stream, False, 0, []

    def _queue(self, name):
        self.calls.append(name)
        if self.hang:
            self.stream.stuck = True

    def allReduce(self, send, recv, count, dtype, op, stream):  # noqa: N802 (CuPy's names)
        self._queue("allReduce")

    def bcast(self, buf, count, dtype, root, stream):
        self._queue("bcast")

    def allGather(self, send, recv, count, dtype, stream):  # noqa: N802
        self._queue("allGather")

    def abort(self):
        self.aborted += 1
        self.stream.stuck = False  # the kernels return

    def destroy(self):
        raise AssertionError("an aborted communicator must not be destroyed")


class FakeRequest:
    def Test(self):  # noqa: N802
        return True


class FakeMPIComm:
    def Ibarrier(self):  # noqa: N802
        return FakeRequest()

    def Free(self):  # noqa: N802
        pass


_made: list = []


@pytest.fixture(autouse=True)
def _cleanup():
    yield
    for group in _made:
        atexit.unregister(group._abort_at_exit)  # (a real failed group ends the job at exit)
        _made.clear()


def _group(timeout=0.3):
    stream = FakeStream()
    cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(Event=FakeEvent, get_current_stream=lambda: stream))
    cupy.ascontiguousarray = lambda a: a
    cupy.empty = lambda shape, dtype: FakeArray(np.empty(shape, dtype))
    names = ["FLOAT16", "FLOAT32", "FLOAT64", "INT8", "UINT8", "INT32", "UINT32", "INT64", "UINT64", "SUM", "MAX",
             "MIN"]
    nccl = types.SimpleNamespace(**{f"NCCL_{n}": i for i, n in enumerate(names)})
    communicator = FakeCommunicator(stream)
    group = ProcessGroup("nccl", FakeMPIComm(), 0, 1, None)
    group.timeout = timeout
    group._use_nccl(cupy, nccl, communicator)
    _made.append(group)
    return group, communicator


@pytest.fixture
def thread_errors(monkeypatch):
    """Exceptions raised on threads (the watchdog's), instead of the default report."""
    seen = []
    monkeypatch.setattr(threading, "excepthook", lambda args: seen.append(args.exc_value))
    return seen


def _wait_until(cond, seconds=10.0):
    end = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def test_collectives_that_complete_are_forgotten(thread_errors):
    group, comm = _group()
    group.all_reduce(FakeArray([1.0, 2.0]))
    group.broadcast(FakeArray([1.0]), 0)
    group.all_gather(FakeArray([3.0]))
    group.iall_reduce(FakeArray([4.0])).wait()
    group.barrier()
    assert comm.calls == ["allReduce", "bcast", "allGather", "allReduce"]
    _wait_until(lambda: group._watchdog.pending == 0)
    time.sleep(0.5)  # past every deadline: nothing failed
    assert group.failed is None and comm.aborted == 0 and not thread_errors


def test_a_collective_that_hangs_with_nobody_waiting_aborts_the_communicator(thread_errors):
    """All-reduce returns at once (queued on the stream); nothing waits on the host.  The
    watchdog sees its event missed the deadline: the communicator is aborted, DistributedError
    is raised on the watchdog's thread (in a job of several ranks: the job ends), and every
    later collective refuses."""
    group, comm = _group(timeout=0.3)
    comm.hang = True
    start = time.monotonic()
    group.all_reduce(FakeArray([1.0]))
    assert time.monotonic() - start < 0.3  # not waited for
    _wait_until(lambda: thread_errors)
    assert isinstance(thread_errors[0], DistributedError) and "all_reduce did not complete within 0.3 s" in str(
        thread_errors[0])
    assert comm.aborted == 1 and not comm.stream.stuck
    with pytest.raises(DistributedError, match="unusable"):
        group.broadcast(FakeArray([1.0]), 0)
    group.close()  # an aborted communicator is not destroyed again


def test_a_barrier_behind_a_hung_collective_raises_on_the_waiting_thread(thread_errors):
    group, comm = _group(timeout=0.3)
    comm.hang = True
    group.iall_reduce(FakeArray([1.0]))  # a gradient bucket, queued
    start = time.monotonic()
    with pytest.raises(DistributedError, match="did not complete within 0.3 s"):
        group.barrier()  # (whoever sees the deadline first: the barrier, or the watchdog)
    assert time.monotonic() - start < 5
    assert comm.aborted == 1  # once, whoever saw the deadline first


def test_a_barrier_waiting_when_the_watchdog_fails_the_group_raises_too(thread_errors):
    """The watchdog sees an earlier collective miss its deadline while the host waits in a
    barrier: the abort releases the stream, but the barrier must raise, not return."""
    group, comm = _group(timeout=0.5)
    comm.hang = True
    group.iall_reduce(FakeArray([1.0]))
    group._watchdog._watched[0] = (group._watchdog._watched[0][0], time.monotonic() - 1, "a gradient all-reduce")
    with pytest.raises(DistributedError, match="gradient all-reduce"):
        group.barrier()
    assert comm.aborted == 1


def test_init_process_group_timeout_reaches_the_watchdog():
    group, _ = _group(timeout=1800.0)
    event = FakeEvent()
    event.record(FakeStream())
    group._watchdog.watch(event, "x")
    (_, deadline, _), = group._watchdog._watched
    assert 1790 < deadline - time.monotonic() <= 1800
