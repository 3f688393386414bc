"""Snapshot safety: atomic writes under SIGKILL and injected failures; a reader that never
executes anything and refuses hostile headers quickly, before allocating."""

from __future__ import annotations

import os
import pickle
import random
import signal
import stat
import subprocess
import sys
import textwrap
import time
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import (
    LoadLimits,
    Snapshot,
    SnapshotConfig,
    SnapshotError,
    SnapshotManager,
    SnapshotMetadata,
)
from minigrad_ckpt.snapshot import storage as snapshot_module

msgpack = pytest.importorskip("msgpack", reason="msgpack (a runtime dependency) is not installed")

ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # PYTHONPATH: set by conftest.py


# ------------------------------------------------------------------ crafting files by hand
def seal_and_pad(header_bytes: bytes) -> bytes:
    seal = msgpack.packb({"header_crc32": zlib.crc32(header_bytes).to_bytes(4, "big")}, use_bin_type=True)
    out = header_bytes + seal
    gap = (-len(out)) % 64
    if gap < 2:
        gap += 64
    return out + b"\xc4" + bytes([gap - 2]) + bytes(gap - 2)


def data_section(payloads: list[bytes]) -> tuple[bytes, list[int]]:
    """Pads, bin 32 prefixes and payloads laid out as the writer does; returns (bytes, offsets)."""
    out, offsets, pos = bytearray(), [], 0
    for p in payloads:
        n = (-(pos + 5)) % 64
        if n < 2:
            n += 64
        out += b"\xc4" + bytes([n - 2]) + bytes(n - 2) + b"\xc6" + len(p).to_bytes(4, "big")
        offsets.append(len(out))
        out += p
        pos = len(out)
    return bytes(out), offsets


def entry(name, dtype, shape, nbytes, offset, stored, crc=0, codec="raw", ref=None) -> dict:
    return {"name": name, "dtype": dtype, "shape": shape, "nbytes": nbytes, "crc32": crc.to_bytes(4, "big"),
            "offset": offset, "stored": stored, "codec": codec, "ref": ref}


def header(tensors: list, data_bytes: int, **kw) -> dict:
    h = {"format": "minigrad-ckpt/snapshot", "version": 1, "iteration": 0, "timestamp": 0.0, "custom": {},
         "rng": None, "optimizer": None, "scheduler": None, "tape": None, "base": None, "tensors": tensors,
         "data_bytes": data_bytes}
    h.update(kw)
    return h


def valid_parts() -> tuple[dict, bytes]:
    """A correct two-tensor file as (header dict, data section), for mutation."""
    a = np.arange(10, dtype=np.float32)
    b = np.arange(6, dtype=np.int64).reshape(2, 3)
    data, (oa, ob) = data_section([a.tobytes(), b.tobytes()])
    tensors = [entry("a", "<f4", [10], 40, oa, 40, zlib.crc32(a.tobytes())),
               entry("b", "<i8", [2, 3], 48, ob, 48, zlib.crc32(b.tobytes()))]
    return header(tensors, len(data)), data


def file_bytes(h: dict, data: bytes) -> bytes:
    return seal_and_pad(msgpack.packb(h, use_bin_type=True)) + data


