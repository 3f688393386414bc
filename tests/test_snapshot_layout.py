"""Snapshots keep each array's memory layout, so a restored tape replays bit for bit.

NumPy reduces in memory order: two arrays with equal values and different layouts can sum to
different last bits.  A convolution leaves its output channel-major (an (N, C, H, W) view of a
C-contiguous (C, N, H, W) buffer); a snapshot that gave it back C-contiguous made the restored
tape's gradients differ in the last bit.  So an entry of a permuted C-contiguous array stores
its axis order (``order``, slowest first) and its memory as it is; loading returns the same
layout.  Covered here: the layout itself (any shape, size-0 and size-1 axes, every dtype),
through raw and compressed payloads, incremental snapshots (equal values in another layout are
not taken from the base), asynchronous saves (the copies and their reused staging buffers keep
the layout), ``mg.save`` files, and device tapes (the strict stand-in devices; CuPy where a GPU
is present); a restored conv net's tape gives bitwise the original's gradients; files without
the field load as before; a bad ``order`` is refused."""

from __future__ import annotations

import io
import itertools
import tempfile
import threading
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig, SnapshotError, SnapshotManager, SnapshotMetadata
from minigrad_ckpt.snapshot.layout import inverse, memory_order
from minigrad_ckpt.tape import walk

msgpack = pytest.importorskip("msgpack", reason="msgpack (a runtime dependency) is not installed")
pytestmark = pytest.mark.msgpack

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.function_scoped_fixture])
DTYPES = [np.float32, np.float64, np.complex128, np.int32, np.int64, np.uint8, np.bool_, np.float16]


def channel_major(values: np.ndarray) -> np.ndarray:
    """``values`` (N, C, ...) as a convolution leaves them: a view of a C-contiguous (C, N, ...) buffer."""
    return np.ascontiguousarray(values.swapaxes(0, 1)).swapaxes(0, 1)


def permuted_c_contiguous(arr: np.ndarray) -> bool:
    """Whether some axis order lays ``arr`` out C-contiguously (found by trying every one)."""
    return any(arr.transpose(p).flags.c_contiguous for p in itertools.permutations(range(arr.ndim)))


def assert_same_layout(got: np.ndarray, original: np.ndarray) -> None:
    """Same dtype, shape and bytes; laid out as ``original`` where a permutation of C order is its
    layout (the strides of every axis longer than 1 are equal), else C-contiguous."""
    assert got.dtype == original.dtype and got.shape == original.shape
    assert got.tobytes() == original.tobytes()  # bitwise: NaN payloads and -0.0 included
    if original.size > 1 and permuted_c_contiguous(original):
        assert [s for s, n in zip(got.strides, got.shape) if n > 1] == [
            s for s, n in zip(original.strides, original.shape) if n > 1], (got.strides, original.strides)
    else:
        assert got.flags.c_contiguous, got.strides


def round_trip(tensors: dict, directory: Path, **config) -> dict:
    snap = Snapshot(SnapshotMetadata(iteration=0, timestamp=0.0), dict(tensors), {}, SnapshotConfig(fsync=False,
                                                                                                    **config))
    return Snapshot.load(snap.save(directory / "s.mgsnap")).tensors


def header_of(path: Path) -> dict:
    return next(iter(msgpack.Unpacker(io.BytesIO(path.read_bytes()), raw=False)))


