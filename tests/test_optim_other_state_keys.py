"""An optimizer state entry filed under a key that is not a parameter (``opt.state["global_step"]``,
as some hand-written optimizers keep one) travels through ``state_dict()``/``load_state_dict`` under
its key, as PyTorch 2.13's (tests/data/torch_optim_other_state.json,
tests/data/make_torch_optim_other_state.py)."""

import io
import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

TORCH = json.loads((Path(__file__).parent / "data" / "torch_optim_other_state.json").read_text())
DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


def saved(device, dtype):
    p = mg.tensor([1.0, -2.0, 0.5], dtype=dtype, device=device, requires_grad=True)
    opt = mg.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = mg.ones(3, dtype=dtype, device=device)
    opt.step()
    opt.state["global_step"] = 7
    opt.state["schedule"] = {"phase": "warmup", "seen": [1, 2]}
    return opt.state_dict()


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_non_parameter_entry_is_saved_and_loaded(device, dtype):
    sd = saved(device, dtype)
    assert sorted(map(str, sd["state"])) == TORCH["saved_keys"]
    assert sd["state"]["global_step"] == TORCH["saved_global_step"]
    assert sd["state"]["schedule"] == TORCH["saved_schedule"]
    q = mg.zeros(3, dtype=dtype, device=device, requires_grad=True)
    other = mg.optim.SGD([q], lr=0.1, momentum=0.9)
    other.load_state_dict(sd)
    assert {k: v for k, v in other.state.items() if isinstance(k, str)} == TORCH["loaded_non_param"]
    assert other.state[q]["momentum_buffer"].tolist() == TORCH["loaded_momentum"]


def test_it_survives_save_and_load():
    buf = io.BytesIO()
    mg.save(saved("cpu", mg.float64), buf)
    buf.seek(0)
    q = mg.zeros(3, dtype=mg.float64, requires_grad=True)
    other = mg.optim.SGD([q], lr=0.1, momentum=0.9)
    other.load_state_dict(mg.load(buf))
    assert other.state["global_step"] == 7
    np.testing.assert_array_equal(other.state[q]["momentum_buffer"].numpy(), np.ones(3))


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_it_survives_a_snapshot(tmp_path, device, dtype):
    from minigrad_ckpt.snapshot import SnapshotManager

    def build():
        model = mg.nn.Linear(3, 1, dtype=dtype, device=device)
        return model, mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    model, opt = build()
    model(mg.ones(2, 3, dtype=dtype, device=device)).sum().backward()
    opt.step()
    opt.state["global_step"] = 7
    opt.state["schedule"] = {"phase": "warmup", "seen": [1, 2]}
    SnapshotManager(tmp_path).save_snapshot(mg.Executor(model, opt), 1)
    model2, opt2 = build()
    SnapshotManager(tmp_path).load_latest().restore_into(mg.Executor(model2, opt2))
    assert {k: v for k, v in opt2.state.items() if isinstance(k, str)} == TORCH["loaded_non_param"]
    np.testing.assert_array_equal(opt2.state[model2.weight]["momentum_buffer"].cpu().numpy(),
                                  opt.state[model.weight]["momentum_buffer"].cpu().numpy())
