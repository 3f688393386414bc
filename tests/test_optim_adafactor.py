"""``mg.optim.Adafactor`` against PyTorch's (``tests/data/make_torch_adafactor.py``): its
trajectories in float64 and float32, on cpu and the strict devices, its state dict (the factored
second moments), a PyTorch state dict loaded midway, a snapshot resumed bit for bit, and its errors.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = np.load(Path(__file__).parent / "data" / "torch_adafactor.npz")
CONFIGS = {  # the generator's keyword arguments
    "defaults": {},
    "decay": {"lr": 0.05, "weight_decay": 0.1, "d": 1.5, "eps": (1e-20, 1e-2), "beta2_decay": -0.5},
    "maximize": {"maximize": True, "lr": 3.0},
}
TOL = {"float64": dict(rtol=1e-12, atol=1e-14), "float32": dict(rtol=2e-6, atol=2e-6)}


def params(dtype, device="cpu"):
    return [mg.nn.Parameter(mg.tensor(DATA[f"start{i}"], dtype=dtype, device=device)) for i in range(3)]


def take_grads(ps, k):
    for i, p in enumerate(ps):
        p.grad = mg.tensor(DATA[f"grad{k}_{i}"], dtype=p.dtype, device=p.device)


def run(ps, opt, steps):
    for k in steps:
        take_grads(ps, k)
        opt.step()


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("dtype, device", [("float64", "cpu"), ("float32", "cpu"), ("float64", "strict"),
                                           ("float32", "strict-f32")])
def test_trajectories_are_pytorchs(config, dtype, device):
    ps = params(dtype, device)
    opt = mg.optim.Adafactor(ps, **CONFIGS[config])
    for k in range(5):
        run(ps, opt, [k])
        for i, p in enumerate(ps):
            np.testing.assert_allclose(p.numpy(), DATA[f"{config}_{dtype}_step{k}_{i}"], **TOL[dtype])
    state = opt.state_dict()["state"]
    for i in range(3):
        prefix = f"{config}_{dtype}_state{i}_"
        keys = sorted(k[len(prefix):] for k in DATA.files if k.startswith(prefix))
        assert sorted(state[i]) == keys
        for key in keys:
            ours, theirs = state[i][key].numpy(), DATA[prefix + key]
            assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, key
            np.testing.assert_allclose(ours, theirs, **TOL[dtype])


def test_a_pytorch_state_dict_loads_midway():
    ps = params("float64")
    opt = mg.optim.Adafactor(ps, **CONFIGS["decay"])
    run(ps, opt, range(4))
    saved = opt.state_dict()
    ps2 = params("float64")
    opt2 = mg.optim.Adafactor(ps2)
    with mg.no_grad():
        for p, q in zip(ps2, ps):
            p.copy_(q)
    opt2.load_state_dict(saved)
    run(ps2, opt2, [4])
    for i, p in enumerate(ps2):
        np.testing.assert_allclose(p.numpy(), DATA[f"decay_float64_step4_{i}"], **TOL["float64"])


@pytest.mark.msgpack
def test_snapshot_resume_is_bitwise_exact(tmp_path):
    from minigrad_ckpt.snapshot import Snapshot

    model = mg.nn.Linear(4, 3, dtype="float64")
    x, y = mg.randn(6, 4, dtype="float64"), mg.randn(6, 3, dtype="float64")

    def train(opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            opt.step()

    start = {k: v.clone() for k, v in model.state_dict().items()}
    opt = mg.optim.Adafactor(model.parameters(), lr=0.05, weight_decay=0.01)
    train(opt, 6)
    want = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    model.load_state_dict(start)
    opt = mg.optim.Adafactor(model.parameters(), lr=0.05, weight_decay=0.01)
    train(opt, 3)
    path = Snapshot.from_executor(mg.Executor(model, opt), 3).save(tmp_path / "s.mgsnap")
    model.load_state_dict(start)
    opt = mg.optim.Adafactor(model.parameters(), lr=0.05, weight_decay=0.01)
    Snapshot.load(path).restore_into(mg.Executor(model, opt))
    assert opt.state[model.weight]["row_var"].shape == (3, 1)
    train(opt, 3)
    for k, v in model.state_dict().items():
        assert np.array_equal(v.numpy(), want[k]), k


def test_pytorchs_errors():
    p = [mg.nn.Parameter(mg.zeros(2))]
    for kwargs, words in [({"lr": -1.0}, "Learning rate should be >= 0"), ({"beta2_decay": 0.1}, "beta2_decay"),
                          ({"eps": (-1.0, 1e-3)}, "epsilon1"), ({"eps": (None, -1.0)}, "epsilon2"),
                          ({"d": 0.5}, "Clipping threshold d"), ({"weight_decay": -0.1}, "weight_decay")]:
        with pytest.raises(ValueError, match=words):
            mg.optim.Adafactor(p, **kwargs)
    z = mg.nn.Parameter(mg.zeros(2, dtype=mg.complex128))
    z.grad = mg.ones(2, dtype=mg.complex128)
    with pytest.raises(RuntimeError, match="Adafactor does not support complex parameters"):
        mg.optim.Adafactor([z]).step()
    assert mg.optim.Adafactor(p).defaults == {"lr": 1e-2, "beta2_decay": -0.8, "eps": (None, 1e-3), "d": 1.0,
                                              "weight_decay": 0.0, "foreach": None, "maximize": False}
