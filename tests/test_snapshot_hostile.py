"""Reading hostile files: every bad file is a SnapshotError -- fast, in bounded memory, whatever the
class of input: wrong field types (every field x every msgpack type, in validly sealed files),
special files of every kind, paths that cannot be opened, long base chains, concurrent atomic
replacement, hostile msgpack structure, compressed payloads with trailing bytes; the CLI turns
each into one ``error:`` line.  Saving refuses what loading would refuse."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import textwrap
import tracemalloc
import zlib
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from timeouts import deadline  # tests/timeouts.py

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.cli import main as cli_main
from minigrad_ckpt.snapshot import LoadLimits, Snapshot, SnapshotConfig, SnapshotError, SnapshotMetadata
from minigrad_ckpt.snapshot.format import open_regular

msgpack = pytest.importorskip("msgpack", reason="msgpack (a runtime dependency) is not installed")
pytestmark = pytest.mark.msgpack



def parts(raw: bytes) -> tuple[dict, bytes]:
    """(header, data section) of a snapshot file."""
    u = msgpack.Unpacker(io.BytesIO(raw), raw=False, strict_map_key=False)
    header = u.unpack()
    u.unpack()
    u.unpack()
    return header, raw[u.tell():]


def sealed(header: dict, data: bytes) -> bytes:
    """A file around ``header`` (any content) and ``data`` with a *valid* seal and alignment."""
    hb = msgpack.packb(header, use_bin_type=True)
    out = hb + msgpack.packb({"header_crc32": zlib.crc32(hb).to_bytes(4, "big")}, use_bin_type=True)
    gap = (-len(out)) % 64
    if gap < 2:
        gap += 64
    return out + b"\xc4" + bytes([gap - 2]) + bytes(gap - 2) + data


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = cli_main(list(args))
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def assert_one_error_line(code, out, err):
    assert code != 0
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert "\x1b" not in err


def training_executor() -> mg.Executor:
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    opt = optim.Adam(model.parameters(), lr=0.01)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2)
    ex = mg.Executor(model, opt, sched)
    loss = (model(mg.randn(5, 3)) ** 2).sum()
    loss.backward()
    opt.step()
    sched.step()
    ex.add_tensor("user", np.arange(6, dtype=np.int32).reshape(2, 3))
    ex.step(3)
    return ex


_FILES: dict[str, bytes] = {}


def valid_file(tmp: Path, kind: str = "raw") -> bytes:
    if kind not in _FILES:
        cfg = SnapshotConfig(enable_compression=kind == "zlib", fsync=False)
        ex = training_executor()
        ex.add_tensor("empty", np.zeros((0, 4), np.float32))
        ex.add_tensor("channel_major", np.arange(24.0).reshape(3, 2, 4).transpose(1, 0, 2))  # an entry with "order"
        if kind == "zlib":
            ex.add_tensor("zeros", np.zeros(4096, np.float32))
        snap = Snapshot.from_executor_with_config(ex, None, cfg)
        snap.add_metadata("note", "x")
        p = tmp / f"valid-{kind}.mgsnap"
        snap.save(p)
        _FILES[kind] = p.read_bytes()
    return _FILES[kind]


# ------------------------------------------------- every field x every msgpack type
MSGPACK_VALUES = st.one_of(
    st.none(), st.booleans(),
    st.sampled_from([0, 1, -1, 63, 64, 2**31, 2**62, 2**63 - 1, 2**64 - 1, -(2**63)]),
    st.integers(-(2**63), 2**64 - 1),
    st.sampled_from([0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf"), 1e308]),
    st.text(max_size=8), st.sampled_from(["", "raw", "zlib", "base", "<f4", "|O", "\x1b[2J", "../x", "a" * 5000]),
    st.binary(max_size=8), st.sampled_from([b"\x00\x00\x00\x00", b"\xff" * 4]),
    st.lists(st.integers(-3, 2**62), max_size=4), st.lists(st.text(max_size=3), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(-2, 2) | st.text(max_size=2), max_size=3),
    st.just([[0, 2**62]]), st.just({"file": 1, "checksum": None}),
)
HEADER_FIELDS = ["format", "version", "iteration", "timestamp", "custom", "rng", "optimizer", "scheduler", "tape",
                 "base", "tensors", "data_bytes", "objects"]
ENTRY_FIELDS = ["name", "dtype", "shape", "nbytes", "crc32", "offset", "stored", "codec", "ref", "stored_crc32",
                "order"]
# paths one level down, where the reader or restore_into reads inside a field
NESTED = [("rng", "seed"), ("rng", "counter"), ("optimizer", "type"), ("optimizer", "param_groups"),
          ("optimizer", "scalars"), ("scheduler", "type"), ("scheduler", "state"), ("custom", "note")]


def check_bad_file_is_handled(path: Path) -> None:
    """Load, restore, restore_into, inspect, verify: each succeeds or raises SnapshotError / one error line."""
    try:
        snap = Snapshot.load(path)
    except SnapshotError:
        snap = None
    if snap is not None:
        for restore in (lambda: snap.restore(), lambda: snap.restore_into(training_executor())):
            try:
                restore()
            except SnapshotError:
                pass
    for action in ("inspect", "verify"):
        code, out, err = cli("snapshot", action, str(path))
        if code:
            assert_one_error_line(code, out, err)
        assert "\x1b" not in out


@pytest.mark.parametrize("kind", ["raw", "zlib"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=st.data())
def test_every_field_of_every_type_in_a_sealed_file_is_handled(tmp_path, kind, data):
    header, payload = parts(valid_file(tmp_path, kind))
    where = data.draw(st.sampled_from(["header", "entry", "nested", "missing", "extra"]))
    value = data.draw(MSGPACK_VALUES)
    if where == "header":
        header[data.draw(st.sampled_from(HEADER_FIELDS))] = value
    elif where == "entry":
        entries = header["tensors"]
        i = data.draw(st.integers(0, len(entries) - 1))
        entries[i][data.draw(st.sampled_from(ENTRY_FIELDS))] = value
    elif where == "nested":
        top, key = data.draw(st.sampled_from(NESTED))
        header[top][key] = value
    elif where == "missing":
        header.pop(data.draw(st.sampled_from(HEADER_FIELDS)), None)
    else:
        header[data.draw(st.sampled_from(["extra", "_header_crc32"]))] = value
    p = tmp_path / "mutated.mgsnap"
    p.write_bytes(sealed(header, payload))
    with deadline(20, "the reader"):
        check_bad_file_is_handled(p)


@pytest.mark.parametrize("case", ["dtype_list", "dtype_map", "custom_list", "base_str", "optimizer_int", "tape_str",
                                  "shape_0_huge", "iteration_negative", "iteration_over_int64", "custom_nonstr"])
def test_reported_field_types_are_snapshot_errors(tmp_path, case):
    header, payload = parts(valid_file(tmp_path))
    e = header["tensors"][0]
    {"dtype_list": lambda: e.update(dtype=["<f4"]), "dtype_map": lambda: e.update(dtype={"a": 1}),
     "custom_list": lambda: header.update(custom=["a"]), "base_str": lambda: header.update(base="x"),
     "optimizer_int": lambda: header.update(optimizer=3), "tape_str": lambda: header.update(tape="t"),
     "shape_0_huge": lambda: next(t for t in header["tensors"] if t["name"] == "empty").update(shape=[0, 2**62]),
     "iteration_negative": lambda: header.update(iteration=-1),
     "iteration_over_int64": lambda: header.update(iteration=2**63),
     "custom_nonstr": lambda: header.update(custom={"a": 1})}[case]()
    p = tmp_path / "bad.mgsnap"
    p.write_bytes(sealed(header, payload))
    with pytest.raises(SnapshotError):
        Snapshot.load(p)
    assert_one_error_line(*cli("snapshot", "inspect", str(p)))


# ------------------------------------------------- files that are not regular files, paths that cannot be opened
def special_files(tmp: Path) -> dict[str, Path]:
    fifo = tmp / "fifo.mgsnap"
    os.mkfifo(fifo)
    loop = tmp / "loop.mgsnap"
    os.symlink(loop, loop)
    sock_path = tmp / "sock.mgsnap"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock_path))
    s.close()
    d = tmp / "dir.mgsnap"
    d.mkdir()
    dangling = tmp / "dangling.mgsnap"
    os.symlink(tmp / "nowhere", dangling)
    return {"fifo": fifo, "symlink_loop": loop, "socket": sock_path, "directory": d, "char_device": Path("/dev/null"),
            "dangling_symlink": dangling, "missing": tmp / "missing.mgsnap", "nul_byte": Path(str(tmp) + "/a\x00b"),
            "name_too_long": tmp / ("x" * 300), "path_too_long": Path(str(tmp) + "/d" * 3000)}


def test_special_files_and_bad_paths_are_snapshot_errors_without_blocking(tmp_path):
    with deadline(20, "the reader"):
        for p in special_files(tmp_path).values():
            with pytest.raises(SnapshotError):
                Snapshot.load(p)
            assert_one_error_line(*cli("snapshot", "inspect", str(p)))
            assert_one_error_line(*cli("snapshot", "verify", str(p)))
            assert_one_error_line(*cli("snapshot", "diff", str(p), str(p)))
        assert "FIFO" in str(pytest.raises(SnapshotError, open_regular, tmp_path / "fifo.mgsnap").value)


@pytest.mark.parametrize("kind", ["fifo", "symlink_loop", "socket", "directory", "char_device", "missing",
                                  "name_too_long"])
def test_a_base_that_is_a_special_file_or_unopenable_is_a_snapshot_error(tmp_path, kind):
    special = special_files(tmp_path)[kind]
    ex = mg.Executor()
    ex.add_tensor("t", np.zeros(4))
    cfg = SnapshotConfig(incremental=True, fsync=False)
    base = Snapshot.from_executor_with_config(ex, 0, SnapshotConfig(fsync=False))
    base.save(tmp_path / "base.mgsnap")
    top = Snapshot.from_executor_with_config(ex, 1, cfg, base=base)
    top.save(tmp_path / "top.mgsnap")
    header, payload = parts((tmp_path / "top.mgsnap").read_bytes())
    header["base"]["file"] = os.path.basename(special) if kind != "char_device" else "null"
    target = tmp_path / "top2.mgsnap" if kind != "char_device" else Path("/dev") / "top2.mgsnap"
    if kind == "char_device":  # a base name relative to a directory we control: link /dev/null in
        os.symlink("/dev/null", tmp_path / "null")
        target = tmp_path / "top2.mgsnap"
    target.write_bytes(sealed(header, payload))
    with deadline(20, "the reader"):
        with pytest.raises(SnapshotError):
            Snapshot.load(target)
        assert_one_error_line(*cli("snapshot", "verify", str(target)))


# ------------------------------------------------- sizes from the open descriptor
def test_a_reader_racing_atomic_replacement_sees_the_old_or_the_new_file(tmp_path):
    p = tmp_path / "s.mgsnap"
    sources = []
    for n in (10, 5000, 300):  # different sizes: a size read from the path would mismatch
        ex = mg.Executor()
        ex.add_tensor("t", np.full(n, float(n)))
        src = tmp_path / f"src{n}.mgsnap"
        Snapshot.from_executor_with_config(ex, n, SnapshotConfig(fsync=False)).save(src)
        sources.append(src)
    os.link(sources[0], p)
    # Another process replaces p atomically as fast as it can (hard link to a temp name, rename
    # over p), so the reader really races it; it stops when its stop file appears.
    writer = textwrap.dedent(f"""
        import os
        srcs, p = {[str(x) for x in sources]!r}, {str(p)!r}
        tmp, stop = {str(tmp_path / ".tmp")!r}, {str(tmp_path / "stop")!r}
        i = 1  # never the file p already is (rename between two links of one file does nothing)
        while not os.path.exists(stop):
            for _ in range(50):
                os.link(srcs[i % 3], tmp)
                os.replace(tmp, p)
                i += 1
    """)
    proc = subprocess.Popen([sys.executable, "-c", writer])
    try:
        for _ in range(1500):
            snap = Snapshot.load(p)
            t_ = snap.tensors["t"]
            assert t_.size == snap.metadata.iteration and (t_ == float(t_.size)).all()
    finally:
        (tmp_path / "stop").touch()
        proc.wait(timeout=30)
    assert proc.returncode == 0


# ------------------------------------------------- long chains, cycles
def test_a_long_base_chain_loads_iteratively_and_the_depth_limit_holds(tmp_path):
    ex = mg.Executor()
    ex.add_tensor("fixed", np.arange(4.0))
    t = ex.add_tensor("moving", np.zeros(1))
    cfg = SnapshotConfig(incremental=True, fsync=False)
    prev = Snapshot.from_executor_with_config(ex, 0, SnapshotConfig(fsync=False))
    prev.save(tmp_path / "s0.mgsnap")
    n = 1500
    for i in range(1, n + 1):
        t.data[...] = i
        t._bump_version() if hasattr(t, "_bump_version") else None
        snap = Snapshot.from_executor_with_config(ex, i, cfg, base=prev)
        snap.save(tmp_path / f"s{i}.mgsnap")
        prev = snap
    top = Snapshot.load(tmp_path / f"s{n}.mgsnap")
    assert top.tensors["moving"][0] == n and (top.tensors["fixed"] == np.arange(4.0)).all()
    with pytest.raises(SnapshotError, match="max_base_depth"):
        Snapshot.load(tmp_path / f"s{n}.mgsnap", SnapshotConfig(limits=LoadLimits(max_base_depth=100)))


def test_a_base_cycle_through_hard_links_and_symlinks_is_refused(tmp_path):
    ex = mg.Executor()
    ex.add_tensor("t", np.zeros(3))
    base = Snapshot.from_executor_with_config(ex, 0, SnapshotConfig(fsync=False))
    base.save(tmp_path / "a.mgsnap")
    top = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig(incremental=True, fsync=False), base=base)
    top.save(tmp_path / "b.mgsnap")
    header, payload = parts((tmp_path / "b.mgsnap").read_bytes())
    header["base"]["file"] = "c.mgsnap"
    (tmp_path / "b.mgsnap").write_bytes(sealed(header, payload))
    os.symlink("b.mgsnap", tmp_path / "c.mgsnap")  # b -> c, and c is b
    with pytest.raises(SnapshotError, match="loops"):
        Snapshot.load(tmp_path / "b.mgsnap")


# ------------------------------------------------- limits: metadata entries, the decoder's budget
def test_max_metadata_entries_is_enforced_on_load_and_on_save(tmp_path):
    snap = Snapshot(SnapshotMetadata(0, 0.0), {"t": np.zeros(2)}, {}, SnapshotConfig(fsync=False))
    for i in range(5):
        snap.add_metadata(f"k{i}", "v")
    p = snap.save(tmp_path / "m.mgsnap")
    with pytest.raises(SnapshotError, match="max_metadata_entries"):
        Snapshot.load(p, SnapshotConfig(limits=LoadLimits(max_metadata_entries=4)))
    snap.config = SnapshotConfig(fsync=False, limits=LoadLimits(max_metadata_entries=4))
    with pytest.raises(SnapshotError, match="max_metadata_entries"):
        snap.save(tmp_path / "m2.mgsnap")
    assert not (tmp_path / "m2.mgsnap").exists()


@pytest.mark.parametrize("shape", ["empty_arrays", "empty_maps", "short_strings"])
def test_a_header_of_many_small_objects_costs_a_small_multiple_of_its_size(tmp_path, shape):
    n = 1 << 20
    filler = {"empty_arrays": [[]] * (n - 16), "empty_maps": [{}] * (n - 16),
              "short_strings": ["ab"] * (n // 3)}[shape]
    header, payload = parts(valid_file(tmp_path))
    header["custom"] = {"x": "y"}
    header["tape"] = {"nodes": filler, "output": "x"}
    p = tmp_path / "big.mgsnap"
    raw = sealed(header, payload)
    p.write_bytes(raw)
    del filler, raw
    tracemalloc.start()
    try:
        with pytest.raises(SnapshotError):
            Snapshot.load(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 25 * n, peak  # docs/snapshot-format.md, Limits: at most ~20x the header's bytes


# ------------------------------------------------- compressed payloads
def test_bytes_after_a_zlib_stream_or_a_changed_stored_crc_are_refused(tmp_path):
    raw = valid_file(tmp_path, "zlib")
    header, payload = parts(raw)
    z = next(e for e in header["tensors"] if e["name"] == "zeros" and e["codec"] == "zlib")
    start, stored = z["offset"], z["stored"]
    stream = payload[start:start + stored]
    assert zlib.decompress(stream) == np.zeros(4096, np.float32).tobytes()
    # the same stream plus 64 junk bytes, with every length and checksum made consistent
    junk = stream + b"\x01" * 64
    idx = header["tensors"].index(z)
    tensors = [(e, payload[e["offset"]:e["offset"] + e["stored"]]) for e in header["tensors"] if e["ref"] is None]
    blobs = [junk if e is z else b for e, b in tensors]
    out, pos = bytearray(), 0
    for (e, _), b in zip(tensors, blobs):
        k = (-(pos + 5)) % 64
        if k < 2:
            k += 64
        out += b"\xc4" + bytes([k - 2]) + bytes(k - 2) + b"\xc6" + len(b).to_bytes(4, "big")
        e["offset"], e["stored"] = len(out), len(b)
        out += b
        pos = len(out)
    header["tensors"][idx]["stored_crc32"] = zlib.crc32(junk).to_bytes(4, "big")
    header["data_bytes"] = len(out)
    p = tmp_path / "junk.mgsnap"
    p.write_bytes(sealed(header, bytes(out)))
    with pytest.raises(SnapshotError, match="after the end"):
        Snapshot.load(p)
    assert_one_error_line(*cli("snapshot", "verify", str(p)))
    # the stored bytes' own checksum is checked too
    header, payload = parts(raw)
    z = next(e for e in header["tensors"] if e["name"] == "zeros" and e["codec"] == "zlib")
    z["stored_crc32"] = (zlib.crc32(b"other")).to_bytes(4, "big")
    p.write_bytes(sealed(header, payload))
    with pytest.raises(SnapshotError, match="checksum"):
        Snapshot.load(p)


# ------------------------------------------------- escaping in inspect and diff
def test_inspect_and_diff_escape_control_characters(tmp_path):
    evil = "\x1b]0;pwned\x07\x1b[2J\u202e"
    ex = mg.Executor()
    ex.add_tensor("t" + evil, np.zeros(2))
    snap = Snapshot.from_executor_with_config(ex, 0, SnapshotConfig(fsync=False))
    snap.add_metadata("k" + evil, "v" + evil)
    a = snap.save(tmp_path / "a.mgsnap")
    ex2 = mg.Executor()
    ex2.add_tensor("u" + evil, np.ones(2))
    b = Snapshot.from_executor_with_config(ex2, 0, SnapshotConfig(fsync=False)).save(tmp_path / "b.mgsnap")
    for args in (("inspect", str(a)), ("diff", str(a), str(b))):
        code, out, err = cli("snapshot", *args)
        assert code == (1 if args[0] == "diff" else 0), err  # diff: 1 = they differ
        assert not any(c in out for c in "\x1b\x07\u202e"), out
        assert "\\x1b" in out
    code, out, err = cli("snapshot", "inspect", str(tmp_path / ("bad\x1b[2J.mgsnap")))
    assert_one_error_line(code, out, err)


# ------------------------------------------------- saving never writes what loading refuses
@pytest.mark.parametrize("case", ["long_name", "rank_33", "header_over_limit", "iteration_over_int64",
                                  "negative_iteration", "too_many_tensors"])
def test_save_refuses_what_load_would_refuse_and_writes_nothing(tmp_path, case):
    tensors = {"t": np.zeros(2)}
    limits = LoadLimits()
    it = 0
    if case == "long_name":
        tensors = {"n" * 5000: np.zeros(2)}
    elif case == "rank_33":
        tensors = {"t": np.zeros((1,) * 33)}
    elif case == "header_over_limit":
        tensors = {f"t{i}": np.zeros(1) for i in range(200)}
        limits = LoadLimits(max_header_bytes=4096)
    elif case == "iteration_over_int64":
        it = 2**63
    elif case == "negative_iteration":
        it = -1
    else:
        limits = LoadLimits(max_tensors=1)
        tensors = {"a": np.zeros(1), "b": np.zeros(1)}
    snap = Snapshot(SnapshotMetadata(it, 0.0), tensors, {}, SnapshotConfig(fsync=False, limits=limits))
    with pytest.raises(SnapshotError, match="limit|LoadLimits|iteration"):
        snap.save(tmp_path / "x.mgsnap")
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------- incremental by content
def crc_neutral_delta(n: int) -> np.ndarray:
    """A nonzero byte string d of length n with crc32(x ^ d) == crc32(x) for every x of length n.

    CRC-32 is affine over GF(2): crc(x ^ d) = crc(x) ^ crc(d) ^ crc(0...0).  So any d in the
    kernel of L(d) = crc(d) ^ crc(0^n) works; 33 single-bit vectors in a 32-dim space are
    linearly dependent, and Gaussian elimination finds the combination.
    """
    zero = zlib.crc32(bytes(n))
    basis = []  # (value, mask of the bits used)
    for k in range(33):
        v = bytearray(n)
        v[k // 8] = 1 << (k % 8)
        val, mask = zlib.crc32(bytes(v)) ^ zero, 1 << k
        for bval, bmask in basis:
            if val ^ bval < val:
                val, mask = val ^ bval, mask ^ bmask
        if val == 0:
            d = np.zeros(n, np.uint8)
            for j in range(33):
                if mask >> j & 1:
                    d[j // 8] ^= 1 << (j % 8)
            return d
        basis.append((val, mask))
        basis.sort(reverse=True)
    raise AssertionError("no dependency found")


def test_an_incremental_snapshot_stores_a_changed_tensor_even_with_a_forged_crc(tmp_path):
    x = np.random.default_rng(0).integers(0, 255, 64, dtype=np.uint8)
    forged = x ^ crc_neutral_delta(64)
    assert zlib.crc32(forged.tobytes()) == zlib.crc32(x.tobytes()) and (forged != x).any()
    ex = mg.Executor()
    t = ex.add_tensor("w", x.copy())
    base = Snapshot.from_executor_with_config(ex, 0, SnapshotConfig(fsync=False))
    base.save(tmp_path / "base.mgsnap")
    t.data[...] = forged
    for b in (base, tmp_path / "base.mgsnap", Snapshot.load(tmp_path / "base.mgsnap")):
        inc = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig(incremental=True, fsync=False), base=b)
        inc.save(tmp_path / "inc.mgsnap")
        assert (Snapshot.load(tmp_path / "inc.mgsnap").tensors["w"] == forged).all()
