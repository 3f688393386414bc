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

from ..backend import host_numpy
from . import sections as _sections
from .config import SnapshotConfig, SnapshotMetadata
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
    little_endian_contiguous,
    open_regular,
    read_tensor,
    write_snapshot,
)
from .fsutil import atomic_write
from .layout import host_keeping_layout, stored_view
from .sections import read_header, validate_header

__all__ = ["save", "load", "all_entries"]


# ------------------------------------------------------------------ saving
def save(snap: Any, path: str | os.PathLike) -> Path:
    """Write ``snap`` atomically to ``path``; fills in its entries, checksum, path and size.

    Everything ``load`` would refuse (a name too long, a rank too high, too many
    tensors or metadata entries, an iteration outside int64, a header over the
    limit) is refused here, before the file is created.
    """
    path = Path(path)
    if not getattr(snap, "_complete", True):
        raise SnapshotError("this is the record of a base snapshot, without its tensors; load it from its path "
                            "to save it")
    limits = snap.config.limits
    _check_savable(snap, limits)
    entries, payloads = _plan_payloads(snap)
    header = _header(snap)
    validate_header(header, limits)
    size = atomic_write(path, lambda f: write_snapshot(f, header, entries, payloads, limits), fsync=snap.config.fsync)
    snap._entries = {e.name: e for e in entries}
    snap.metadata.checksum = f"crc32:{header['_header_crc32']:08x}"
    snap.path = path.resolve()
    snap._file_size = size
    return path


def _check_savable(snap: Any, limits: LoadLimits) -> None:
    if len(snap._tensors) > limits.max_tensors:
        raise SnapshotError(f"{len(snap._tensors)} tensors, over the limit of {limits.max_tensors} "
                            f"(LoadLimits.max_tensors) that loading enforces")
    for name, arr in snap._tensors.items():
        if not isinstance(name, str) or not name:
            raise SnapshotError(f"tensor names must be non-empty strings, got {name!r}")
        n = len(name.encode("utf-8", "surrogatepass"))
        if n > limits.max_name_bytes:
            raise SnapshotError(f"tensor name {name[:40]!r}... is {n} bytes, over the limit of "
                                f"{limits.max_name_bytes} (LoadLimits.max_name_bytes) that loading enforces")
        if arr.ndim > limits.max_rank:
            raise SnapshotError(f"tensor {name!r} has rank {arr.ndim}, over the limit of {limits.max_rank} "
                                f"(LoadLimits.max_rank) that loading enforces")


def _plan_payloads(snap: Any) -> tuple[list[TensorEntry], list[Any]]:
    """One entry and payload per tensor: the host array, its zlib stream, or None (taken from the base).

    An incremental snapshot takes a tensor from its base only if its *content*
    equals the base's (bytes compared, never a checksum alone: a CRC-32 is easy
    to collide on purpose) and so does its memory layout (the ``order``: equal
    values in another layout are stored again, so they load in their new layout).
    """
    entries, payloads = [], []
    base_entries: dict[str, TensorEntry] = {}
    if snap.config.incremental and snap.base is not None:
        base_entries = all_entries(snap.base)
    for name, arr in snap._tensors.items():
        host, order = _payload_array(arr)
        code = dtype_code(host)
        entry = TensorEntry(name, code, tuple(int(s) for s in arr.shape), int(host.nbytes), 0, order=order)
        b = base_entries.get(name)
        if b is not None and (b.dtype, b.shape, b.order) == (entry.dtype, entry.shape, entry.order) and _same_bytes(
                host, snap.base._tensors.get(name)):
            entry.ref, entry.crc32 = "base", b.crc32
            entries.append(entry)
            payloads.append(None)
            continue
        payload: Any = host
        if snap.config.enable_compression and host.nbytes >= 64:
            packed = _maybe_compress(host)
            if packed is not None:  # (the CRC is of the payload's bytes, in its order)
                entry.codec, entry.crc32 = "zlib", crc32_of(host)
                payload = packed
        entries.append(entry)
        payloads.append(payload)
    return entries, payloads


def _payload_array(arr: Any) -> tuple[Any, tuple[int, ...] | None]:
    """``(payload, order)``: ``arr`` on the host as C-contiguous little-endian memory in its own axis
    order (:mod:`.layout`: no copy for a permuted C-contiguous host array), and that order."""
    view, order = stored_view(host_keeping_layout(arr))
    return little_endian_contiguous(view), order


def _same_bytes(host: Any, other: Any) -> bool:
    """Whether two arrays hold the same payload bytes (NaN payloads and -0.0 included), compared in chunks."""
    if other is None:
        return False
    other, _ = _payload_array(other)
    if other.dtype != host.dtype or other.shape != host.shape:
        return False
    if not host.nbytes:  # (and a memoryview cannot cast an empty array of several axes)
        return True
    a, b = memoryview(host).cast("B"), memoryview(other).cast("B")
    step = 1 << 22
    return all(a[i:i + step] == b[i:i + step] for i in range(0, len(a), step))


