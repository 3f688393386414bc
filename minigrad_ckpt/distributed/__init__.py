"""Data-parallel training across processes: collectives on MPI (CPU) and NCCL (GPU).

Run the same script once per process with ``mpiexec``::

    mpiexec -n 2 python train.py

and in it::

    import minigrad_ckpt as mg
    from minigrad_ckpt import distributed as dist

    dist.init_process_group()          # the world comes from mpiexec (size 1 without it)
    dist.manual_seed_per_rank(0)       # dropout masks differ per rank
    model = mg.nn.parallel.DistributedDataParallel(model)

The collectives work in place on a tensor's array: MPI's buffer interface
(``Allreduce`` / ``Iallreduce`` / ``Bcast`` / ``Allgather``) for NumPy arrays,
never pickling; NCCL (through CuPy) for CuPy arrays, on the device, without a
host copy.  ``mpi4py`` is imported when a process group is created, not when
this package is imported, so the engine needs it only for distributed runs:
``pip install ".[distributed]"`` (mpi4py + the MPICH wheel).

An unhandled exception on any rank of a multi-process run aborts the whole
job (``MPI_Abort``): every rank exits non-zero within seconds instead of
waiting forever in a collective the failed rank will never join.

See ``docs/distributed.md`` for how DistributedDataParallel works.
"""

from __future__ import annotations

import datetime
import os
import sys
from typing import Any

from .. import random as _random
from ..tensor import Tensor
from ._group import DEFAULT_TIMEOUT, DistributedError, ProcessGroup, ReduceOp

__all__ = [
    "init_process_group", "is_initialized", "is_available", "get_rank", "get_world_size", "barrier",
    "all_reduce", "broadcast", "all_gather", "destroy_process_group", "manual_seed_per_rank",
    "launched_by_mpi", "abort", "print0", "group", "ProcessGroup", "DistributedError", "DEFAULT_TIMEOUT",
]

_OPS = ("sum", "mean", "max", "min")


_group: ProcessGroup | None = None