def load_quickly(path: Path, limits: LoadLimits | None = None, budget_mb: float = 4.0) -> None:
    """Load ``path``: it must raise SnapshotError, within a second, peaking under ``budget_mb``."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(SnapshotError) as info:
            Snapshot.load(path, SnapshotConfig(limits=limits) if limits else None)
        elapsed = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < 1.0, f"{path.name}: took {elapsed:.2f} s"
    assert peak < budget_mb * 2**20, f"{path.name}: peak {peak / 2**20:.1f} MiB"
    assert str(info.value)


@pytest.fixture
def warm(tmp_path):
    """A first load, so lazy imports do not count against the memory budget of the next."""
    h, data = valid_parts()
    p = tmp_path / "valid.mgsnap"
    p.write_bytes(file_bytes(h, data))
    out = Snapshot.load(p).tensors
    assert out["a"].tolist() == list(range(10)) and out["b"].shape == (2, 3)
    return p


def mutate(f):
    def make():
        h, data = valid_parts()
        r = f(h, data)
        return r if isinstance(r, bytes) else file_bytes(h, data)
    make.__name__ = f.__name__
    return make


def _set(d, **kw):
    d.update(kw)


HOSTILE = {
    # shapes
    "huge_shape": mutate(lambda h, d: _set(h["tensors"][0], shape=[2**40, 2**40])),
    "huge_shape_zlib": mutate(lambda h, d: _set(h["tensors"][0], shape=[2**40, 2**40], codec="zlib")),
    "huge_shape_exact_nbytes": mutate(lambda h, d: _set(h["tensors"][0], shape=[2**30, 2**30], nbytes=2**62)),
    "huge_shape_base_ref": mutate(lambda h, d: _set(h["tensors"][0], shape=[2**20, 2**40], nbytes=2**62,
                                                    ref="base", offset=-1, stored=0)),
    "negative_dim": mutate(lambda h, d: _set(h["tensors"][1], shape=[-2, -3])),
    "float_dim": mutate(lambda h, d: _set(h["tensors"][0], shape=[10.0])),
    "bool_dim": mutate(lambda h, d: _set(h["tensors"][0], shape=[True] * 10)),
    "shape_not_a_list": mutate(lambda h, d: _set(h["tensors"][0], shape="10")),
    "rank_33": mutate(lambda h, d: _set(h["tensors"][0], shape=[1] * 32 + [10])),
    "nbytes_mismatch": mutate(lambda h, d: _set(h["tensors"][0], nbytes=39)),
    "stored_mismatch": mutate(lambda h, d: _set(h["tensors"][0], stored=39)),
    # names
    "duplicate_names": mutate(lambda h, d: _set(h["tensors"][1], name="a")),
    "empty_name": mutate(lambda h, d: _set(h["tensors"][0], name="")),
    "bytes_name": mutate(lambda h, d: _set(h["tensors"][0], name=b"a")),
    "long_name": mutate(lambda h, d: _set(h["tensors"][0], name="n" * 5000)),
    # offsets
    "overlapping_offsets": mutate(lambda h, d: _set(h["tensors"][1], offset=h["tensors"][0]["offset"])),
    "a_runs_into_b": mutate(lambda h, d: _set(h["tensors"][0], shape=[20], nbytes=80, stored=80)),
    "offset_past_end": mutate(lambda h, d: _set(h["tensors"][1], offset=h["data_bytes"] + 64)),
    "offset_huge": mutate(lambda h, d: _set(h["tensors"][1], offset=2**63 - 64)),
    "offset_negative": mutate(lambda h, d: _set(h["tensors"][0], offset=-64)),
    "offset_misaligned": mutate(lambda h, d: _set(h["tensors"][0], offset=h["tensors"][0]["offset"] + 1)),
    "out_of_order": mutate(lambda h, d: h["tensors"].reverse()),
    "data_bytes_short": mutate(lambda h, d: _set(h, data_bytes=h["data_bytes"] - 1)),
    "data_bytes_huge": mutate(lambda h, d: _set(h, data_bytes=2**40)),
    "trailing_bytes": mutate(lambda h, d: file_bytes(h, d) + b"\x00" * 64),
    "truncated_payload": mutate(lambda h, d: file_bytes(h, d)[:-8]),
    "payload_prefix_4GB": mutate(lambda h, d: file_bytes(h, d[:h["tensors"][1]["offset"] - 4] + b"\xff" * 4
                                                      + d[h["tensors"][1]["offset"]:])),
    # dtypes
    **{f"dtype_{i}": mutate(lambda h, d, bad=bad: _set(h["tensors"][0], dtype=bad))
       for i, bad in enumerate([">f4", "float32", "O", "|O", "<c8", "|V4", "<M8[s]", "<U1", 5, None, "<f16",
                                "f4", "<f4 "])},
    # other fields
    "crc_as_int": mutate(lambda h, d: _set(h["tensors"][0], crc32=5)),
    "crc_3_bytes": mutate(lambda h, d: _set(h["tensors"][0], crc32=b"abc")),
    "unknown_codec": mutate(lambda h, d: _set(h["tensors"][0], codec="lz4")),
    "unknown_ref": mutate(lambda h, d: _set(h["tensors"][0], ref="../other")),
    # the axis order of a payload: a permutation of the entry's axes other than the identity
    **{f"order_{i}": mutate(lambda h, d, bad=bad: _set(h["tensors"][1], order=bad))
       for i, bad in enumerate([[0, 1], [1, 1], [1], [1, 0, 2], [2, 0], [True, False], [1.0, 0.0], "10", None,
                                {"1": 0}, [[1], [0]], [2**63, 0]])},
    "order_of_a_vector": mutate(lambda h, d: _set(h["tensors"][0], order=[0])),
    "entry_not_a_map": mutate(lambda h, d: h["tensors"].append([1, 2])),
    "tensors_not_a_list": mutate(lambda h, d: _set(h, tensors={"a": 1})),
    "iteration_str": mutate(lambda h, d: _set(h, iteration="5")),
    "timestamp_str": mutate(lambda h, d: _set(h, timestamp="now")),
    "custom_non_str": mutate(lambda h, d: _set(h, custom={"k": b"\x80\x04pickle"})),
    "custom_ext": mutate(lambda h, d: _set(h, custom={"k": msgpack.ExtType(1, b"x")})),
    "wrong_format": mutate(lambda h, d: _set(h, format="safetensors")),
    "version_0": mutate(lambda h, d: _set(h, version=0)),
    # raw msgpack: lengths and structure
    "bin32_4GB_first": lambda: b"\xc6\xff\xff\xff\xff" + bytes(200),
    "str32_4GB_first": lambda: b"\xdb\xff\xff\xff\xff" + bytes(200),
    "map32_4G_entries": lambda: b"\xdf\xff\xff\xff\xff" + b"\xa1a\x01" * 100,
    "array32_1e9": lambda: b"\xdd" + (10**9).to_bytes(4, "big") + b"\xc0" * 200,
    "ext32_4GB": lambda: b"\xc9\xff\xff\xff\xff\x01" + bytes(200),
    "deep_nesting": lambda: b"\x91" * 100_000 + b"\xc0",
    "int_map_key": lambda: seal_and_pad(msgpack.packb({1: 2, "format": "minigrad-ckpt/snapshot"})),
    "invalid_utf8": lambda: seal_and_pad(b"\x81\xa6format\xa3\xff\xfe\xfd"),
    "header_not_a_map": lambda: seal_and_pad(msgpack.packb([1, 2, 3])),
    "no_seal": lambda: msgpack.packb(header([], 0)) + bytes(64),
    "seal_wrong_crc": lambda: (lambda hb: hb + msgpack.packb({"header_crc32": b"\x00\x00\x00\x01"})
                               + b"\xc4" + bytes([62]) + bytes(62))(msgpack.packb(header([], 0))),
}


def _tensor_count_1e9() -> bytes:
    hb = msgpack.packb(header([], 0), use_bin_type=True)
    i = hb.index(b"\xa7tensors\x90") + 8
    return seal_and_pad(hb[:i] + b"\xdd" + (10**9).to_bytes(4, "big") + hb[i + 1:])


def _duplicate_key() -> bytes:
    hb = msgpack.packb(header([], 0), use_bin_type=True)
    assert hb[0] == 0x8C  # fixmap of 12
    return seal_and_pad(b"\x8d" + hb[1:] + b"\xa9iteration\x05")


def _zlib_nbytes_2_63() -> bytes:
    blob = zlib.compress(b"x" * 100)
    data, (o,) = data_section([blob])
    return file_bytes(header([entry("z", "<f8", [2**60], 2**63, o, len(blob), codec="zlib")], len(data)), data)


def _zlib_bomb_nbytes_0() -> bytes:
    blob = zlib.compress(bytes(16 << 20), 9)  # 16 MiB of zeros in ~16 KB, claimed as an empty tensor
    data, (o,) = data_section([blob])
    return file_bytes(header([entry("z", "<f4", [0], 0, o, len(blob), codec="zlib")], len(data)), data)


def _zlib_bomb() -> bytes:
    blob = zlib.compress(bytes(64 << 20), 9)  # 64 MiB of zeros in ~65 KB, claimed as 16 bytes
    data, (o,) = data_section([blob])
    return file_bytes(header([entry("z", "<f4", [4], 16, o, len(blob), codec="zlib")], len(data)), data)


HOSTILE.update({"tensor_count_1e9": _tensor_count_1e9, "duplicate_header_key": _duplicate_key,
                "zlib_nbytes_2_63": _zlib_nbytes_2_63, "zlib_bomb": _zlib_bomb,
                "zlib_bomb_nbytes_0": _zlib_bomb_nbytes_0})


def test_the_crafting_helpers_make_what_the_writer_makes(warm):
    with open(warm, "rb") as f:
        assert len(list(msgpack.Unpacker(f, raw=False))) == 3 + 4
    meta = SnapshotMetadata(iteration=0, timestamp=0.0)
    tensors = {"a": np.arange(10, dtype=np.float32), "b": np.arange(6, dtype=np.int64).reshape(2, 3)}
    written = Snapshot(meta, tensors, {}).save(warm.parent / "real.mgsnap").read_bytes()
    assert written == warm.read_bytes()  # byte for byte: the hostile variants differ only where intended


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_file_is_refused_quickly_without_allocating(tmp_path, warm, case):
    path = tmp_path / f"{case}.mgsnap"
    path.write_bytes(HOSTILE[case]())
    budget = 4.0 if not case.startswith("zlib_bomb") else 2.0 + 3 * path.stat().st_size / 2**20
    load_quickly(path, budget_mb=budget)


def test_load_limits_are_enforced(tmp_path, warm):
    h, data = valid_parts()
    h["custom"] = {"note": "x" * 8192}
    p = tmp_path / "big_header.mgsnap"
    p.write_bytes(file_bytes(h, data))
    assert Snapshot.load(p).get_metadata("note") == "x" * 8192
    load_quickly(p, LoadLimits(max_header_bytes=4096))
    h, data = valid_parts()
    p.write_bytes(file_bytes(h, data))
    load_quickly(p, LoadLimits(max_tensors=1))
    h["tensors"][0]["name"] = "n" * 100
    p.write_bytes(file_bytes(h, data))
    load_quickly(p, LoadLimits(max_name_bytes=64))
    h, data = valid_parts()
    p.write_bytes(file_bytes(h, data))
    load_quickly(p, LoadLimits(max_rank=1))


class _Trap:
    """Unpickling this would create the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_the_reader_never_executes_anything(tmp_path, warm, monkeypatch):
    marker = tmp_path / "pwned"
    payload = pickle.dumps(_Trap(marker))

    def no_unpickling(*a, **k):
        raise AssertionError("the reader unpickled something")

    monkeypatch.setattr(pickle, "loads", no_unpickling)
    monkeypatch.setattr(pickle, "load", no_unpickling)
    monkeypatch.setattr(np, "load", no_unpickling)
    h, data = valid_parts()
    h["scheduler"] = {"type": "StepLR", "state": payload}
    h["optimizer"] = msgpack.ExtType(42, payload)
    h["tensors"][0]["dtype"] = "|O"
    p = tmp_path / "trap.mgsnap"
    p.write_bytes(file_bytes(h, data))
    with pytest.raises(SnapshotError, match="dtype|extension type"):
        Snapshot.load(p)
    h["tensors"][0]["dtype"] = "<f4"
    p.write_bytes(file_bytes(h, data))
    with pytest.raises(SnapshotError, match="extension type"):  # refused as data, never run
        Snapshot.load(p)
    h["optimizer"] = None
    p.write_bytes(file_bytes(h, data))
    with pytest.raises(SnapshotError, match="scheduler state is malformed"):  # bytes where a map belongs
        Snapshot.load(p)
    assert not marker.exists()


