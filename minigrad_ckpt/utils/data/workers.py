"""Worker processes for ``DataLoader(num_workers=N)``: batches made in other processes.

The main process sends each batch's indices to one worker (batch ``k`` to
worker ``k % N``) and keeps ``prefetch_factor * N`` batches in flight; the
workers fetch and collate, and send the batch back (tensors pickle as their
values).  The main process hands the batches out in order, so the loader gives
exactly the batches ``num_workers=0`` gives.

Random draws a dataset makes in a worker come from the engine's generator,
which the worker sets before each batch to a stream fixed by the epoch's base
seed and the batch's index: the same whichever worker makes the batch, however
many workers there are, and after a resume mid-epoch.  ``get_worker_info()``
(PyTorch's) tells the dataset which worker it runs in; ``info.seed`` is the
worker's own seed (base seed + worker id), which also seeds Python's
``random`` there, and NumPy's global generator is seeded from the base seed and
the worker id as PyTorch's workers seed it (:func:`numpy_seed_state`): without
it every worker forked from the main process drew the same NumPy numbers, epoch
after epoch.  Those two streams run on through a worker's batches, as in
PyTorch: a resume mid-epoch restarts them (draw from the engine's generator to
resume exactly).  A ``worker_init_fn`` that seeds the engine's generator
(``mg.manual_seed``, PyTorch's ``torch.manual_seed`` there) takes the worker's
stream over, as in PyTorch: it runs on through the worker's batches, which then
depend on which worker makes them, and a resume mid-epoch restarts it too.

Nothing hangs: a worker's exception is raised again in the main process with
the worker's traceback; a worker that dies (killed, out of memory) is an error
naming it; a batch that does not pickle is an error at its place
(:class:`_NoticingQueue`); ``timeout`` bounds the wait for one batch.  A worker
ignores Ctrl-C (the main process's ``KeyboardInterrupt`` ends the loop, which
stops the workers) and ends by itself once the main process is gone.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.queues
import os
import pickle
import queue
import random as _pyrandom
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ... import random as _random
from ...backend import host_numpy

__all__ = ["WorkerInfo", "get_worker_info", "WorkerPool", "batch_seed", "numpy_seed_state", "Exhausted"]

_POLL_SECONDS = 0.1  # how often a wait for a batch checks that the workers are alive


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: ``id`` (0..num_workers-1),
    ``num_workers``, ``seed`` (this worker's seed) and the worker's copy of ``dataset``; and
    PyTorch 2.13's ``worker_method`` and ``rng``: workers here are processes, whose random
    draws go to the engine's generator, seeded for the worker, so always ``"multiprocessing"``
    and ``None`` (PyTorch's thread workers carry a generator of their own in ``rng``)."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    worker_method: str = "multiprocessing"
    rng: Any = None


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The :class:`WorkerInfo` of the worker process this runs in; ``None`` in the main process."""
    return _worker_info


def batch_seed(base_seed: int, index: int) -> int:
    """The generator seed a worker uses for batch ``index`` of an epoch with ``base_seed``: a
    non-negative int64, as PyTorch's workers' seeds are (its base seed is an int64 draw), so
    ``mg.initial_seed()`` read in a dataset fits an int64 tensor -- a full 64-bit seed made a
    dataset that returns it fail to collate (an int past int64) for about half the batches."""
    return _random._mix64((base_seed + index) & _random._MASK64) >> 1


_MASK32 = 0xFFFFFFFF


def numpy_seed_state(base_seed: int, worker_id: int) -> list[int]:
    """The four 32-bit words that seed NumPy's global generator in worker ``worker_id`` of an
    epoch with ``base_seed``: PyTorch's ``_generate_state`` (NumPy's ``SeedSequence`` hash of
    ``[worker_id, base_seed's low and high words, 0]``), word for word."""
    hash_const = [0x43B0D7E5]

    def hashed(value: int) -> int:
        value = (value ^ hash_const[0]) & _MASK32
        hash_const[0] = (hash_const[0] * 0x931E8875) & _MASK32
        value = (value * hash_const[0]) & _MASK32
        return value ^ (value >> 16)

    def mix(x: int, y: int) -> int:
        result = ((0xCA01F9DD * x) - (0x4973F715 * y)) & _MASK32
        return result ^ (result >> 16)

    pool = [hashed(v) for v in (worker_id, base_seed & _MASK32, (base_seed >> 32) & _MASK32, 0)]
    for src in range(4):  # every word into every other: late bits reach the early ones
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hashed(pool[src]))
    out, const = [], 0x8B51F9DD
    for word in pool:
        word ^= const
        const = const * 0x58F38DED & _MASK32
        word = word * const & _MASK32
        out.append(word ^ (word >> 16))
    return out


