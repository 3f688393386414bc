"""Collective snapshots: what ``SnapshotManager`` does in a multi-rank run.

While a process group of more than one rank exists, the manager asks
:func:`collective` for a :class:`CollectiveSnapshots` and hands its calls to it:

* ``save_snapshot`` on every rank gathers each rank's RNG state to rank 0,
  which writes **one** snapshot (atomically, as always) holding the replicated
  state -- model, optimizer, scheduler, iteration, rank 0's user tensors --
  plus every rank's RNG state and the world size in its metadata; then a
  barrier.  Before writing, the ranks compare checksums of the model and
  optimizer tensors: replicas that drifted apart are an error, not a
  snapshot of one of them.
* ``load_latest`` on every rank loads that snapshot, checks that all ranks
  got the same one and that the world size matches, and hands each rank its
  own RNG state (``restore_into`` then restores it).

Every step is agreed on: if it fails on one rank, every rank raises (no rank
is left waiting).  The ranks must share the snapshot directory (one machine,
or a shared file system).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from typing import Any

from .. import random as _random
from ..backend import to_host

__all__ = ["CollectiveSnapshots", "collective", "RNG_KEY", "WORLD_KEY"]

RNG_KEY = "distributed.rng_states"      # JSON list: every rank's RNG state, in rank order
WORLD_KEY = "distributed.world_size"


def collective() -> CollectiveSnapshots | None:
    """The collective save/load of the current process group, or ``None`` in a single process."""
    from . import _group

    if _group is None or _group.size == 1:
        return None
    return CollectiveSnapshots(_group)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


class CollectiveSnapshots:
    """The collective versions of ``SnapshotManager.save_snapshot`` / ``load_latest``."""

    def __init__(self, group: Any) -> None:
        self.group = group

    def _agree(self, what: str, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on every rank; if it raised anywhere, raise on every rank."""
        from . import DistributedError

        try:
            result, error = fn(), None
        except Exception as exc:  # reported to every rank, then re-raised here
            result, error = None, exc
        errors = self.group.allgather_object(None if error is None else _describe(error))
        failed = [(r, e) for r, e in enumerate(errors) if e is not None]
        if failed:
            detail = "; ".join(f"rank {r}: {e}" for r, e in failed)
            raise DistributedError(f"{what} failed on {len(failed)} of {self.group.size} ranks ({detail})") \
                from error
        return result

    # ---------------------------------------------------------------- save
    def save_snapshot(self, manager: Any, ex: Any, iteration: int | None, config: Any,
                      metadata: dict[str, str] | None) -> Any:
        g = self.group
        fingerprint = self._agree("preparing the snapshot", lambda: _replicated_checksum(ex))
        prints = g.allgather_object(fingerprint)
        differ = [r for r, f in enumerate(prints) if f != prints[0]]
        if differ:
            from . import DistributedError

            raise DistributedError(
                f"save_snapshot: the model/optimizer state on rank(s) {differ} differs from rank 0's; "
                f"a data-parallel snapshot stores one replicated copy (are the gradients averaged, e.g. "
                f"by DistributedDataParallel?)")
        rngs = g.allgather_object(_random.get_rng_state())

        def write() -> Any:
            if g.rank != 0:
                return None
            meta = dict(metadata or {})
            meta[RNG_KEY] = json.dumps(rngs)
            meta[WORLD_KEY] = str(g.size)
            return str(manager.save_snapshot(ex, iteration, config, meta, _local=True))

        path = self._agree("save_snapshot (rank 0 writes)", write)
        path = g.bcast_object(path, root=0)
        g.barrier()
        from pathlib import Path

        return Path(path)

    # ---------------------------------------------------------------- load
    def load_latest(self, manager: Any, config: Any) -> Any:
        g = self.group
        snap = self._agree("load_latest", lambda: manager.load_latest(config, _local=True))
        ids = g.allgather_object((snap.metadata.iteration, snap.metadata.checksum))
        if any(i != ids[0] for i in ids):
            from . import DistributedError

            raise DistributedError(f"load_latest: the ranks loaded different snapshots {ids}; they must share "
                                   f"the snapshot directory")

        def own_rng() -> dict[str, int] | None:
            world = snap.get_metadata(WORLD_KEY)
            if world is None:
                raise ValueError(f"{snap.path.name} was not written by a distributed run; it has no per-rank "
                                 f"RNG states (load it with Snapshot.load to use rank 0's state everywhere)")
            if int(world) != g.size:
                raise ValueError(f"{snap.path.name} was written by {world} ranks; resuming with {g.size} is "
                                 f"refused (each rank's data shard and RNG stream depend on the world size)")
            return json.loads(snap.get_metadata(RNG_KEY))[g.rank]

        snap.state["rng"] = self._agree("load_latest", own_rng)
        return snap


def _replicated_checksum(ex: Any) -> int:
    """A checksum of what must be equal on every rank: parameters and optimizer state
    (not buffers: BatchNorm statistics follow each rank's batch until the next
    forward broadcasts rank 0's)."""
    params = {f"model.{n}" for n, _ in ex.model.named_parameters()} if ex.model is not None else set()
    crc = 0
    for name, t in ex.tensors.items():
        if name in params or name.startswith("optimizer."):
            crc = zlib.crc32(name.encode(), crc)
            crc = zlib.crc32(to_host(t._data).tobytes(), crc)
    return crc
