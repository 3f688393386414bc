"""Snapshot: capture, save, load, restore; the byte format; checksums; compression;
incremental snapshots; the tape."""

from __future__ import annotations

import os
import re
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig, SnapshotError, SnapshotMetadata

msgpack = pytest.importorskip("msgpack", reason="msgpack (a runtime dependency) is not installed")

ALL_DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64",
              "uint8", "uint16", "uint32", "uint64", "bool"]
CODES = {"bool": "|b1", "int8": "|i1", "int16": "<i2", "int32": "<i4", "int64": "<i8", "uint8": "|u1",
         "uint16": "<u2", "uint32": "<u4", "uint64": "<u8", "float16": "<f2", "float32": "<f4", "float64": "<f8"}


# ------------------------------------------------------------------ helpers
def objects(data: bytes) -> list[tuple[int, int, object]]:
    """Walk a byte string as a msgpack stream: (start, end, object) for every object."""
    up = msgpack.Unpacker(raw=False, max_buffer_size=max(len(data), 1))
    up.feed(data)
    out = []
    while True:
        start = up.tell()
        try:
            obj = up.unpack()
        except msgpack.OutOfData:
            break
        out.append((start, up.tell(), obj))
    assert up.tell() == len(data), "trailing bytes that are not a complete msgpack object"
    return out


def write_sealed(dst: Path, header_bytes: bytes, data: bytes = b"") -> None:
    """Header bytes + a correct seal + the aligning pad + ``data`` (for hand-crafted files)."""
    seal = msgpack.packb({"header_crc32": zlib.crc32(header_bytes).to_bytes(4, "big")}, use_bin_type=True)
    out = header_bytes + seal
    gap = (-len(out)) % 64
    if gap < 2:
        gap += 64
    Path(dst).write_bytes(out + b"\xc4" + bytes([gap - 2]) + bytes(gap - 2) + data)


def reseal(src: Path, dst: Path, mutate) -> None:
    """Rewrite ``src``'s header through ``mutate(header)``, recompute the seal, keep the data section."""
    raw = Path(src).read_bytes()
    objs = objects(raw)
    header, data_start = objs[0][2], objs[2][1]
    mutate(header)
    write_sealed(dst, msgpack.packb(header, use_bin_type=True), raw[data_start:])


def patch_volatile(raw: bytes) -> bytes:
    """Zero the timestamp value and the header CRC (the only bytes allowed to differ)."""
    b = bytearray(raw)
    i = raw.index(b"\xa9timestamp\xcb") + 11
    b[i:i + 8] = bytes(8)
    j = raw.index(b"\xacheader_crc32\xc4\x04") + 15
    b[j:j + 4] = bytes(4)
    return bytes(b)


def build(seed: int = 0):
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.25), nn.Linear(8, 3))
    opt = optim.Adam(model.parameters(), lr=0.01)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    return model, opt, sched, mg.Executor(model, opt, sched)