def is_available() -> bool:
    """Whether ``mpi4py`` can be imported (the ``distributed`` extra is installed)."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def launched_by_mpi() -> bool:
    """Whether this process was started by an MPI launcher with more than one rank.

    Reads the launcher's environment only (no MPI import): MPICH/Hydra and
    Intel MPI set ``PMI_SIZE``, Open MPI ``OMPI_COMM_WORLD_SIZE``, Slurm's PMI
    ``PMI_SIZE`` or ``SLURM_NTASKS`` with ``PMI_RANK``.
    """
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"):
        try:
            if int(os.environ.get(var, "1")) > 1:
                return True
        except ValueError:
            pass
    return False


def init_process_group(backend: str | None = None, timeout: float | datetime.timedelta | None = None) -> ProcessGroup:
    """Join the process group: every rank of the job must call this.

    ``backend`` is ``"mpi"`` (CPU tensors), ``"nccl"`` (CUDA tensors, through
    CuPy's NCCL bindings) or ``None``: NCCL when the default device is a GPU,
    else MPI.  The world (rank, size) comes from MPI: under ``mpiexec`` it is
    the job; without a launcher it is this one process (rank 0 of 1).

    ``timeout`` (seconds, or a ``datetime.timedelta``; default
    :data:`DEFAULT_TIMEOUT`, 30 minutes, as PyTorch's) bounds every collective
    after this call: one that cannot complete in time -- a rank died, diverged
    or stopped calling collectives -- raises :class:`DistributedError` on the
    ranks that wait and ends the job, instead of hanging.
    """
    global _group
    if _group is not None:
        raise RuntimeError("init_process_group() was already called; call destroy_process_group() first")
    seconds = _seconds(timeout)
    if backend is None:
        from ..backend import get_default_device

        backend = "nccl" if get_default_device().type == "cuda" else "mpi"
    if backend not in ("mpi", "nccl"):
        raise ValueError(f"backend must be 'mpi', 'nccl' or None, got {backend!r}")
    group = ProcessGroup.create(backend)
    group.timeout = seconds
    _group = group
    if group.size > 1:
        group.install_abort_on_exception()
    return group


def _seconds(timeout: Any) -> float:
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, datetime.timedelta):
        timeout = timeout.total_seconds()
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < float("inf"):
        raise ValueError(f"timeout must be a positive, finite number of seconds or a timedelta, got {timeout!r}")
    return float(timeout)


def is_initialized() -> bool:
    """Whether ``init_process_group`` has been called (and not destroyed)."""
    return _group is not None


def group() -> ProcessGroup:
    """The current process group (an error naming the fix if there is none)."""
    if _group is None:
        raise RuntimeError("no process group: call minigrad_ckpt.distributed.init_process_group() first")
    return _group


def get_rank() -> int:
    """This process's rank, ``0 <= rank < world size`` (0 without a process group)."""
    return _group.rank if _group is not None else 0


def get_world_size() -> int:
    """How many processes take part (1 without a process group)."""
    return _group.size if _group is not None else 1


def barrier() -> None:
    """Wait until every rank has reached this call."""
    group().barrier()


def _array_of(tensor: Any, what: str) -> Any:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what} takes a Tensor, got {type(tensor).__name__}")
    return tensor._data


def all_reduce(tensor: Tensor, op: str = "sum") -> Tensor:
    """Combine ``tensor`` across ranks, in place: afterwards every rank holds the
    same ``sum`` / ``mean`` / ``max`` / ``min`` (bitwise the same on every rank).
    Returns ``tensor``.  ``mean`` needs a floating tensor."""
    if op not in _OPS:
        raise ValueError(f"op must be one of {', '.join(_OPS)}; got {op!r}")
    arr = _array_of(tensor, "all_reduce")
    if op == "mean" and arr.dtype.kind not in "fc":
        raise TypeError(f"all_reduce(op='mean') needs a floating tensor, got {arr.dtype}")
    tensor.prepare_write()
    group().all_reduce(arr, ReduceOp(op))
    tensor.increment_version()  # MPI wrote into the array
    return tensor


def broadcast(tensor: Tensor, src: int = 0) -> Tensor:
    """Overwrite ``tensor`` on every rank with rank ``src``'s values, in place."""
    g = group()
    if not 0 <= src < g.size:
        raise ValueError(f"src must be a rank in [0, {g.size}), got {src}")
    arr = _array_of(tensor, "broadcast")
    tensor.prepare_write()
    g.broadcast(arr, src)
    tensor.increment_version()
    return tensor


def all_gather(tensor: Tensor) -> list[Tensor]:
    """Every rank's ``tensor`` (same shape and dtype on all ranks), in rank order."""
    arr = _array_of(tensor, "all_gather")
    out = group().all_gather(arr)
    # out[i, ...] keeps a 0-d row an array (out[i] would be a NumPy scalar)
    return [Tensor.constant(out[i, ...], tensor._device) for i in range(out.shape[0])]


def destroy_process_group() -> None:
    """Leave the process group (collectives are refused afterwards)."""
    global _group
    if _group is None:
        return
    g, _group = _group, None
    g.close()


def abort(message: str = "", code: int = 1) -> None:
    """End the whole job now (``MPI_Abort``): every rank exits with a non-zero code.

    Use it where a rank cannot go on but would otherwise exit normally (a
    caught error, ``sys.exit(1)``): a rank that simply exits leaves the others
    waiting in their next collective.
    """
    if message:
        sys.stderr.write(f"[rank {get_rank()}] {message}; aborting all {get_world_size()} ranks\n")
        sys.stderr.flush()
    if _group is None:
        raise SystemExit(code)
    _group.abort(code)


def manual_seed_per_rank(seed: int) -> _random.Generator:
    """``mg.manual_seed(seed + rank)``: the idiom for data-parallel runs, so that each
    rank draws its own dropout masks (parameters still start equal: DDP broadcasts
    them from rank 0).  Call it after :func:`init_process_group`: before, under a
    launcher of several ranks, it is an error (every rank would take rank 0's seed)."""
    return _random.manual_seed(seed + _place_in_job("manual_seed_per_rank")[0])


def _place_in_job(what: str) -> tuple[int, int]:
    """``(rank, world size)`` for ``what``, which needs this process's own place in the job.

    Without a process group a process is rank 0 of 1 -- but one that an MPI launcher
    started as one of several ranks is not: every rank would take rank 0's seed, or
    rank 0's shard (the whole dataset).  That is an error naming the fix.
    """
    if _group is None and launched_by_mpi():
        raise RuntimeError(f"{what}: this process is one of several ranks an MPI launcher started, but there is "
                           f"no process group yet, so every rank would be rank 0 of 1 (rank 0's seed, the whole "
                           f"dataset on every rank); call minigrad_ckpt.distributed.init_process_group() first")
    return get_rank(), get_world_size()


def print0(*args: Any, **kwargs: Any) -> None:
    """``print`` on rank 0 only."""
    if get_rank() == 0:
        print(*args, **kwargs)
        sys.stdout.flush()
