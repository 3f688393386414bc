"""``Snapshot``: capture an executor, save it, load it, restore it.

    snap = Snapshot.from_executor(ex, iteration=100)
    snap.add_metadata("note", "before lr decay")
    snap.save("run/step-100.mgsnap")               # atomic: old file or new file, never half
    snap = Snapshot.load("run/step-100.mgsnap")    # verified (checksums) by default
    snap.restore_into(ex)                          # model, optimizer, RNG, iteration, tensors

A snapshot taken from an executor holds a copy of its arrays, so training
can go on while the snapshot keeps the state of that moment.  To save without
the copy (what :class:`SnapshotManager` does: capture and write at once), pass
``copy=False``: the snapshot then refers to the live arrays, remembers their
versions, and refuses to be saved or restored once any of them changed.

The class is the public face; the work is done one idea per module:
:mod:`.config` (what a snapshot holds), :mod:`.capture` (executor -> arrays and
plain data), :mod:`.storage` (file I/O, on top of the byte format in
:mod:`.format`) and :mod:`.restore` (back into an executor, all or nothing).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..executor import Executor
from . import capture as _capture
from . import restore as _restore
from . import storage as _storage
from .config import SnapshotConfig, SnapshotMetadata
from .format import SnapshotError, TensorEntry
from .fsutil import atomic_write, human_bytes

# SnapshotConfig, SnapshotMetadata, atomic_write and human_bytes were defined
# here before the split; they are re-exported so those import paths keep working.
__all__ = ["Snapshot", "SnapshotConfig", "SnapshotMetadata", "atomic_write", "human_bytes"]


class Snapshot:
    """A captured executor state (see the module docstring)."""

    def __init__(self, metadata: SnapshotMetadata, tensors: dict[str, Any], state: dict[str, Any],
                 config: SnapshotConfig | None = None) -> None:
        self.metadata = metadata
        self._tensors = tensors            # name -> array (host or device); tape arrays included
        self.state = state                 # section key -> plain data (.sections.SECTIONS)
        self.config = config or SnapshotConfig()
        self.path: Path | None = None
        self.base: Snapshot | None = None
        self._versions: dict[str, tuple[list, int]] = {}
        self._entries: dict[str, TensorEntry] = {}
        self._file_size: int | None = None
        self._complete = True              # False: a loaded snapshot's record of its base (no tensors)

    # ------------------------------------------------------------- capture
    @classmethod
    def from_executor(cls, ex: Executor, iteration: int | None = None, *, copy: bool = True) -> Snapshot:
        """Capture ``ex`` at ``iteration`` (default ``ex.iteration``) with the default config."""
        return cls.from_executor_with_config(ex, iteration, SnapshotConfig(), copy=copy)

    @classmethod
    def from_executor_with_config(cls, ex: Executor, iteration: int | None, config: SnapshotConfig,
                                  base: Snapshot | str | os.PathLike | None = None, *,
                                  copy: bool = True) -> Snapshot:
        """Capture ``ex`` (a copy unless ``copy=False``; see the module docstring).  With
        ``config.incremental``, ``base`` (a saved or loaded snapshot, or its path) is what
        unchanged tensors refer to."""
        c = _capture.capture(ex, iteration, config, copy=copy)
        snap = cls(c.metadata, c.tensors, c.state, config)
        snap._versions = c.versions
        if config.incremental:
            if base is None:
                raise SnapshotError("an incremental snapshot needs a base snapshot")
            if isinstance(base, Snapshot) and not base._complete:
                base = base.path  # a record of a base, without its tensors: read it (content is compared)
            snap.base = base if isinstance(base, Snapshot) else cls.load(base, config)
            if snap.base.path is None:
                raise SnapshotError("the base of an incremental snapshot must be saved first")
        elif base is not None:
            raise SnapshotError("a base was given but the config is not incremental")
        return snap

    # ---------------------------------------------------------- accessors
    @property
    def tensors(self) -> dict[str, Any]:
        """Name -> array (read it, do not modify it)."""
        return dict(self._tensors)

    def add_metadata(self, key: str, value: str) -> None:
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("snapshot metadata keys and values are strings")
        self.metadata.custom[key] = value

    def get_metadata(self, key: str) -> str | None:
        return self.metadata.custom.get(key)

    def size_bytes(self) -> int:
        """Bytes on disk once saved or loaded; before that, the uncompressed tensor bytes."""
        return self._file_size if self._file_size is not None else self.metadata.total_bytes

    def size_human_readable(self) -> str:
        return human_bytes(self.size_bytes())

    # ------------------------------------------------------- save and load
    def save(self, path: str | os.PathLike) -> Path:
        """Write atomically to ``path`` (temp file in the same directory, fsync, rename, fsync dir)."""
        _capture.check_unchanged(self._versions)
        return _storage.save(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike, config: SnapshotConfig | None = None) -> Snapshot:
        """Read and (by default) verify a snapshot; an incremental one resolves its base chain."""
        return _storage.load(cls, path, config or SnapshotConfig())

    def verify(self) -> None:
        """Re-read the file and check every checksum (raises SnapshotError)."""
        if self.path is None:
            raise SnapshotError("this snapshot has not been saved")
        Snapshot.load(self.path, SnapshotConfig(verify_checksum=True, limits=self.config.limits))

    # ------------------------------------------------------------- restore
    def restore(self) -> Executor:
        """A new Executor holding this snapshot's tensors (as host arrays), iteration and states.

        A snapshot carries no code, so it cannot rebuild your model; use
        :meth:`restore_into` with an executor around a freshly built model to
        continue training.
        """
        self._check_usable()
        return _restore.restore(self)

    def restore_into(self, ex: Executor) -> Executor:
        """Load model parameters and buffers, optimizer and scheduler state, RNG state,
        iteration, user tensors and the tape into ``ex``.

        Parameters, buffers and the user tensors ``ex`` already holds with the same shape
        and dtype take the snapshot's values in place: references to them stay valid.

        Everything is checked first (names, shapes, dtypes, optimizer type, groups and
        moments, scheduler fields, RNG state, the tape); on any problem a SnapshotError is
        raised and ``ex`` -- model, optimizer, scheduler, RNG, tensors, iteration -- is
        exactly as it was.
        """
        self._check_usable()
        return _restore.restore_into(self, ex)

    def _check_usable(self) -> None:
        if not self._complete:
            raise SnapshotError("this is the record of a base snapshot, without its tensors; load it from "
                                f"{self.path} to restore it")
        _capture.check_unchanged(self._versions)

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path else ""
        return (f"Snapshot(iteration={self.metadata.iteration}, tensors={self.metadata.tensor_count}, "
                f"size={self.size_human_readable()}{where})")
