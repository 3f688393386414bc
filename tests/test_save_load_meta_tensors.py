"""``mg.save`` of a meta tensor (a shape and a dtype, no values: a model built on the meta device)
stores its shape, dtype and flags, and ``mg.load`` gives back a meta tensor, whatever
``map_location`` says, as ``torch.save``/``torch.load`` do (torch 2.13: meta, ``requires_grad``
and ``Parameter`` kept, under ``map_location="cpu"`` too).  ``mg.save`` raised NotImplementedError
("Cannot copy out of meta tensor; no data!").  Found running PyTorch's serialization tests
against the engine."""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import SnapshotError, object_tree
from tests.save_load_round_trip import round_trip


@pytest.mark.parametrize("map_location", [None, "cpu", lambda t, saved: t])
def test_meta_tensors_load_as_meta_tensors(map_location):
    m = mg.ones(3, 4, device="meta", dtype=mg.float64)
    p = mg.nn.Parameter(mg.ones(2, device="meta"))
    out = round_trip({"m": m, "again": m, "p": p, "i": mg.zeros(2, device="meta", dtype=mg.int64),
                       "real": mg.ones(2)}, map_location=map_location)
    assert str(out["m"].device) == "meta" and out["m"].shape == (3, 4) and out["m"].dtype == mg.float64
    assert out["again"] is out["m"] and not out["m"].requires_grad
    assert type(out["p"]) is mg.nn.Parameter and out["p"].requires_grad and str(out["p"].device) == "meta"
    assert out["i"].dtype == mg.int64 and out["real"].tolist() == [1.0, 1.0]


def test_a_meta_models_state_dict_round_trips():
    model = mg.nn.Linear(3, 2, device="meta")
    state = round_trip(model.state_dict())
    assert list(state) == ["weight", "bias"]
    assert state["weight"].shape == (2, 3) and str(state["bias"].device) == "meta"
    other = mg.nn.Linear(3, 2, device="meta")
    other.load_state_dict(state)


def test_a_requires_grad_meta_leaf_keeps_the_flag():
    out = round_trip(mg.ones(2, device="meta", requires_grad=True))
    assert out.requires_grad and out.is_leaf and str(out.device) == "meta"


@pytest.mark.parametrize("bad", [
    {"ref": 0, "shape": [-1], "dtype": "float32", "requires_grad": False},
    {"ref": 0, "shape": [2], "dtype": "object", "requires_grad": False},
    {"ref": "0", "shape": [2], "dtype": "float32", "requires_grad": False},
    {"ref": 0, "shape": [2], "dtype": "float32"},
])
def test_a_malformed_meta_node_is_refused(bad):
    with pytest.raises(SnapshotError, match="a stored meta tensor is malformed"):
        object_tree.decode({"t": "meta", **bad}, {}, None, 0, {})
