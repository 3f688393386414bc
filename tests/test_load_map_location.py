"""``mg.load(path, map_location=...)`` in PyTorch's four forms -- a device for every tensor, a dict
from the device a tensor was saved on to the one to load it on (the DDP tutorial's
``{"cuda:0": f"cuda:{rank}"}``), ``fn(tensor, saved_device_name)``, and ``None`` -- on the strict
stand-in devices, whose names play the GPUs' part."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import object_tree, saveload
from minigrad_ckpt.testing import strict  # noqa: F401 (registers the "strict" stand-in devices)


@pytest.fixture
def saved(tmp_path):
    """A checkpoint of a model on strict:0, with a CPU tensor beside it."""
    mg.manual_seed(0)
    model = mg.nn.Linear(3, 2).to("strict:0")
    path = tmp_path / "ckpt.pt"
    state = model.state_dict()
    mg.save({"model": state, "step": mg.tensor([7.0]), "w": state["weight"]}, path)
    return path, {k: v.numpy() for k, v in model.state_dict().items()}


def _devices(obj):
    return {k: str(v.device) for k, v in obj["model"].items()}, str(obj["step"].device)


def test_a_dict_maps_the_saved_device_and_leaves_the_others(saved):
    path, values = saved
    got = mg.load(path, map_location={"strict:0": "strict:1"})
    assert _devices(got) == ({"weight": "strict:1", "bias": "strict:1"}, "cpu")
    assert all(np.array_equal(got["model"][k].numpy(), v) for k, v in values.items())
    got = mg.load(path, map_location={"cuda:0": "cpu"})  # names no device it holds: as saved
    assert _devices(got) == ({"weight": "strict:0", "bias": "strict:0"}, "cpu")
    assert got["w"] is got["model"]["weight"]  # one stored tensor, one object, wherever it goes


def test_a_device_puts_every_tensor_there_and_none_the_default_device(saved):
    path, _ = saved
    assert _devices(mg.load(path, map_location="strict:1")) == ({"weight": "strict:1", "bias": "strict:1"},
                                                                 "strict:1")
    assert _devices(mg.load(path, map_location=mg.device("cpu"))) == ({"weight": "cpu", "bias": "cpu"}, "cpu")
    assert _devices(mg.load(path)) == ({"weight": "cpu", "bias": "cpu"}, "cpu")


def test_a_function_is_given_each_tensor_on_the_cpu_and_its_saved_device(saved):
    path, _ = saved
    seen = []

    def place(t, location):
        seen.append((location, str(t.device)))
        return t.to("strict:1") if location.startswith("strict") else t

    assert _devices(mg.load(path, map_location=place)) == ({"weight": "strict:1", "bias": "strict:1"}, "cpu")
    assert sorted(seen) == [("cpu", "cpu"), ("strict:0", "cpu"), ("strict:0", "cpu")]  # "w" is "weight"
    assert _devices(mg.load(path, map_location=lambda storage, loc: storage))[0]["weight"] == "cpu"
    with pytest.raises(TypeError, match="returned a int, not a Tensor"):
        mg.load(path, map_location=lambda storage, loc: 3)


def test_a_file_written_before_the_device_was_kept_loads_as_saved_from_the_cpu():
    node = {"t": "tensor", "name": "x", "requires_grad": False}  # no "device" entry
    got = object_tree.decode(node, {"x": np.ones(2)}, saveload._placement({"cpu": "strict:1"}), 0, {})
    assert str(got.device) == "strict:1"


def test_a_model_trained_on_one_device_resumes_on_another_as_the_ddp_tutorial_does(tmp_path):
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 1)).to("strict:0")
    mg.save(model.state_dict(), tmp_path / "m.pt")
    other = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 1)).to("strict:1")
    other.load_state_dict(mg.load(tmp_path / "m.pt", map_location={"strict:0": "strict:1"}))
    x = np.ones((2, 3), dtype="float32")
    np.testing.assert_array_equal(other(mg.tensor(x, device="strict:1")).numpy(),
                                  model(mg.tensor(x, device="strict:0")).numpy())


def test_a_function_returning_none_leaves_the_tensor_where_no_map_location_puts_it(saved):
    """PyTorch's rule for a ``map_location`` function: None means "restore it the default way" (the
    engine refused it with a TypeError, 'returned a NoneType').  Here the default way is the default
    device, as ``mg.load(path)`` gives.  Found running PyTorch's serialization tests against the engine."""
    path, values = saved
    got = mg.load(path, map_location=lambda storage, loc: None)
    assert _devices(got) == ({"weight": "cpu", "bias": "cpu"}, "cpu")
    assert all(np.array_equal(got["model"][k].numpy(), v) for k, v in values.items())
    mg.set_default_device("strict:1")
    try:
        got = mg.load(path, map_location=lambda storage, loc: storage if loc == "cpu" else None)
    finally:
        mg.set_default_device("cpu")
    assert _devices(got) == ({"weight": "strict:1", "bias": "strict:1"}, "cpu")
    assert got["w"] is got["model"]["weight"]
