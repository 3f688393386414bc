"""The job's world: joining and leaving the process group, this process's rank and the world
size, under PyTorch's names (``init_process_group``, ``get_rank``, ``group.WORLD``, ...).

The world comes from the MPI launcher (``mpiexec -n 2 python train.py``), not from a
rendezvous: PyTorch's rendezvous arguments (``init_method``, ``rank``, ``world_size``) are
accepted so that a PyTorch script runs unchanged, and checked against the launcher's world.
There is one group, the world: a subgroup of some ranks is not offered.
"""

from __future__ import annotations

import datetime
import multiprocessing
import os
import sys
import warnings
from typing import Any

from .. import random as _random
from ..user_frame import stacklevel_outside_the_engine
from ._group import DEFAULT_TIMEOUT, ProcessGroup

# backend names PyTorch scripts pass, and the engine's backend for each: gloo is PyTorch's CPU
# backend, and the engine's CPU collectives run on MPI (the same collectives, another transport)
_BACKENDS = {"mpi": "mpi", "gloo": "mpi", "nccl": "nccl"}

_group: ProcessGroup | None = None


def is_available() -> bool:
    """Whether ``mpi4py`` can be imported (the ``distributed`` extra is installed)."""
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available() -> bool:
    """Whether the ``"mpi"`` backend (CPU tensors) can be used: ``mpi4py`` is installed."""
    return is_available()


def is_nccl_available() -> bool:
    """Whether the ``"nccl"`` backend (CUDA tensors) can be used: CuPy and its NCCL bindings import."""
    from ..backend import cupy_nccl

    try:
        cupy_nccl()
    except ImportError:  # no CuPy, or a CuPy without NCCL
        return False
    return is_available()


def is_gloo_available() -> bool:
    """Whether ``init_process_group("gloo")`` works: PyTorch's CPU backend is served by MPI here."""
    return is_mpi_available()


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


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: float | datetime.timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store: Any = None, group_name: str = "", pg_options: Any = None,
                       device_id: Any = None) -> ProcessGroup:
    """Join the process group: every rank of the job must call this.

    ``backend`` is ``"mpi"`` (CPU tensors), ``"nccl"`` (CUDA tensors, through
    CuPy's NCCL bindings), ``"gloo"`` (PyTorch's CPU backend: here the same CPU
    collectives, on MPI) or ``None``: NCCL when the default device is a GPU,
    else MPI.  The world (rank, size) comes from MPI: under ``mpiexec`` it is
    the job; without a launcher it is this one process (rank 0 of 1).

    PyTorch's rendezvous arguments are accepted so that its scripts run unchanged:
    ``init_method`` (``"env://"``, ``"tcp://..."``, ``"file://..."``) is not needed, the
    launcher having started the world; ``rank`` and ``world_size``, when given, must
    be the launcher's (a ``ValueError`` says what the launcher started otherwise) -- except
    with ``backend="mpi"``, where PyTorch ignores them with a warning (its MPI backend, too,
    takes the world from the launcher: the tutorials write ``init_process_group("mpi", rank=0,
    world_size=0)`` under ``mpirun``).  A
    ``store``, ``pg_options`` or ``device_id`` has nothing to configure here and is refused.

    ``timeout`` (seconds, or a ``datetime.timedelta``; default
    :data:`DEFAULT_TIMEOUT`, 30 minutes, as PyTorch's) bounds every collective
    after this call: one that cannot complete in time -- a rank died, diverged
    or stopped calling collectives -- raises :class:`DistributedError` on the
    ranks that wait and ends the job, instead of hanging.
    """
    global _group, _handle
    if _group is not None:
        raise ValueError("trying to initialize the default process group twice! (init_process_group() was "
                         "already called; call destroy_process_group() first)")
    for name, value in (("store", store), ("pg_options", pg_options), ("device_id", device_id)):
        if value is not None:
            raise ValueError(f"init_process_group: {name}= is not offered (the world comes from the MPI launcher, "
                             f"and a tensor's device picks the backend's device)")
    seconds = _seconds(timeout)
    group = ProcessGroup.create(_backend(backend))
    group.timeout = seconds
    if group.size > 1:  # an error left uncaught on one rank ends every rank's wait
        group.install_abort_on_exception()
    if isinstance(backend, str) and backend.lower() == "mpi" and (world_size != -1 or rank != -1):
        warnings.warn(f"For MPI backend, world_size ({world_size}) and rank ({rank}) are ignored since they are "
                      "assigned by the MPI runtime.", stacklevel=stacklevel_outside_the_engine())
    else:
        _check_launcher_world(group, rank, world_size)
    _group, _handle = group, WorldGroup(group)
    return group


