"""``Snapshot`` and ``SnapshotConfig``: capture an executor, save it, load it, restore it.

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
"""

from __future__ import annotations

import os
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import random as _random
from ..backend import to_host
from ..executor import Executor
from ..tensor import Tensor
from .format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    CrcWorker,
    LoadLimits,
    SnapshotError,
    TensorEntry,
    check_crcs,
    check_padding,
    crc32_of,
    dtype_code,
    file_size,
    little_endian_contiguous,
    read_header,
    read_tensor,
    write_snapshot,
)
from .tape_codec import check_tape, decode_tape, encode_tape

__all__ = ["Snapshot", "SnapshotConfig", "SnapshotMetadata", "atomic_write"]


@dataclass
class SnapshotConfig:
    """What a snapshot contains and how it is written and read (the seed's four switches).

    ``enable_compression``  zlib per tensor, kept only where it saves >10%
    ``include_tape``        store the recorded forward tape (``Executor.record``)
    ``verify_checksum``     check every CRC when loading (on by default)
    ``incremental``         store only tensors that changed since the ``base`` snapshot
    """

    enable_compression: bool = False
    include_tape: bool = False
    verify_checksum: bool = True
    incremental: bool = False
    limits: LoadLimits = field(default_factory=LoadLimits)
    fsync: bool = True

    @classmethod
    def for_training(cls) -> SnapshotConfig:
        """Everything needed to continue training, tape included; no compression."""
        return cls(enable_compression=False, include_tape=True, verify_checksum=True, incremental=False)

    @classmethod
    def for_inference(cls) -> SnapshotConfig:
        """Weights for inference: compressed where it pays, no tape."""
        return cls(enable_compression=True, include_tape=False, verify_checksum=True, incremental=False)

    @classmethod
    def incremental_config(cls) -> SnapshotConfig:
        return cls(enable_compression=False, include_tape=True, verify_checksum=True, incremental=True)


# The seed has both a field ``incremental`` (a bool) and a constructor
# ``incremental()``.  Python allows one attribute per name, so the name is a
# descriptor: on the class it is the constructor, on an instance the flag.
class _IncrementalDescriptor:
    """``SnapshotConfig.incremental()`` builds a config; ``config.incremental`` is the flag."""

    def __get__(self, obj: Any, owner: type) -> Any:
        if obj is None:
            return owner.incremental_config
        return obj.__dict__.get("incremental", False)

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__["incremental"] = bool(value)


SnapshotConfig.incremental = _IncrementalDescriptor()  # type: ignore[assignment]


@dataclass
class SnapshotMetadata:
    """``iteration``, ``timestamp`` (Unix seconds), ``version`` (format), ``tensor_count``,
    ``total_bytes`` (uncompressed tensor bytes), ``custom`` (str -> str) and
    ``checksum`` (the header CRC once saved or loaded)."""

    iteration: int
    timestamp: float
    version: str = str(FORMAT_VERSION)
    tensor_count: int = 0
    total_bytes: int = 0
    custom: dict[str, str] = field(default_factory=dict)
    checksum: str | None = None


