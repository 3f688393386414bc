"""``mg.get_device(tensor)`` is PyTorch's ``torch.get_device(t)``: the device's index, -1 on the
CPU (torch 2.13 answers -1 for a CPU tensor).  It was a TypeError ("device must be a string, an
int or a Device, got Tensor"): ``mg.get_device`` only resolved device names."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)


def test_the_index_of_a_tensors_device_as_pytorch():
    assert mg.get_device(mg.ones(2)) == -1 == mg.ones(2).get_device()
    on_strict = mg.ones(2, device="strict")
    assert mg.get_device(on_strict) == on_strict.get_device() == on_strict.device.index == 0
    with pytest.raises(TypeError, match="no index"):
        mg.get_device(mg.ones(2), 1)


def test_a_device_name_still_resolves_to_a_device():
    assert mg.get_device("cpu") == mg.device("cpu") and isinstance(mg.get_device(), mg.Device)
    assert mg.get_device("strict") == mg.device("strict:0")
