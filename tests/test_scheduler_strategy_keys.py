"""``OneCycleLR`` and ``SWALR`` keep their annealing strategy under PyTorch's state-dict keys
(``_anneal_func_type``, ``_anneal_strategy``), so a PyTorch state dict restores the strategy and
theirs loads into PyTorch's; the numbers come from ``tests/data/make_torch_scheduler_strategy_keys.py``.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.optim import lr_scheduler as L
from minigrad_ckpt.optim import swa_utils as S

DATA = json.loads((Path(__file__).parent / "data" / "torch_scheduler_strategy_keys.json").read_text())["cases"]
STRATEGY_KEY = {"OneCycleLR": "_anneal_func_type", "SWALR": "_anneal_strategy"}
CASES = {  # the generator's constructor calls
    "OneCycleLR": lambda o, strategy: L.OneCycleLR(o, 0.5, total_steps=10, anneal_strategy=strategy,
                                                   three_phase=True),
    "SWALR": lambda o, strategy: S.SWALR(o, swa_lr=0.02, anneal_epochs=5, anneal_strategy=strategy),
}


def sgd(dtype=mg.float64, device="cpu"):
    return mg.optim.SGD([mg.nn.Parameter(mg.zeros(2, dtype=dtype, device=device))], lr=0.1, momentum=0.9)


def stepped_linear(name, dtype=mg.float64, device="cpu"):
    o = sgd(dtype, device)
    s = CASES[name](o, "linear")
    for _ in range(2):
        o.step()
        s.step()
    return o, s


def lrs_after_loading(name, state, first, dtype=mg.float64, device="cpu"):
    o = sgd(dtype, device)
    s = CASES[name](o, "cos")
    s.load_state_dict(state)
    o.param_groups[0].update(lr=first.param_groups[0]["lr"], momentum=first.param_groups[0]["momentum"])
    return [step_both(o, s) for _ in range(6)]


def step_both(o, s):
    o.step()
    s.step()
    return o.param_groups[0]["lr"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_state_dict_restores_the_strategy(name):
    first, _ = stepped_linear(name)
    lrs = lrs_after_loading(name, copy.deepcopy(DATA[name]["state_dict"]), first)
    np.testing.assert_allclose(lrs, DATA[name]["lrs"], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", sorted(CASES))
def test_state_dict_has_torch_keys(name):
    _, s = stepped_linear(name)
    ours, theirs = s.state_dict(), DATA[name]["state_dict"]
    assert ours[STRATEGY_KEY[name]] == "linear" and "anneal_strategy" not in ours
    for key, value in ours.items():
        assert key in theirs, key
        if key in theirs and isinstance(value, (int, str, bool)):
            assert value == theirs[key], key


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype, device", [(mg.float32, "cpu"), (mg.float64, "strict"), (mg.float32, "strict-f32")])
def test_snapshot_resume_keeps_the_strategy(name, dtype, device):
    from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

    first, s = stepped_linear(name, dtype, device)
    buf = io.BytesIO()
    mg.save(s.state_dict(), buf)
    buf.seek(0)
    lrs = lrs_after_loading(name, mg.load(buf), first, dtype, device)
    np.testing.assert_allclose(lrs, DATA[name]["lrs"], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", sorted(CASES))
def test_state_dict_of_the_older_key_loads(name):
    first, s = stepped_linear(name)
    state = s.state_dict()
    state["anneal_strategy"] = state.pop(STRATEGY_KEY[name])
    np.testing.assert_allclose(lrs_after_loading(name, state, first), DATA[name]["lrs"], rtol=1e-12, atol=1e-15)
