"""The snapshot file format: one msgpack stream, tensors as raw aligned bytes.

A snapshot file is a sequence of msgpack objects that any msgpack reader can
walk (``msgpack.Unpacker(open(path, "rb"))``):

1. the **header**, a map (keys below), describing everything but the tensor bytes;
2. the **seal**, a map ``{"header_crc32": int}``: CRC-32 of the header's bytes;
3. for each tensor, in header order, two objects: a ``bin 8`` *padding* object
   (2..65 bytes) and a ``bin 32`` object holding the tensor's bytes, so that
   every payload starts at a multiple of 64 bytes in the file.

Payloads are C-order, little-endian, exactly ``prod(shape) * itemsize`` bytes
(or a zlib stream when ``codec == "zlib"``).  ``docs/snapshot-format.md``
documents every byte.  Writing streams each array straight from its memory;
reading ``readinto``s preallocated arrays -- no extra copy of the state.

Nothing here executes code from a file: msgpack carries only data, the header
is checked against :class:`LoadLimits` before anything is allocated, and every
failure to read is a :class:`SnapshotError`.
"""

from __future__ import annotations

import os
import queue
import struct
import threading
import zlib
from dataclasses import dataclass
from typing import IO, Any

from ..backend import host_numpy as np

try:
    import msgpack
except ImportError:  # a runtime dependency; without it the engine works and only snapshots fail, clearly
    class _MsgpackMissing:
        def __getattr__(self, name: str) -> Any:
            raise ImportError("snapshots need msgpack, a dependency of minigrad-ckpt: pip install msgpack "
                              "(or install the package: pip install .)")

    msgpack = _MsgpackMissing()

__all__ = ["SnapshotError", "LoadLimits", "FORMAT_NAME", "FORMAT_VERSION", "TensorEntry", "write_snapshot",
           "read_header", "read_tensor", "DTYPES"]

FORMAT_NAME = "minigrad-ckpt/snapshot"
FORMAT_VERSION = 1
ALIGN = 64
CHUNK = 8 << 20  # 8 MiB: the unit of streaming and checksumming

#: dtype strings allowed in a file (little-endian; bool and 1-byte ints have no order)
DTYPES = {
    "|b1": "bool", "|i1": "int8", "<i2": "int16", "<i4": "int32", "<i8": "int64",
    "|u1": "uint8", "<u2": "uint16", "<u4": "uint32", "<u8": "uint64",
    "<f2": "float16", "<f4": "float32", "<f8": "float64",
}


class SnapshotError(Exception):
    """A snapshot could not be read, verified or written (the reason is in the message)."""


@dataclass(frozen=True)
class LoadLimits:
    """Caps applied to a file before anything it describes is allocated."""

    max_header_bytes: int = 64 << 20
    max_tensors: int = 1_000_000
    max_rank: int = 32
    max_name_bytes: int = 4096
    max_metadata_entries: int = 100_000