def _header(snap: Any) -> dict[str, Any]:
    base = None
    if snap.config.incremental and snap.base is not None:
        base = {"file": snap.base.path.name, "checksum": snap.base.metadata.checksum}
    m = snap.metadata
    header = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "iteration": m.iteration,
              "timestamp": m.timestamp, "custom": dict(sorted(m.custom.items()))}
    for section in _sections.SECTIONS:
        value = snap.state.get(section.key)
        if value is not None or not section.optional:
            header[section.key] = value
    header.update({"base": base, "tensors": [], "data_bytes": 0})
    return header


# Compression must cost little when it does not pay: a full zlib pass over
# incompressible float data runs at a few MB/s, far slower than writing it.
# So a small sample (16 slices of 256 bytes across the tensor) is measured
# first: its order-0 byte entropy bounds what a byte-oriented coder can gain,
# and a tensor whose sample promises less than 15% is stored raw at once.
# Only promising tensors get the full (fast, level 1) pass, kept if it saves
# more than 10%.  Data compressible only through long repeats of random-looking
# bytes is misjudged as incompressible and stored raw: a missed saving, never
# a wrong file.
_PROBE_SLICES, _PROBE_BYTES = 16, 256


def _maybe_compress(host: Any) -> bytes | None:
    """zlib-compress ``host`` if that saves more than 10%, deciding from a sample first."""
    u = host.reshape(-1).view(host_numpy.uint8)
    n = u.size
    if n > _PROBE_SLICES * _PROBE_BYTES:
        starts = host_numpy.arange(_PROBE_SLICES) * (n - _PROBE_BYTES) // (_PROBE_SLICES - 1)
        u = u[(starts[:, None] + host_numpy.arange(_PROBE_BYTES)).ravel()]
    counts = host_numpy.bincount(u, minlength=256)
    p = counts[counts > 0] / u.size
    if float(-(p * host_numpy.log2(p)).sum()) / 8 > 0.85:
        return None
    raw = memoryview(host).cast("B")
    packed = zlib.compress(raw, 1)
    return packed if len(packed) <= 0.9 * len(raw) else None


def all_entries(snap: Any) -> dict[str, TensorEntry]:
    """``snap``'s entries with their CRCs (computed for a snapshot that was never written)."""
    if not snap._entries:
        for name, arr in snap._tensors.items():
            host, order = _payload_array(arr)
            snap._entries[name] = TensorEntry(name, dtype_code(host), tuple(arr.shape), int(host.nbytes),
                                              crc32_of(host), order=order)
    return snap._entries