# ------------------------------------------------------------------ the axis order itself
def test_memory_order_of_each_kind_of_layout():
    a = np.zeros((2, 3, 4))
    assert memory_order(a) is None                                    # C order: no field
    assert memory_order(a.transpose(2, 0, 1)) == (1, 2, 0)
    assert memory_order(np.asfortranarray(a)) == (2, 1, 0)
    assert memory_order(channel_major(a)) == (1, 0, 2)
    assert memory_order(a[:, ::2]) is None                            # a strided slice: no permutation
    assert memory_order(a[::-1].transpose(1, 0, 2)) is None           # negative strides
    assert memory_order(np.zeros((0, 3)).T) is None                   # nothing to lay out
    assert memory_order(np.zeros((1, 1)).T) is None
    assert memory_order(np.zeros(())) is None
    # a length-1 axis has no place in memory: whatever its stride, it goes first
    b = np.lib.stride_tricks.as_strided(np.zeros(12), (3, 1, 4), (8, 999, 24))
    c = np.lib.stride_tricks.as_strided(np.zeros(12), (3, 1, 4), (8, 0, 24))
    assert memory_order(b) == memory_order(c) == (1, 2, 0)
    for order in itertools.permutations(range(4)):
        arr = np.zeros((2, 3, 4, 5)).transpose(order)
        want = None if order == (0, 1, 2, 3) else inverse(order)
        assert memory_order(arr) == want
        if want is not None:
            assert arr.transpose(want).flags.c_contiguous


@st.composite
def laid_out_arrays(draw) -> np.ndarray:
    """An array of 0-4 axes (lengths 0, 1, 2, 3, 5), any dtype, random or mostly-zero bytes
    (compressible), in C order, a permuted C order, a strided slice or with a reversed axis."""
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 5]), min_size=ndim, max_size=ndim)))
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    perm = draw(st.permutations(range(ndim)))
    kind = draw(st.sampled_from(["permuted", "permuted", "strided", "reversed"]))
    mem_shape = [shape[k] for k in perm]
    if kind == "strided" and ndim:
        mem_shape[-1] *= 2
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    count = int(np.prod(mem_shape))
    if dtype == np.bool_:
        flat = rng.integers(0, 2, count).astype(np.bool_)
    else:
        flat = rng.integers(0, 256, count * dtype.itemsize, dtype=np.uint8).view(dtype)
        if draw(st.booleans()):
            flat = np.where(rng.random(count) < 0.9, np.zeros((), dtype), flat)
    mem = flat.reshape(mem_shape)
    if kind == "strided" and ndim:
        mem = mem[..., ::2]
    arr = mem.transpose(inverse(tuple(perm)))
    return arr[::-1] if kind == "reversed" and ndim else arr


@SETTINGS
@given(arr=laid_out_arrays(), compress=st.booleans())
def test_any_array_round_trips_in_its_layout(arr, compress):
    with tempfile.TemporaryDirectory() as d:
        got = round_trip({"x": arr, "c": arr.copy()}, Path(d), enable_compression=compress)
    assert_same_layout(got["x"], arr)
    assert got["c"].flags.c_contiguous


def test_a_channel_major_array_is_stored_compressed_with_its_order(tmp_path):
    x = channel_major(np.repeat(np.arange(4.0), 256).reshape(4, 8, 32))
    snap = Snapshot(SnapshotMetadata(iteration=0, timestamp=0.0), {"x": x, "y": np.ascontiguousarray(x)}, {},
                    SnapshotConfig(enable_compression=True, fsync=False))
    path = snap.save(tmp_path / "z.mgsnap")
    entries = {e["name"]: e for e in header_of(path)["tensors"]}
    assert entries["x"]["codec"] == "zlib" and entries["x"]["order"] == [1, 0, 2]
    assert "order" not in entries["y"]  # C order: the entry is what it always was
    # the CRC is over the payload as stored: the memory, channel-major
    assert int.from_bytes(entries["x"]["crc32"], "big") == zlib.crc32(x.transpose(1, 0, 2).tobytes())
    got = Snapshot.load(path).tensors
    assert_same_layout(got["x"], x)
    assert_same_layout(got["y"], np.ascontiguousarray(x))


# ------------------------------------------------------------------ the format: the field, on disk and refused
NO_FIELD = object()


