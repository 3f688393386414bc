"""``mg.device`` is a type, as ``torch.device`` is: code written for PyTorch spells it in annotations
(``device: torch.device | None = None``, evaluated as the function is defined -- litgpt's model.py
failed to load on that line), in ``isinstance`` checks and in ``typing`` unions, and calls it to
make a device."""
import typing

import numpy as np
import pytest

import minigrad_ckpt as mg


def test_device_joins_a_union_in_an_annotation():
    def rope_cache(device: mg.device | None = None) -> mg.device | None:  # evaluated here, not lazily
        return device

    namespace: dict = {"mg": mg}
    exec("def f(device: mg.device | None = None) -> None: pass", namespace)
    assert typing.get_type_hints(namespace["f"], namespace)["device"] == mg.device | None
    assert rope_cache(mg.device("cpu")) == "cpu"


def test_what_device_makes_is_an_instance_of_it():
    cpu = mg.device("cpu")
    assert isinstance(cpu, mg.device)
    assert isinstance(mg.zeros(2).device, mg.device)
    assert not isinstance("cpu", mg.device)
    assert issubclass(type(cpu), mg.device)
    assert type(cpu) is mg.device


def test_calling_it_resolves_as_get_device():
    assert mg.device("cpu") is mg.get_device("cpu")
    assert mg.device(mg.device("cpu")) is mg.device("cpu")
    assert mg.device("cpu", 0) is mg.device("cpu")
    assert str(mg.device("cpu")) == "cpu" and repr(mg.device("cpu")) == "device(type='cpu')"


def test_pytorchs_two_signatures_and_the_type_of_the_index():
    # torch 2.13: device(device='cpu') is the one-argument signature; a float or bool index is a TypeError
    assert mg.device(device="cpu") is mg.device("cpu")
    assert mg.device(device=mg.device("cpu")) is mg.device("cpu")
    assert mg.device("cpu", np.int64(0)) is mg.device("cpu", 0)
    for index, name in ((0.0, "float"), (True, "bool")):
        with pytest.raises(TypeError, match=f"device\\(\\): argument 'index' \\(position 2\\) must be int, not {name}"):
            mg.device("cpu", index)
    with pytest.raises(TypeError, match="device\\(\\) got an unexpected keyword argument 'device'"):
        mg.device("cpu", device="cpu")