# ------------------------------------------------------------------ loading
def load(cls: type, path: str | os.PathLike, config: SnapshotConfig) -> Any:
    """Read and (with ``config.verify_checksum``) verify the file at ``path`` as a ``cls``
    (a Snapshot class), resolving an incremental snapshot's base chain.

    The chain is walked iteratively, one file open at a time, at most
    ``config.limits.max_base_depth`` bases deep; a file already seen (same
    device and inode) is a loop.  Each file contributes only the tensors still
    needed, so loading holds one state however long the chain (with
    ``verify_checksum``, the other payloads are read, checked and dropped).  The
    returned snapshot's ``base`` is a record of its base (path, metadata,
    entries; no tensors), whose own ``base`` is the next one, and so on.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise SnapshotError(f"a snapshot path must be a str or path-like, got {type(path).__name__}")
    return _BaseChain(cls, Path(path), config).read()


class _BaseChain:
    """One walk down a base chain: the file being read, what it must still supply, the links so far."""

    def __init__(self, cls: type, path: Path, config: SnapshotConfig) -> None:
        self.cls, self.path, self.config = cls, path, config
        self.seen: set[tuple[int, int]] = set()
        self.found: dict[str, Any] = {}        # name -> array, from whichever file holds it
        self.order: list[str] = []             # the top snapshot's tensor names, in its order
        self.needed: dict[str, TensorEntry] = {}  # name -> the referring entry, still to be found further down
        self.top: Any = None
        self.prev: Any = None
        self.expect_checksum: str | None = None

    def read(self) -> Any:
        cur: Path | None = self.path
        depth = 0
        while cur is not None:
            header, by_name, size = self._read_file(cur)
            self._link(cur, header, by_name, size)
            cur = self._base_of(cur, header)
            depth += cur is not None
            if depth > self.config.limits.max_base_depth:
                raise SnapshotError(f"the base chain of {_name(self.path)} is longer than "
                                    f"{self.config.limits.max_base_depth} (LoadLimits.max_base_depth)")
        top = self.top
        top._tensors = {n: self.found[n] for n in self.order}
        top.metadata.tensor_count = len(self.order)
        top.metadata.total_bytes = int(sum(a.nbytes for a in top._tensors.values()))
        return top

    def _read_file(self, cur: Path) -> tuple[dict, dict[str, TensorEntry], int]:
        """Header and payloads of one file of the chain; the tensors still needed go to ``found``."""
        try:
            f, size, ident = open_regular(cur)
        except SnapshotError as exc:
            if self.top is None:
                raise
            raise SnapshotError(f"{_name(self.prev.path)} needs its base {_name(cur)}, which is missing or cannot "
                                f"be read ({exc})") from None
        with f:
            if ident in self.seen:
                raise SnapshotError(f"the base chain of {_name(self.path)} loops back to {_name(cur)}")
            self.seen.add(ident)
            try:
                header, entries, data_start = read_header(f, size, self.config.limits)
                for section in _sections.SECTIONS:
                    section.on_load(header.get(section.key))
                check_padding(f, entries, data_start)
            except SnapshotError as exc:
                raise self._in_base(cur, exc) from None
            by_name = {e.name: e for e in entries}
            wanted = self._wanted(cur, entries, by_name)
            self.needed = {e.name: e for e in wanted if e.ref == "base"}
            try:
                self._read_payloads(f, entries, wanted, data_start)
            except SnapshotError as exc:
                raise self._in_base(cur, exc) from None
        return header, by_name, size

    def _in_base(self, cur: Path, exc: SnapshotError) -> SnapshotError:
        """A damaged base said to be the base: "tensor 'w': checksum mismatch" alone reads as the
        top file's fault (``snapshot verify b.mgsnap`` named b, and b's own ``w``)."""
        if self.top is None:
            return exc
        return SnapshotError(f"{_name(self.prev.path)}: its base {_name(cur)} is damaged: {exc}")

    def _wanted(self, cur: Path, entries: list[TensorEntry], by_name: dict[str, TensorEntry]) -> list[TensorEntry]:
        """The entries of this file the loaded snapshot takes: all of the top file's; of a
        base, those the file above refers to (which must match what it recorded)."""
        if self.top is None:
            self.order = [e.name for e in entries]
            return entries
        wanted = []
        for name, ref in self.needed.items():
            e = by_name.get(name)
            if e is None or (e.dtype, e.shape, e.crc32, e.order) != (ref.dtype, ref.shape, ref.crc32, ref.order):
                raise SnapshotError(f"tensor {name!r} should come from the base {_name(cur)}, which does not hold it")
            wanted.append(e)
        return wanted

    def _read_payloads(self, f: Any, entries: list[TensorEntry], wanted: list[TensorEntry],
                       data_start: int) -> None:
        # With verification every payload of every file in the chain is checked (so a
        # chain that loads is intact throughout); payloads not needed are read and dropped.
        keep = {e.name for e in wanted}
        worker = CrcWorker() if self.config.verify_checksum else None
        try:
            for e in entries if worker is not None else wanted:
                if e.ref is None:
                    arr = read_tensor(f, e, data_start, worker)
                    if e.name in keep:
                        self.found[e.name] = arr
        finally:
            crcs = worker.finish() if worker is not None else None
        if crcs is not None:
            check_crcs(entries, crcs)

    def _link(self, cur: Path, header: dict, by_name: dict[str, TensorEntry], size: int) -> None:
        """The snapshot (or, for a base, the record) of this file, hung below the previous one."""
        meta = _metadata_from_header(header, by_name)
        meta.checksum = f"crc32:{header['_header_crc32']:08x}"
        if self.expect_checksum is not None and meta.checksum != self.expect_checksum:
            raise SnapshotError(f"{_name(self.prev.path)}: its base {_name(cur)} has changed since (checksum "
                                f"{meta.checksum} != {self.expect_checksum})")
        state = {s.key: header.get(s.key) for s in _sections.SECTIONS}
        snap = self.cls(meta, self.found if self.top is None else {}, state, self.config)
        snap.path, snap._file_size, snap._entries = _real(cur), size, by_name
        if self.top is None:
            self.top = snap
        else:
            snap._complete = False
            self.prev.base = snap
        self.prev = snap

    def _base_of(self, cur: Path, header: dict) -> Path | None:
        """The next file down the chain (its checksum is expected next), or None at the end."""
        base_info = header["base"]
        if base_info is None:
            if self.needed:
                raise SnapshotError(f"{_name(cur)} takes tensors from a base snapshot but does not name one")
            return None
        name = base_info["file"]
        if not name or name in (".", "..") or "/" in name or "\x00" in name or (os.altsep and os.altsep in name):
            raise SnapshotError(f"{_name(cur)}: the base file name {name[:100]!r} is not a plain file name")
        self.expect_checksum = base_info["checksum"]
        return cur.parent / name


def _name(path: Any) -> str:
    return repr(os.path.basename(os.fspath(path))[:200])


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError, RuntimeError):
        return Path(os.path.abspath(path))


def _metadata_from_header(header: dict[str, Any], entries: dict[str, TensorEntry]) -> SnapshotMetadata:
    """The header's fields (types already checked by ``validate_header``) as SnapshotMetadata."""
    return SnapshotMetadata(iteration=header["iteration"], timestamp=float(header["timestamp"]),
                            version=str(header["version"]), tensor_count=len(entries),
                            total_bytes=sum(e.nbytes for e in entries.values()), custom=dict(header["custom"]))