class Snapshot:
    """A captured executor state (see the module docstring)."""

    def __init__(self, metadata: SnapshotMetadata, tensors: dict[str, Any], state: dict[str, Any],
                 config: SnapshotConfig | None = None) -> None:
        self.metadata = metadata
        self._tensors = tensors            # name -> array (host or device); tape arrays included
        self.state = state                 # rng, optimizer, scheduler, tape (plain data)
        self.config = config or SnapshotConfig()
        self.path: Path | None = None
        self.base: Snapshot | None = None
        self._versions: dict[str, tuple[list, int]] = {}
        self._entries: dict[str, TensorEntry] = {}
        self._file_size: int | None = None

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
        if not isinstance(ex, Executor):
            raise TypeError(f"from_executor needs an Executor, got {type(ex).__name__}")
        it = ex.iteration if iteration is None else int(iteration)
        tensors: dict[str, Any] = {}
        versions = {}
        for name, t in sorted(ex.tensors.items()):
            if copy:
                tensors[name] = t.data.copy()
            else:
                tensors[name] = t.data
                versions[name] = (t._vc, t._vc[0])
        state: dict[str, Any] = {"rng": _random.get_rng_state(), "optimizer": ex.optimizer_state(),
                                 "scheduler": ex.scheduler_state(), "tape": None}
        if config.include_tape:
            if ex.tape is None:
                raise SnapshotError("include_tape is set but the executor has no recorded tape "
                                    "(call Executor.record(output) after the forward pass)")
            leaf_names = {id(t): n for n, t in ex.live_tensors().items()}
            tape, arrays = encode_tape(ex.tape, leaf_names)
            state["tape"] = tape
            tensors.update(arrays)
        meta = SnapshotMetadata(iteration=it, timestamp=time.time())
        snap = cls(meta, tensors, state, config)
        snap._versions = versions
        snap._update_counts()
        if config.incremental:
            if base is None:
                raise SnapshotError("an incremental snapshot needs a base snapshot")
            snap.base = base if isinstance(base, Snapshot) else Snapshot.load(base, config)
            if snap.base.path is None:
                raise SnapshotError("the base of an incremental snapshot must be saved first")
        elif base is not None:
            raise SnapshotError("a base was given but the config is not incremental")
        return snap

    def _update_counts(self) -> None:
        self.metadata.tensor_count = len(self._tensors)
        self.metadata.total_bytes = int(sum(a.nbytes for a in self._tensors.values()))

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

    # ---------------------------------------------------------------- save
    def _check_unchanged(self) -> None:
        for name, (box, v) in self._versions.items():
            if box[0] != v:
                raise SnapshotError(f"tensor {name!r} changed in place after this copy=False snapshot was "
                                    f"taken (an optimizer step?); take a new snapshot")

    def save(self, path: str | os.PathLike) -> Path:
        """Write atomically to ``path`` (temp file in the same directory, fsync, rename, fsync dir)."""
        path = Path(path)
        self._check_unchanged()
        entries, payloads = self._plan_payloads(path)
        header = self._header(entries)
        size = atomic_write(path, lambda f: write_snapshot(f, header, entries, payloads), fsync=self.config.fsync)
        self._entries = {e.name: e for e in entries}
        self.metadata.checksum = f"crc32:{header['_header_crc32']:08x}"
        self.path = path.resolve()
        self._file_size = size
        return path

    def _plan_payloads(self, path: Path) -> tuple[list[TensorEntry], list[Any]]:
        entries, payloads = [], []
        base_entries = {}
        if self.config.incremental and self.base is not None:
            base_entries = self.base._all_entries()
        for name, arr in self._tensors.items():
            host = little_endian_contiguous(to_host(arr))
            code = dtype_code(host)
            entry = TensorEntry(name, code, tuple(int(s) for s in host.shape), int(host.nbytes), 0)
            if base_entries:
                entry.crc32 = crc32_of(host)
                b = base_entries.get(name)
                if b is not None and (b.dtype, b.shape, b.crc32) == (entry.dtype, entry.shape, entry.crc32):
                    entry.ref = "base"
                    entries.append(entry)
                    payloads.append(None)
                    continue
            payload: Any = host
            if self.config.enable_compression and host.nbytes >= 64:
                entry.crc32 = entry.crc32 or crc32_of(host)
                packed = _maybe_compress(host)
                if packed is not None:
                    entry.codec = "zlib"
                    payload = packed
            entries.append(entry)
            payloads.append(payload)
        return entries, payloads

    def _header(self, entries: list[TensorEntry]) -> dict[str, Any]:
        base = None
        if self.config.incremental and self.base is not None:
            base_path = self.base.path
            base = {"file": base_path.name if base_path is not None else None, "checksum": self.base.metadata.checksum}
        m = self.metadata
        return {
            "format": FORMAT_NAME, "version": FORMAT_VERSION, "iteration": m.iteration, "timestamp": m.timestamp,
            "custom": dict(sorted(m.custom.items())), "rng": self.state.get("rng"),
            "optimizer": self.state.get("optimizer"), "scheduler": self.state.get("scheduler"),
            "tape": self.state.get("tape"), "base": base, "tensors": [], "data_bytes": 0,
        }

    # ---------------------------------------------------------------- load
    @classmethod
    def load(cls, path: str | os.PathLike, config: SnapshotConfig | None = None) -> Snapshot:
        """Read and (by default) verify a snapshot; an incremental one resolves its base chain."""
        config = config or SnapshotConfig()
        return cls._load(Path(path), config, seen=set())

    @classmethod
    def _load(cls, path: Path, config: SnapshotConfig, seen: set[Path]) -> Snapshot:
        real = path.resolve()
        if real in seen:
            raise SnapshotError(f"the base chain of {path} loops back to {real.name}")
        seen.add(real)
        size = file_size(path)
        try:
            f = open(path, "rb")
        except OSError as exc:
            raise SnapshotError(f"cannot open snapshot {str(path)!r}: {exc.strerror or exc}") from None
        with f:
            header, entries, data_start = read_header(f, size, config.limits)
            check_tape(header.get("tape"))
            check_padding(f, entries, data_start)
            base = None
            base_info = header.get("base")
            if any(e.ref == "base" for e in entries) or base_info is not None:
                if not isinstance(base_info, dict) or not isinstance(base_info.get("file"), str):
                    raise SnapshotError(f"{path.name} refers to a base snapshot but does not name it")
                base_path = path.parent / base_info["file"]
                if Path(base_info["file"]).name != base_info["file"]:
                    raise SnapshotError(f"{path.name}: the base file name {base_info['file']!r} is not a plain name")
                if not base_path.exists():
                    raise SnapshotError(f"{path.name} needs its base {base_info['file']}, which is missing")
                base = cls._load(base_path, config, seen)
                if base.metadata.checksum != base_info.get("checksum"):
                    raise SnapshotError(f"{path.name}: its base {base_info['file']} has changed since "
                                        f"(checksum {base.metadata.checksum} != {base_info.get('checksum')})")
            tensors = {}
            worker = CrcWorker() if config.verify_checksum else None
            try:
                for e in entries:
                    if e.ref == "base":
                        b = base._all_entries().get(e.name) if base is not None else None
                        if b is None or (b.dtype, b.shape, b.crc32) != (e.dtype, e.shape, e.crc32):
                            raise SnapshotError(f"tensor {e.name!r} should come from the base, which does not "
                                                f"hold it")
                        tensors[e.name] = base._tensors[e.name]
                    else:
                        tensors[e.name] = read_tensor(f, e, data_start, worker)
            finally:
                crcs = worker.finish() if worker is not None else None
            if crcs is not None:
                check_crcs(entries, crcs)
        meta = _metadata_from_header(header, tensors)
        meta.checksum = f"crc32:{header['_header_crc32']:08x}"
        snap = cls(meta, tensors, {k: header.get(k) for k in ("rng", "optimizer", "scheduler", "tape")}, config)
        snap.path, snap.base, snap._file_size = real, base, size
        snap._entries = {e.name: e for e in entries}
        return snap

    def _all_entries(self) -> dict[str, TensorEntry]:
        """Entries with their CRCs (computed for a snapshot that was never written)."""
        if not self._entries:
            for name, arr in self._tensors.items():
                host = to_host(arr)
                self._entries[name] = TensorEntry(name, dtype_code(host), tuple(host.shape), int(host.nbytes),
                                                  crc32_of(host))
        return self._entries

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
        self._check_unchanged()
        ex = Executor()
        for name, arr in self._tensors.items():
            if not name.startswith("__tape__/"):
                ex._tensors[name] = Tensor(arr)
        ex.iteration = self.metadata.iteration
        ex.restored_optimizer_state = self.state.get("optimizer")
        ex.restored_scheduler_state = self.state.get("scheduler")
        ex.restored_rng_state = self.state.get("rng")
        if self.state.get("tape") is not None:
            leaves = {n: t for n, t in ex._tensors.items()}
            for t in leaves.values():
                if t.dtype.kind == "f":
                    t.requires_grad_()
            ex.tape = decode_tape(self.state["tape"], self._tensors, leaves, _cpu())
        return ex

    def restore_into(self, ex: Executor) -> Executor:
        """Load model parameters and buffers, optimizer and scheduler state, RNG state,
        iteration, user tensors and the tape into ``ex``.

        Everything is checked first (names, shapes, dtypes, optimizer type and
        groups); on any mismatch a SnapshotError is raised and nothing changes.
        """
        self._check_unchanged()
        tensors = self._tensors
        model_sd = {}
        if ex.model is not None:
            own = ex.model.state_dict()
            missing = [k for k in own if f"model.{k}" not in tensors]
            extra = [n[6:] for n in tensors if n.startswith("model.") and n[6:] not in own]
            if missing or extra:
                raise SnapshotError(f"the snapshot does not match the model: missing {missing}, unexpected {extra}")
            for k, t in own.items():
                arr = tensors[f"model.{k}"]
                if tuple(arr.shape) != t.shape or arr.dtype != t.dtype:
                    raise SnapshotError(f"model.{k}: snapshot has {arr.dtype} {tuple(arr.shape)}, the model "
                                        f"{t.dtype} {t.shape}")
                model_sd[k] = arr
        opt_sd = self._optimizer_state_dict(ex) if ex.optimizer is not None else None
        rng = self.state.get("rng")
        if rng is not None:
            try:
                _random.Generator().set_state(rng)  # validate on a scratch generator first
            except (ValueError, TypeError) as exc:
                raise SnapshotError(f"the snapshot's RNG state is malformed: {exc}") from None
        sched = self.state.get("scheduler")
        if ex.scheduler is not None and sched is not None and not (
                isinstance(sched, dict) and isinstance(sched.get("state"), dict)):
            raise SnapshotError("the snapshot's scheduler state is malformed")
        # -------- everything checked: now change ex --------
        if ex.model is not None:
            ex.model.load_state_dict({k: Tensor(v, dtype=v.dtype) for k, v in model_sd.items()})
        if opt_sd is not None:
            ex.optimizer.load_state_dict(opt_sd)
        if ex.scheduler is not None and self.state.get("scheduler") is not None:
            ex.scheduler.load_state_dict(dict(self.state["scheduler"]["state"]))
        for name, arr in tensors.items():
            if not name.startswith(("model.", "optimizer.", "__tape__/")):
                ex._tensors[name] = Tensor(arr, dtype=arr.dtype)
        if self.state.get("rng") is not None:
            _random.set_rng_state(self.state["rng"])
        ex.iteration = self.metadata.iteration
        if self.state.get("tape") is not None:
            leaves = ex.live_tensors()
            device = next(iter(leaves.values())).device if leaves else _cpu()
            ex.tape = decode_tape(self.state["tape"], tensors, leaves, device)
        return ex

    def _optimizer_state_dict(self, ex: Executor) -> dict[str, Any]:
        st = self.state.get("optimizer")
        if st is None:
            raise SnapshotError("the executor has an optimizer but the snapshot holds no optimizer state")
        if not isinstance(st, dict) or not isinstance(st.get("param_groups", []), list) or not isinstance(
                st.get("scalars") or {}, dict):
            raise SnapshotError("the snapshot's optimizer state is malformed")
        if st.get("type") != type(ex.optimizer).__name__:
            raise SnapshotError(f"the snapshot holds {st.get('type')} state, the executor has "
                                f"{type(ex.optimizer).__name__}")
        names = ex._param_names()
        groups = st.get("param_groups") or []
        if len(groups) != len(ex.optimizer.param_groups):
            raise SnapshotError(f"the snapshot has {len(groups)} parameter groups, the optimizer "
                                f"{len(ex.optimizer.param_groups)}")
        index = {}
        out_groups = []
        i = 0
        for g_saved, g_own in zip(groups, ex.optimizer.param_groups):
            own_names = [names[id(p)] for p in g_own["params"]]
            if list(g_saved.get("params", [])) != own_names:
                raise SnapshotError("the optimizer's parameters differ from the snapshot's")
            entry = {k: (tuple(v) if isinstance(v, list) else v) for k, v in g_saved.items() if k != "params"}
            entry["params"] = list(range(i, i + len(own_names)))
            for n in own_names:
                index[n] = i
                i += 1
            out_groups.append(entry)
        state: dict[int, dict[str, Any]] = {}
        scalars = st.get("scalars") or {}
        prefix = "optimizer.state."
        for name, arr in self._tensors.items():
            if not name.startswith(prefix):
                continue
            pname, _, key = name[len(prefix):].rpartition(".")
            if pname not in index:
                raise SnapshotError(f"{name}: no such parameter in the optimizer")
            state.setdefault(index[pname], {})[key] = Tensor(arr, dtype=arr.dtype)
        for pname, vals in scalars.items():
            if pname not in index:
                raise SnapshotError(f"optimizer state for unknown parameter {pname!r}")
            state.setdefault(index[pname], {}).update(vals)
        return {"state": state, "param_groups": out_groups}

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path else ""
        return (f"Snapshot(iteration={self.metadata.iteration}, tensors={self.metadata.tensor_count}, "
                f"size={self.size_human_readable()}{where})")


