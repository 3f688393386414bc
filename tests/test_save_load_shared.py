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
