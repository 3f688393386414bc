"""``SnapshotManager``: a directory of snapshots with retention by iteration.

The manager keeps a manifest (``MANIFEST.msgpack``, written atomically) of
the snapshots *it* wrote: file name, iteration, checksum and base.  It

* orders snapshots by **iteration** (never by file time), any iteration in ``[0, 2**63)``;
* treats a resume from an earlier snapshot as a new timeline: that executor's next save
  supersedes the later iterations saved before it (:meth:`SnapshotManager._rollback_point`);
* keeps the newest ``max_snapshots`` and deletes older ones -- only files it
  wrote, and never a base that a kept incremental snapshot still needs;
* writes a full snapshot at least every ``full_every`` saves when the config is
  incremental, so that old chains can be deleted; falls back to a full
  snapshot (with a warning) when the newest one is damaged;
* never overwrites or deletes a file it did not write (a foreign file with its
  name for an iteration makes it write beside it);
* serializes every read-modify-write of the manifest, and every deletion, with
  ``fcntl.flock`` on ``.manager.lock`` in the directory, so several processes can
  save into one directory; ``load_latest`` holds the lock shared, so nothing it
  is reading is pruned under it;
* treats the manifest as untrusted input: a manifest that fails validation
  (types, names, base cycles) is rebuilt from the snapshots on disk that
  verify -- those are then kept but never deleted, since the manager cannot
  prove it wrote them;
* loads the newest snapshot that verifies, falling back to older ones if the
  newest is damaged (with a warning naming what was skipped and why).

``docs/snapshot-format.md`` (The manager) states what it promises under
concurrency and crashes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import stat
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..backend import to_host
from ..distributed.snapshot import collective as _collective
from ..distributed.snapshot import rank_tensors
from ..executor import Executor
from ..user_frame import stacklevel_outside_the_engine
from . import capture as _capture
from . import claims
from .background import BackgroundWriter, SaveHandle, completed
from .config import SnapshotConfig
from .format import INT64_MAX, SnapshotError, msgpack, open_regular
from .fsutil import atomic_write, stale_temp_files
from .ranks import RANK_FILES_KEY, assign, is_rank_file, write_rank_state
from .sections import capture_objects, read_header
from .snapshot import Snapshot

__all__ = ["SnapshotManager"]

MANIFEST = "MANIFEST.msgpack"
LOCK = ".manager.lock"
_NAME = re.compile(r"^snapshot-(\d{12,19})(?:\.(\d{1,19}))?\.mgsnap$")
_MANIFEST_BYTES = 64 << 20


def _parse_name(name: str) -> tuple[int, int] | None:
    """``(iteration, seq)`` for a name the manager writes (canonical digits only), else None."""
    m = _NAME.match(name)
    if m is None:
        return None
    it, seq = int(m.group(1)), int(m.group(2) or 0)
    if it > INT64_MAX or m.group(1) != f"{it:012d}" or (m.group(2) is not None and m.group(2) != str(seq)):
        return None
    return it, seq


class SnapshotManager:
    """Save, list, prune and load snapshots in ``directory``.

    ``max_snapshots``: how many of the newest snapshots to keep (``None``: all).
    ``full_every``: with an incremental config, at least one save in every
    ``full_every`` is a full snapshot (default: ``max_snapshots``, or 10 when
    that is ``None``), so a chain never holds more than ``full_every`` files and
    at most ``max_snapshots + full_every - 1`` snapshot files are kept.
    """

    def __init__(self, directory: str | os.PathLike, max_snapshots: int | None = 5,
                 config: SnapshotConfig | None = None, full_every: int | None = None) -> None:
        if max_snapshots is not None and (not isinstance(max_snapshots, int) or max_snapshots < 1):
            raise ValueError(f"max_snapshots must be None or an int >= 1, got {max_snapshots!r}")
        if full_every is None:
            full_every = max_snapshots if max_snapshots is not None else 10
        if not isinstance(full_every, int) or full_every < 1:
            raise ValueError(f"full_every must be an int >= 1, got {full_every!r}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.max_snapshots = max_snapshots
        self.config = config or SnapshotConfig()
        self.full_every = full_every
        self._writer = BackgroundWriter()

    def __repr__(self) -> str:
        keep = "all" if self.max_snapshots is None else self.max_snapshots
        kind = "incremental" if self.config.incremental else "full"
        return (f"SnapshotManager({str(self.directory)!r}, keeps {keep}, {kind} snapshots, "
                f"a full one at least every {self.full_every})")

    # ------------------------------------------------------------ locking
    @contextlib.contextmanager
    def _lock(self, exclusive: bool) -> Iterator[None]:
        """``flock`` on the directory's lock file: exclusive for changes, shared for reading.
        A directory where the lock file cannot be created (read-only) is read without it."""
        flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.directory / LOCK, flags, 0o666)
        except OSError as exc:
            if exclusive:
                raise SnapshotError(f"cannot create the lock file {self.directory / LOCK}: "
                                    f"{exc.strerror or exc}") from None
            yield
            return
        claims.LOCK_FDS.add(fd)  # closed in a forked child (see claims.LOCK_FDS)
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
            if regular:
                fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            elif exclusive:
                raise SnapshotError(f"{self.directory / LOCK} is not a regular file; remove it")
            yield
        finally:
            claims.LOCK_FDS.discard(fd)
            os.close(fd)  # closing releases the lock

    # ------------------------------------------------------------ manifest
    def _read_manifest(self) -> tuple[list[dict[str, Any]], str]:
        """``(entries, status)``: the validated manifest (``"ok"``); no entries if there is none
        (``"missing"``); or, if it fails validation, entries rebuilt from the snapshots on disk that
        load and verify, marked ``adopted`` -- kept, never deleted (``"rebuilt"``)."""
        path = self.directory / MANIFEST
        if not os.path.lexists(path):
            return [], "missing"
        try:
            f, _, _ = open_regular(path)  # never blocks on a FIFO put in its place
            with f:
                raw = f.read(_MANIFEST_BYTES + 1)
        except (SnapshotError, OSError) as exc:
            problem: Exception = exc
        else:
            try:
                if len(raw) > _MANIFEST_BYTES:
                    raise ManifestError("over 64 MiB")
                return _validate_manifest(msgpack.unpackb(raw, raw=False, strict_map_key=True)), "ok"
            except Exception as exc:  # msgpack raises many types for malformed input
                problem = exc
        warnings.warn(f"{path} is unreadable ({str(problem)[:200]}); rebuilt from the snapshots on disk that "
                      f"verify, which the manager keeps but will not delete (it cannot prove it wrote them)",
                      stacklevel=stacklevel_outside_the_engine())
        return self._rebuild(verify=True), "rebuilt"

    def _rebuild(self, verify: bool) -> list[dict[str, Any]]:
        """Entries (``adopted``) for the snapshot-named files on disk; with ``verify``, only those that
        load and verify, with their checksums and bases."""
        found = []
        try:
            names = sorted(e.name for e in os.scandir(self.directory))
        except OSError:
            return []
        for name in names:
            parsed = _parse_name(name)
            if parsed is None:
                continue
            entry = {"file": name, "iteration": parsed[0], "checksum": None, "base": None, "seq": parsed[1],
                     "adopted": True}
            if verify:
                try:
                    snap = Snapshot.load(self.directory / name, replace(self.config, verify_checksum=True))
                except SnapshotError:
                    continue
                if snap.metadata.iteration != parsed[0]:
                    continue
                entry["checksum"] = snap.metadata.checksum
                entry["base"] = snap.base.path.name if snap.base is not None else None
            found.append(entry)
        files = {e["file"] for e in found}
        found = [e for e in found if e["base"] is None or e["base"] in files]
        found.sort(key=_order)
        return found

    def _write_manifest(self, entries: list[dict[str, Any]]) -> None:
        data = msgpack.packb({"format": "minigrad-ckpt/manifest", "version": 1, "snapshots": entries},
                             use_bin_type=True)
        atomic_write(self.directory / MANIFEST, lambda f: f.write(data), fsync=self.config.fsync)

    # ---------------------------------------------------------------- save
    def path_for(self, iteration: int) -> Path:
        """Where the snapshot of ``iteration`` goes: ``snapshot-<iteration, at least 12 digits>.mgsnap``."""
        return self.directory / f"snapshot-{_check_iteration(iteration):012d}.mgsnap"

    def save_snapshot(self, ex: Executor, iteration: int | None = None, config: SnapshotConfig | None = None,
                      metadata: dict[str, str] | None = None, *, blocking: bool = True, _local: bool = False,
                      _rank_files: list[str] | None = None) -> Path | SaveHandle:
        """Snapshot ``ex`` at ``iteration`` (default ``ex.iteration``), prune, return the path.

        The whole save -- reading the manifest, choosing the base, writing the file,
        updating the manifest, pruning -- holds the directory's lock, so concurrent
        saves from several processes are applied one after the other.

        ``blocking=False`` returns at once with a :class:`~.background.SaveHandle`
        (``wait()``, ``done()``, ``result()`` -> the path): the state is captured at
        the call by reference and copied on write (:mod:`.copy_on_write`: the
        snapshot holds the values of the call, whatever the next steps change) and
        a background thread copies, writes and commits it as a blocking save would.  A failed save is
        raised by its handle and by the next ``save_snapshot`` or :meth:`wait`;
        the interpreter finishes saves in flight before it exits.

        In a data-parallel run every rank calls it: each rank writes its own
        state (RNG, registered objects such as its DataLoader) to a rank file,
        rank 0 writes the replicated state and then the manifest, which commits
        the snapshot (:mod:`minigrad_ckpt.distributed.snapshot`, :mod:`.ranks`).
        """
        coll = None if _local else _collective()  # a data-parallel run: every rank takes part
        if coll is not None:
            return coll.save_snapshot(self, ex, iteration, config, metadata, blocking)
        if not _local:
            self._writer.raise_failure()
        config = config or self.config
        it = _check_iteration(ex.iteration if iteration is None else iteration)
        if not blocking:
            return self._save_in_background(ex, it, config, metadata, _rank_files)
        return self._commit(ex, None, it, config, metadata, _rank_files, None, None)

    def _save_in_background(self, ex: Executor, it: int, config: SnapshotConfig, metadata: dict[str, str] | None,
                            rank_files: list[str] | None) -> SaveHandle:
        """Capture ``ex`` by reference (copy-on-write, :mod:`.copy_on_write`), reserve the
        snapshot's name, and leave the copies, the write and the commit to the writer thread."""
        captured = _capture.capture(ex, it, config, copy=False)
        captured.versions = {}  # copy-on-write keeps the values of the call: no later write is refused
        pending = self._writer.pending(captured.tensors)
        try:
            with self._lock(exclusive=True):
                entries, _ = self._read_manifest()
                reserved = self._free_path(it, 1 + max((e.get("seq", 0) for e in entries), default=0), entries)
                rollback = self._rollback_point(ex, entries)  # what was saved before the call
                if self._holds(ex.resumed_from):
                    ex.resumed_from = None  # the saves that follow continue this one's timeline
        except BaseException:
            pending.release()
            raise

        def write() -> Path:
            try:
                captured.tensors = pending.copy_all()  # first, beside the loop; then no live array is read
            except BaseException:
                self._remove_rank_files(rank_files or [])
                if rank_files:
                    claims.release(self.directory, claims.token_of(rank_files[0]))
                raise
            return self._commit(None, captured, it, config, metadata, rank_files, reserved, rollback)

        handle = self._writer.submit(write, it, pending)
        handle.path = reserved
        return handle

    def wait(self) -> None:
        """Finish every asynchronous save in flight; raise the first failure not yet raised."""
        self._writer.wait()

    @staticmethod
    def _completed(path: Path, iteration: int) -> SaveHandle:
        """The handle of a rank whose part of a collective asynchronous save is already written."""
        handle = completed(path, iteration)
        handle.path = path
        return handle

    def _commit(self, ex: Executor | None, captured: Any, it: int, config: SnapshotConfig,
                metadata: dict[str, str] | None, rank_files: list[str] | None, reserved: Path | None,
                rollback: tuple[int, int] | None) -> Path:
        """Write the snapshot of ``ex`` (captured now, without a copy) or of ``captured``, record it in the
        manifest (the commit point) and prune -- all holding the directory's lock.  ``rollback``: an
        asynchronous save's :meth:`_rollback_point`, taken at its call."""
        try:
            with self._lock(exclusive=True):
                return self._commit_locked(ex, captured, it, config, metadata, rank_files, reserved, rollback)
        finally:
            if rank_files:  # committed or failed: the save's claim on its rank files ends
                claims.release(self.directory, claims.token_of(rank_files[0]))

    def _commit_locked(self, ex: Executor | None, captured: Any, it: int, config: SnapshotConfig,
                       metadata: dict[str, str] | None, rank_files: list[str] | None, reserved: Path | None,
                       rollback: tuple[int, int] | None) -> Path:
        """:meth:`_commit`'s work, with the directory's lock held."""
        entries, _ = self._read_manifest()
        if ex is not None:
            rollback = self._rollback_point(ex, entries)
        base = self._choose_base(entries, it, config) if config.incremental else None
        if config.incremental and base is None:
            config = replace(config, incremental=False)
        if captured is None:
            snap = Snapshot.from_executor_with_config(ex, it, config, base=base, copy=False)  # saved at once
        else:
            snap = Snapshot(captured.metadata, captured.tensors, captured.state, config)
            snap.base = base
        for k, v in (metadata or {}).items():
            snap.add_metadata(k, v)
        seq = 1 + max((e.get("seq", 0) for e in entries), default=0)
        path = self._free_path(it, seq, entries)
        if reserved is not None and reserved.name not in {e["file"] for e in entries} and (
                not os.path.lexists(reserved)):
            path = reserved  # the name the caller was told, still free
        try:
            snap.save(path)
            entries = self._record(entries, path, it, snap, base, seq, rank_files, rollback)
            self._write_manifest(entries)
        except BaseException:
            self._remove_rank_files(rank_files or [])  # never committed: nothing will name them
            raise
        if ex is not None and self._holds(ex.resumed_from):
            ex.resumed_from = None  # its state is this save's now
        self._prune(entries)
        self._remove_orphans(entries)
        self._remove_stale_temp_files()
        return path

    def _remove_stale_temp_files(self) -> None:
        """Delete what a saver killed in the middle of a write left: its temp file for a name the
        manager writes (a snapshot, a rank file, the manifest), once its process is gone -- else each
        crash would keep a snapshot's worth of disk.  Called after a successful save, with the lock held."""
        def owned(name: str) -> bool:
            return name == MANIFEST or _parse_name(name) is not None or is_rank_file(name)

        for path in stale_temp_files(self.directory, owned):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def _remove_orphans(self, entries: list[dict[str, Any]]) -> None:
        """Delete the rank files of collective saves that never committed and never will
        (:mod:`.claims`): named by no manifest entry and no snapshot on disk, claimed by no live save.
        Called after a successful save, with the lock held; if a snapshot's header cannot be
        read, nothing is deleted."""
        found = claims.orphans(self.directory, {r for e in entries for r in e.get("ranks", [])})
        if not found:
            return
        named = self._rank_files_named_on_disk()
        if named is None:
            return
        self._remove_rank_files([n for n in found if n not in named])

    def _rank_files_named_on_disk(self) -> set[str] | None:
        """The rank files every snapshot-named file in the directory lists (from the headers);
        None if one cannot be read."""
        named: set[str] = set()
        for entry in os.scandir(self.directory):
            if _parse_name(entry.name) is None:
                continue
            try:
                f, size, _ = open_regular(self.directory / entry.name)
                with f:
                    header, _, _ = read_header(f, size, self.config.limits)
                listed = header["custom"].get(RANK_FILES_KEY)
                named.update(name for name, _ in (json.loads(listed) if listed is not None else []))
            except (SnapshotError, OSError, ValueError, TypeError):
                return None
        return named

    def _remove_rank_files(self, names: list[str]) -> None:
        """Delete the rank files of a collective save that did not commit (each rank its own,
        or rank 0 all of them): no manifest entry names them, so no prune would ever find them."""
        for name in names:
            if is_rank_file(name):  # only names the manager writes, never a path
                try:
                    (self.directory / name).unlink()
                except FileNotFoundError:
                    pass

    def _choose_base(self, entries: list[dict[str, Any]], it: int, config: SnapshotConfig) -> Snapshot | None:
        """The newest snapshot below ``it``, loaded (its content is compared), if the chain under it is
        short enough; None (a full snapshot) otherwise, or -- with a warning -- if it is damaged."""
        older = [e for e in entries if e["iteration"] < it and not e.get("superseded")]
        if not older:
            return None
        newest = max(older, key=_order)
        if _chain_length(newest, entries) + 1 > self.full_every - 1:
            return None
        try:
            return Snapshot.load(self.directory / newest["file"], replace(config, verify_checksum=True))
        except SnapshotError as exc:
            warnings.warn(f"the newest snapshot {newest['file']} is damaged ({str(exc)[:200]}); writing a full "
                          f"snapshot instead of an incremental one", stacklevel=stacklevel_outside_the_engine())
            return None

    def _holds(self, origin: tuple[str, str, int] | None) -> bool:
        """Whether ``origin`` (an :attr:`Executor.resumed_from`) is a file of this directory."""
        return origin is not None and Path(origin[0]).parent == self.directory.resolve()

    def _rollback_point(self, ex: Executor, entries: list[dict[str, Any]]) -> tuple[int, int] | None:
        """``(iteration, last sequence number)`` when ``ex`` was restored from a snapshot this manager
        wrote and has not been saved here since, else None.

        Training resumed from an earlier snapshot -- after a divergence, say -- is a new timeline:
        the snapshots of later iterations saved until now belong to the abandoned one, and
        ``load_latest`` must never resume it.  So ``ex``'s next save supersedes them.  Saves that
        follow no restore (out of order, or from several processes) supersede nothing."""
        origin = ex.resumed_from
        if not self._holds(origin):
            return None
        name, checksum, iteration = Path(origin[0]).name, origin[1], origin[2]
        if not any(e["file"] == name and e.get("checksum") == checksum for e in entries):
            return None
        return iteration, max(e.get("seq", 0) for e in entries)

    def _free_path(self, it: int, seq: int, entries: list[dict[str, Any]]) -> Path:
        """``path_for(it)``, unless that name is taken by a file the manager may not overwrite (one
        it did not write, or one a kept incremental snapshot is based on): then a fresh
        ``snapshot-<it>.<seq>.mgsnap``."""
        ours = {e["file"]: e for e in entries if not e.get("adopted")}
        path = self.path_for(it)
        needed = any(e.get("base") == path.name for e in entries)
        taken = os.path.lexists(path) and path.name not in ours
        if not (needed or taken or (path.name in {e["file"] for e in entries} and path.name not in ours)):
            return path
        while True:
            alt = self.directory / f"snapshot-{it:012d}.{seq}.mgsnap"
            if not os.path.lexists(alt) and alt.name not in {e["file"] for e in entries}:
                return alt
            seq += 1

    def _record(self, entries: list[dict[str, Any]], path: Path, it: int, snap: Snapshot,
                base: Snapshot | None, seq: int, rank_files: list[str] | None = None,
                rollback: tuple[int, int] | None = None) -> list[dict[str, Any]]:
        """The manifest after writing ``path``: older entries of this iteration are superseded (kept
        while a snapshot is based on them, else their file is deleted if the manager wrote it), and so
        are those a ``rollback`` (:meth:`_rollback_point`) abandons."""
        out = []
        for e in entries:
            if e["file"] == path.name:
                continue  # overwritten
            abandoned = rollback is not None and e["iteration"] > rollback[0] and e.get("seq", 0) <= rollback[1]
            if (e["iteration"] == it or abandoned) and not e.get("superseded"):
                e = dict(e, superseded=True)
            out.append(e)
        entry = {"file": path.name, "iteration": it, "checksum": snap.metadata.checksum,
                 "base": base.path.name if base is not None else None, "seq": seq}
        if rank_files:
            entry["ranks"] = list(rank_files)  # deleted with the snapshot
        out.append(entry)
        out.sort(key=_order)
        return out

    def _prune(self, entries: list[dict[str, Any]]) -> None:
        """Forget, then delete, the files retention no longer keeps (called with the lock held).

        Kept: the newest ``max_snapshots`` current snapshots, every base they need,
        and every adopted file (the manager cannot prove it wrote those).  The
        manifest is not trusted for what is deleted: the bases a kept snapshot
        needs are read from the files' own headers, and a file is deleted only if
        its header checksum is the one the manifest recorded when it was written."""
        current = [e for e in entries if not e.get("superseded")]
        keep = {e["file"] for e in (current if self.max_snapshots is None else current[-self.max_snapshots:])}
        keep |= {e["file"] for e in entries if e.get("adopted")}
        for f in list(keep):
            chain = self._bases_on_disk(f)
            if chain is None:
                return  # a kept file whose bases cannot be read: delete nothing this time
            keep |= chain
        remaining = [e for e in entries if e["file"] in keep]
        if len(remaining) == len(entries):
            return
        self._write_manifest(remaining)  # first forget them, then delete: a crash leaves only orphans
        for e in entries:
            if e["file"] not in keep:
                path = self.directory / e["file"]
                info = _header_info(path, self.config)
                if info is not None and info[0] == e.get("checksum"):
                    for name in [e["file"], *e.get("ranks", [])]:
                        try:
                            (self.directory / name).unlink()
                        except FileNotFoundError:
                            pass

    def _bases_on_disk(self, name: str) -> set[str] | None:
        """The names of every base below ``name``, from the files' headers; None if one cannot be read."""
        out: set[str] = set()
        info = _header_info(self.directory / name, self.config)
        while info is not None and info[1] is not None:
            if info[1] in out or len(out) > self.config.limits.max_base_depth:
                return None
            out.add(info[1])
            info = _header_info(self.directory / info[1], self.config)
        return None if info is None else out

    # ---------------------------------------------------------------- load
    def list_snapshots(self) -> list[Path]:
        """Paths of the manifest's current snapshots, oldest iteration first."""
        with self._lock(exclusive=False):
            entries, _ = self._read_manifest()
        return [self.directory / e["file"] for e in entries
                if not e.get("superseded") and (self.directory / e["file"]).exists()]

    def load_latest(self, config: SnapshotConfig | None = None, *, _local: bool = False,
                    _rank: tuple[int, int] = (0, 1)) -> Snapshot:
        """The newest snapshot (by iteration) that loads and verifies, rank files included.

        If the newest is damaged the next one is tried, with a warning; if
        none is usable, :class:`SnapshotError`.  Without a usable manifest, the
        files named like the manager's are considered (read-only use).  In a
        data-parallel run every rank calls it and gets its own state (RNG,
        registered objects); the world size may differ from the saving run's
        -- an elastic resume (:mod:`.ranks`): a single process resumes a run
        of N ranks as its rank 0, with the data of every rank.
        """
        coll = None if _local else _collective()
        if coll is not None:
            return coll.load_latest(self, config)
        config = config or SnapshotConfig(verify_checksum=True)
        problems = []
        with self._lock(exclusive=False):
            entries, status = self._read_manifest()
            if status == "missing":  # read-only use of a directory of snapshots: go by their names
                entries = self._rebuild(verify=False)
            candidates = sorted((e for e in entries if not e.get("superseded")), key=_order, reverse=True)
            for e in candidates:
                path = self.directory / e["file"]
                try:
                    snap = assign(Snapshot.load(path, config), *_rank)  # reads (and checks) its rank files
                except SnapshotError as exc:
                    problems.append(f"{e['file']}: {exc}")
                    continue
                break
            else:
                detail = ("; ".join(problems)) if problems else "no snapshots"
                raise SnapshotError(f"no usable snapshot in {self.directory}: {detail}")
        if problems:
            warnings.warn("skipped damaged snapshots: " + "; ".join(problems),
                          stacklevel=stacklevel_outside_the_engine())
        return snap

    def _claim_save(self) -> str:
        """A fresh token for a collective save, claimed until it commits or fails (:mod:`.claims`)."""
        return claims.claim(self.directory)

    def _end_claim(self, token: str) -> None:
        claims.release(self.directory, token)

    def _discard_rank_state(self, iteration: int, token: str, rank: int, world: int) -> None:
        """Delete this rank's file of a collective save that failed (if it was written)."""
        from .ranks import rank_file_name

        self._remove_rank_files([rank_file_name(iteration, token, rank, world)])

    @staticmethod
    def _pending_gradients(ex: Executor) -> list[str]:
        """A collective save's question to each rank: its parameters holding gradients no step used."""
        return _capture.pending_gradient_names(ex)

    @staticmethod
    def _warn_of_pending_gradients(prints: list[tuple]) -> None:
        """A collective save's warning, on every rank, of the ranks whose gradients it loses (the
        fourth field of each rank's fingerprint: its pending names)."""
        ranks = [r for r, f in enumerate(prints) if f[3]]
        if ranks:
            _capture.warn_of_pending_gradients(prints[ranks[0]][3], ranks)

    @staticmethod
    def _pending_gradients_checked() -> Any:
        return _capture.pending_gradients_checked()

    def _write_rank_state(self, ex: Executor, iteration: int, token: str, rank: int, world: int,
                          own_tensors: bool = False) -> tuple[str, int]:
        """This rank's file of a collective save: ``(name, CRC-32)``; with ``own_tensors`` it holds
        the model's buffers and the user tensors too (they differ from rank 0's, which the
        snapshot holds)."""
        from .. import random as _random
        from .ranks import rank_file_name

        name = rank_file_name(iteration, token, rank, world)
        tensors = {n: to_host(t._data) for n, t in rank_tensors(ex).items()} if own_tensors else None
        objects = capture_objects(ex)  # first: a loader's state may draw from the RNG, which is kept after it
        crc = write_rank_state(self.directory, name, iteration, rank, world, _random.get_rng_state(),
                               objects, fsync=self.config.fsync, tensors=tensors)
        return name, crc


