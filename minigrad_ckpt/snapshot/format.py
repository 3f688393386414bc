"""The snapshot file format: one msgpack stream, tensors as raw aligned bytes.

A snapshot file is a sequence of msgpack objects that any msgpack reader can
walk (``msgpack.Unpacker(open(path, "rb"))``):

1. the **header**, a map (keys below), describing everything but the tensor bytes;
2. the **seal**, a map ``{"header_crc32": int}``: CRC-32 of the header's bytes;
3. for each tensor, in header order, two objects: a ``bin 8`` *padding* object
   (2..65 bytes) and a ``bin 32`` object holding the tensor's bytes, so that
   every payload starts at a multiple of 64 bytes in the file.

Payloads are little-endian, exactly ``prod(shape) * itemsize`` bytes (or a
zlib stream when ``codec == "zlib"``), in C order -- or, for an entry with an
``order``, in that axis order: the array's own memory layout (:mod:`.layout`).  ``docs/snapshot-format.md``
documents every byte.  Writing streams each array straight from its memory;
reading ``readinto``s preallocated arrays -- no extra copy of the state.

Nothing here executes code from a file: msgpack carries only data, the header
is checked against :class:`LoadLimits` before anything is allocated, and every
failure to read is a :class:`SnapshotError`.
"""

from __future__ import annotations

import fcntl
import os
import queue
import stat
import struct
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from ..backend import host_numpy as np
from .layout import inverse

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
    "<c8": "complex64", "<c16": "complex128",
}


class SnapshotError(Exception):
    """A snapshot could not be read, verified or written (the reason is in the message)."""


# A path that cannot be read is a SnapshotError and also the OSError PyTorch's load raises for it,
# so that a resume written for PyTorch -- ``try: ckpt = load(path) except FileNotFoundError: start
# afresh`` -- runs as it does there.
class SnapshotFileNotFoundError(SnapshotError, FileNotFoundError):
    """The snapshot's path does not exist (a SnapshotError and a ``FileNotFoundError``)."""


class SnapshotPermissionError(SnapshotError, PermissionError):
    """The snapshot's path may not be read (a SnapshotError and a ``PermissionError``)."""


class SnapshotIsADirectoryError(SnapshotError, IsADirectoryError):
    """The snapshot's path is a directory (a SnapshotError and an ``IsADirectoryError``)."""


_PATH_ERRORS = {FileNotFoundError: SnapshotFileNotFoundError, PermissionError: SnapshotPermissionError,
                IsADirectoryError: SnapshotIsADirectoryError}


def _path_error(kind: type, message: str) -> SnapshotError:
    """A SnapshotError with ``message`` that is also an OSError of ``kind`` where there is one."""
    for base, error in _PATH_ERRORS.items():
        if issubclass(kind, base):
            return error(message)
    return SnapshotError(message)