def train(model, opt, sched, ex, n):
    loss = None
    for _ in range(n):
        loss = ((model(mg.randn(6, 4)) - 0.5) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        ex.step()
    return loss


def params(model) -> dict[str, bytes]:
    return {n: p.numpy().tobytes() for n, p in model.named_parameters()}


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def random_array(dtype: str, shape, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    dt = np.dtype(dtype)
    n = int(np.prod(shape)) * dt.itemsize
    return rng.integers(0, 256, size=n, dtype=np.uint8).view(dt).reshape(shape)


# bit patterns: quiet NaNs with distinct payloads and signs, a signalling NaN, +-Inf, -0.0, denormals
SPECIAL_BITS = {
    "float16": (np.uint16, [0x7E00, 0x7E01, 0xFE00, 0x7C01, 0x7DFF, 0xFFFF, 0x7C00, 0xFC00, 0x8000, 0x0001, 0x3C00]),
    "float32": (np.uint32, [0x7FC00000, 0x7FC00001, 0xFFC12345, 0x7F800001, 0x7FBFFFFF, 0xFFFFFFFF, 0x7F800000,
                            0xFF800000, 0x80000000, 0x00000001, 0x3F800000]),
    "float64": (np.uint64, [0x7FF8000000000000, 0x7FF8000000000001, 0xFFF8DEADBEEF0001, 0x7FF0000000000001,
                            0x7FF7FFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000,
                            0x8000000000000000, 0x0000000000000001, 0x3FF0000000000000]),
}


def special_floats(dtype: str) -> np.ndarray:
    ut, bits = SPECIAL_BITS[dtype]
    return np.array(bits, dtype=ut).view(dtype)


def direct_snapshot(tensors: dict[str, np.ndarray], iteration: int = 0) -> Snapshot:
    """A snapshot of arbitrary arrays, bypassing Tensor (which refuses e.g. big-endian input)."""
    meta = SnapshotMetadata(iteration=iteration, timestamp=0.0, tensor_count=len(tensors),
                            total_bytes=sum(a.nbytes for a in tensors.values()))
    return Snapshot(meta, dict(tensors), {})


# ------------------------------------------------------------------ surface
def test_metadata_fields_sizes_and_custom_metadata(tmp_path):
    model, opt, sched, ex = build()
    train(model, opt, sched, ex, 2)
    t0 = time.time()
    snap = Snapshot.from_executor(ex, 7)
    t1 = time.time()
    m = snap.metadata
    assert m.iteration == 7
    assert Snapshot.from_executor(ex).metadata.iteration == ex.iteration == 2
    assert t0 <= m.timestamp <= t1
    assert m.version == "1"
    assert m.tensor_count == len(ex.tensors) == 12
    assert m.total_bytes == sum(t.numpy().nbytes for t in ex.tensors.values())
    assert m.custom == {} and m.checksum is None
    assert snap.size_bytes() == m.total_bytes
    snap.add_metadata("note", "before lr decay")
    snap.add_metadata("run", "ü-unicode ✓")
    assert snap.get_metadata("note") == "before lr decay"
    assert snap.get_metadata("missing") is None
    with pytest.raises(TypeError):
        snap.add_metadata("n", 3)  # type: ignore[arg-type]
    path = tmp_path / "s.mgsnap"
    assert snap.save(path) == path
    raw = path.read_bytes()
    seal = objects(raw)[1][2]
    assert m.checksum == "crc32:" + seal["header_crc32"].hex()
    assert snap.size_bytes() == len(raw) == os.path.getsize(path)
    loaded = Snapshot.load(path)
    lm = loaded.metadata
    assert (lm.iteration, lm.timestamp, lm.version, lm.tensor_count, lm.total_bytes, lm.custom, lm.checksum) == \
           (7, m.timestamp, "1", m.tensor_count, m.total_bytes, {"note": "before lr decay", "run": "ü-unicode ✓"},
            m.checksum)
    assert loaded.get_metadata("run") == "ü-unicode ✓"
    assert loaded.size_bytes() == len(raw)
    human = loaded.size_human_readable()
    mt = re.fullmatch(r"(\d+(?:\.\d+)?) (bytes|KB|MB|GB)", human)
    assert mt, human
    scale = {"bytes": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}[mt.group(2)]
    assert abs(float(mt.group(1)) * scale - len(raw)) <= 0.01 * scale
    assert "iteration=7" in repr(loaded)


def test_size_human_readable_units():
    snap = direct_snapshot({"a": np.zeros(10, np.uint8)})
    assert snap.size_human_readable() == "10 bytes"
    snap = direct_snapshot({"a": np.zeros(3 * 1024 * 1024 // 2, np.uint8)})
    assert snap.size_human_readable() == "1.50 MB"


def test_config_switches_and_constructors():
    d = SnapshotConfig()
    assert (d.enable_compression, d.include_tape, d.verify_checksum, d.incremental) == (False, False, True, False)
    t = SnapshotConfig.for_training()
    assert (t.enable_compression, t.include_tape, t.verify_checksum, t.incremental) == (False, True, True, False)
    i = SnapshotConfig.for_inference()
    assert i.enable_compression is True and i.include_tape is False and i.verify_checksum is True
    assert i.incremental is False
    # SnapshotConfig.incremental() on the class is a constructor; config.incremental the flag
    assert callable(SnapshotConfig.incremental)
    inc = SnapshotConfig.incremental()
    assert isinstance(inc, SnapshotConfig) and inc.incremental is True
    assert SnapshotConfig(incremental=True).incremental is True
    assert SnapshotConfig(incremental=False).incremental is False
    c = SnapshotConfig()
    c.incremental = True
    assert c.incremental is True and SnapshotConfig().incremental is False
    c2 = SnapshotConfig(enable_compression=True, include_tape=True, verify_checksum=False, incremental=True)
    assert (c2.enable_compression, c2.include_tape, c2.verify_checksum, c2.incremental) == (True, True, False, True)


def test_for_inference_compresses_and_leaves_out_the_tape(tmp_path):
    model, opt, sched, ex = build()
    ex.add_tensor("mask", np.zeros((64, 64), dtype=np.float32))
    loss = ((model(mg.randn(3, 4))) ** 2).mean()
    ex.record(loss)
    path = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_inference()).save(tmp_path / "i.mgsnap")
    header = objects(path.read_bytes())[0][2]
    assert header["tape"] is None
    assert not any(t["name"].startswith("__tape__") for t in header["tensors"])
    assert {t["name"]: t["codec"] for t in header["tensors"]}["mask"] == "zlib"
    full = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "t.mgsnap")
    assert objects(full.read_bytes())[0][2]["tape"] is not None


# ------------------------------------------------------------------ restore
def test_restore_gives_a_new_executor_with_the_state(tmp_path):
    model, opt, sched, ex = build()
    train(model, opt, sched, ex, 3)
    ex.add_tensor("user.ids", np.arange(5, dtype=np.int32))
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    snap = Snapshot.load(tmp_path / "s.mgsnap")
    ex2 = snap.restore()
    assert isinstance(ex2, mg.Executor) and ex2 is not ex
    assert ex2.iteration == 3
    assert sorted(ex2.tensors) == sorted(ex.tensors)
    for name, t in ex.tensors.items():
        assert same_bits(ex2.get_tensor(name).numpy(), t.numpy()), name
    assert ex2.restored_optimizer_state == ex.optimizer_state()
    assert ex2.restored_scheduler_state == ex.scheduler_state()
    assert ex2.restored_rng_state == mg.get_rng_state()
    ex2.get_tensor("user.ids").data[0] = 99  # independent of the original
    assert ex.get_tensor("user.ids").numpy()[0] == 0


def test_restore_into_continues_bit_for_bit(tmp_path):
    model, opt, sched, ex = build()
    ex.add_tensor("user.step_log", np.array([1.5, -2.0]))
    train(model, opt, sched, ex, 3)
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    rng_at_snapshot = mg.get_rng_state()
    train(model, opt, sched, ex, 3)
    reference = params(model)
    ref_moments = {n: t.numpy().tobytes() for n, t in ex.tensors.items() if n.startswith("optimizer.")}
    lr_ref = opt.param_groups[0]["lr"]
    # another seed: every parameter differs until restored
    model2, opt2, sched2, ex2 = build(seed=99)
    assert params(model2) != params(model)
    mg.manual_seed(12345)
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(ex2)
    assert ex2.iteration == 3
    assert mg.get_rng_state() == rng_at_snapshot
    assert same_bits(ex2.get_tensor("user.step_log").numpy(), np.array([1.5, -2.0]))
    assert opt2.state[next(iter(model2.parameters()))]["step"] == 3
    train(model2, opt2, sched2, ex2, 3)
    assert params(model2) == reference
    assert {n: t.numpy().tobytes() for n, t in ex2.tensors.items() if n.startswith("optimizer.")} == ref_moments
    assert opt2.param_groups[0]["lr"] == lr_ref
    assert ex2.iteration == 6


def test_restore_into_refuses_a_mismatch_and_changes_nothing(tmp_path):
    model, opt, sched, ex = build()
    train(model, opt, sched, ex, 1)
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    snap = Snapshot.load(tmp_path / "s.mgsnap")
    # another architecture
    mg.manual_seed(5)
    other = nn.Sequential(nn.Linear(4, 9), nn.Tanh(), nn.Dropout(0.25), nn.Linear(9, 3))
    ex_other = mg.Executor(other, optim.Adam(other.parameters(), lr=0.01))
    before, rng_before = params(other), mg.get_rng_state()
    with pytest.raises(SnapshotError, match="model"):
        snap.restore_into(ex_other)
    assert params(other) == before and mg.get_rng_state() == rng_before and ex_other.iteration == 0
    # same model, another optimizer type: checked before the model is touched
    model3, _, _, _ = build(seed=3)
    ex3 = mg.Executor(model3, optim.SGD(model3.parameters(), lr=0.1))
    before = params(model3)
    with pytest.raises(SnapshotError, match="Adam"):
        snap.restore_into(ex3)
    assert params(model3) == before and ex3.iteration == 0


def test_copy_false_snapshot_refuses_to_save_after_an_in_place_step(tmp_path):
    model, opt, sched, ex = build()
    train(model, opt, sched, ex, 1)
    live = Snapshot.from_executor(ex, copy=False)
    copied = Snapshot.from_executor(ex)
    before = params(model)
    train(model, opt, sched, ex, 1)
    with pytest.raises(SnapshotError, match="changed in place"):
        live.save(tmp_path / "live.mgsnap")
    assert not (tmp_path / "live.mgsnap").exists()
    copied.save(tmp_path / "copy.mgsnap")
    loaded = Snapshot.load(tmp_path / "copy.mgsnap").tensors
    assert {n: loaded[f"model.{n}"].tobytes() for n in before} == before


# ------------------------------------------------------------------ format
def test_file_is_a_walkable_msgpack_stream_with_aligned_payloads(tmp_path):
    model, opt, sched, ex = build()
    train(model, opt, sched, ex, 1)
    ex.add_tensor("empty", np.zeros((0, 3), np.float32))
    ex.add_tensor("scalar", np.array(7, np.int8))
    path = Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    raw = path.read_bytes()
    with open(path, "rb") as f:  # any msgpack reader, over the whole file
        walked = list(msgpack.Unpacker(f, raw=False))
    objs = objects(raw)
    assert [o for _, _, o in objs] == walked
    header, seal, first_pad = walked[0], walked[1], walked[2]
    assert header["format"] == "minigrad-ckpt/snapshot" and header["version"] == 1
    assert list(header) == ["format", "version", "iteration", "timestamp", "custom", "rng", "optimizer",
                            "scheduler", "tape", "base", "tensors", "data_bytes"]
    assert set(seal) == {"header_crc32"}
    assert seal["header_crc32"] == zlib.crc32(raw[:objs[0][1]]).to_bytes(4, "big")
    assert isinstance(first_pad, bytes) and objs[2][1] % 64 == 0
    data_start = objs[2][1]
    rest = objs[3:]
    names = [t["name"] for t in header["tensors"]]
    assert names == sorted(ex.tensors)
    assert len(rest) == 2 * len(names)
    tensors = ex.tensors
    for k, t in enumerate(header["tensors"]):
        (_, _, pad), (start, _, payload) = rest[2 * k], rest[2 * k + 1]
        assert isinstance(pad, bytes) and set(pad) <= {0}
        assert raw[start] == 0xC6  # bin 32
        assert (start + 5) % 64 == 0 and start + 5 == data_start + t["offset"]
        arr = tensors[t["name"]].numpy()
        assert payload == np.ascontiguousarray(arr).tobytes()
        assert t["dtype"] == arr.dtype.str.replace("=", "<") or t["dtype"] == CODES[arr.dtype.name]
        assert t["shape"] == list(arr.shape) and t["nbytes"] == arr.nbytes == len(payload)
        assert int.from_bytes(t["crc32"], "big") == zlib.crc32(payload)
    assert objs[-1][1] == len(raw) == data_start + header["data_bytes"]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_dtype_round_trips_bit_exactly(tmp_path, dtype):
    arrays = {"r": random_array(dtype, (5, 7), seed=1), "z0": random_array(dtype, (), seed=2),
              "empty": random_array(dtype, (3, 0, 2))}
    if dtype.startswith("float"):
        arrays["special"] = special_floats(dtype)
    ex = mg.Executor()
    for n, a in arrays.items():
        t = ex.add_tensor(n, a)
        assert same_bits(t.numpy(), a)  # precondition: the Tensor kept the bits
    path = Snapshot.from_executor(ex).save(tmp_path / "d.mgsnap")
    header = objects(path.read_bytes())[0][2]
    assert {t["dtype"] for t in header["tensors"]} == {CODES[dtype]}  # nothing widened
    loaded = Snapshot.load(path).tensors
    for n, a in arrays.items():
        assert same_bits(loaded[n], a), n
        assert loaded[n].flags.writeable and loaded[n].flags.c_contiguous
    ex2 = Snapshot.load(path).restore()
    for n, a in arrays.items():
        assert same_bits(ex2.get_tensor(n).numpy(), a)
        assert ex2.get_tensor(n).dtype == np.dtype(dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nan_payloads_infinities_and_negative_zero_survive(tmp_path, dtype):
    a = special_floats(dtype)
    ut = SPECIAL_BITS[dtype][0]
    assert len(set(a.view(ut)[np.isnan(a)].tolist())) >= 6  # distinct NaN bit patterns
    snap = direct_snapshot({"x": a, "neg_zero": np.array(-0.0, dtype=dtype)})
    snap.save(tmp_path / "f.mgsnap")
    out = Snapshot.load(tmp_path / "f.mgsnap").tensors
    assert out["x"].view(ut).tolist() == a.view(ut).tolist()
    assert np.signbit(out["neg_zero"]) and out["neg_zero"].shape == ()


def test_non_contiguous_and_big_endian_inputs(tmp_path):
    base = random_array("float32", (6, 8), seed=3)
    big = {
        "transposed": base.T,
        "strided": np.arange(40, dtype=np.int16)[::3],
        "reversed": np.arange(10, dtype=np.uint32)[::-1],
        "column": base[:, ::3],
        "be_f4": special_floats("float32").astype(">f4"),
        "be_f2": special_floats("float16").astype(">f2"),
        "be_f8_2d": special_floats("float64").astype(">f8").reshape(1, -1)[:, ::2],
        "be_i8": np.array([1, -2, 2**62, -(2**63)], dtype=">i8"),
        "be_u2": np.array([0, 1, 0xFFFF, 0x1234], dtype=">u2"),
        "be_0d": np.array(2.5, dtype=">f8"),
    }
    assert not big["transposed"].flags.c_contiguous and big["be_f4"].dtype.byteorder == ">"
    direct_snapshot(big).save(tmp_path / "nc.mgsnap")
    header = objects((tmp_path / "nc.mgsnap").read_bytes())[0][2]
    assert all(t["dtype"][0] in "<|" for t in header["tensors"])
    out = Snapshot.load(tmp_path / "nc.mgsnap").tensors
    for n, a in big.items():
        want = a.astype(a.dtype.newbyteorder("=")).copy(order="C")
        assert same_bits(out[n], want), n
        assert out[n].dtype.byteorder in "=|"
    # the executor path: a transposed tensor, with and without the capture copy
    ex = mg.Executor()
    t = ex.add_tensor("tr", base.T)
    for copy in (True, False):
        Snapshot.from_executor(ex, copy=copy).save(tmp_path / "tr.mgsnap")
        assert same_bits(Snapshot.load(tmp_path / "tr.mgsnap").tensors["tr"], np.ascontiguousarray(t.numpy()))


def test_identical_states_give_identical_bytes(tmp_path, monkeypatch):
    def state():
        model, opt, sched, ex = build(seed=4)
        train(model, opt, sched, ex, 2)
        ex.add_tensor("u", np.arange(9, dtype=np.int64))
        return ex

    ex1, ex2 = state(), state()
    s1 = Snapshot.from_executor(ex1)
    s1.add_metadata("b", "2")
    s1.add_metadata("a", "1")
    time.sleep(0.01)
    s2 = Snapshot.from_executor(ex2)
    s2.add_metadata("a", "1")
    s2.add_metadata("b", "2")
    r1 = s1.save(tmp_path / "1.mgsnap").read_bytes()
    r2 = s2.save(tmp_path / "2.mgsnap").read_bytes()
    assert r1 != r2 and len(r1) == len(r2)
    assert patch_volatile(r1) == patch_volatile(r2)
    # with a fixed clock: byte for byte
    monkeypatch.setattr(time, "time", lambda: 1_700_000_000.25)
    r3 = Snapshot.from_executor(ex1).save(tmp_path / "3.mgsnap").read_bytes()
    r4 = Snapshot.from_executor(ex2).save(tmp_path / "4.mgsnap").read_bytes()
    assert r3 == r4
    # and a different state is not identical
    ex2.get_tensor("u").data[0] = 1
    r5 = Snapshot.from_executor(ex2).save(tmp_path / "5.mgsnap").read_bytes()
    assert patch_volatile(r5) != patch_volatile(r4)


# ------------------------------------------------------------------ checksums
def _tensor_payload_position(raw: bytes, name: str) -> int:
    objs = objects(raw)
    header, data_start = objs[0][2], objs[2][1]
    entry = next(t for t in header["tensors"] if t["name"] == name)
    return data_start + entry["offset"]


def test_tensor_checksums_are_verified_by_default(tmp_path):
    ex = mg.Executor()
    ex.add_tensor("a", np.arange(100, dtype=np.float32))
    ex.add_tensor("b", np.arange(50, dtype=np.int64))
    path = Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    raw = bytearray(path.read_bytes())
    raw[_tensor_payload_position(bytes(raw), "b") + 17] ^= 0x10
    bad = tmp_path / "bad.mgsnap"
    bad.write_bytes(raw)
    with pytest.raises(SnapshotError, match="'b'.*checksum"):
        Snapshot.load(bad)
    with pytest.raises(SnapshotError):
        Snapshot.load(bad, SnapshotConfig(verify_checksum=True))
    # verify_checksum=False skips tensor CRCs: the damaged value comes through
    out = Snapshot.load(bad, SnapshotConfig(verify_checksum=False)).tensors
    assert same_bits(out["a"], np.arange(100, dtype=np.float32))
    diff = np.flatnonzero(out["b"].view(np.uint8) != np.arange(50, dtype=np.int64).view(np.uint8))
    assert diff.tolist() == [17]
    snap = Snapshot.load(path)
    with pytest.raises(SnapshotError):
        Snapshot.load(bad).verify()
    snap.verify()  # intact


def test_header_checksum_is_always_verified(tmp_path):
    ex = mg.Executor()
    ex.add_tensor("a", np.arange(10, dtype=np.float32))
    path = Snapshot.from_executor(ex, 5).save(tmp_path / "s.mgsnap")
    raw = bytearray(path.read_bytes())
    i = raw.index(b"\xa9iteration") + 10  # the iteration value (positive fixint 5)
    assert raw[i] == 5
    raw[i] = 6
    path.write_bytes(raw)
    for verify in (True, False):
        with pytest.raises(SnapshotError, match="header checksum"):
            Snapshot.load(path, SnapshotConfig(verify_checksum=verify))


def test_compression_only_where_it_pays_and_exact(tmp_path):
    rng = np.random.default_rng(0)
    arrays = {"zeros": np.zeros((256, 256), np.float32), "ramp": np.arange(20000, dtype=np.int64),
              "noise": rng.standard_normal(65536).astype(np.float32),
              "noise_special": np.concatenate([rng.standard_normal(4096), special_floats("float64")]),
              "tiny": np.zeros(3, np.float32)}
    ex = mg.Executor()
    for n, a in arrays.items():
        ex.add_tensor(n, a)
    cfg = SnapshotConfig(enable_compression=True)
    path = Snapshot.from_executor_with_config(ex, 0, cfg).save(tmp_path / "c.mgsnap")
    header = objects(path.read_bytes())[0][2]
    codec = {t["name"]: (t["codec"], t["stored"], t["nbytes"]) for t in header["tensors"]}
    assert codec["zeros"][0] == "zlib" and codec["zeros"][1] < codec["zeros"][2] // 50
    assert codec["ramp"][0] == "zlib"
    assert codec["noise"][0] == "raw" and codec["noise"][1] == codec["noise"][2]
    assert codec["noise_special"][0] == "raw"
    assert codec["tiny"][0] == "raw"
    raw_path = Snapshot.from_executor(ex, 0).save(tmp_path / "r.mgsnap")
    assert path.stat().st_size < raw_path.stat().st_size - 250_000
    assert all(t["codec"] == "raw" for t in objects(raw_path.read_bytes())[0][2]["tensors"])
    for p in (path, raw_path):
        out = Snapshot.load(p).tensors
        for n, a in arrays.items():
            assert same_bits(out[n], a), n
    # a damaged compressed payload is an error (here: the zlib stream's Adler-32 trailer; a flip inside
    # a deflate stream of zeros may legitimately decode to the same zeros, e.g. a changed match distance)
    raw = bytearray(path.read_bytes())
    end = _tensor_payload_position(bytes(raw), "zeros") + codec["zeros"][1]
    raw[end - 1] ^= 0x01
    (tmp_path / "bad.mgsnap").write_bytes(raw)
    with pytest.raises(SnapshotError):
        Snapshot.load(tmp_path / "bad.mgsnap")
    for k in range(8):  # any flip in the payload: an error, or the very same data
        raw = bytearray(path.read_bytes())
        raw[_tensor_payload_position(bytes(raw), "ramp") + 3 + 37 * k] ^= 1 << k
        (tmp_path / "bad.mgsnap").write_bytes(raw)
        try:
            out = Snapshot.load(tmp_path / "bad.mgsnap").tensors
        except SnapshotError:
            continue
        assert same_bits(out["ramp"], arrays["ramp"])


# ------------------------------------------------------------------ incremental
def _user_executor() -> mg.Executor:
    ex = mg.Executor()
    ex.add_tensor("frozen", np.arange(4096, dtype=np.float32))
    ex.add_tensor("w", np.ones(64, np.float32))
    ex.add_tensor("k", np.arange(8, dtype=np.int32))
    return ex


def test_incremental_stores_only_changed_tensors(tmp_path):
    ex = _user_executor()
    base = Snapshot.from_executor(ex, 1)
    base.save(tmp_path / "a.mgsnap")
    ex.get_tensor("w").data[3] = 5.0
    ex.add_tensor("new", np.array([1, 2], np.uint8))
    inc = SnapshotConfig(incremental=True)
    snap = Snapshot.from_executor_with_config(ex, 2, inc, base=tmp_path / "a.mgsnap")
    path = snap.save(tmp_path / "b.mgsnap")
    header = objects(path.read_bytes())[0][2]
    refs = {t["name"]: t["ref"] for t in header["tensors"]}
    assert refs == {"frozen": "base", "k": "base", "w": None, "new": None}
    assert header["base"] == {"file": "a.mgsnap", "checksum": base.metadata.checksum}
    assert path.stat().st_size < (tmp_path / "a.mgsnap").stat().st_size - 16000
    loaded = Snapshot.load(path)
    for n, t in ex.tensors.items():
        assert same_bits(loaded.tensors[n], t.numpy()), n
    assert loaded.metadata.iteration == 2 and loaded.base is not None
    # a Snapshot object works as the base too
    snap2 = Snapshot.from_executor_with_config(ex, 3, inc, base=Snapshot.load(tmp_path / "a.mgsnap"))
    snap2.save(tmp_path / "b2.mgsnap")
    assert same_bits(Snapshot.load(tmp_path / "b2.mgsnap").tensors["w"], ex.get_tensor("w").numpy())
    # a changed dtype or shape under the same name is stored, not referenced
    ex.add_tensor("k", np.arange(8, dtype=np.int64))
    ex.add_tensor("frozen", np.arange(4096, dtype=np.float32).reshape(64, 64))
    Snapshot.from_executor_with_config(ex, 4, inc, base=tmp_path / "a.mgsnap").save(tmp_path / "b3.mgsnap")
    h3 = objects((tmp_path / "b3.mgsnap").read_bytes())[0][2]
    assert {t["name"]: t["ref"] for t in h3["tensors"]}["k"] is None
    out = Snapshot.load(tmp_path / "b3.mgsnap").tensors
    assert out["k"].dtype == np.int64 and out["frozen"].shape == (64, 64)


def _chain(tmp_path):
    ex = _user_executor()
    inc = SnapshotConfig(incremental=True)
    Snapshot.from_executor(ex, 1).save(tmp_path / "a.mgsnap")
    states = {"a": {n: t.numpy().copy() for n, t in ex.tensors.items()}}
    ex.get_tensor("w").data[0] = -1.0
    Snapshot.from_executor_with_config(ex, 2, inc, base=tmp_path / "a.mgsnap").save(tmp_path / "b.mgsnap")
    states["b"] = {n: t.numpy().copy() for n, t in ex.tensors.items()}
    ex.get_tensor("k").data[:] = 7
    Snapshot.from_executor_with_config(ex, 3, inc, base=tmp_path / "b.mgsnap").save(tmp_path / "c.mgsnap")
    states["c"] = {n: t.numpy().copy() for n, t in ex.tensors.items()}
    return ex, states


def test_incremental_chain_of_three_levels(tmp_path):
    ex, states = _chain(tmp_path)
    hc = objects((tmp_path / "c.mgsnap").read_bytes())[0][2]
    assert {t["name"]: t["ref"] for t in hc["tensors"]} == {"frozen": "base", "w": "base", "k": None}
    assert hc["base"]["file"] == "b.mgsnap"
    for name in "abc":
        out = Snapshot.load(tmp_path / f"{name}.mgsnap").tensors
        assert set(out) == set(states[name])
        for n, a in states[name].items():
            assert same_bits(out[n], a), (name, n)
    c = Snapshot.load(tmp_path / "c.mgsnap")
    assert c.base.path.name == "b.mgsnap" and c.base.base.path.name == "a.mgsnap"
    ex2 = mg.Executor()
    c.restore_into(ex2)
    assert same_bits(ex2.get_tensor("frozen").numpy(), states["c"]["frozen"])


def test_incremental_missing_base_is_an_error(tmp_path):
    _chain(tmp_path)
    (tmp_path / "a.mgsnap").unlink()
    for name in ("b", "c"):
        with pytest.raises(SnapshotError, match="a.mgsnap.*missing"):
            Snapshot.load(tmp_path / f"{name}.mgsnap")


def test_incremental_base_replaced_by_another_file_is_an_error(tmp_path):
    ex, _ = _chain(tmp_path)
    # same name, another state
    Snapshot.from_executor(ex, 1).save(tmp_path / "a.mgsnap")
    with pytest.raises(SnapshotError, match="changed"):
        Snapshot.load(tmp_path / "c.mgsnap")
    # even the same tensors written again at another time are another file
    (tmp_path / "x").mkdir()
    _chain(tmp_path / "x")
    good = Snapshot.load(tmp_path / "x" / "c.mgsnap")
    assert good.metadata.iteration == 3
    a = Snapshot.load(tmp_path / "x" / "a.mgsnap")
    a.metadata.timestamp += 1.0
    a.save(tmp_path / "x" / "a.mgsnap")
    with pytest.raises(SnapshotError, match="changed"):
        Snapshot.load(tmp_path / "x" / "c.mgsnap")


def test_incremental_misuse(tmp_path):
    ex = _user_executor()
    with pytest.raises(SnapshotError, match="base"):
        Snapshot.from_executor_with_config(ex, 1, SnapshotConfig(incremental=True))
    Snapshot.from_executor(ex, 1).save(tmp_path / "a.mgsnap")
    with pytest.raises(SnapshotError, match="not incremental"):
        Snapshot.from_executor_with_config(ex, 1, SnapshotConfig(), base=tmp_path / "a.mgsnap")
    unsaved = Snapshot.from_executor(ex, 1)
    with pytest.raises(SnapshotError, match="saved"):
        Snapshot.from_executor_with_config(ex, 1, SnapshotConfig(incremental=True), base=unsaved)
    with pytest.raises(SnapshotError):
        Snapshot.from_executor_with_config(ex, 1, SnapshotConfig(incremental=True), base=tmp_path / "nope.mgsnap")


def test_incremental_base_name_must_be_a_plain_file_name(tmp_path):
    _chain(tmp_path)
    (tmp_path / "sub").mkdir()
    for bad in ("../a.mgsnap", "/etc/passwd", "sub/../a.mgsnap", 5):
        reseal(tmp_path / "b.mgsnap", tmp_path / "sub" / "evil.mgsnap",
               lambda h, bad=bad: h["base"].__setitem__("file", bad))
        with pytest.raises(SnapshotError):
            Snapshot.load(tmp_path / "sub" / "evil.mgsnap")


def test_incremental_base_chain_loop_is_an_error(tmp_path):
    _chain(tmp_path)
    reseal(tmp_path / "b.mgsnap", tmp_path / "loop.mgsnap", lambda h: h["base"].__setitem__("file", "loop.mgsnap"))
    with pytest.raises(SnapshotError, match="loop"):
        Snapshot.load(tmp_path / "loop.mgsnap")


# ------------------------------------------------------------------ tape
def _tape_setup(seed=0):
    model, opt, sched, ex = build(seed)
    x = mg.randn(5, 4)
    loss = ((model(x) - 0.25) ** 2).mean()
    ex.record(loss)
    return model, opt, ex, x, loss


def grads(model) -> dict[str, bytes]:
    return {n: p.grad.numpy().tobytes() for n, p in model.named_parameters()}


def test_restored_tape_gives_bitwise_the_same_gradients(tmp_path):
    model, opt, ex, x, loss = _tape_setup()
    path = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "t.mgsnap")
    header = objects(path.read_bytes())[0][2]
    assert header["tape"]["nodes"] and any(n["op"].lower().startswith("dropout") for n in header["tape"]["nodes"])
    loss.backward()
    reference = grads(model)
    # a fresh executor around a model built with another seed
    model2, opt2, sched2, ex2 = build(seed=77)
    assert params(model2) != params(model)
    Snapshot.load(path).restore_into(ex2)
    assert same_bits(ex2.tape.numpy(), loss.numpy())
    ex2.tape.backward()
    assert grads(model2) == reference
    # restore() builds a tape over its own tensors
    ex3 = Snapshot.load(path).restore()
    ex3.tape.backward()
    assert {n[6:]: t.grad.numpy().tobytes() for n, t in ex3.tensors.items() if n.startswith("model.")
            and t.grad is not None} == reference


def test_an_in_memory_snapshot_keeps_its_tapes_saved_arrays_through_the_steps_after_it(tmp_path):
    """The tape's saved arrays are copied at the call like the executor's tensors: they were kept by
    reference, so an optimizer step (the weights a Linear saved) and an in-place write into the input
    after the snapshot changed them, and the snapshot saved later gave a tape whose backward was the
    new weights' (silently other gradients)."""
    model, opt, ex, x, loss = _tape_setup()
    ex.add_tensor("x", x)  # (an input written in place below)
    snap = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training())
    saved = {k: v.copy() for k, v in snap.tensors.items()}
    loss.backward(retain_graph=True)
    reference = grads(model)
    opt.step()
    with mg.no_grad():
        x.mul_(3.0)
    assert all(np.array_equal(saved[k], v) for k, v in snap.tensors.items())
    path = snap.save(tmp_path / "later.mgsnap")
    model2, opt2, sched2, ex2 = build(seed=77)
    ex2.add_tensor("x", mg.zeros(5, 4))
    Snapshot.load(path).restore_into(ex2)
    ex2.tape.backward()
    assert grads(model2) == reference


def test_restored_tape_of_the_ops_that_keep_the_least(tmp_path):
    """A tape with fused norms (AffineNormalize), attention's fused softmax (ScaledSoftmax),
    products by a number and by a constant (which keep only the constant) and GELU restores
    into a fresh executor and gives bitwise the same gradients: each op's attributes and what
    each node keeps are rebuilt from the file."""
    def setup(seed):
        mg.manual_seed(seed)
        model = nn.Sequential(nn.TransformerBlock(8, 2, causal=True, activation="gelu_tanh"), nn.LayerNorm(8))
        opt = optim.SGD(model.parameters(), lr=0.1)
        return model, mg.Executor(model, opt)

    model, ex = setup(0)
    mask = mg.tensor(np.linspace(0.5, 1.5, 8))
    loss = (((model(mg.randn(2, 5, 8)) * mask) * 0.5 - 0.25) ** 2).mean()
    ex.record(loss)
    path = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "t.mgsnap")
    names = {n["op"] for n in objects(path.read_bytes())[0][2]["tape"]["nodes"]}
    assert {"AffineNormalize", "ScaledSoftmax", "Gelu", "Mul"} <= names
    loss.backward()
    reference = grads(model)
    model2, ex2 = setup(5)
    Snapshot.load(path).restore_into(ex2)
    ex2.tape.backward()
    assert grads(model2) == reference


def test_restored_tape_of_narrow_convolutions(tmp_path):
    """A tape of convolutions on narrow images, which take the channels-last columns (the
    forward, the weight gradient and, for the 4-wide second layer, the input gradient as a
    flipped convolution) and keep their channel-major results: restored into a fresh executor,
    it gives bitwise the same gradients.  That needs the saved arrays back in the memory layout
    the forward left them (channel-major here), not only with their values: a reduction over
    another layout sums in another order (stored C-contiguous, the first bias's gradient
    differed in its last bit).  A snapshot stores such an array's axis order beside its bytes."""
    def setup(seed):
        mg.manual_seed(seed)
        model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
        model.to("float32")
        return model, mg.Executor(model, optim.SGD(model.parameters(), lr=0.1))

    model, ex = setup(0)
    loss = ((model(mg.randn(2, 3, 8, 8, dtype="float32")) - 0.25) ** 2).mean()
    ex.record(loss)
    path = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "t.mgsnap")
    assert {"Conv2d", "MaxPool2d"} <= {n["op"] for n in objects(path.read_bytes())[0][2]["tape"]["nodes"]}
    loss.backward()
    reference = {n: p.grad.numpy() for n, p in model.named_parameters()}
    model2, ex2 = setup(5)
    Snapshot.load(path).restore_into(ex2)
    ex2.tape.backward()
    for n, p in model2.named_parameters():
        assert p.grad.dtype == np.float32
        np.testing.assert_array_equal(p.grad.numpy(), reference[n], err_msg=n)


