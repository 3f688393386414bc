"""Fuzzing the snapshot reader: truncations, bit flips, random bytes, hostile length fields.

Every damaged file must raise :class:`SnapshotError` -- no other exception type, no hang
(a deadline), no large allocation.  Which bytes of a file are covered?

* header: the seal's CRC-32; the seal itself: compared with the recomputed CRC;
* payloads: the per-tensor CRC-32;
* the pad object after the seal and the pad object + ``bin 32`` prefix before each payload:
  checked structurally -- they must be exactly the bytes the writer writes (zeros included),
  so every byte of an uncompressed snapshot is covered: ``test_every_byte_is_covered``
  flips one bit in each byte and expects SnapshotError every time.

A compressed payload is covered twice: by the CRC-32 of its stored bytes and by that of
its decompressed bytes; its zlib stream must also end exactly at its stored length.
"""

from __future__ import annotations

import functools
import tempfile
import tracemalloc
import zlib
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig, SnapshotError, SnapshotMetadata

msgpack = pytest.importorskip("msgpack", reason="msgpack (a runtime dependency) is not installed")

_DIR = tempfile.TemporaryDirectory(prefix="snapshot-fuzz-")
N = max(settings.default.max_examples, 100)
FUZZ = settings(max_examples=N, deadline=timedelta(seconds=2),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

TENSORS = {
    "a": np.arange(10, dtype=np.float32),
    "b": np.arange(6, dtype=np.int64).reshape(2, 3),
    "c": np.array(3.5),
    "d": np.zeros((0, 2), np.uint8),
    "e": np.array([True, False, True]),
    "f": np.array([np.nan, -0.0, np.inf], np.float16),
    "g": np.arange(24, dtype=np.float32).reshape(3, 2, 4).transpose(1, 0, 2),  # channel-major: an "order" field
}
ZTENSORS = {"zeros": np.zeros(4096, np.float32), "ramp": np.arange(512, dtype=np.int32),
            "noise": np.random.default_rng(0).standard_normal(64).astype(np.float32)}


@functools.cache
def original(kind: str) -> bytes:
    tensors, cfg = (TENSORS, SnapshotConfig()) if kind == "raw" else (ZTENSORS, SnapshotConfig(enable_compression=True))
    meta = SnapshotMetadata(iteration=3, timestamp=0.0)
    snap = Snapshot(meta, dict(tensors), {}, cfg)
    snap.add_metadata("k", "v")
    path = snap.save(Path(_DIR.name) / f"{kind}.mgsnap")
    raw = path.read_bytes()
    if kind == "zlib":
        header = msgpack.unpackb(raw[: raw.index(b"\x81\xacheader_crc32")], raw=False)
        assert {t["name"]: t["codec"] for t in header["tensors"]}["zeros"] == "zlib"
    return raw


def load_bytes(data: bytes, tag: str = "x") -> Snapshot:
    p = Path(_DIR.name) / f"fuzz-{tag}.mgsnap"
    p.write_bytes(data)
    return Snapshot.load(p)


def identical(snap: Snapshot, tensors: dict) -> bool:
    out = snap.tensors
    return out.keys() == tensors.keys() and all(
        out[k].dtype == v.dtype and out[k].shape == v.shape and out[k].tobytes() == v.tobytes()
        for k, v in tensors.items())


def refused(data: bytes, budget_mb: float = 8.0) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(SnapshotError):
            load_bytes(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < budget_mb * 2**20, f"peak {peak / 2**20:.1f} MiB"


def in_zlib_payloads(positions: list[int]) -> bool:
    """Whether every position lies inside a compressed payload of the compressed original."""
    raw = original("zlib")
    header = msgpack.unpackb(raw[: raw.index(b"\x81\xacheader_crc32")], raw=False)
    data_start = len(raw) - header["data_bytes"]
    spans = [(data_start + t["offset"], data_start + t["offset"] + t["stored"]) for t in header["tensors"]
             if t["codec"] == "zlib"]
    return all(any(a <= p < b for a, b in spans) for p in positions)


def flip(data: bytes, pos: int, bit: int) -> bytes:
    b = bytearray(data)
    b[pos] ^= 1 << bit
    return bytes(b)


def test_the_originals_load():
    assert identical(load_bytes(original("raw")), TENSORS)
    assert identical(load_bytes(original("zlib")), ZTENSORS)


# ------------------------------------------------------------------ deterministic sweeps
def test_every_byte_is_covered():
    """One flipped bit in any byte of an uncompressed snapshot -- header, seal, pads, prefixes,
    payloads -- is a SnapshotError: no byte escapes verification."""
    raw = original("raw")
    uncovered = []
    for pos in range(len(raw)):
        try:
            load_bytes(flip(raw, pos, pos % 8))
        except SnapshotError:
            continue
        uncovered.append(pos)
    assert uncovered == [], f"{len(uncovered)} of {len(raw)} bytes are not covered: {uncovered[:40]}"


def test_truncations_are_refused():
    raw = original("raw")
    for n in [*range(0, len(raw) - 80, 3), *range(len(raw) - 80, len(raw))]:
        with pytest.raises(SnapshotError):
            load_bytes(raw[:n])


def test_empty_file():
    with pytest.raises(SnapshotError):
        load_bytes(b"")


# ------------------------------------------------------------------ properties
@FUZZ
@given(st.data())
def test_truncation(data):
    kind = data.draw(st.sampled_from(["raw", "zlib"]))
    raw = original(kind)
    n = data.draw(st.integers(0, len(raw) - 1))
    refused(raw[:n])


@FUZZ
@given(st.data())
def test_bit_flip_in_an_uncompressed_snapshot(data):
    raw = original("raw")
    pos = data.draw(st.integers(0, len(raw) - 1))
    bit = data.draw(st.integers(0, 7))
    refused(flip(raw, pos, bit))


@FUZZ
@given(st.data())
def test_bit_flip_in_a_compressed_snapshot(data):
    raw = original("zlib")
    pos = data.draw(st.integers(0, len(raw) - 1))
    bit = data.draw(st.integers(0, 7))
    damaged = flip(raw, pos, bit)
    try:
        snap = load_bytes(damaged)
    except SnapshotError:
        return
    # only inside a deflate stream, and only when it decodes to the very same bytes
    assert identical(snap, ZTENSORS) and in_zlib_payloads([pos]), pos


@FUZZ
@given(st.data())
def test_bytes_overwritten_anywhere(data):
    kind = data.draw(st.sampled_from(["raw", "zlib"]))
    raw = bytearray(original(kind))
    writes = data.draw(st.lists(st.tuples(st.integers(0, len(raw) - 1), st.integers(0, 255)), min_size=1,
                                max_size=8))
    for pos, value in writes:
        raw[pos] = value
    assume(bytes(raw) != original(kind))
    try:
        snap = load_bytes(bytes(raw))
    except SnapshotError:
        return
    changed = [i for i, (x, y) in enumerate(zip(raw, original(kind))) if x != y]
    assert kind == "zlib" and identical(snap, ZTENSORS) and in_zlib_payloads(changed), changed


@FUZZ
@given(st.binary(max_size=4096))
def test_random_bytes(blob):
    refused(blob)


@FUZZ
@given(st.data())
def test_valid_prefix_then_random_bytes(data):
    raw = original("raw")
    n = data.draw(st.integers(0, len(raw)))
    tail = data.draw(st.binary(min_size=1, max_size=256))
    assume(raw[:n] + tail != raw)
    refused(raw[:n] + tail)


HOSTILE_PREFIXES = [
    b"\xc4\xff", b"\xc5\xff\xff", b"\xc6\xff\xff\xff\xff", b"\xd9\xff", b"\xda\xff\xff", b"\xdb\xff\xff\xff\xff",
    b"\xdc\xff\xff", b"\xdd\xff\xff\xff\xff", b"\xde\xff\xff", b"\xdf\xff\xff\xff\xff",
    b"\xc7\xff\x01", b"\xc8\xff\xff\x01", b"\xc9\xff\xff\xff\xff\x01", b"\xdd\x3b\x9a\xca\x00",
]


@FUZZ
@given(st.data())
def test_hostile_length_fields(data):
    """A msgpack length field claiming gigabytes (or random lengths), written over any position:
    refused quickly, without allocating what it claims."""
    kind = data.draw(st.sampled_from(["raw", "zlib"]))
    raw = bytearray(original(kind))
    prefix = data.draw(st.one_of(
        st.sampled_from(HOSTILE_PREFIXES),
        st.builds(lambda t, n: bytes([t]) + n, st.sampled_from([0xC6, 0xDB, 0xDD, 0xDF]), st.binary(min_size=4,
                                                                                                   max_size=4)),
        st.builds(lambda t, n: bytes([t]) + n, st.sampled_from([0xC5, 0xDA, 0xDC, 0xDE]), st.binary(min_size=2,
                                                                                                   max_size=2)),
    ))
    header_end = raw.index(b"\x81\xacheader_crc32")
    pos = data.draw(st.one_of(st.integers(0, header_end), st.integers(0, len(raw) - len(prefix))))
    raw[pos:pos + len(prefix)] = prefix
    assume(bytes(raw) != original(kind))
    changed = [i for i, (x, y) in enumerate(zip(raw, original(kind))) if x != y]
    if kind == "zlib" and in_zlib_payloads(changed):
        try:  # inside a deflate stream: an error, or the very same data
            assert identical(load_bytes(bytes(raw)), ZTENSORS)
        except SnapshotError:
            pass
        return
    refused(bytes(raw))


@FUZZ
@given(st.integers(0, 2**32 - 1), st.sampled_from(sorted(TENSORS)))
def test_hostile_payload_length_prefix(length, name):
    """The bin 32 length in front of a payload must match the header table."""
    raw = bytearray(original("raw"))
    header = msgpack.unpackb(raw[: raw.index(b"\x81\xacheader_crc32")], raw=False)
    entry = next(t for t in header["tensors"] if t["name"] == name)
    assume(length != entry["stored"])
    at = len(raw) - header["data_bytes"] + entry["offset"] - 4
    raw[at:at + 4] = length.to_bytes(4, "big")
    refused(bytes(raw))


def test_hostile_header_with_correct_seal_is_refused():
    """Lengths inside a header whose seal matches (so only validation stands in the way)."""
    raw = original("raw")
    header = msgpack.unpackb(raw[: raw.index(b"\x81\xacheader_crc32")], raw=False)
    for mutate in (lambda h: h["tensors"][0].update(shape=[2**40, 2**40]),
                   lambda h: h["tensors"][0].update(nbytes=2**63, shape=[2**61]),
                   lambda h: h.update(data_bytes=2**63),
                   lambda h: h["tensors"][1].update(offset=2**62)):
        h = msgpack.unpackb(msgpack.packb(header), raw=False)
        mutate(h)
        hb = msgpack.packb(h, use_bin_type=True)
        out = hb + msgpack.packb({"header_crc32": zlib.crc32(hb).to_bytes(4, "big")}, use_bin_type=True)
        gap = (-len(out)) % 64
        gap += 64 if gap < 2 else 0
        refused(out + b"\xc4" + bytes([gap - 2]) + bytes(gap - 2) + raw[len(raw) - header["data_bytes"]:])