# ------------------------------------------------------------------ atomic writes
WRITER = textwrap.dedent(r"""
    import os, sys
    import numpy as np
    import minigrad_ckpt as mg
    from minigrad_ckpt.snapshot import Snapshot

    path = sys.argv[1]

    def make(it, n, v):
        ex = mg.Executor()
        ex.add_tensor("w", np.full(n, v, np.float32))
        ex.add_tensor("k", np.arange(n // 4, dtype=np.int64) + it)
        ex.iteration = it
        return ex

    states = [make(1, 200_000, 1.0), make(2, 350_000, 2.0)]
    print("ready", flush=True)
    for line in sys.stdin:             # a fork server: each "go" forks a writer that saves forever
        cmd = line.split()
        if cmd[0] == "go":
            pid = os.fork()
            if pid == 0:
                i = int(cmd[1])  # which state to write first
                try:
                    while True:
                        Snapshot.from_executor(states[i % 2]).save(path)
                        i += 1
                finally:
                    os._exit(3)
            print(pid, flush=True)
        elif cmd[0] == "reap":
            print(os.waitpid(int(cmd[1]), 0)[1], flush=True)
""")


def expected_state(it: int) -> dict[str, np.ndarray]:
    n, v = {1: (200_000, 1.0), 2: (350_000, 2.0)}[it]
    return {"w": np.full(n, v, np.float32), "k": np.arange(n // 4, dtype=np.int64) + it}


def test_sigkill_during_saves_never_leaves_a_partial_snapshot(tmp_path):
    path = tmp_path / "snapshot-000000000001.mgsnap"
    ex = mg.Executor()
    for k, v in expected_state(1).items():
        ex.add_tensor(k, v)
    ex.iteration = 1
    Snapshot.from_executor(ex).save(path)
    wanted = {it: expected_state(it) for it in (1, 2)}
    server = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=ENV)
    rnd = random.Random(1234)
    seen = set()
    t0 = time.monotonic()
    try:
        assert server.stdout.readline().strip() == "ready"
        for k in range(30):
            server.stdin.write(f"go {k % 2}\n")
            server.stdin.flush()
            pid = int(server.stdout.readline())
            time.sleep(rnd.uniform(0.0, 0.06))
            os.kill(pid, signal.SIGKILL)
            server.stdin.write(f"reap {pid}\n")
            server.stdin.flush()
            status = int(server.stdout.readline())
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
            snap = Snapshot.load(path)  # complete and verified, old or new
            it = snap.metadata.iteration
            assert set(snap.tensors) == {"w", "k"}
            for k, v in wanted[it].items():
                assert snap.tensors[k].tobytes() == v.tobytes()
            seen.add(it)
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    assert time.monotonic() - t0 < 20
    assert seen == {1, 2}, "the writer never completed a save: the test proved nothing"
    leftovers = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers, "no kill landed inside a write: the test proved nothing"
    assert all(p.name.startswith(".") for p in leftovers)
    # the manager (read-only, no manifest) is not confused by the temp files; nor when it writes
    assert SnapshotManager(tmp_path).load_latest().metadata.iteration in (1, 2)
    m = SnapshotManager(tmp_path, max_snapshots=1)
    m.save_snapshot(ex, 5)
    m.save_snapshot(ex, 6)
    assert m.load_latest().metadata.iteration == 6
    assert path.exists()  # not the manager's file: never deleted


def _saved(tmp_path) -> tuple[Path, bytes, mg.Executor]:
    ex = mg.Executor()
    ex.add_tensor("a", np.arange(1000, dtype=np.float64))
    path = Snapshot.from_executor(ex, 1).save(tmp_path / "s.mgsnap")
    ex.get_tensor("a").data[:] = -1.0
    return path, path.read_bytes(), ex


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_a_failed_save_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch, where):
    path, old, ex = _saved(tmp_path)

    def boom(*a, **k):
        raise OSError(28, "No space left on device (injected)")

    if where == "write":
        real = snapshot_module.write_snapshot

        def half(f, *a, **k):
            f.write(b"\x8c" + bytes(1000))
            raise OSError(28, "No space left on device (injected)")

        monkeypatch.setattr(snapshot_module, "write_snapshot", half)
        assert real is not half
    elif where == "fsync":
        monkeypatch.setattr(os, "fsync", boom)
    else:
        monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="injected"):
        Snapshot.from_executor(ex, 2).save(path)
    monkeypatch.undo()
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.mgsnap"]
    assert Snapshot.load(path).metadata.iteration == 1


def test_saved_files_get_umask_permissions(tmp_path):
    old = os.umask(0o027)
    try:
        path, _, _ = _saved(tmp_path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
