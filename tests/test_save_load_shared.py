"""``mg.save`` / ``mg.load`` of an object tree that refers to one tensor many times: stored once,
loaded once, and every reference gets the same object (as ``torch.load`` keeps sharing)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minigrad_ckpt as mg

pytestmark = pytest.mark.msgpack


def test_a_tensor_referenced_many_times_is_stored_and_loaded_once(tmp_path):
    t = mg.tensor(np.arange(1 << 17, dtype=np.float64))   # 1 MiB
    arr = np.ones(1000)
    path = mg.save({"a": [t] * 200, "b": (t, arr, arr), "c": {"again": t}}, tmp_path / "shared.mgsnap")
    assert path.stat().st_size < 2 * t.numpy().nbytes     # was ~200 MiB on disk
    tracemalloc.start()
    try:
        out = mg.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * t.numpy().nbytes                    # was 400 MiB: one copy per reference
    assert all(x is out["b"][0] for x in out["a"]) and out["c"]["again"] is out["b"][0]
    assert out["b"][1] is out["b"][2]
    np.testing.assert_array_equal(out["b"][0].numpy(), t.numpy())


def test_shared_parameters_of_a_state_dict_round_trip(tmp_path):
    w = mg.randn(3, 3, requires_grad=True)
    sd = {"enc.weight": w, "dec.weight": w}               # tied weights
    out = mg.load(mg.save(sd, tmp_path / "tied.mgsnap"))
    assert out["enc.weight"] is out["dec.weight"] and out["enc.weight"].requires_grad
    assert out["enc.weight"].numpy().tobytes() == w.numpy().tobytes()


def test_save_and_load_take_a_file_object_and_pytorchs_load_keywords(tmp_path):
    # torch.save(obj, buf) / torch.load(buf, weights_only=True) ported by the rename: mg.save raised
    # "expected str, bytes or os.PathLike object, not BytesIO", and weights_only= was a TypeError.
    import io

    net = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.BatchNorm1d(3))
    buf = io.BytesIO()
    assert mg.save({"model": net.state_dict(), "epoch": 3}, buf) is None
    buf.seek(0)
    ck = mg.load(buf, weights_only=True)
    assert ck["epoch"] == 3
    for name, value in net.state_dict().items():
        np.testing.assert_array_equal(ck["model"][name].numpy(), value.numpy())
    with open(tmp_path / "ck.pt", "wb") as f:
        mg.save(ck, f)
    with open(tmp_path / "ck.pt", "rb") as f:
        again = mg.load(f, map_location="cpu", weights_only=False, mmap=False)
    assert again["model"]["1.num_batches_tracked"].item() == 0 and again["epoch"] == 3
    assert mg.load(tmp_path / "ck.pt")["epoch"] == 3  # the file object wrote the same snapshot file
