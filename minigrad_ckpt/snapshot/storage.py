"""File I/O of a :class:`~minigrad_ckpt.snapshot.Snapshot`: lay it out and write it; read and verify it.

The byte format itself (header, seal, aligned payloads, the checks a header
must pass) is :mod:`.format`; this module decides *what* goes into a file --
which payloads are compressed, which an incremental snapshot takes from its
base -- and builds a snapshot back from a file and its base chain.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Any

from ..backend import to_host
from .config import SnapshotConfig, SnapshotMetadata
from .format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    CrcWorker,
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
from .fsutil import atomic_write
from .tape_codec import check_tape

__all__ = ["save", "load", "all_entries"]


# ------------------------------------------------------------------ saving
def save(snap: Any, path: str | os.PathLike) -> Path:
    """Write ``snap`` atomically to ``path``; fills in its entries, checksum, path and size."""
    path = Path(path)
    entries, payloads = _plan_payloads(snap)
    header = _header(snap)
    size = atomic_write(path, lambda f: write_snapshot(f, header, entries, payloads), fsync=snap.config.fsync)
    snap._entries = {e.name: e for e in entries}
    snap.metadata.checksum = f"crc32:{header['_header_crc32']:08x}"
    snap.path = path.resolve()
    snap._file_size = size
    return path


def _plan_payloads(snap: Any) -> tuple[list[TensorEntry], list[Any]]:
    """One entry and payload per tensor: the host array, its zlib stream, or None (taken from the base)."""
    entries, payloads = [], []
    base_entries = {}
    if snap.config.incremental and snap.base is not None:
        base_entries = all_entries(snap.base)
    for name, arr in snap._tensors.items():
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
        if snap.config.enable_compression and host.nbytes >= 64:
            entry.crc32 = entry.crc32 or crc32_of(host)
            packed = _maybe_compress(host)
            if packed is not None:
                entry.codec = "zlib"
                payload = packed
        entries.append(entry)
        payloads.append(payload)
    return entries, payloads


def _header(snap: Any) -> dict[str, Any]:
    base = None
    if snap.config.incremental and snap.base is not None:
        base_path = snap.base.path
        base = {"file": base_path.name if base_path is not None else None, "checksum": snap.base.metadata.checksum}
    m = snap.metadata
    header = {
        "format": FORMAT_NAME, "version": FORMAT_VERSION, "iteration": m.iteration, "timestamp": m.timestamp,
        "custom": dict(sorted(m.custom.items())), "rng": snap.state.get("rng"),
        "optimizer": snap.state.get("optimizer"), "scheduler": snap.state.get("scheduler"),
        "tape": snap.state.get("tape"), "base": base, "tensors": [], "data_bytes": 0,
    }
    if snap.state.get("objects") is not None:  # only with Executor.register_state objects
        header["objects"] = snap.state["objects"]
    return header


def _maybe_compress(host: Any) -> bytes | None:
    """zlib-compress ``host`` if that saves more than 10% (tried on a 1 MiB sample first)."""
    raw = memoryview(host).cast("B")
    sample = raw[: 1 << 20]
    if len(zlib.compress(sample, 1)) > 0.9 * len(sample):
        return None
    packed = zlib.compress(raw, 6)
    return packed if len(packed) <= 0.9 * len(raw) else None


def all_entries(snap: Any) -> dict[str, TensorEntry]:
    """``snap``'s entries with their CRCs (computed for a snapshot that was never written)."""
    if not snap._entries:
        for name, arr in snap._tensors.items():
            host = to_host(arr)
            snap._entries[name] = TensorEntry(name, dtype_code(host), tuple(host.shape), int(host.nbytes),
                                              crc32_of(host))
    return snap._entries


# ------------------------------------------------------------------ loading
def load(cls: type, path: str | os.PathLike, config: SnapshotConfig) -> Any:
    """Read and (with ``config.verify_checksum``) verify the file at ``path`` as a ``cls``
    (a Snapshot class), resolving an incremental snapshot's base chain."""
    return _load(cls, Path(path), config, seen=set())


def _load(cls: type, path: Path, config: SnapshotConfig, seen: set[Path]) -> Any:
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
            base = _load(cls, base_path, config, seen)
            if base.metadata.checksum != base_info.get("checksum"):
                raise SnapshotError(f"{path.name}: its base {base_info['file']} has changed since "
                                    f"(checksum {base.metadata.checksum} != {base_info.get('checksum')})")
        tensors = {}
        worker = CrcWorker() if config.verify_checksum else None
        try:
            for e in entries:
                if e.ref == "base":
                    b = all_entries(base).get(e.name) if base is not None else None
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
    snap = cls(meta, tensors, {k: header.get(k) for k in ("rng", "optimizer", "scheduler", "tape", "objects")}, config)
    snap.path, snap.base, snap._file_size = real, base, size
    snap._entries = {e.name: e for e in entries}
    return snap


def _metadata_from_header(header: dict[str, Any], tensors: dict[str, Any]) -> SnapshotMetadata:
    it, ts, custom = header.get("iteration"), header.get("timestamp"), header.get("custom")
    if not isinstance(it, int) or not isinstance(ts, (int, float)) or not isinstance(custom, dict):
        raise SnapshotError("the header's iteration, timestamp or custom metadata is malformed")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in custom.items()):
        raise SnapshotError("custom metadata must map strings to strings")
    return SnapshotMetadata(iteration=it, timestamp=float(ts), version=str(header.get("version")),
                            tensor_count=len(tensors), total_bytes=int(sum(a.nbytes for a in tensors.values())),
                            custom=dict(custom))