class Exhausted:
    """What a worker sends back for an iterable dataset whose copy in it has no more batches."""


class _KeyErrorMessage(str):
    """A message that is its own repr, so that ``str(KeyError(message))`` prints it as it is."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


class _Failure:
    """A worker's exception, carried to the main process as its type and formatted traceback.

    ``where`` names the process (PyTorch's words: ``"DataLoader worker process 1"``) and ``note`` is
    added after the traceback.  An exception whose class does not pickle (one defined inside a
    function) comes back as a RuntimeError with its message: the class could not travel."""

    def __init__(self, worker_id: int | None, exc: BaseException, where: str | None = None, note: str = "") -> None:
        self.exc_type = type(exc) if _pickles(type(exc)) else RuntimeError
        where = where or f"DataLoader worker process {worker_id}"
        self.message = f"Caught {type(exc).__name__} in {where}.\nOriginal {traceback.format_exc()}{note}"

    def reraise(self) -> None:
        # a KeyError's str() is the repr of its argument: PyTorch's KeyErrorMessage keeps the worker's
        # traceback readable (its lines, not one line of escaped ones)
        message = _KeyErrorMessage(self.message) if issubclass(self.exc_type, KeyError) else self.message
        try:
            exc = self.exc_type(message)
        except Exception:  # an exception type that takes other arguments
            exc = RuntimeError(self.message)
        raise exc


def _pickles(cls: type) -> bool:
    """Whether a class pickles (by its name: a class defined inside a function does not)."""
    try:
        pickle.dumps(cls)
    except Exception:
        return False
    return True


_UNSENT_NOTE = {
    "result": ("\nThe batch does not pickle, and a worker's batch reaches the main process pickled: let the dataset "
               "and the collate_fn return picklable objects (no lambdas, open files, locks, or instances of classes "
               "defined inside a function)."),
    "task": ("\nThe sampler's item for this batch does not pickle, and a worker gets its batch's indices pickled: "
             "let the sampler yield picklable keys."),
}


class _NoticingQueue(multiprocessing.queues.Queue):  # type: ignore[misc]
    """A queue that reports a batch it cannot send instead of dropping it.

    A multiprocessing queue pickles in a background thread, after ``put`` returned: an item that does not
    pickle (a lambda a ``collate_fn`` returned, a sampler's key holding a lock) was printed and dropped,
    and the main process waited for that batch forever (PyTorch's loader does).  Here the batch's place
    in the results (``results``; this queue itself where it carries them) gets the pickling error, which
    the loader raises at that batch, and the epoch goes on.  Items are ``(serial, index, ...)`` tuples:
    a worker's task or a worker's result."""

    def __init__(self, kind: str, ctx: Any, results: Any = None) -> None:
        super().__init__(ctx=ctx)
        self._kind, self._results = kind, results

    def __getstate__(self) -> tuple[Any, str]:  # (a spawned worker gets the queue pickled: keep its kind)
        return super().__getstate__(), self._kind

    def __setstate__(self, state: tuple[Any, str]) -> None:
        base, self._kind = state
        super().__setstate__(base)
        self._results = None  # (a worker puts on the results queue only: it is its own)

    def _on_queue_feeder_error(self, e: Exception, obj: Any) -> None:
        kind = self._kind
        if not (isinstance(obj, tuple) and len(obj) == 4):
            super()._on_queue_feeder_error(e, obj)  # (not a batch: printed, as the stock queue does)
            return
        info = _worker_info
        where = "the DataLoader's main process" if kind == "task" or info is None else None
        failure = _Failure(None if info is None else info.id, e, where, _UNSENT_NOTE[kind])
        (self._results or self).put((obj[0], obj[1], None, failure))


class FailedBatch:
    """What a run of an epoch yields in place of a batch whose making raised (``error``: the
    exception, or a worker's :class:`_Failure`).  The loader's iterator raises it again, as PyTorch's
    does, and the run goes on with the next batch -- a generator that raised would have ended."""

    def __init__(self, error: BaseException | _Failure) -> None:
        self.error = error

    def reraise(self) -> None:
        if isinstance(self.error, BaseException):
            raise self.error
        self.error.reraise()


def _worker_loop(fetch: Callable[[Any], Any], index_q: Any, result_q: Any, worker_id: int, num_workers: int,
                 seed: int, dataset: Any, init_fn: Callable[[int], None] | None, main: tuple[int, bool]) -> None:
    """A worker process, serving until told to stop or the main process is gone: ``main`` is its pid,
    and whether it is the worker's parent (see :func:`_is_alive`)."""
    global _worker_info
    # Ctrl-C reaches the terminal's whole process group: the main process decides (its KeyboardInterrupt
    # ends the loop, which stops the workers; a loop that catches it goes on with its workers). Each
    # worker raising its own printed a traceback, and left the loop without its batches.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    _pyrandom.seed(seed)
    _random.manual_seed(seed)
    host_numpy.random.seed(numpy_seed_state((seed - worker_id) & _random._MASK64, worker_id))
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except Exception as exc:
        result_q.put((None, -1, None, _Failure(worker_id, exc)))
        return
    # a worker_init_fn that seeded the engine's generator (PyTorch's torch.manual_seed there) owns the
    # worker's random stream from then on, as in PyTorch; reseeding each batch discarded its seed
    own_stream = _random.default_generator.initial_seed() != seed
    _serve(fetch, index_q, result_q, worker_id, main, reseed=not own_stream)


def _serve(fetch: Callable[[Any], Any], index_q: Any, result_q: Any, worker_id: int, main: tuple[int, bool],
           reseed: bool = True) -> None:
    """A worker's loop: make each batch asked for, until told to stop or the main process is gone.
    With ``reseed`` each batch draws from its own stream (the task's key), else the worker's generator
    runs on through its batches."""
    while True:
        try:
            task = index_q.get(timeout=1.0)
        except queue.Empty:
            if not _is_alive(*main):  # nobody will read our batches
                return
            continue
        if task is None:
            return
        serial, index, item, key = task
        if reseed:
            _random.default_generator.set_state({"seed": key, "counter": 0})
        try:
            result_q.put((serial, index, fetch(item), None))
        except Exception as exc:
            result_q.put((serial, index, None, _Failure(worker_id, exc)))


class _SamplerAhead:
    """An epoch's ``has(i)`` asked ahead of the batch handed out (the workers' prefetch), keeping the
    sampler's error for its turn: raised once the batches the sampler gave before it are handed out,
    where ``num_workers=0`` (PyTorch's too) raises it -- raised at once, it ended the epoch at its first
    ``next()`` and the batches already drawn were lost."""

    def __init__(self, batches: Any) -> None:
        self.batches, self.error = batches, None

    def has(self, i: int) -> bool:
        if self.error is not None:
            return False
        try:
            return self.batches.has(i)
        except Exception as exc:
            self.error = exc
            return False

    def raise_error(self) -> None:
        if self.error is not None:
            raise self.error


def _is_alive(main: int, is_parent: bool) -> bool:
    """Whether the main process (pid ``main``) still runs.  A worker it started (``fork``, ``spawn``) is
    its child, and an orphan's parent changes.  A ``forkserver`` worker is the fork server's child, and
    the fork server outlives the main process while a worker lives (each holds the pipe whose end would
    end it): the main process's pid is asked about -- with the parent's compared, every such worker
    left after a second's wait for a batch, and once the main process was killed none ever left."""
    if is_parent:
        return os.getppid() == main
    try:
        os.kill(main, 0)  # (signal 0: only whether the process exists)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, as another user's (its pid reused: the main process is gone)
        return False
    return True


class WorkerPool:
    """``num_workers`` processes that turn index lists into batches (see the module docstring)."""

    def __init__(self, fetch: Callable[[Any], Any], dataset: Any, num_workers: int, base_seed: int,
                 worker_init_fn: Callable[[int], None] | None, context: Any, timeout: float,
                 prefetch_factor: int) -> None:
        ctx = _context(context)
        self.timeout = timeout
        self.in_flight = prefetch_factor * num_workers
        self.result_q = _NoticingQueue("result", ctx)
        self.index_qs = [_NoticingQueue("task", ctx, self.result_q) for _ in range(num_workers)]
        self.workers = []
        main = (os.getpid(), ctx.get_start_method() != "forkserver")
        for i in range(num_workers):
            p = ctx.Process(target=_worker_loop, name=f"dataloader-worker-{i}", daemon=True,
                            args=(fetch, self.index_qs[i], self.result_q, i, num_workers,
                                  (base_seed + i) & _random._MASK64, dataset, worker_init_fn, main))
            p.start()
            self.workers.append(p)
        self.serial = 0
        self.closed = False
        self.owner = os.getpid()  # a forked worker inherits this object: only its creator may stop the pool

    def run(self, batches: Any, base_seed: int) -> Iterator[Any]:
        """Yield the batches of ``batches`` (an epoch: ``has(i)``, ``position``, ``batch(i)``) from
        ``batches.position`` on, advancing ``position`` as each is handed out.  ``has`` is asked
        batch by batch, so an epoch whose sampler never ends is made as it goes."""
        self.serial += 1
        serial, nw = self.serial, len(self.index_qs)
        sent = batches.position
        ready: dict[int, tuple[Any, _Failure | None]] = {}
        more = _SamplerAhead(batches)
        while sent - batches.position < self.in_flight and more.has(sent):
            self.index_qs[sent % nw].put((serial, sent, batches.batch(sent), batch_seed(base_seed, sent)))
            sent += 1
        while batches.position < sent:
            want = batches.position
            while want not in ready:
                s, index, data, failure = self._receive()
                if s is None:
                    failure.reraise()  # worker_init_fn failed
                if s == serial:  # else: a batch of an epoch that was abandoned
                    ready[index] = (data, failure)
            data, failure = ready.pop(want)
            batches.position += 1  # (a batch that failed uses its place, as in PyTorch)
            if more.has(sent):
                self.index_qs[sent % nw].put((serial, sent, batches.batch(sent), batch_seed(base_seed, sent)))
                sent += 1
            yield data if failure is None else FailedBatch(failure)
        more.raise_error()

    def run_iterable(self, base_seed: int) -> Iterator[Any]:
        """An IterableDataset's batches as PyTorch's workers give them: each worker iterates its own copy
        of the dataset (``get_worker_info()`` lets it take its shard) and makes whole batches; they are
        taken from the workers in turn, 0, 1, ..., a worker leaving the turn once its copy is exhausted.
        The fetch object gets ``("next", epoch_serial)`` and restarts its iterator on a new serial."""
        self.serial += 1
        serial, nw = self.serial, len(self.index_qs)
        pending: list[deque[int]] = [deque() for _ in range(nw)]  # each worker's requests, in order
        asked = [0] * nw
        sent = 0
        ready: dict[int, tuple[Any, _Failure | None]] = {}

        def ask(w: int) -> None:
            nonlocal sent
            # worker w's k-th batch of the epoch draws from a stream of its own, as a map-style batch does
            key = batch_seed(batch_seed(base_seed, w), asked[w])
            self.index_qs[w].put((serial, sent, ("next", serial), key))
            pending[w].append(sent)
            asked[w] += 1
            sent += 1

        for _ in range(self.in_flight // nw):
            for w in range(nw):
                ask(w)
        active = list(range(nw))
        while active:
            for w in list(active):
                want = pending[w].popleft()
                while want not in ready:
                    s, index, data, failure = self._receive()
                    if s is None:
                        failure.reraise()  # worker_init_fn failed
                    if s == serial:
                        ready[index] = (data, failure)
                data, failure = ready.pop(want)
                if isinstance(data, Exhausted):
                    active.remove(w)
                    continue
                ask(w)  # (after a failure its copy's iterator has ended: it answers Exhausted, as PyTorch's)
                yield data if failure is None else FailedBatch(failure)

    def _receive(self) -> tuple[Any, int, Any, _Failure | None]:
        start = time.monotonic()
        while True:
            try:
                return self.result_q.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                pass
            dead = [p for p in self.workers if not p.is_alive()]
            if dead:
                self.shutdown()
                detail = ", ".join(f"{p.name} (pid {p.pid}) exit code {p.exitcode}" for p in dead)
                raise RuntimeError(f"DataLoader worker(s) exited unexpectedly: {detail}; a signal such as "
                                   f"-9 means it was killed (out of memory?)")
            if self.timeout > 0 and time.monotonic() - start > self.timeout:
                self.shutdown()
                raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds waiting for a batch "
                                   f"from its workers")

    def shutdown(self) -> None:
        """Stop the workers (asked first, terminated if they do not stop within a second)."""
        if self.closed or os.getpid() != self.owner:  # (a copy in a forked child: the processes are not its)
            return
        self.closed = True
        for q, p in zip(self.index_qs, self.workers):
            if p.is_alive():
                try:
                    q.put(None)
                except (OSError, ValueError):
                    pass
        deadline = time.monotonic() + 1.0
        for p in self.workers:
            p.join(timeout=max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.terminate()
                p.join(timeout=1.0)
        for q in [*self.index_qs, self.result_q]:
            q.cancel_join_thread()  # never block the interpreter's exit on a queue's feeder thread
            q.close()


def _context(context: Any) -> Any:
    """A multiprocessing context: the one given (or its name), else ``fork`` where the platform
    has it (the dataset and functions need not pickle), else the platform's default."""
    if context is None:
        methods = multiprocessing.get_all_start_methods()
        return multiprocessing.get_context("fork" if "fork" in methods else None)
    if isinstance(context, str):
        return multiprocessing.get_context(context)
    return context
