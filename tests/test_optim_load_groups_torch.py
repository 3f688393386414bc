"""``Optimizer.load_state_dict`` and parameter groups as PyTorch 2.13's: its messages when the
group count or a group's size differs, and the saved group as the whole group after a load
(a key only the loading optimizer had is dropped; a saved key and a hand-edited lr come back).
PyTorch's answers are in tests/data/torch_optim_load_groups.json
(tests/data/make_torch_optim_load_groups.py)."""

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

TORCH = json.loads((Path(__file__).parent / "data" / "torch_optim_load_groups.json").read_text())
DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


def params(n, device="cpu", dtype=mg.float64):
    return [mg.tensor(np.arange(3.0) + i, dtype=dtype, device=device, requires_grad=True) for i in range(n)]


def test_group_count_message_is_pytorchs():
    ps = params(2)
    one, two = mg.optim.SGD(ps, lr=0.1), mg.optim.SGD([{"params": ps[:1]}, {"params": ps[1:]}], lr=0.1)
    with pytest.raises(ValueError) as err:
        one.load_state_dict(two.state_dict())
    assert str(err.value) == TORCH["group_count"]


def test_group_size_message_is_pytorchs():
    fewer, one = mg.optim.SGD(params(1), lr=0.1), mg.optim.SGD(params(2), lr=0.1)
    with pytest.raises(ValueError) as err:
        fewer.load_state_dict(one.state_dict())
    assert str(err.value) == TORCH["group_size"]


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_loaded_groups_are_the_saved_groups(device, dtype):
    ps = params(3, device, dtype)
    saved = mg.optim.SGD([{"params": ps[:2], "tag": "saved"}, {"params": ps[2:], "lr": 0.5}], lr=0.1, momentum=0.9)
    saved.param_groups[0]["lr"] = 0.25
    mine = params(3, device, dtype)
    loading = mg.optim.SGD([{"params": mine[:2], "only_here": 1}, {"params": mine[2:]}], lr=0.3)
    held = loading.param_groups[0]  # a scheduler holding the group dict sees the load
    loading.param_groups[1]["also_only_here"] = 2
    loading.load_state_dict(saved.state_dict())
    got = [{k: v for k, v in g.items() if k != "params"} for g in loading.param_groups]
    assert got == TORCH["groups_after_load"]
    assert held is loading.param_groups[0] and held["params"][0] is mine[0]


def test_loaded_group_keeps_its_names_when_the_save_has_none():
    ps = params(2)
    loading = mg.optim.SGD([("a", ps[0]), ("b", ps[1])], lr=0.3)
    loading.load_state_dict(mg.optim.SGD(params(2), lr=0.1).state_dict())
    assert loading.param_groups[0]["param_names"] == ["a", "b"] and loading.param_groups[0]["lr"] == 0.1


def test_an_option_the_save_lacks_takes_its_default():
    ps = params(1)
    sd = mg.optim.Adam(ps, lr=0.1).state_dict()
    del sd["param_groups"][0]["amsgrad"]  # a save from before the option existed
    opt = mg.optim.Adam(ps, lr=0.2)
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["amsgrad"] is False and opt.param_groups[0]["lr"] == 0.1