def _hand_made(order, payload: bytes, shape=(2, 3)) -> bytes:
    """A one-tensor float32 file whose entry has ``order`` (``NO_FIELD``: none), laid out as the writer does."""
    entry = {"name": "x", "dtype": "<f4", "shape": list(shape), "nbytes": len(payload),
             "crc32": zlib.crc32(payload).to_bytes(4, "big"), "offset": 59 + 5, "stored": len(payload),
             "codec": "raw", "ref": None}
    if order is not NO_FIELD:
        entry["order"] = order
    header = {"format": "minigrad-ckpt/snapshot", "version": 1, "iteration": 0, "timestamp": 0.0, "custom": {},
              "rng": None, "optimizer": None, "scheduler": None, "tape": None, "base": None,
              "tensors": [entry], "data_bytes": 64 + len(payload)}
    hb = msgpack.packb(header, use_bin_type=True)
    out = hb + msgpack.packb({"header_crc32": zlib.crc32(hb).to_bytes(4, "big")}, use_bin_type=True)
    gap = (-len(out)) % 64
    gap += 64 if gap < 2 else 0
    out += b"\xc4" + bytes([gap - 2]) + bytes(gap - 2)
    return out + b"\xc4" + bytes([57]) + bytes(57) + b"\xc6" + len(payload).to_bytes(4, "big") + payload


def test_a_hand_made_file_with_an_order_loads_in_that_layout(tmp_path):
    memory = np.arange(6, dtype=np.float32).reshape(3, 2)  # the bytes, as (3, 2) in C order
    p = tmp_path / "h.mgsnap"
    p.write_bytes(_hand_made([1, 0], memory.tobytes()))
    got = Snapshot.load(p).tensors["x"]
    np.testing.assert_array_equal(got, memory.T)
    assert got.strides == memory.T.strides
    p.write_bytes(_hand_made(NO_FIELD, memory.tobytes()))  # no field: C order, as every older file
    got = Snapshot.load(p).tensors["x"]
    np.testing.assert_array_equal(got, memory.reshape(2, 3))
    assert got.flags.c_contiguous


@pytest.mark.parametrize("order", [[0, 1], [1, 1], [1], [2, 0, 1], [1, 2], [-1, 0], [True, False], "10", [1.0, 0.0],
                                   None, {"0": 1}, [[1], [0]]])
def test_an_order_that_is_not_a_permutation_is_refused(tmp_path, order):
    p = tmp_path / "bad.mgsnap"
    p.write_bytes(_hand_made(order, np.zeros(6, np.float32).tobytes()))
    with pytest.raises(SnapshotError, match="order"):
        Snapshot.load(p)


# ------------------------------------------------------------------ incremental snapshots
@pytest.mark.parametrize("values", ["zeros", "random"])
@pytest.mark.parametrize("first", ["c", "channel-major"])
def test_equal_values_in_another_layout_are_not_taken_from_the_base(tmp_path, values, first):
    """The base holds ``x`` in one layout, the next snapshot the same values in the other: it
    stores ``x`` again (zeros are the same bytes in both layouts -- bytes alone would match),
    and loads it in the new layout.  In the same layout it is taken from the base, order and all."""
    data = np.zeros((2, 3, 4, 4)) if values == "zeros" else np.random.default_rng(0).standard_normal((2, 3, 4, 4))
    layouts = {"c": data, "channel-major": channel_major(data)}
    second = "c" if first == "channel-major" else "channel-major"
    ex = mg.Executor()
    ex.add_tensor("x", layouts[first])
    ex.add_tensor("same", channel_major(data + 1))
    cfg = SnapshotConfig(incremental=True, fsync=False)
    base = Snapshot.from_executor(ex, 1).save(tmp_path / "base.mgsnap")
    ex.add_tensor("x", layouts[second])
    top = Snapshot.from_executor_with_config(ex, 2, cfg, base=base).save(tmp_path / "top.mgsnap")
    entries = {e["name"]: e for e in header_of(top)["tensors"]}
    assert entries["x"]["ref"] is None                                  # stored again
    assert entries["same"]["ref"] == "base" and entries["same"]["order"] == [1, 0, 2, 3]
    got = Snapshot.load(top).tensors
    assert_same_layout(got["x"], layouts[second])
    assert_same_layout(got["same"], channel_major(data + 1))
    assert_same_layout(Snapshot.load(base).tensors["x"], layouts[first])