def _backend(backend: str | None) -> str:
    from ..backend import get_default_device

    device = get_default_device().type
    if backend is None:
        return "nccl" if device == "cuda" else "mpi"
    if isinstance(backend, str) and ":" in backend:  # PyTorch's per-device form, "cpu:gloo,cuda:nccl"
        return _backend_for(backend, device)
    if not isinstance(backend, str) or backend.lower() not in _BACKENDS:
        raise ValueError(f"backend must be 'mpi', 'gloo' (served by MPI), 'nccl' or None, got {backend!r}")
    return _BACKENDS[backend.lower()]


def _backend_for(spec: str, device: str) -> str:
    """The backend that PyTorch's ``"cpu:gloo,cuda:nccl"`` names for the default device's type: the
    engine's group has one backend, that of the tensors it will carry."""
    pairs = [part.split(":") for part in spec.lower().split(",")]
    if any(len(pair) != 2 or pair[0].strip() not in ("cpu", "cuda") or pair[1].strip() not in _BACKENDS
           for pair in pairs):
        raise ValueError(f"backend {spec!r}: expected PyTorch's '<device>:<backend>,...' with devices cpu, cuda and "
                         f"backends mpi, gloo, nccl")
    chosen = {d.strip(): b.strip() for d, b in pairs}
    if device not in chosen:
        raise ValueError(f"backend {spec!r} names no backend for the default device ({device})")
    return _BACKENDS[chosen[device]]


def _check_launcher_world(group: ProcessGroup, rank: int, world_size: int) -> None:
    """PyTorch's ``rank=`` and ``world_size=`` must describe the world the launcher started."""
    # a process that mg.multiprocessing.spawn (or Python's multiprocessing) started is a world of its own
    spawned = (" -- a process started by (mg.)multiprocessing.spawn is a one-process world of its own: start the "
               "script with mpiexec -n N, and call its main once per rank" if multiprocessing.parent_process() else "")
    if world_size not in (-1, None) and world_size != group.size:
        raise ValueError(f"init_process_group(world_size={world_size}), but the launcher started {group.size} "
                         f"process(es): the world comes from it (mpiexec -n {world_size} ...){spawned}")
    if rank not in (-1, None) and rank != group.rank:
        raise ValueError(f"init_process_group(rank={rank}), but the launcher made this process rank {group.rank}: "
                         f"read the rank from get_rank() after init_process_group(){spawned}")


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


class WorldGroup:
    """The world group as PyTorch's scripts hold it (``dist.group.WORLD``, ``new_group()``): its
    ``size()`` and ``rank()`` are methods, as PyTorch's ``ProcessGroup``'s (the engine's own group,
    ``dist.group()``, has them as numbers); accepted wherever ``group=`` or ``process_group=`` is."""

    __slots__ = ("group",)

    def __init__(self, group: ProcessGroup) -> None:
        self.group = group

    def size(self) -> int:
        return self.group.size

    def rank(self) -> int:
        return self.group.rank

    def __repr__(self) -> str:
        return f"<the world group: {self.group!r}>"


_handle: WorldGroup | None = None  # dist.group.WORLD for the current group


