"""Data-parallel training across processes: collectives on MPI (CPU) and NCCL (GPU).

Run the same script once per process with ``mpiexec``::

    mpiexec -n 2 python train.py

and in it::

    import minigrad_ckpt as mg
    from minigrad_ckpt import distributed as dist

    dist.init_process_group()          # the world comes from mpiexec (size 1 without it)
    dist.manual_seed_per_rank(0)       # dropout masks differ per rank
    model = mg.nn.parallel.DistributedDataParallel(model)

The names, arguments and meanings are PyTorch's (``torch.distributed``): the world
and its group in ``world.py``, the collectives in ``collectives.py``.  They work in
place on a tensor's array: MPI's buffer interface (``Allreduce`` / ``Iallreduce`` /
``Bcast`` / ``Allgather``) for NumPy arrays, never pickling; NCCL (through CuPy)
for CuPy arrays, on the device, without a host copy.  ``mpi4py`` is imported when a process group is created, not when
this package is imported, so the engine needs it only for distributed runs:
``pip install ".[distributed]"`` (mpi4py + the MPICH wheel).

An unhandled exception on any rank of a multi-process run aborts the whole
job (``MPI_Abort``): every rank exits non-zero within seconds instead of
waiting forever in a collective the failed rank will never join.

See ``docs/distributed.md`` for how DistributedDataParallel works.
"""

from __future__ import annotations

from . import algorithms  # noqa: F401 (dist.algorithms.join.Join, as torch.distributed's)
from ._group import DEFAULT_TIMEOUT, DistributedError, ProcessGroup, ReduceOp, Work, reduce_op
from .collectives import (
    all_gather,
    all_gather_into_tensor,
    all_gather_object,
    all_reduce,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    broadcast_object_list,
    gather,
    gather_object,
    monitored_barrier,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    scatter_object_list,
)
from .grad_bucket import GradBucket
from .p2p import irecv, isend, recv, send
from .world import (
    abort,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_node_local_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    launched_by_mpi,
    manual_seed_per_rank,
    new_group,
    place_in_job,  # noqa: F401 (utils.data.DistributedSampler asks for its place: not a public name)
    print0,
)

__all__ = [
    "init_process_group", "is_initialized", "is_available", "is_mpi_available", "is_nccl_available",
    "is_gloo_available", "get_rank", "get_world_size", "get_backend", "new_group", "barrier", "monitored_barrier",
    "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce", "reduce_scatter_tensor",
    "gather", "scatter", "reduce_scatter", "all_to_all", "all_to_all_single", "send", "recv", "isend", "irecv",
    "get_process_group_ranks", "get_global_rank", "get_group_rank", "get_node_local_rank", "is_torchelastic_launched",
    "all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
    "destroy_process_group", "manual_seed_per_rank", "launched_by_mpi", "abort", "print0", "group",
    "ProcessGroup", "ReduceOp", "reduce_op", "Work", "GradBucket", "DistributedError", "DEFAULT_TIMEOUT",
]