@dataclass(frozen=True)
class LoadLimits:
    """Caps applied to a file before anything it describes is allocated.

    ``save`` applies the same caps, so a file it writes is one ``load`` accepts.
    ``max_base_depth`` bounds an incremental snapshot's chain of bases (walked
    iteratively, one file open at a time).
    """

    max_header_bytes: int = 64 << 20
    max_tensors: int = 1_000_000
    max_rank: int = 32
    max_name_bytes: int = 4096
    max_metadata_entries: int = 100_000
    max_base_depth: int = 10_000


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
    stored_crc32: int | None = None  # zlib: CRC-32 of the stored (compressed) bytes
    order: tuple[int, ...] | None = None  # the payload's axis order (slowest first) when not C order

    def to_msgpack(self) -> dict[str, Any]:
        # The CRC is a fixed 4-byte bin, so the header keeps its length when the
        # writer fills in checksums computed while streaming the payloads.
        d = {"name": self.name, "dtype": self.dtype, "shape": list(self.shape), "nbytes": self.nbytes,
             "crc32": self.crc32.to_bytes(4, "big"), "offset": self.offset, "stored": self.stored,
             "codec": self.codec, "ref": self.ref}
        if self.codec == "zlib":
            d["stored_crc32"] = (self.stored_crc32 or 0).to_bytes(4, "big")
        if self.order is not None:
            d["order"] = list(self.order)
        return d


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
                   payloads: list[Any], limits: LoadLimits | None = None) -> int:
    """Write header, seal and payloads to ``f`` (which must be seekable).

    ``payloads[i]`` is the host array (or compressed ``bytes``) of
    ``entries[i]``, or ``None`` for an entry taken from the base.  Offsets are
    laid out first (they depend only on sizes); CRCs of raw arrays are computed
    in a helper thread while their bytes are written, then the header is
    written again in place with the final checksums -- it has the same length,
    since a CRC is a fixed 4-byte field.  Returns the number of bytes written.

    The header must be one the reader accepts under ``limits``: its size and its
    count of maps and arrays are checked before anything is written.
    """
    limits = limits or LoadLimits()
    header["data_bytes"] = _lay_out(entries, payloads)
    first, header_len = _head(header, entries)
    if header_len > limits.max_header_bytes:
        raise SnapshotError(f"the header would be {header_len} bytes, over the limit of {limits.max_header_bytes} "
                            f"(LoadLimits.max_header_bytes) that loading enforces; nothing was written")
    if count_containers(header) > container_budget(header_len):
        raise SnapshotError("the header would have more maps and arrays than loading accepts (one per 16 bytes); "
                            "nothing was written")
    f.write(first)
    written = len(first) + _write_payloads(f, entries, payloads)
    final, _ = _head(header, entries)
    if len(final) != len(first):
        raise SnapshotError("internal error: the header changed length while writing")
    f.seek(0)
    f.write(final)
    f.seek(0, os.SEEK_END)
    header["_header_crc32"] = zlib.crc32(msgpack.packb({k: v for k, v in header.items() if k != "_header_crc32"},
                                                      use_bin_type=True))
    return written


def _lay_out(entries: list[TensorEntry], payloads: list[Any]) -> int:
    """Give each entry its offset and stored length (and a compressed payload its CRC);
    returns the length of the data section."""
    pos = 0
    for entry, payload in zip(entries, payloads):
        if payload is None:
            entry.offset, entry.stored = -1, 0
            continue
        if isinstance(payload, (bytes, bytearray)):
            entry.stored_crc32 = zlib.crc32(payload)
        entry.stored = len(payload) if isinstance(payload, (bytes, bytearray)) else int(payload.nbytes)
        entry.offset = pos + len(_pad_object(pos)) + 5
        pos = entry.offset + entry.stored
    return pos


def _head(header: dict[str, Any], entries: list[TensorEntry]) -> tuple[bytes, int]:
    """The header (with the entries' current fields), its seal and the pad up to the data
    section; and the length of the header alone."""
    header["tensors"] = [e.to_msgpack() for e in entries]
    hb = msgpack.packb(header, use_bin_type=True)
    out = hb + _seal(hb)
    gap = (-len(out)) % ALIGN  # pad to the aligned start of the data section
    if gap < 2:
        gap += ALIGN
    return out + b"\xc4" + bytes([gap - 2]) + b"\x00" * (gap - 2), len(hb)


def _write_payloads(f: IO[bytes], entries: list[TensorEntry], payloads: list[Any]) -> int:
    """Each payload after its pad and msgpack ``bin 32`` prefix; raw arrays are streamed in
    chunks whose CRC a helper thread computes meanwhile (set on the entries at the end).
    Returns the bytes written."""
    written = pos = 0
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
    return written