class _GroupAccess:
    """``group()``: the current process group (an error naming the fix if there is none);
    ``group.WORLD``: PyTorch's name for it, a :class:`WorldGroup` (``None`` before ``init_process_group``)."""

    def __call__(self) -> ProcessGroup:
        if _group is None:
            raise RuntimeError("no process group: call minigrad_ckpt.distributed.init_process_group() first")
        return _group

    @property
    def WORLD(self) -> WorldGroup | None:  # noqa: N802 (PyTorch's name)
        return _handle

    def __repr__(self) -> str:
        return f"<the process group: {_group!r}>"


group = _GroupAccess()


def world_group(given: Any, what: str) -> ProcessGroup:
    """The process group a collective's ``group=`` names: ``None`` or the world group."""
    current = group()
    if given is None or given is current or given is _handle:
        return current
    raise ValueError(f"{what}: group= must be None or the world group (dist.group.WORLD), got {given!r}; "
                     f"subgroups of ranks are not offered")


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank, ``0 <= rank < world size`` (0 without a process group)."""
    if _group is None:
        return 0
    return world_group(group, "get_rank").rank


def get_world_size(group: ProcessGroup | None = None) -> int:
    """How many processes take part (1 without a process group)."""
    if _group is None:
        return 1
    return world_group(group, "get_world_size").size


def get_backend(group: ProcessGroup | None = None) -> str:
    """The backend of the process group: ``"mpi"`` (CPU tensors) or ``"nccl"`` (CUDA tensors)."""
    return world_group(group, "get_backend").backend


def new_group(ranks: Any = None, timeout: Any = None, backend: Any = None, pg_options: Any = None,
              use_local_synchronization: bool = False, group_desc: str | None = None,
              device_id: Any = None) -> WorldGroup:
    """PyTorch's subgroup constructor, for the one group offered: ``ranks`` ``None`` or every
    rank gives the world group (``dist.group.WORLD``); a subset of ranks raises ``NotImplementedError``."""
    g = group()
    if ranks is not None and sorted(int(r) for r in ranks) != list(range(g.size)):
        raise NotImplementedError(f"new_group(ranks={list(ranks)}): subgroups of ranks are not offered; only the "
                                  f"world group of all {g.size} ranks (ranks=None) is")
    return _handle


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    """The world ranks of ``group``'s members: every rank (the one group offered is the world)."""
    return list(range(world_group(group, "get_process_group_ranks").size))


def get_global_rank(group: ProcessGroup | None, group_rank: int) -> int:
    """The world rank of ``group``'s rank ``group_rank``: the same number, unchecked, as PyTorch's for the
    world group (the one group offered)."""
    world_group(group, "get_global_rank")
    return group_rank


def get_group_rank(group: ProcessGroup | None, global_rank: int) -> int:
    """``group``'s rank of world rank ``global_rank``: the same number, as PyTorch's for the world group."""
    world_group(group, "get_group_rank")
    return global_rank


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """This process's rank on its machine: torchrun's ``LOCAL_RANK`` (``python -m minigrad_ckpt.distributed.run``
    sets it), else the process group's ``local_rank`` (under a bare ``mpiexec``), else ``fallback_rank``."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if _group is not None:
        return _group.local_rank
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context and "
                       "want the code to run locally instead.")


def is_torchelastic_launched() -> bool:
    """Whether torchrun (or its counterpart here, ``python -m minigrad_ckpt.distributed.run``) started this
    process: PyTorch's test, ``TORCHELASTIC_RUN_ID`` in the environment."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Leave the process group (collectives are refused afterwards)."""
    global _group, _handle
    if _group is None:
        return
    world_group(group, "destroy_process_group")
    g, _group, _handle = _group, None, None
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
    return _random.manual_seed(seed + place_in_job("manual_seed_per_rank")[0])


def place_in_job(what: str) -> tuple[int, int]:
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