def test_tape_requires_a_recorded_and_intact_graph(tmp_path):
    model, opt, sched, ex = build()
    with pytest.raises(SnapshotError, match="record"):
        Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "n.mgsnap")
    model, opt, ex, x, loss = _tape_setup()
    loss.backward()  # frees the saved values
    with pytest.raises(SnapshotError, match="freed by a backward"):
        Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "f.mgsnap")
    assert not (tmp_path / "f.mgsnap").exists()
    # retain_graph=True keeps it storable, and the restored tape gives the same gradients again
    model, opt, ex, x, loss = _tape_setup()
    loss.backward(retain_graph=True)
    reference = grads(model)
    path = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "r.mgsnap")
    model2, _, _, ex2 = build(seed=8)
    Snapshot.load(path).restore_into(ex2)
    ex2.tape.backward()
    assert grads(model2) == reference


def test_a_restored_tape_of_float16_products_by_numbers_gives_the_same_gradients(tmp_path):
    # MulInFloat32 / DivInFloat32 (a float16 tensor times or by a number, in float32) are ops of the tape's
    # format: stored by name, replayed with the same float32 arithmetic
    def run(ex_seed):
        model, opt, sched, ex = build(ex_seed)
        model.half()
        loss = ((model(mg.randn(5, 4).half()) * 1.3 / 65536.0 * 70000) ** 2).mean()
        ex.record(loss)
        return model, ex, loss

    names = _tape_restores_the_same_gradients(tmp_path, run)
    assert {"MulInFloat32", "DivInFloat32"} <= names


