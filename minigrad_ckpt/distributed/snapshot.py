"""Collective snapshots: what ``SnapshotManager`` does in a multi-rank run.

While a process group of more than one rank exists, the manager asks
:func:`collective` for a :class:`CollectiveSnapshots` and hands its calls to it:

* ``save_snapshot`` on every rank first compares checksums of the model and
  optimizer tensors (replicas that drifted apart are an error, not a snapshot
  of one of them).  Then **each rank writes its own rank file** -- its RNG
  state, its registered objects (its DataLoader's position, its sampler's
  epoch) and, where they differ from rank 0's, its model's buffers (BatchNorm
  statistics of its own batches: ``broadcast_buffers=False``) and its user
  tensors (``Executor.add_tensor``: a rank's own counters) -- and rank 0
  writes **one** snapshot of the replicated state (model, optimizer,
  scheduler, iteration, user tensors) listing the rank files and their CRCs,
  and last the manifest: the commit point.  With
  ``blocking=False`` rank 0's write goes to the background writer.
* ``load_latest`` on every rank loads the newest committed snapshot, checks
  that all ranks got the same one, and gives each rank its own state -- with
  any world size: resuming N ranks' snapshot on M ranks hands the
  interrupted epoch's remaining samples out again (``snapshot/ranks.py``).

Every step is agreed on: if it fails on one rank, every rank raises (no rank
is left waiting).  The ranks must share the snapshot directory (one machine,
or a shared file system).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..backend import to_host

__all__ = ["CollectiveSnapshots", "collective", "rank_tensors", "RANK_FILES_KEY", "WORLD_KEY"]

RANK_FILES_KEY = "distributed.rank_files"  # JSON list of [rank file, CRC-32], in rank order (snapshot/ranks.py)
WORLD_KEY = "distributed.world_size"


def collective() -> CollectiveSnapshots | None:
    """The collective save/load of the current process group, or ``None`` in a single process."""
    from .world import group, is_initialized

    current = group() if is_initialized() else None
    if current is None or current.size == 1:
        return None
    return CollectiveSnapshots(current)


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
        in_join = [r for r, e in enumerate(errors) if isinstance(e, tuple) and e[:1] == ("join",)]
        if in_join:  # DDP's count of the ranks with data (nn/parallel.py), matched with this collective
            raise DistributedError(f"{what}: rank(s) {in_join} were in DistributedDataParallel.join()'s count of "
                                   f"the ranks with data (a forward) instead of this collective save: the ranks "
                                   f"do not save on the same step")
        failed = [(r, e) for r, e in enumerate(errors) if e is not None]
        if failed:
            detail = "; ".join(f"rank {r}: {e}" for r, e in failed)
            raise DistributedError(f"{what} failed on {len(failed)} of {self.group.size} ranks ({detail})") \
                from error
        return result

    # ---------------------------------------------------------------- save
    def save_snapshot(self, manager: Any, ex: Any, iteration: int | None, config: Any,
                      metadata: dict[str, str] | None, blocking: bool = True) -> Any:
        g = self.group
        refuse = getattr(ex.model, "_refuse_collective_in_join", None)  # a DistributedDataParallel's
        if refuse is not None:
            refuse("save_snapshot")
        self._agree("the previous asynchronous save", manager._writer.raise_failure)
        fingerprint = self._agree("preparing the snapshot", lambda: (*_fingerprint(ex, config or manager.config),
                                                                     manager._pending_gradients(ex)))
        it = int(ex.iteration if iteration is None else iteration)
        prints = g.allgather_object((*fingerprint[:2], it, fingerprint[2]))
        differ = [r for r, f in enumerate(prints) if f[0] != prints[0][0]]
        from . import DistributedError

        if differ:
            raise DistributedError(
                f"save_snapshot: the model/optimizer state on rank(s) {differ} differs from rank 0's; "
                f"a data-parallel snapshot stores one replicated copy (are the gradients averaged, e.g. "
                f"by DistributedDataParallel?)")
        if any(f[2] != it for f in prints):
            raise DistributedError(
                f"save_snapshot: the ranks save different iterations {[f[2] for f in prints]}; after an "
                f"uneven epoch, ddp.join(executor=ex) gives every rank the iteration of one that ran to the end")
        # Each rank's own gradients (no_sync() accumulates them rank by rank) are lost on a resume: every
        # rank is told which ranks hold some, and rank 0's capture does not check its own again.
        manager._warn_of_pending_gradients(prints)
        # Rank 0 claims the save before anyone knows its token: until it commits or fails, its
        # rank files are not orphans (snapshot/claims.py); the commit ends the claim.
        claim = self._agree("claiming the save", lambda: manager._claim_save() if g.rank == 0 else None)
        token = g.bcast_object(claim, root=0)
        own_tensors = prints[g.rank][1] != prints[0][1]  # this rank's statistics are its own: keep them
        try:
            with manager._pending_gradients_checked():
                return self._save_claimed(manager, ex, it, token, config, metadata, blocking, own_tensors)
        except BaseException:
            if g.rank == 0:
                manager._end_claim(token)
            raise

    def _save_claimed(self, manager: Any, ex: Any, it: int, token: str, config: Any,
                      metadata: dict[str, str] | None, blocking: bool, own_tensors: bool) -> Any:
        """Every rank writes its file, rank 0 the snapshot and the manifest (see the module docstring)."""
        g = self.group
        try:
            own = self._agree("save_snapshot (each rank writes its own state)",
                              lambda: manager._write_rank_state(ex, it, token, g.rank, g.size, own_tensors))
        except Exception:  # a rank could not write its file: the others delete theirs
            manager._discard_rank_state(it, token, g.rank, g.size)
            raise
        files = g.allgather_object(own)

        def write() -> Any:
            if g.rank != 0:
                return None
            meta = dict(metadata or {})
            meta[RANK_FILES_KEY] = json.dumps([list(f) for f in files])
            meta[WORLD_KEY] = str(g.size)
            return manager.save_snapshot(ex, it, config, meta, blocking=blocking, _local=True,
                                         _rank_files=[name for name, _ in files])

        try:
            out = self._agree("save_snapshot (rank 0 writes)", write)
        except Exception:  # not committed: every rank deletes its own file (rank 0 already did all)
            manager._discard_rank_state(it, token, g.rank, g.size)
            raise
        path = g.bcast_object(str(out) if blocking or g.rank != 0 else str(out.path), root=0)
        if blocking:
            g.barrier()
            return Path(path)
        if g.rank == 0:
            return out
        return manager._completed(Path(path), it)  # this rank's part, its rank file, is written

    # ---------------------------------------------------------------- load
    def load_latest(self, manager: Any, config: Any) -> Any:
        g = self.group
        snap = self._agree("load_latest", lambda: manager.load_latest(config, _local=True,
                                                                      _rank=(g.rank, g.size)))
        ids = g.allgather_object((snap.metadata.iteration, snap.metadata.checksum))
        if any(i != ids[0] for i in ids):
            from . import DistributedError

            raise DistributedError(f"load_latest: the ranks loaded different snapshots {ids}; they must share "
                                   f"the snapshot directory")
        return snap


def _fingerprint(ex: Any, config: Any) -> tuple[int, int]:
    """What the ranks compare before a collective save (a tape is refused: it is each rank's own)."""
    if config.include_tape:
        raise ValueError("include_tape: a recorded tape is this rank's own forward pass (its batch, its "
                         "dropout masks), but a data-parallel snapshot holds one copy of the replicated state: "
                         "every rank would resume with rank 0's tape; save without include_tape")
    return _replicated_checksum(ex), _rank_checksum(ex)


def _replicated_checksum(ex: Any) -> int:
    """A checksum of what must be equal on every rank: parameters and optimizer state
    (not buffers: BatchNorm statistics follow each rank's batch -- until the next
    forward broadcasts rank 0's, or for good with ``broadcast_buffers=False``)."""
    params = {f"model.{n}" for n, _ in ex.model.named_parameters()} if ex.model is not None else set()
    crc = 0
    for name, t in ex.tensors.items():
        if name in params or name.startswith("optimizer."):
            crc = zlib.crc32(name.encode(), crc)
            crc = zlib.crc32(to_host(t._data).tobytes(), crc)
    return crc


def _rank_checksum(ex: Any) -> int:
    """A checksum of :func:`rank_tensors`: a rank whose differs from rank 0's writes its own."""
    crc = 0
    for name, t in rank_tensors(ex).items():
        crc = zlib.crc32(name.encode(), crc)
        crc = zlib.crc32(to_host(t._data).tobytes(), crc)
    return crc


def rank_tensors(ex: Any) -> dict[str, Any]:
    """What may differ between the ranks of a data-parallel run, by snapshot name: the user
    tensors and the model's buffers a snapshot holds (the persistent ones)."""
    out: dict[str, Any] = dict(ex._tensors)
    if ex.model is None:
        return out
    for prefix, m in ex.model.named_modules():  # as Module.state_dict names them
        for name, t in m._buffers.items():
            if t is not None and name not in m._non_persistent:
                out[f"model.{prefix}.{name}" if prefix else f"model.{name}"] = t
    return out
