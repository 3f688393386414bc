"""A pickled or deep-copied optimizer as PyTorch 2.13's: its hooks stay behind (PyTorch's
``__getstate__`` keeps ``defaults``, ``state`` and ``param_groups``), so a lambda hook does not make
it unpicklable, the copy runs no hooks, and its state steps on.  PyTorch's answers are in
tests/data/torch_optim_pickle.json (tests/data/make_torch_optim_pickle.py)."""

import copy
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

TORCH = json.loads((Path(__file__).parent / "data" / "torch_optim_pickle.json").read_text())
DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]
COPIES = {"pickled": lambda opt: pickle.loads(pickle.dumps(opt)), "deepcopied": copy.deepcopy}


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


def copied(make_copy, device, dtype):
    calls = []
    p = mg.tensor([1.0, -2.0, 0.5], dtype=dtype, device=device, requires_grad=True)
    opt = mg.optim.Adam([p], lr=0.1)
    for kind in ("step_pre", "step_post", "state_dict_pre", "state_dict_post", "load_state_dict_pre",
                 "load_state_dict_post"):  # one lambda hook of each kind
        getattr(opt, f"register_{kind}_hook")(lambda *a, kind=kind: calls.append(kind))
    p.grad = mg.ones(3, dtype=dtype, device=device)
    opt.step()
    calls.clear()
    twin = make_copy(opt)
    q = twin.param_groups[0]["params"][0]
    q.grad = mg.full((3,), 0.5, dtype=dtype, device=device)
    twin.step()
    twin.load_state_dict(twin.state_dict())
    return calls, float(twin.state[q]["step"]), q.detach().cpu().numpy()


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_copied_optimizer_leaves_its_hooks_behind(how, device, dtype):
    calls, step, param = copied(COPIES[how], device, dtype)
    want = TORCH[how]
    assert calls == want["calls"] and step == want["step"]
    np.testing.assert_allclose(param, want["param"], rtol=1e-6)


def test_the_original_keeps_its_hooks():
    p = mg.tensor([1.0], requires_grad=True)
    opt, calls = mg.optim.SGD([p], lr=0.1), []
    opt.register_step_post_hook(lambda *a: calls.append(1))
    pickle.loads(pickle.dumps(opt))
    p.grad = mg.ones(1)
    opt.step()
    assert calls == [1]