def test_tape_through_saved_tensor_hooks_is_refused_saying_so(tmp_path):
    # the hooks' packed values and the hooks are user code: the error named "a function attribute"
    model, opt, sched, ex = build()
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        ex.record((model(mg.randn(5, 4)) ** 2).mean())
    with pytest.raises(SnapshotError, match=r"through saved-tensor hooks .* \(include_tape=False\)"):
        Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "h.mgsnap")
    assert not (tmp_path / "h.mgsnap").exists()


def test_tape_with_a_checkpointed_segment_is_refused(tmp_path):
    model, opt, sched, ex = build()
    y = ck.checkpoint(lambda a: model(a), mg.randn(5, 4))
    ex.record((y ** 2).mean())
    # the segment dropped its values in forward: the tape was recorded right (the message said to
    # "snapshot before backward", which it was), it cannot be stored with checkpointing at all
    with pytest.raises(SnapshotError, match=r"is in a checkpointed segment, whose saved values are dropped in "
                                            r"forward .* \(include_tape=False\)") as info:
        Snapshot.from_executor_with_config(ex, 1, SnapshotConfig(include_tape=True)).save(tmp_path / "c.mgsnap")
    assert "before backward" not in str(info.value)
    assert not (tmp_path / "c.mgsnap").exists()
    # without the tape the same executor saves fine
    Snapshot.from_executor(ex, 1).save(tmp_path / "c.mgsnap")