def _cpu() -> Any:
    from ..backend import cpu

    return cpu


def _metadata_from_header(header: dict[str, Any], tensors: dict[str, Any]) -> SnapshotMetadata:
    it, ts, custom = header.get("iteration"), header.get("timestamp"), header.get("custom")
    if not isinstance(it, int) or not isinstance(ts, (int, float)) or not isinstance(custom, dict):
        raise SnapshotError("the header's iteration, timestamp or custom metadata is malformed")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in custom.items()):
        raise SnapshotError("custom metadata must map strings to strings")
    return SnapshotMetadata(iteration=it, timestamp=float(ts), version=str(header.get("version")),
                            tensor_count=len(tensors), total_bytes=int(sum(a.nbytes for a in tensors.values())),
                            custom=dict(custom))


def _maybe_compress(host: Any) -> bytes | None:
    """zlib-compress ``host`` if that saves more than 10% (tried on a 1 MiB sample first)."""
    raw = memoryview(host).cast("B")
    sample = raw[: 1 << 20]
    if len(zlib.compress(sample, 1)) > 0.9 * len(sample):
        return None
    packed = zlib.compress(raw, 6)
    return packed if len(packed) <= 0.9 * len(raw) else None


def atomic_write(path: Path, write: Any, fsync: bool = True) -> int:
    """Write a file so readers see the old one or the complete new one, never a mix.

    Temp file in the same directory (same filesystem), written, flushed and
    fsynced, renamed over ``path`` with ``os.replace``, then the directory is
    fsynced so the rename survives a crash.  The file gets the usual
    permissions (``0o666`` minus the umask), not ``mkstemp``'s ``0o600``.
    """
    directory = path.parent if str(path.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as f:
            size = write(f)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if fsync:
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    return size


def human_bytes(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    for unit, div in (("KB", 1024), ("MB", 1024**2), ("GB", 1024**3)):
        if n < div * 1024 or unit == "GB":
            return f"{n / div:.2f} {unit}"
    return f"{n} bytes"


