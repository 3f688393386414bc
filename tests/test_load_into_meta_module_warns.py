"""The loading-tips recipe (``module_load_state_dict_tips``): a model built under ``with mg.device('meta'):``
has no memory, so ``load_state_dict`` without ``assign=True`` copies nothing.  PyTorch says so, one
UserWarning per key, and points to ``assign=True``; before, the engine kept silent and the model stayed
on the meta device.  torch 2.13's answers are in the comments."""

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn

MESSAGE = ("for {}: copying from a non-meta parameter in the checkpoint to a meta parameter in the current model, "
           "which is a no-op. (Did you mean to pass `assign=True` to assign items in the state dictionary to their "
           "corresponding key in the module instead of copying them in place?)")


class SomeModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.linears = nn.ModuleList([nn.Linear(1, 1) for _ in range(2)])


class Renaming(SomeModule):  # an override of _load_from_state_dict takes the module-by-module path
    def _load_from_state_dict(self, state_dict, prefix, *args):
        super()._load_from_state_dict(state_dict, prefix, *args)


@pytest.mark.parametrize("cls", [SomeModule, Renaming])
def test_loading_into_a_meta_model_without_assign_warns_per_key(cls, tmp_path):
    mg.save(cls().state_dict(), tmp_path / "checkpoint.pth")
    state_dict = mg.load(tmp_path / "checkpoint.pth", mmap=True)
    with mg.device("meta"):
        meta_m = cls()
    with pytest.warns(UserWarning) as record:
        result = meta_m.load_state_dict(state_dict)
    keys = ["linears.0.weight", "linears.0.bias", "linears.1.weight", "linears.1.bias"]
    assert [str(w.message) for w in record] == [MESSAGE.format(k) for k in keys]
    assert tuple(result) == ([], []) and meta_m.linears[0].weight.is_meta  # torch: still meta
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        meta_m.load_state_dict(state_dict, assign=True)  # torch: no warning
    w = meta_m.linears[0].weight
    assert type(w) is nn.Parameter and w.device == "cpu" and w.requires_grad and w.is_leaf
    np.testing.assert_array_equal(w.detach().numpy(), state_dict["linears.0.weight"].numpy())


def test_meta_into_meta_and_cpu_into_cpu_are_silent():
    with mg.device("meta"):
        a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a.load_state_dict(b.state_dict())            # torch: silent
        nn.Linear(2, 2).load_state_dict(nn.Linear(2, 2).state_dict())