def test_tape_op_names_are_checked_against_the_registry_on_load(tmp_path):
    model, opt, ex, x, loss = _tape_setup()
    path = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "t.mgsnap")
    reseal(path, tmp_path / "same.mgsnap", lambda h: None)
    assert (tmp_path / "same.mgsnap").read_bytes() == path.read_bytes()  # the helper is faithful

    def evil(h):
        h["tape"]["nodes"][0]["op"] = "os.system"

    reseal(path, tmp_path / "evil.mgsnap", evil)
    with pytest.raises(SnapshotError, match="os.system"):
        Snapshot.load(tmp_path / "evil.mgsnap")
    for bad_tape in ("not a map", {"nodes": "x"}, {"nodes": [5]}, {"nodes": [{"op": 3}]}):
        reseal(path, tmp_path / "bad.mgsnap", lambda h, t=bad_tape: h.__setitem__("tape", t))
        with pytest.raises(SnapshotError):
            Snapshot.load(tmp_path / "bad.mgsnap")


def test_tape_op_attributes_are_checked_on_load(tmp_path):
    # Ops are built through Op.from_attrs: an attribute the op does not declare (one named
    # like a method, say) or a value of the wrong type is refused when the file is loaded,
    # instead of loading and failing inside backward ("'int' object is not callable").
    model, opt, ex, x, loss = _tape_setup()
    path = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "t.mgsnap")
    nodes = objects(path.read_bytes())[0][2]["tape"]["nodes"]
    mean = next(i for i, n in enumerate(nodes) if "axes" in n["attrs"])
    cases = {
        "backward": lambda a: a.__setitem__("backward", 1),
        "axes": lambda a: a.__setitem__("axes", {"t": "tuple", "v": ["0"]}),
        "keepdims": lambda a: a.__setitem__("keepdims", 1.5),
        "in_shape": lambda a: a.pop("in_shape"),
    }
    for what, change in cases.items():
        reseal(path, tmp_path / "bad.mgsnap", lambda h, c=change: c(h["tape"]["nodes"][mean]["attrs"]))
        with pytest.raises(SnapshotError, match=f"node {mean} has invalid attributes.*{what}"):
            Snapshot.load(tmp_path / "bad.mgsnap")
    # a Dropout key of the wrong type too (the attribute replay regenerates the mask from)
    drop = next(i for i, n in enumerate(nodes) if n["op"] == "Dropout")
    reseal(path, tmp_path / "bad.mgsnap", lambda h: h["tape"]["nodes"][drop]["attrs"].__setitem__("key", "7"))
    with pytest.raises(SnapshotError, match="'key' must be int"):
        Snapshot.load(tmp_path / "bad.mgsnap")
    # the untouched file still loads and its tape still runs backward
    Snapshot.load(path).restore().tape.backward()


