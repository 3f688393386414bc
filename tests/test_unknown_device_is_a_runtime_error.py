"""A device name the engine does not know is PyTorch's ``RuntimeError`` (torch 2.13: "Expected one
of cpu, cuda, ... device type at start of device string: tpu"; "Invalid device string: 'cuda:x'"),
and still the ``ValueError`` the engine raised before.  Only the ValueError was raised, so a program
written for PyTorch -- ``except RuntimeError:`` around ``x.to(name)`` or ``load(..., map_location=name)``
-- let it through.  Found running PyTorch's serialization tests (a bad map_location) against the engine."""
from __future__ import annotations

import io

import pytest

import minigrad_ckpt as mg

SPELLINGS = {
    "mg.device": lambda name: mg.device(name),
    "Tensor.to": lambda name: mg.zeros(1).to(name),
    "Tensor.to(device=)": lambda name: mg.zeros(1).to(device=name),
    "mg.zeros(device=)": lambda name: mg.zeros(2, device=name),
    "set_default_device": lambda name: mg.set_default_device(name),
    "mg.load(map_location=)": lambda name: _load(name),
}


def _load(name):
    buffer = io.BytesIO()
    mg.save({"w": mg.ones(2)}, buffer)
    buffer.seek(0)
    return mg.load(buffer, map_location=name)


@pytest.mark.parametrize("name", ["tpu", "bogusdevice", "cuda:x", "cpu:"])
@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_an_unknown_device_is_a_runtime_error_and_a_value_error(spelling, name):
    if name == "cpu:" and spelling != "mg.device":
        return  # (one spelling is enough for the empty index)
    with pytest.raises(RuntimeError) as info:
        SPELLINGS[spelling](name)
    assert isinstance(info.value, ValueError)
    assert mg.get_default_device() == mg.device("cpu")


def test_a_known_device_and_a_dtype_by_name_still_resolve():
    assert mg.zeros(1).to("float64").dtype == mg.float64
    assert mg.device("cpu:0") == mg.device("cpu")
    assert str(mg.zeros(1).to("cpu").device) == "cpu"
