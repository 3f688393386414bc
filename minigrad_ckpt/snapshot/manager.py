"""``SnapshotManager``: a directory of snapshots with retention by iteration.

The manager keeps a manifest (``MANIFEST.msgpack``, written atomically) of
the snapshots *it* wrote: file name, iteration, checksum and base.  It

* orders snapshots by **iteration** (never by file time),
* keeps the newest ``max_snapshots`` and deletes older ones -- only files it
  wrote, and never a base that a kept incremental snapshot still needs,
* loads the newest snapshot that verifies, falling back to older ones if the
  newest is damaged (with a warning naming what was skipped and why).
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any

from ..distributed.snapshot import collective as _collective
from ..executor import Executor
from .config import SnapshotConfig
from .format import SnapshotError, msgpack
from .fsutil import atomic_write
from .snapshot import Snapshot

__all__ = ["SnapshotManager"]

MANIFEST = "MANIFEST.msgpack"
_NAME = re.compile(r"^snapshot-(\d{12})(?:\.(\d+))?\.mgsnap$")


class SnapshotManager:
    """Save, list, prune and load snapshots in ``directory``."""

    def __init__(self, directory: str | os.PathLike, max_snapshots: int | None = 5,
                 config: SnapshotConfig | None = None, full_every: int = 10) -> None:
        if max_snapshots is not None and max_snapshots < 1:
            raise ValueError(f"max_snapshots must be None or >= 1, got {max_snapshots}")
        if full_every < 1:
            raise ValueError(f"full_every must be >= 1, got {full_every}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.max_snapshots = max_snapshots
        self.config = config or SnapshotConfig()
        self.full_every = full_every  # an incremental chain is cut by a full snapshot this often

    # ------------------------------------------------------------ manifest
    def _read_manifest(self) -> list[dict[str, Any]]:
        path = self.directory / MANIFEST
        if not path.exists():
            return []
        try:
            return _validate_manifest(msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=True))
        except Exception as exc:
            warnings.warn(f"{path} is unreadable ({exc}); the manager will not delete snapshots it cannot "
                          f"prove it wrote", stacklevel=3)
            return []

    def _write_manifest(self, entries: list[dict[str, Any]]) -> None:
        data = msgpack.packb({"format": "minigrad-ckpt/manifest", "version": 1, "snapshots": entries},
                             use_bin_type=True)
        atomic_write(self.directory / MANIFEST, lambda f: f.write(data), fsync=self.config.fsync)

    # ---------------------------------------------------------------- save
    def path_for(self, iteration: int) -> Path:
        return self.directory / f"snapshot-{int(iteration):012d}.mgsnap"

    def save_snapshot(self, ex: Executor, iteration: int | None = None, config: SnapshotConfig | None = None,
                      metadata: dict[str, str] | None = None, *, _local: bool = False) -> Path:
        """Snapshot ``ex`` at ``iteration`` (default ``ex.iteration``), prune, return the path.

        In a data-parallel run every rank calls it: rank 0 writes one snapshot
        with every rank's RNG state (:mod:`minigrad_ckpt.distributed.snapshot`).
        """
        coll = None if _local else _collective()  # a data-parallel run: every rank takes part
        if coll is not None:
            return coll.save_snapshot(self, ex, iteration, config, metadata)
        config = config or self.config
        it = ex.iteration if iteration is None else int(iteration)
        if it < 0:
            raise ValueError(f"iteration must be >= 0, got {it}")
        entries = [e for e in self._read_manifest() if e["iteration"] != it or e.get("superseded")]
        base = None
        if config.incremental:
            older = sorted((e for e in entries if e["iteration"] < it and not e.get("superseded")),
                           key=lambda e: (e["iteration"], e.get("seq", 0)))
            chain = _chain_length(older[-1], entries) if older else 0
            if older and chain < self.full_every:
                base = self.directory / older[-1]["file"]
        if config.incremental and base is None:
            config = SnapshotConfig(enable_compression=config.enable_compression, include_tape=config.include_tape,
                                    verify_checksum=config.verify_checksum, incremental=False,
                                    limits=config.limits, fsync=config.fsync)
        snap = Snapshot.from_executor_with_config(ex, it, config, base=base, copy=False)  # saved at once
        for k, v in (metadata or {}).items():
            snap.add_metadata(k, v)
        path = self.path_for(it)
        all_entries = self._read_manifest()
        seq = 1 + max((e.get("seq", 0) for e in all_entries), default=0)
        if any(e.get("base") == path.name for e in entries):
            # A kept incremental snapshot is based on the file of this iteration:
            # write beside it instead of over it (the old one goes when unneeded).
            path = self.directory / f"snapshot-{it:012d}.{seq}.mgsnap"
        snap.save(path)
        superseded = [e for e in all_entries if e["iteration"] == it and e["file"] != path.name]
        entries = [e for e in entries if e["file"] != path.name] + [
            dict(e, superseded=True) for e in superseded if any(x.get("base") == e["file"] for x in entries)]
        entries.append({"file": path.name, "iteration": it, "checksum": snap.metadata.checksum,
                        "base": base.name if base is not None else None, "seq": seq})
        entries.sort(key=lambda e: (e["iteration"], e.get("seq", 0)))
        for e in superseded:  # an older file for this iteration that no kept snapshot needs
            if not any(x.get("base") == e["file"] for x in entries) and e["file"] != path.name:
                try:
                    (self.directory / e["file"]).unlink()
                except FileNotFoundError:
                    pass
        self._write_manifest(entries)
        self._prune(entries)
        return path

    def _prune(self, entries: list[dict[str, Any]]) -> None:
        current = [e for e in entries if not e.get("superseded")]
        if self.max_snapshots is None or len(current) <= self.max_snapshots:
            keep = {e["file"] for e in current}
        else:
            keep = {e["file"] for e in current[-self.max_snapshots:]}
        by_file = {e["file"]: e for e in entries}
        for f in list(keep):  # bases of kept snapshots stay
            b = by_file[f].get("base")
            while b is not None and b in by_file:
                keep.add(b)
                b = by_file[b].get("base")
        remaining = [e for e in entries if e["file"] in keep]
        if len(remaining) == len(entries):
            return
        self._write_manifest(remaining)  # first forget them, then delete: a crash leaves only orphans
        for e in entries:
            if e["file"] not in keep:
                try:
                    (self.directory / e["file"]).unlink()
                except FileNotFoundError:
                    pass

    # ---------------------------------------------------------------- load
    def list_snapshots(self) -> list[Path]:
        """Paths of the snapshots this manager wrote, oldest iteration first."""
        return [self.directory / e["file"] for e in self._read_manifest()
                if not e.get("superseded") and (self.directory / e["file"]).exists()]

    def load_latest(self, config: SnapshotConfig | None = None, *, _local: bool = False) -> Snapshot:
        """The newest snapshot (by iteration) that loads and verifies.

        If the newest is damaged the next one is tried, with a warning; if
        none is usable, :class:`SnapshotError`.  Without a manifest, files
        named like the manager's are considered (read-only use).  In a
        data-parallel run every rank calls it and gets its own RNG state; a
        snapshot of another world size is refused.
        """
        coll = None if _local else _collective()
        if coll is not None:
            return coll.load_latest(self, config)
        config = config or SnapshotConfig(verify_checksum=True)
        entries = self._read_manifest()
        candidates = [((e["iteration"], e.get("seq", 0)), self.directory / e["file"]) for e in entries
                      if not e.get("superseded")]
        if not candidates:
            for p in self.directory.iterdir():
                m = _NAME.match(p.name)
                if m:
                    candidates.append(((int(m.group(1)), int(m.group(2) or 0)), p))
        problems = []
        for _, path in sorted(candidates, key=lambda c: c[0], reverse=True):
            try:
                snap = Snapshot.load(path, config)
            except SnapshotError as exc:
                problems.append(f"{path.name}: {exc}")
                continue
            if problems:
                warnings.warn("skipped damaged snapshots: " + "; ".join(problems), stacklevel=2)
            world = snap.get_metadata("distributed.world_size")
            if not _local and world not in (None, "1"):
                raise SnapshotError(f"{path.name} was written by a data-parallel run of {world} ranks; "
                                    f"resuming it in one process is refused (run under mpiexec -n {world})")
            return snap
        detail = ("; ".join(problems)) if problems else "no snapshots"
        raise SnapshotError(f"no usable snapshot in {self.directory}: {detail}")


class ManifestError(ValueError):
    """The manifest is not what the manager writes (its content is untrusted input)."""


def _validate_manifest(data: Any) -> list[dict[str, Any]]:
    """The manifest's entries, every field checked (real checks: they must hold under ``python -O``)."""
    if not isinstance(data, dict) or data.get("format") != "minigrad-ckpt/manifest" or data.get("version") != 1:
        raise ManifestError("not a minigrad-ckpt manifest")
    entries = data.get("snapshots")
    if not isinstance(entries, list):
        raise ManifestError("'snapshots' is not a list")
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            raise ManifestError(f"entry {i} is not a map")
        f, it, base = e.get("file"), e.get("iteration"), e.get("base")
        if not isinstance(f, str) or not _NAME.match(f):
            raise ManifestError(f"entry {i} has an invalid file name")
        if not isinstance(it, int) or isinstance(it, bool) or it < 0:
            raise ManifestError(f"entry {i} has an invalid iteration")
        if base is not None and not (isinstance(base, str) and _NAME.match(base)):
            raise ManifestError(f"entry {i} has an invalid base")
        if not isinstance(e.get("checksum"), (str, type(None))):
            raise ManifestError(f"entry {i} has an invalid checksum")
        seq = e.get("seq", 0)
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            raise ManifestError(f"entry {i} has an invalid sequence number")
        if not isinstance(e.get("superseded", False), bool):
            raise ManifestError(f"entry {i} has an invalid 'superseded' flag")
    return entries


def _chain_length(entry: dict[str, Any], entries: list[dict[str, Any]]) -> int:
    by_file = {e["file"]: e for e in entries}
    n, b = 0, entry.get("base")
    while b is not None and b in by_file:
        n += 1
        b = by_file[b].get("base")
    return n + 1 if entry.get("base") else 0