# ------------------------------------------------------------------ failures to read
def test_every_failure_to_read_is_a_snapshot_error(tmp_path):
    ex = mg.Executor()
    ex.add_tensor("a", np.arange(10, dtype=np.float32))
    good = Snapshot.from_executor(ex).save(tmp_path / "good.mgsnap")
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "text").write_text("hello, this is not a snapshot at all\n" * 3)
    (tmp_path / "other").write_bytes(msgpack.packb({"format": "something-else", "version": 1}) + bytes(64))
    (tmp_path / "trunc").write_bytes(good.read_bytes()[:-1])
    (tmp_path / "longer").write_bytes(good.read_bytes() + b"\x00")
    reseal(good, tmp_path / "v2", lambda h: h.__setitem__("version", 2))
    (tmp_path / "adir").mkdir()
    cases = ["missing", "empty", "text", "other", "trunc", "longer", "v2", "adir"]
    for name in cases:
        with pytest.raises(SnapshotError):
            Snapshot.load(tmp_path / name)
    with pytest.raises(SnapshotError, match="unsupported snapshot format version 2"):
        Snapshot.load(tmp_path / "v2")


def test_a_restored_tape_of_single_op_functions_gives_the_same_gradients(tmp_path):
    # lerp (a number weight: an op attribute; a weight tensor: an input), mish, hardswish, rsqrt, addcmul
    # and addcdiv (a value: an op attribute) are ops of the tape's format: stored by name and attributes,
    # replayed with PyTorch's arithmetic
    def run(ex_seed):
        model, opt, sched, ex = build(ex_seed)
        h = model(mg.randn(5, 4))
        w = mg.full(h.shape, 0.7)
        mixed = mg.lerp(h, mg.nn.functional.mish(h), 0.9) + mg.lerp(h, mg.nn.functional.hardswish(h), w)
        mixed = mg.addcdiv(mg.addcmul(mixed, h, h, value=0.3), h, mixed * mixed + 1.0, value=-1.5)
        loss = (mg.rsqrt(mixed * mixed + 1.0)).mean()
        ex.record(loss)
        return model, ex, loss

    names = _tape_restores_the_same_gradients(tmp_path, run)
    assert {"Lerp", "LerpByTensor", "Mish", "Hardswish", "Rsqrt", "Addcmul", "Addcdiv"} <= names