# ------------------------------------------------------------------ reading
def open_regular(path: str | os.PathLike) -> tuple[IO[bytes], int, tuple[int, int]]:
    """Open ``path`` for reading as ``(file, size, (st_dev, st_ino))``, or raise SnapshotError.

    The open never blocks (``O_NONBLOCK``: a FIFO with no writer would otherwise
    hang the reader forever), and the descriptor must be a regular file
    (``fstat`` on the descriptor, not the path, so nothing can be swapped in
    between).  The size comes from that same ``fstat``: a file atomically
    replaced while we read is either the old complete file or the new one.
    Every way a path can be bad (missing, a symlink loop, a NUL byte, a name
    too long, a directory, a device, a socket) is a SnapshotError.
    """
    shown = _shown(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise _path_error(type(exc), f"cannot open snapshot {shown}: {exc.strerror or exc}") from None
    except (ValueError, TypeError) as exc:  # a NUL byte in the path, or not a path at all
        raise SnapshotError(f"cannot open snapshot {shown}: {exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = IsADirectoryError if stat.S_ISDIR(st.st_mode) else OSError
            raise _path_error(kind, f"{shown} is not a regular file (it is a {_file_kind(st.st_mode)})")
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return f, st.st_size, (st.st_dev, st.st_ino)


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return kind
    return "special file"


def _shown(path: Any) -> str:
    """A path for an error message: repr-quoted (so control characters are escaped) and bounded."""
    try:
        text = os.fsdecode(path)
    except (TypeError, ValueError):
        text = str(type(path).__name__)
    return repr(text if len(text) <= 300 else text[:300] + "...")


class _Budget:
    """Counts the containers a header decodes to (msgpack's ``list_hook``/``object_pairs_hook``).

    Every msgpack object takes at least one byte, but as a Python object an empty
    list or map costs ~70: capping containers at one per 16 header bytes keeps a
    decoded header within a small multiple of its size (docs/snapshot-format.md, Limits).
    """

    def __init__(self, n_bytes: int) -> None:
        self.left = n_bytes // 16 + 256

    def _spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise SnapshotError("the header has more maps and arrays than its size allows (at most one per "
                                "16 bytes)")

    def list_hook(self, items: list) -> list:
        self._spend()
        return items

    def pairs_hook(self, pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
        self._spend()
        d = dict(pairs)
        if len(d) != len(pairs):
            raise SnapshotError("the header has a map with a duplicated key")
        return d


def count_containers(obj: Any) -> int:
    """Maps and arrays in ``obj`` (plain data), counted without recursion: what :class:`_Budget` charges."""
    n, stack = 0, [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, dict):
            n += 1
            stack.extend(o.values())
        elif isinstance(o, (list, tuple)):
            n += 1
            stack.extend(o)
    return n


def container_budget(n_bytes: int) -> int:
    return n_bytes // 16 + 256


#: The header's own fields; the sections of executor state (rng, optimizer, ...) stand between
#: ``custom`` and ``base`` and are given to the reader by :mod:`.sections`.
HEADER_KEYS = ("format", "version", "iteration", "timestamp", "custom", "base", "tensors", "data_bytes")
ENTRY_KEYS = {"name", "dtype", "shape", "nbytes", "crc32", "offset", "stored", "codec", "ref"}
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def read_header(f: IO[bytes], file_size: int, limits: LoadLimits, sections: Sequence[Any]) -> tuple[
        dict, list[TensorEntry], int]:
    """Parse and validate the header; returns ``(header, entries, data_start)``.

    ``sections`` are the header's sections of executor state (``.sections.SECTIONS``:
    each has a ``key``, whether it is ``optional`` and a ``check`` of its value).

    In this order, so that nothing is decoded or allocated before it is bounded:
    the header's length is found by *skipping* it (msgpack builds no objects
    for that) and checked against ``max_header_bytes``; the seal's CRC is
    checked against the raw header bytes; only then is the header decoded,
    with msgpack's length limits and a budget of containers (:class:`_Budget`),
    and every field's type and range is checked (:func:`validate_header`)
    before any of it is used.
    """
    if file_size < 16:
        raise SnapshotError(f"not a snapshot: the file has only {file_size} bytes")
    f.seek(0)
    cap = min(limits.max_header_bytes + 256, file_size)  # the header, its seal and the pad after it
    unpacker = msgpack.Unpacker(f, raw=False, strict_map_key=True, max_buffer_size=cap,
                                read_size=min(64 * 1024, cap))
    too_big = SnapshotError(f"the header is larger than the limit of {limits.max_header_bytes} bytes "
                            f"(LoadLimits.max_header_bytes)")
    try:
        unpacker.skip()
        header_end = unpacker.tell()
        if header_end > limits.max_header_bytes:
            raise too_big
        seal = unpacker.unpack()
        pad = unpacker.unpack()
        data_start = unpacker.tell()
    except SnapshotError:
        raise
    except msgpack.BufferFull:
        raise too_big from None
    except Exception as exc:  # msgpack raises many types for malformed input
        raise SnapshotError(f"not a valid snapshot header: {type(exc).__name__}: {exc}") from None
    if (not isinstance(seal, dict) or set(seal) != {"header_crc32"} or not isinstance(seal["header_crc32"], bytes)
            or len(seal["header_crc32"]) != 4):
        raise SnapshotError("not a minigrad-ckpt snapshot, or its header seal is missing or malformed")
    if not isinstance(pad, bytes) or data_start % ALIGN or any(pad):
        raise SnapshotError("the data section is not aligned as the format requires")
    f.seek(0)
    raw_header = f.read(header_end)
    if len(raw_header) != header_end or zlib.crc32(raw_header).to_bytes(4, "big") != seal["header_crc32"]:
        raise SnapshotError("header checksum mismatch: the header is corrupted")
    header = _decode_header(raw_header)
    validate_header(header, limits, sections)
    header["_header_crc32"] = int.from_bytes(seal["header_crc32"], "big")
    entries = _validate_entries(header, limits, file_size, data_start)
    return header, entries, data_start


def _decode_header(raw_header: bytes) -> Any:
    """The header's msgpack bytes (their seal already checked) as data, under msgpack's length
    limits and a budget of maps and arrays (:class:`_Budget`); no extension types."""
    header_end = len(raw_header)
    budget = _Budget(header_end)
    try:
        header = msgpack.unpackb(raw_header, raw=False, strict_map_key=True, use_list=True,
                                 list_hook=budget.list_hook, object_pairs_hook=budget.pairs_hook,
                                 max_str_len=header_end, max_bin_len=header_end,
                                 max_array_len=header_end, max_map_len=header_end, max_ext_len=0)
    except SnapshotError:
        raise
    except Exception as exc:
        if "max_ext_len" in str(exc):
            raise SnapshotError("the header holds a msgpack extension type, which the format never uses") from None
        raise SnapshotError(f"not a valid snapshot header: {type(exc).__name__}: {exc}") from None
    return header


def validate_header(header: Any, limits: LoadLimits, sections: Sequence[Any]) -> None:
    """Type and range of every header field except the tensor table (checked by the reader next).

    The rule for each field is in docs/snapshot-format.md; each section checks its
    own field (``section.check``); deeper content (optimizer groups, scheduler fields,
    tape nodes) is validated again where it is used, against the executor it is
    restored into.
    """
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise SnapshotError("not a minigrad-ckpt snapshot (the first object is not its header)")
    if header.get("version") != FORMAT_VERSION or not is_int(header.get("version")):
        raise SnapshotError(f"unsupported snapshot format version {short(header.get('version'))} "
                            f"(this reader knows version {FORMAT_VERSION})")
    required = set(HEADER_KEYS) | {s.key for s in sections if not s.optional}
    known = set(HEADER_KEYS) | {s.key for s in sections}
    if not required <= set(header) <= known:
        raise SnapshotError(f"the header's fields are wrong: missing {sorted(required - set(header))}, "
                            f"unknown {short(sorted(set(header) - known))}")
    it = header["iteration"]
    if not is_int(it) or not 0 <= it <= INT64_MAX:
        raise SnapshotError(f"the header's iteration {short(it)} is not an integer in [0, 2**63)")
    ts = header["timestamp"]
    if not (is_int(ts) or isinstance(ts, float)):
        raise SnapshotError(f"the header's timestamp {short(ts)} is not a number")
    custom = header["custom"]
    if not isinstance(custom, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in custom.items()):
        raise SnapshotError("the header's custom metadata is not a map of strings to strings")
    if len(custom) > limits.max_metadata_entries:
        raise SnapshotError(f"the header has {len(custom)} custom metadata entries, over the limit of "
                            f"{limits.max_metadata_entries} (LoadLimits.max_metadata_entries)")
    for section in sections:
        section.check(header.get(section.key))
    base = header["base"]
    if base is not None and not (isinstance(base, dict) and set(base) == {"file", "checksum"}
                                 and isinstance(base["file"], str) and isinstance(base["checksum"], str)):
        raise SnapshotError("the header's base reference is malformed (want {'file': str, 'checksum': str})")
    if not isinstance(header["tensors"], list) or not is_int(header["data_bytes"]) or header["data_bytes"] < 0:
        raise SnapshotError("the header's tensor table is malformed")


def short(v: Any) -> str:
    """``repr(v)``, cut to 80 characters: error messages quote file content, boundedly and escaped."""
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


def _validate_entries(header: dict, limits: LoadLimits, file_size: int, data_start: int) -> list[TensorEntry]:
    """The tensor table as entries: each one checked (:func:`_validate_entry`), names unique,
    payloads in order, aligned, not overlapping, filling the data section exactly."""
    tensors, data_bytes = header["tensors"], header["data_bytes"]
    if len(tensors) > limits.max_tensors:
        raise SnapshotError(f"the snapshot lists {len(tensors)} tensors, over the limit of {limits.max_tensors}")
    if data_start + data_bytes != file_size:
        raise SnapshotError(f"the file has {file_size} bytes but the header describes "
                            f"{data_start + data_bytes}: truncated or extended")
    entries = []
    names: set[str] = set()
    end = 0
    for i, t in enumerate(tensors):
        e = _validate_entry(i, t, limits, file_size)
        if e.name in names:
            raise SnapshotError(f"tensor name {e.name!r} appears twice")
        names.add(e.name)
        if e.ref is None:
            if e.offset < end + 7 or e.offset + e.stored > data_bytes:
                raise SnapshotError(f"tensor {e.name!r} has an invalid offset {e.offset} (overlap, misalignment "
                                    f"or outside the file)")
            end = e.offset + e.stored
        entries.append(e)
    if end != data_bytes:
        raise SnapshotError("the data section does not end where its last tensor ends")
    return entries


def _validate_entry(i: int, t: Any, limits: LoadLimits, file_size: int) -> TensorEntry:
    """One entry of the tensor table: its fields, name, dtype, shape, sizes, codec and reference."""
    if not isinstance(t, dict):
        raise SnapshotError(f"tensor entry {i} is not a map")
    codec = t.get("codec")
    keys = (ENTRY_KEYS | {"stored_crc32"} if codec == "zlib" else ENTRY_KEYS) | ({"order"} & set(t))
    if set(t) != keys:
        raise SnapshotError(f"tensor entry {i} has fields {short(sorted(map(str, t)))}, want {sorted(keys)}")
    name, dtype, shape = t["name"], t["dtype"], t["shape"]
    if not isinstance(name, str) or not name or len(name.encode("utf-8", "surrogatepass")) > limits.max_name_bytes:
        raise SnapshotError(f"tensor entry {i} has an invalid name (a non-empty string of at most "
                            f"{limits.max_name_bytes} bytes)")
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise SnapshotError(f"tensor {name!r} has unsupported dtype {short(dtype)}")
    itemsize = np.dtype(dtype).itemsize
    count = _element_count(name, shape, itemsize, limits, file_size, t.get("ref") is not None)
    nbytes, crc, offset, stored, ref = t["nbytes"], t["crc32"], t["offset"], t["stored"], t["ref"]
    if not all(is_int(v) for v in (nbytes, offset, stored)):
        raise SnapshotError(f"tensor {name!r} has malformed size fields")
    if not isinstance(crc, bytes) or len(crc) != 4:
        raise SnapshotError(f"tensor {name!r} has a malformed checksum field")
    stored_crc = t.get("stored_crc32")
    if codec == "zlib" and not (isinstance(stored_crc, bytes) and len(stored_crc) == 4):
        raise SnapshotError(f"tensor {name!r} has a malformed stored_crc32 field")
    if nbytes != count * itemsize:
        raise SnapshotError(f"tensor {name!r}: shape {shape} x itemsize {itemsize} = {count * itemsize} "
                            f"bytes, but the header says {short(nbytes)}")
    if codec not in ("raw", "zlib") or not (ref is None or ref == "base"):
        raise SnapshotError(f"tensor {name!r} has an unknown codec {short(codec)} or reference {short(ref)}")
    if ref == "base":
        if offset != -1 or stored != 0 or codec != "raw":
            raise SnapshotError(f"tensor {name!r} is taken from the base but has a payload")
    else:
        if codec == "raw" and stored != nbytes:
            raise SnapshotError(f"tensor {name!r}: raw payload of {stored} bytes for {nbytes} bytes of data")
        if codec == "zlib" and not 0 < nbytes <= 1032 * stored + 64:  # deflate expands at most ~1032:1
            raise SnapshotError(f"tensor {name!r}: {stored} compressed bytes cannot hold {nbytes} bytes of data")
        if stored < 0 or offset % ALIGN:
            raise SnapshotError(f"tensor {name!r} has an invalid offset {offset} (overlap, misalignment "
                                f"or outside the file)")
    return TensorEntry(name, dtype, tuple(shape), nbytes, int.from_bytes(crc, "big"), offset, stored, codec, ref,
                       int.from_bytes(stored_crc, "big") if codec == "zlib" else None,
                       _order(name, t["order"], len(shape)) if "order" in t else None)


def _order(name: str, order: Any, ndim: int) -> tuple[int, ...]:
    """An entry's axis order, when it has the field: a permutation of ``range(ndim)`` other than
    the identity (C order is written as no field at all, so each layout has one spelling)."""
    if not (isinstance(order, list) and all(is_int(k) for k in order) and sorted(order) == list(range(ndim))
            and order != list(range(ndim))):
        raise SnapshotError(f"tensor {name!r} has an invalid order {short(order)} (a permutation of its "
                            f"{ndim} axes, not the identity)")
    return tuple(order)


def _element_count(name: str, shape: Any, itemsize: int, limits: LoadLimits, file_size: int, in_base: bool) -> int:
    """The element count of a valid ``shape``: at most ``max_rank`` non-negative integers,
    addressable by NumPy, and (for a payload in this file) not more bytes than it could hold."""
    if not isinstance(shape, list) or len(shape) > limits.max_rank or not all(
            is_int(s) and 0 <= s <= INT64_MAX for s in shape):
        raise SnapshotError(f"tensor {name!r} has an invalid shape {short(shape)} (at most "
                            f"{limits.max_rank} non-negative integers)")
    count, extent = 1, itemsize  # extent: what NumPy must be able to address, zeros aside
    for s in shape:
        count *= s
        extent *= max(s, 1)
        if extent > INT64_MAX:
            raise SnapshotError(f"tensor {name!r} has shape {short(shape)}, too large for an array")
        if count * itemsize > max(file_size, 1) * 1032 + 64 and not in_base:
            raise SnapshotError(f"tensor {name!r} claims more bytes than the file could hold")
    return count


def read_tensor(f: IO[bytes], entry: TensorEntry, data_start: int, worker: CrcWorker | None = None) -> Any:
    """Read one tensor's payload into a fresh, writable NumPy array, laid out in the entry's
    ``order`` (a transposed view of the C buffer the payload is read into) or in C order.

    With a ``worker``, a raw payload's chunks are queued for checksumming
    (compare with :func:`check_crcs` afterwards).  A compressed payload is
    streamed through zlib in chunks straight into the array; it must be one
    complete zlib stream ending exactly at its stored length, decompressing to
    exactly ``nbytes``; with a worker, the CRC of its stored bytes and of the
    decompressed bytes are both checked here.
    """
    pos = data_start + entry.offset
    f.seek(pos - 5)
    prefix = f.read(5)
    if len(prefix) != 5 or prefix[0] != 0xC6 or struct.unpack(">I", prefix[1:])[0] != entry.stored:
        raise SnapshotError(f"tensor {entry.name!r}: its msgpack bin header does not match the header table")
    order = entry.order or tuple(range(len(entry.shape)))
    buf = np.empty([entry.shape[k] for k in order], dtype=np.dtype(entry.dtype))
    mv = memoryview(buf).cast("B") if entry.nbytes else memoryview(b"")
    if entry.codec == "zlib":
        _inflate_into(f, entry, mv, check=worker is not None)
    elif entry.nbytes:
        for start in range(0, entry.nbytes, CHUNK):
            chunk = mv[start:start + CHUNK]
            n = f.readinto(chunk)
            if n != len(chunk):
                raise SnapshotError(f"tensor {entry.name!r}: the file ends inside its payload")
            if worker is not None:
                worker.feed(entry.name, chunk)
    arr = buf if entry.order is None else buf.transpose(inverse(entry.order))  # the layout it was saved in
    if arr.dtype.byteorder == "<" and not _LITTLE:
        arr = arr.astype(arr.dtype.newbyteorder("="))  # (order "K": the layout is kept)
    return arr


def _inflate_into(f: IO[bytes], entry: TensorEntry, out: memoryview, check: bool) -> None:
    d = zlib.decompressobj()
    pos, left, stored_crc, crc = 0, entry.stored, 0, 0
    try:
        while left:
            chunk = f.read(min(CHUNK, left))
            if not chunk:
                raise SnapshotError(f"tensor {entry.name!r}: the file ends inside its payload")
            left -= len(chunk)
            if check:
                stored_crc = zlib.crc32(chunk, stored_crc)
            if d.eof:
                raise SnapshotError(f"tensor {entry.name!r}: bytes after the end of its compressed stream")
            # At most one byte more than still fits: getting it means the stream is too long.
            piece = d.decompress(chunk, entry.nbytes - pos + 1)
            if len(piece) > entry.nbytes - pos or d.unconsumed_tail:
                raise SnapshotError(f"tensor {entry.name!r}: its compressed payload inflates to more than "
                                    f"{entry.nbytes} bytes")
            out[pos:pos + len(piece)] = piece
            if check:
                crc = zlib.crc32(piece, crc)
            pos += len(piece)
            if d.unused_data:
                raise SnapshotError(f"tensor {entry.name!r}: bytes after the end of its compressed stream")
    except zlib.error as exc:
        raise SnapshotError(f"tensor {entry.name!r}: corrupted compressed payload ({exc})") from None
    if not d.eof or pos != entry.nbytes:
        raise SnapshotError(f"tensor {entry.name!r}: compressed payload has the wrong length")
    if check and (stored_crc != entry.stored_crc32 or crc != entry.crc32):
        raise SnapshotError(f"tensor {entry.name!r}: checksum mismatch (the data is corrupted)")


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