def _header_info(path: Path, config: SnapshotConfig) -> tuple[str, str | None] | None:
    """``(checksum, base file name or None)`` from a snapshot's header, or None if it cannot be read."""
    try:
        f, size, _ = open_regular(path)
        with f:
            header, _, _ = read_header(f, size, config.limits)
    except (SnapshotError, OSError):
        return None
    base = header["base"]
    return f"crc32:{header['_header_crc32']:08x}", (base["file"] if base is not None else None)


def _check_iteration(it: Any) -> int:
    if isinstance(it, bool) or not isinstance(it, int):
        try:
            import operator

            it = operator.index(it)
        except TypeError:
            raise TypeError(f"iteration must be an int, got {type(it).__name__}") from None
    if not 0 <= it <= INT64_MAX:
        raise ValueError(f"iteration must be in [0, 2**63), got {it}")
    return int(it)


def _order(e: dict[str, Any]) -> tuple[int, int]:
    return (e["iteration"], e.get("seq", 0))


class ManifestError(ValueError):
    """The manifest is not what the manager writes (its content is untrusted input)."""


_ENTRY_KEYS = {"file", "iteration", "checksum", "base", "seq", "superseded", "adopted", "ranks"}


def _validate_manifest(data: Any) -> list[dict[str, Any]]:
    """The manifest's entries, every field checked (real checks: they must hold under ``python -O``):
    types, names the manager writes and their iteration, unique files, bases that are entries,
    and no base cycles."""
    if not isinstance(data, dict) or data.get("format") != "minigrad-ckpt/manifest" or data.get("version") != 1:
        raise ManifestError("not a minigrad-ckpt manifest")
    entries = data.get("snapshots")
    if not isinstance(entries, list):
        raise ManifestError("'snapshots' is not a list")
    by_file: dict[str, dict[str, Any]] = {}
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not set(e) <= _ENTRY_KEYS:
            raise ManifestError(f"entry {i} is not a map of the manifest's fields")
        f, it, base = e.get("file"), e.get("iteration"), e.get("base")
        parsed = _parse_name(f) if isinstance(f, str) else None
        if parsed is None:
            raise ManifestError(f"entry {i} has an invalid file name")
        if not isinstance(it, int) or isinstance(it, bool) or it != parsed[0]:
            raise ManifestError(f"entry {i} has an invalid iteration")
        if base is not None and not (isinstance(base, str) and _parse_name(base) is not None):
            raise ManifestError(f"entry {i} has an invalid base")
        if not isinstance(e.get("checksum"), (str, type(None))):
            raise ManifestError(f"entry {i} has an invalid checksum")
        seq = e.get("seq", 0)
        if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq <= INT64_MAX:
            raise ManifestError(f"entry {i} has an invalid sequence number")
        if not isinstance(e.get("superseded", False), bool) or not isinstance(e.get("adopted", False), bool):
            raise ManifestError(f"entry {i} has an invalid flag")
        ranks = e.get("ranks", [])
        if not isinstance(ranks, list) or not all(is_rank_file(r) for r in ranks):
            raise ManifestError(f"entry {i} has invalid rank files")
        if f in by_file:
            raise ManifestError(f"entry {i} repeats the file {f}")
        by_file[f] = e
    for e in entries:
        seen = {e["file"]}
        b = e.get("base")
        while b is not None:
            if b not in by_file:
                raise ManifestError(f"{e['file']}'s base {b} is not in the manifest")
            if b in seen:
                raise ManifestError(f"the bases of {e['file']} form a cycle")
            seen.add(b)
            b = by_file[b].get("base")
    return sorted(entries, key=_order)


def _chain_length(entry: dict[str, Any], entries: list[dict[str, Any]]) -> int:
    """How many bases lie below ``entry`` (0 for a full snapshot); the manifest has no cycles."""
    by_file = {e["file"]: e for e in entries}
    n, b = 0, entry.get("base")
    while b is not None and b in by_file:
        n += 1
        b = by_file[b].get("base")
    return n