def _tape_restores_the_same_gradients(tmp_path, run) -> set[str]:
    """Store ``run(0)``'s recorded tape, restore it into ``run(9)``'s fresh objects and check that its
    value and its backward's gradients are the stored run's, bitwise; the names of the ops stored."""
    from minigrad_ckpt.tape import walk

    model, ex, loss = run(0)
    names = {n.op.name for n in walk(loss)}
    path = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "t.mgsnap")
    loss.backward()
    reference = grads(model)
    model2, ex2, _ = run(9)
    Snapshot.load(path).restore_into(ex2)
    assert same_bits(ex2.tape.numpy(), loss.numpy())
    ex2.tape.backward()
    assert grads(model2) == reference
    return names


_COMPLEX_CONSTANT_LOSSES = {
    "times a complex number": lambda h: ((h * (1 + 2j)).abs() ** 2).mean(),
    "plus and over complex numbers": lambda h: ((h + 0.5j) / (2 - 1j)).real.mean(),
    "to a complex power": lambda h: (h ** (0.5 + 1j)).abs().sum(),
    "a NumPy complex scalar": lambda h: (h * np.complex64(1 - 3j)).imag.sum(),
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("body", sorted(_COMPLEX_CONSTANT_LOSSES))
def test_a_tape_with_complex_constants_is_stored_and_restores_the_same_gradients(tmp_path, dtype, body):
    # z * (1 + 2j) keeps its Python complex as an op attribute, which the tape's encoding could not
    # store: a snapshot of a complex model's tape was "cannot store a complex attribute on the tape"
    def run(seed):
        mg.manual_seed(seed)
        model = nn.Sequential(nn.Linear(4, 8, dtype=dtype), nn.Tanh(), nn.Linear(8, 3, dtype=dtype))
        ex = mg.Executor(model, optim.Adam(model.parameters(), lr=0.01))
        rng = np.random.default_rng(3)
        x = mg.tensor((rng.standard_normal((5, 4)) + 1j * rng.standard_normal((5, 4))).astype(dtype))
        loss = _COMPLEX_CONSTANT_LOSSES[body](model(x))
        ex.record(loss)
        return model, ex, loss

    _tape_restores_the_same_gradients(tmp_path, run)