@dataclass
class TensorEntry:
    """One tensor as the header describes it."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    crc32: int
    offset: int = -1      # payload position relative to the data section; -1: stored in the base
    stored: int = 0       # bytes in the file (== nbytes for raw)
    codec: str = "raw"
    ref: str | None = None  # "base": take it from the base snapshot

    def to_msgpack(self) -> dict[str, Any]:
        # The CRC is a fixed 4-byte bin, so the header keeps its length when the
        # writer fills in checksums computed while streaming the payloads.
        return {"name": self.name, "dtype": self.dtype, "shape": list(self.shape), "nbytes": self.nbytes,
                "crc32": self.crc32.to_bytes(4, "big"), "offset": self.offset, "stored": self.stored,
                "codec": self.codec, "ref": self.ref}


def dtype_code(arr: Any) -> str:
    dt = arr.dtype.newbyteorder("<") if arr.dtype.byteorder not in ("|", "=", "<") else arr.dtype
    code = dt.str
    if code not in DTYPES:
        raise SnapshotError(f"dtype {arr.dtype} cannot be stored in a snapshot")
    return code


def little_endian_contiguous(arr: Any) -> Any:
    """``arr`` as C-contiguous little-endian memory (a copy only when needed)."""
    if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and not _LITTLE):
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    # (not np.ascontiguousarray: it turns 0-d arrays into 1-d ones)
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


_LITTLE = np.dtype("=u2").str == "<u2"


def crc32_of(arr: Any) -> int:
    return zlib.crc32(memoryview(little_endian_contiguous(arr)).cast("B")) if arr.size else 0


# ------------------------------------------------------------------ writing
def _pad_object(position: int) -> bytes:
    """A ``bin 8`` object ending so that the following 5-byte ``bin 32`` header ends aligned."""
    p = (-(position + 5)) % ALIGN
    if p < 2:
        p += ALIGN
    return b"\xc4" + bytes([p - 2]) + b"\x00" * (p - 2)


class CrcWorker:
    """CRC-32s computed in one helper thread while the caller does file I/O.

    ``zlib.crc32`` and file reads/writes both release the GIL, so on two or
    more cores the checksums cost little extra time: chunks are queued as they
    are written (or read), and each key's CRC is chained in queue order.
    """

    def __init__(self) -> None:
        self.crcs: dict[Any, int] = {}
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="snapshot-crc", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        crcs = self.crcs
        while True:
            item = self._queue.get()
            if item is None:
                return
            key, chunk = item
            crcs[key] = zlib.crc32(chunk, crcs.get(key, 0))

    def feed(self, key: Any, chunk: Any) -> None:
        self._queue.put((key, chunk))

    def finish(self) -> dict[Any, int]:
        self._queue.put(None)
        self._thread.join()
        return self.crcs


def _seal(header_bytes: bytes) -> bytes:
    return msgpack.packb({"header_crc32": zlib.crc32(header_bytes).to_bytes(4, "big")}, use_bin_type=True)


def write_snapshot(f: IO[bytes], header: dict[str, Any], entries: list[TensorEntry],
                   payloads: list[Any]) -> int:
    """Write header, seal and payloads to ``f`` (which must be seekable).

    ``payloads[i]`` is the host array (or compressed ``bytes``) of
    ``entries[i]``, or ``None`` for an entry taken from the base.  Offsets are
    laid out first (they depend only on sizes); CRCs of raw arrays are computed
    in a helper thread while their bytes are written, then the header is
    written again in place with the final checksums -- it has the same length,
    since a CRC is a fixed 4-byte field.  Returns the number of bytes written.
    """
    pos = 0
    for entry, payload in zip(entries, payloads):
        if payload is None:
            entry.offset, entry.stored = -1, 0
            continue
        entry.stored = len(payload) if isinstance(payload, (bytes, bytearray)) else int(payload.nbytes)
        entry.offset = pos + len(_pad_object(pos)) + 5
        pos = entry.offset + entry.stored
    header["data_bytes"] = pos

    def head() -> bytes:
        header["tensors"] = [e.to_msgpack() for e in entries]
        hb = msgpack.packb(header, use_bin_type=True)
        out = hb + _seal(hb)
        gap = (-len(out)) % ALIGN  # pad to the aligned start of the data section
        if gap < 2:
            gap += ALIGN
        return out + b"\xc4" + bytes([gap - 2]) + b"\x00" * (gap - 2)

    first = head()
    f.write(first)
    written = len(first)
    pos = 0
    worker = CrcWorker()
    try:
        for i, (entry, payload) in enumerate(zip(entries, payloads)):
            if payload is None:
                continue
            pad = _pad_object(pos)
            f.write(pad + b"\xc6" + struct.pack(">I", entry.stored))
            if isinstance(payload, (bytes, bytearray)):
                f.write(payload)
            elif payload.nbytes:
                mv = memoryview(payload).cast("B")
                for start in range(0, len(mv), CHUNK):
                    chunk = mv[start:start + CHUNK]
                    worker.feed(i, chunk)
                    f.write(chunk)
            pos = entry.offset + entry.stored
            written += len(pad) + 5 + entry.stored
    finally:
        crcs = worker.finish()
    for i, (entry, payload) in enumerate(zip(entries, payloads)):
        if payload is not None and not isinstance(payload, (bytes, bytearray)):
            entry.crc32 = crcs.get(i, 0)
    final = head()
    if len(final) != len(first):
        raise SnapshotError("internal error: the header changed length while writing")
    f.seek(0)
    f.write(final)
    f.seek(0, os.SEEK_END)
    header["_header_crc32"] = zlib.crc32(msgpack.packb({k: v for k, v in header.items() if k != "_header_crc32"},
                                                      use_bin_type=True))
    return written


# ------------------------------------------------------------------ reading
def _no_duplicates(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        raise SnapshotError("the header has a map with a duplicated key")
    return d


def read_header(f: IO[bytes], file_size: int, limits: LoadLimits = LoadLimits()) -> tuple[dict, list[TensorEntry], int]:
    """Parse and validate the header; returns ``(header, entries, data_start)``.

    Checks, before allocating anything: the format name and version, the
    header checksum, field types, unique names, dtypes from the allowlist,
    shapes (rank, non-negative sizes), ``prod(shape) * itemsize == nbytes``,
    offsets aligned, in order, non-overlapping and inside the file, and that
    the data section ends exactly at the end of the file.
    """
    if file_size < 16:
        raise SnapshotError(f"not a snapshot: the file has only {file_size} bytes")
    f.seek(0)
    cap = min(limits.max_header_bytes, file_size)
    unpacker = msgpack.Unpacker(f, raw=False, strict_map_key=True, use_list=True, max_buffer_size=cap,
                                object_pairs_hook=_no_duplicates, read_size=min(64 * 1024, cap))
    try:
        header = unpacker.unpack()
        header_end = unpacker.tell()
        seal = unpacker.unpack()
        seal_end = unpacker.tell()
        pad = unpacker.unpack()
        data_start = unpacker.tell()
    except SnapshotError:
        raise
    except Exception as exc:  # msgpack raises many types for malformed input
        raise SnapshotError(f"not a valid snapshot header: {type(exc).__name__}: {exc}") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise SnapshotError("not a minigrad-ckpt snapshot (the first object is not its header)")
    if header.get("version") != FORMAT_VERSION:
        raise SnapshotError(f"unsupported snapshot format version {header.get('version')!r} "
                            f"(this reader knows version {FORMAT_VERSION})")
    if not isinstance(seal, dict) or not isinstance(seal.get("header_crc32"), bytes) or len(seal["header_crc32"]) != 4:
        raise SnapshotError("the header seal is missing or malformed")
    if not isinstance(pad, bytes) or data_start % ALIGN or any(pad):
        raise SnapshotError("the data section is not aligned as the format requires")
    f.seek(0)
    raw_header = f.read(header_end)
    if zlib.crc32(raw_header).to_bytes(4, "big") != seal["header_crc32"]:
        raise SnapshotError("header checksum mismatch: the header is corrupted")
    header["_header_crc32"] = int.from_bytes(seal["header_crc32"], "big")
    del seal_end
    entries = _validate_entries(header, limits, file_size, data_start)
    return header, entries, data_start


def _validate_entries(header: dict, limits: LoadLimits, file_size: int, data_start: int) -> list[TensorEntry]:
    tensors = header.get("tensors")
    data_bytes = header.get("data_bytes")
    if not isinstance(tensors, list) or not isinstance(data_bytes, int) or data_bytes < 0:
        raise SnapshotError("the header's tensor table is malformed")
    if len(tensors) > limits.max_tensors:
        raise SnapshotError(f"the snapshot lists {len(tensors)} tensors, over the limit of {limits.max_tensors}")
    if data_start + data_bytes != file_size:
        raise SnapshotError(f"the file has {file_size} bytes but the header describes "
                            f"{data_start + data_bytes}: truncated or extended")
    entries = []
    names: set[str] = set()
    end = 0
    for i, t in enumerate(tensors):
        if not isinstance(t, dict):
            raise SnapshotError(f"tensor entry {i} is not a map")
        name, dtype, shape = t.get("name"), t.get("dtype"), t.get("shape")
        if not isinstance(name, str) or not name or len(name.encode()) > limits.max_name_bytes:
            raise SnapshotError(f"tensor entry {i} has an invalid name")
        if name in names:
            raise SnapshotError(f"tensor name {name!r} appears twice")
        names.add(name)
        if dtype not in DTYPES:
            raise SnapshotError(f"tensor {name!r} has unsupported dtype {dtype!r}")
        if (not isinstance(shape, list) or len(shape) > limits.max_rank
                or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)):
            raise SnapshotError(f"tensor {name!r} has an invalid shape {shape!r}")
        itemsize = np.dtype(dtype).itemsize
        count = 1
        for s in shape:  # Python ints do not overflow; stop early anyway
            count *= s
            if count * itemsize > max(file_size, 1) * 1024 and t.get("codec") != "zlib" and t.get("ref") is None:
                raise SnapshotError(f"tensor {name!r} claims more bytes than the file could hold")
        nbytes, crc, offset, stored = t.get("nbytes"), t.get("crc32"), t.get("offset"), t.get("stored")
        codec, ref = t.get("codec"), t.get("ref")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (nbytes, offset, stored)):
            raise SnapshotError(f"tensor {name!r} has malformed size fields")
        if not isinstance(crc, bytes) or len(crc) != 4:
            raise SnapshotError(f"tensor {name!r} has a malformed checksum field")
        if nbytes != count * itemsize:
            raise SnapshotError(f"tensor {name!r}: shape {shape} x itemsize {itemsize} = {count * itemsize} "
                                f"bytes, but the header says {nbytes}")
        if codec not in ("raw", "zlib") or ref not in (None, "base"):
            raise SnapshotError(f"tensor {name!r} has an unknown codec {codec!r} or reference {ref!r}")
        if ref == "base":
            if offset != -1 or stored != 0:
                raise SnapshotError(f"tensor {name!r} is taken from the base but has a payload")
        else:
            if codec == "raw" and stored != nbytes:
                raise SnapshotError(f"tensor {name!r}: raw payload of {stored} bytes for {nbytes} bytes of data")
            if codec == "zlib" and not 0 < nbytes <= 1032 * stored + 64:  # deflate expands at most ~1032:1
                raise SnapshotError(f"tensor {name!r}: {stored} compressed bytes cannot hold {nbytes} bytes of data")
            if offset % ALIGN or offset < end + 7 or offset + stored > data_bytes or stored < 0:
                raise SnapshotError(f"tensor {name!r} has an invalid offset {offset} (overlap, misalignment "
                                    f"or outside the file)")
            end = offset + stored
        entries.append(TensorEntry(name, dtype, tuple(shape), nbytes, int.from_bytes(crc, "big"), offset,
                                   stored, codec, ref))
    if end != data_bytes:
        raise SnapshotError("the data section does not end where its last tensor ends")
    return entries


def read_tensor(f: IO[bytes], entry: TensorEntry, data_start: int, worker: CrcWorker | None = None) -> Any:
    """Read one tensor's payload into a fresh, writable NumPy array.

    With a ``worker``, the raw payload's chunks are queued for checksumming
    (compare ``worker.finish()[entry.name]`` with ``entry.crc32`` afterwards);
    compressed payloads are checked here, after decompression.
    """
    pos = data_start + entry.offset
    f.seek(pos - 5)
    prefix = f.read(5)
    if len(prefix) != 5 or prefix[0] != 0xC6 or struct.unpack(">I", prefix[1:])[0] != entry.stored:
        raise SnapshotError(f"tensor {entry.name!r}: its msgpack bin header does not match the header table")
    dtype = np.dtype(entry.dtype)
    if entry.codec == "zlib":
        blob = f.read(entry.stored)
        if len(blob) != entry.stored:
            raise SnapshotError(f"tensor {entry.name!r}: the file ends inside its payload")
        try:
            d = zlib.decompressobj()
            raw = d.decompress(blob, entry.nbytes)
            if d.unconsumed_tail or len(raw) != entry.nbytes or not d.eof:
                raise SnapshotError(f"tensor {entry.name!r}: compressed payload has the wrong length")
        except zlib.error as exc:
            raise SnapshotError(f"tensor {entry.name!r}: corrupted compressed payload ({exc})") from None
        if worker is not None and zlib.crc32(raw) != entry.crc32:
            raise SnapshotError(f"tensor {entry.name!r}: checksum mismatch (the data is corrupted)")
        arr = np.frombuffer(raw, dtype=dtype).copy().reshape(entry.shape)
    else:
        arr = np.empty(entry.shape, dtype=dtype)
        if entry.nbytes:
            mv = memoryview(arr).cast("B")
            for start in range(0, entry.nbytes, CHUNK):
                chunk = mv[start:start + CHUNK]
                n = f.readinto(chunk)
                if n != len(chunk):
                    raise SnapshotError(f"tensor {entry.name!r}: the file ends inside its payload")
                if worker is not None:
                    worker.feed(entry.name, chunk)
    if arr.dtype.byteorder == "<" and not _LITTLE:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def check_padding(f: IO[bytes], entries: list[TensorEntry], data_start: int) -> None:
    """Each pad object and bin 32 prefix before a payload must be exactly what the writer writes, so no
    byte of the file escapes verification and a file that loads is always a walkable msgpack stream."""
    end = 0
    for e in entries:
        if e.ref is not None:
            continue
        want = _pad_object(end) + b"\xc6" + struct.pack(">I", e.stored)
        f.seek(data_start + end)
        if e.offset - end != len(want) or f.read(len(want)) != want:
            raise SnapshotError(f"tensor {e.name!r}: the padding before its payload is corrupted")
        end = e.offset + e.stored


def check_crcs(entries: list[TensorEntry], crcs: dict[Any, int]) -> None:
    """Raise for the first raw tensor whose CRC (from a :class:`CrcWorker`) does not match."""
    for e in entries:
        if e.ref is None and e.codec == "raw" and crcs.get(e.name, 0) != e.crc32:
            raise SnapshotError(f"tensor {e.name!r}: checksum mismatch (the data is corrupted)")


def file_size(path: str | os.PathLike) -> int:
    try:
        return os.stat(path).st_size
    except OSError as exc:
        raise SnapshotError(f"cannot read snapshot {os.fspath(path)!r}: {exc.strerror or exc}") from None