@SETTINGS
@given(arr=laid_out_arrays(), data=st.data())
def test_an_incremental_snapshot_over_any_other_layout(arr, data):
    """``x`` in any layout over a base holding the same values in any (other or the same) axis order."""
    perm = data.draw(st.permutations(range(arr.ndim)), label="the base's axis order")
    base_arr = arr.transpose(perm).copy().transpose(inverse(tuple(perm)))  # (copy: C order)
    with tempfile.TemporaryDirectory() as d:
        base = Snapshot(SnapshotMetadata(iteration=0, timestamp=0.0), {"x": base_arr}, {},
                        SnapshotConfig(fsync=False))
        base.save(Path(d) / "base.mgsnap")
        top = Snapshot(SnapshotMetadata(iteration=1, timestamp=0.0), {"x": arr}, {},
                       SnapshotConfig(incremental=True, fsync=False))
        top.base = base
        path = top.save(Path(d) / "top.mgsnap")
        entry = header_of(path)["tensors"][0]
        got = Snapshot.load(path).tensors["x"]
    assert_same_layout(got, arr)
    assert (entry["ref"] == "base") == (memory_order(arr) == memory_order(base_arr))  # unchanged: referenced


# ------------------------------------------------------------------ asynchronous saves
@SETTINGS
@given(arr=laid_out_arrays())
def test_an_asynchronous_save_keeps_the_layout(arr):
    ex = mg.Executor()
    ex.add_tensor("x", arr)
    held = ex.get_tensor("x").numpy()  # the executor's own copy of arr: the layout to keep
    with tempfile.TemporaryDirectory() as d:
        manager = SnapshotManager(d, config=SnapshotConfig(fsync=False))
        got = Snapshot.load(manager.save_snapshot(ex, blocking=False).result()).tensors["x"]
        manager.wait()
    assert_same_layout(got, held)


def test_a_reused_staging_buffer_of_another_layout_is_not_used(tmp_path):
    """The second asynchronous save finds the first one's staging buffers free: one of the same
    shape and dtype but another layout must not take the copy (it would give its own layout)."""
    data = np.random.default_rng(1).standard_normal((2, 3, 5, 5)).astype(np.float32)
    ex = mg.Executor()
    manager = SnapshotManager(tmp_path, config=SnapshotConfig(fsync=False))
    for it, arr in enumerate([data, channel_major(data), channel_major(data + 1), data + 2]):
        ex.add_tensor("x", arr)
        path = manager.save_snapshot(ex, it, blocking=False).result()
        assert_same_layout(Snapshot.load(path).tensors["x"], arr)
    manager.wait()


def test_a_copy_made_on_write_keeps_the_layout(tmp_path):
    """The writer is held busy, so the in-place write copies the channel-major array (the
    copy-on-write guard), not the writer: the copy has its layout and the values of the call."""
    data = np.random.default_rng(2).standard_normal((2, 3, 4, 4))
    ex = mg.Executor()
    x = ex.add_tensor("x", channel_major(data))
    manager = SnapshotManager(tmp_path, config=SnapshotConfig(fsync=False))
    gate = threading.Event()
    manager._writer.submit(lambda: gate.wait(60), -1)
    try:
        handle = manager.save_snapshot(ex, blocking=False)
        x[0] = 7.0
    finally:
        gate.set()
    got = Snapshot.load(handle.result()).tensors["x"]
    manager.wait()
    assert_same_layout(got, channel_major(data))


# ------------------------------------------------------------------ mg.save files are snapshots too
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_mg_save_keeps_the_layout_of_tensors_and_arrays(tmp_path, device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    data = np.random.default_rng(4).standard_normal((2, 3, 4, 4))
    t = mg.tensor(channel_major(data), device=device)
    assert memory_order(t._data) == (1, 0, 2, 3)  # a tensor made from it keeps the layout
    mg.save({"t": t, "a": channel_major(data)}, tmp_path / "obj.mgsnap")
    back = mg.load(tmp_path / "obj.mgsnap", map_location=device)
    assert back["t"].numpy().tobytes() == data.tobytes()
    assert memory_order(back["t"]._data) == (1, 0, 2, 3)
    assert_same_layout(back["a"], channel_major(data))


# ------------------------------------------------------------------ a restored tape replays bitwise
def _conv_net(seed: int, device: str, dtype: str):
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
    model.to(dtype)
    model.to(device)
    return model, mg.Executor(model, optim.SGD(model.parameters(), lr=0.1))


def _grads(model) -> dict[str, np.ndarray]:
    return {n: p.grad.numpy() for n, p in model.named_parameters()}


@pytest.mark.parametrize("device,dtype", [("cpu", "float32"), ("cpu", "float64"), ("strict", "float64"),
                                          ("strict-f32", "float32")])
@pytest.mark.parametrize("blocking", [True, False], ids=["blocking", "asynchronous"])
def test_a_restored_conv_net_tape_gives_bitwise_the_same_gradients(tmp_path, device, dtype, blocking):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    model, ex = _conv_net(0, device, dtype)
    x = mg.tensor(np.random.default_rng(3).standard_normal((2, 3, 8, 8)), dtype=dtype, device=device)
    loss = ((model(x) - 0.25) ** 2).mean()
    ex.record(loss)
    cfg = SnapshotConfig.for_training()
    path = SnapshotManager(tmp_path, config=cfg).save_snapshot(ex, 1, blocking=blocking)
    path = path if blocking else path.result()
    loss.backward()
    reference = _grads(model)
    snap = Snapshot.load(path)
    assert any(memory_order(a) is not None for n, a in snap.tensors.items() if n.startswith("__tape__/"))
    model2, ex2 = _conv_net(5, device, dtype)
    snap.restore_into(ex2)
    ex2.tape.backward()
    got = _grads(model2)
    for name, want in reference.items():
        assert got[name].dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got[name], want, err_msg=name)


def _saved_arrays(output) -> list:
    """Every array the tape behind ``output`` saved for backward, in recording order."""
    return [v for n in walk(output) for v in n.saved if hasattr(v, "strides")]


@pytest.mark.parametrize("device", ["strict", "strict-f32", pytest.param("cuda", marks=[
    pytest.mark.gpu, pytest.mark.skipif(not mg.cuda.is_available(), reason="no CUDA GPU")])])
def test_a_device_tape_comes_back_in_the_layouts_it_was_saved_in(tmp_path, device):
    """The device arrays cross to the host and back as their C-contiguous transposed views (a
    device's own host copy, CuPy's ``asnumpy``, and CuPy's ``asarray`` make C order of them):
    every saved array of the restored tape has its original's layout and bytes."""
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    model, ex = _conv_net(0, device, "float32")
    x = mg.tensor(np.random.default_rng(3).standard_normal((2, 3, 8, 8)), dtype="float32", device=device)
    loss = ((model(x) - 0.25) ** 2).mean()
    ex.record(loss)
    path = Snapshot.from_executor_with_config(ex, 1, SnapshotConfig.for_training()).save(tmp_path / "t.mgsnap")
    model2, ex2 = _conv_net(5, device, "float32")
    Snapshot.load(path).restore_into(ex2)
    before, after = _saved_arrays(loss), _saved_arrays(ex2.tape)
    assert len(before) == len(after) and any(memory_order(a) is not None for a in before)
    xp = mg.get_device(device).xp
    for a, b in zip(before, after):
        assert type(b) is type(a) and memory_order(b) == memory_order(a)
        assert xp.to_host(b).tobytes() == xp.to_host(a).tobytes()
