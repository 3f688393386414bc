"""Schedulers and ``optimizer.add_param_group``: a group added after the scheduler was built is
handled as PyTorch handles it (fixture: ``tests/data/make_scheduler_param_groups.py``, made offline
with torch): the chainable schedules and ReduceLROnPlateau take it along; a schedule whose formula
needs each group's base lr stops with an error naming the fix, where PyTorch stops too."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import optim
from minigrad_ckpt.optim import lr_scheduler as L

FIXTURE = json.loads((Path(__file__).parent / "data" / "scheduler_param_groups.json").read_text())["cases"]

CASES = {
    "StepLR": lambda o: L.StepLR(o, 2, 0.5),
    "MultiStepLR": lambda o: L.MultiStepLR(o, [1, 3], 0.5),
    "ExponentialLR": lambda o: L.ExponentialLR(o, 0.9),
    "CosineAnnealingLR": lambda o: L.CosineAnnealingLR(o, 5, 0.001),
    "LinearLR": lambda o: L.LinearLR(o, 0.5, 1.0, 4),
    "LambdaLR": lambda o: L.LambdaLR(o, lambda e: 0.9**e),
    "CosineAnnealingWarmRestarts": lambda o: L.CosineAnnealingWarmRestarts(o, 2, 2, 0.001),
    "OneCycleLR": lambda o: L.OneCycleLR(o, 1.0, total_steps=10),
    "SequentialLR": lambda o: L.SequentialLR(o, [L.ExponentialLR(o, 0.9), L.StepLR(o, 2, 0.5)], [2]),
    "ReduceLROnPlateau(min_lr=0)": lambda o: L.ReduceLROnPlateau(o, factor=0.5, patience=0, min_lr=0),
    "ReduceLROnPlateau(min_lr=[0.001, 0.001])": lambda o: L.ReduceLROnPlateau(o, factor=0.5, patience=0,
                                                                              min_lr=[0.001, 0.001]),
}


def _params():
    return [mg.zeros(1, requires_grad=True) for _ in range(3)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_group_added_later_is_scheduled_as_pytorch_does(name):
    want = FIXTURE[name]
    p = _params()
    o = optim.SGD([{"params": [p[0]], "lr": 0.05}, {"params": [p[1]], "lr": 0.1}], lr=0.1, momentum=0.9)
    s = CASES[name](o)
    plateau = isinstance(s, L.ReduceLROnPlateau)
    for metric in (1.0, 2.0):
        s.step(metric) if plateau else s.step()
    o.add_param_group({"params": [p[2]], "lr": 0.4})
    got = []
    for _ in range(len(want["lrs"])):
        s.step(2.0) if plateau else s.step()
        got.append([g["lr"] for g in o.param_groups])
    if got:
        np.testing.assert_allclose(got, want["lrs"], rtol=1e-12)
    if "error" in want:  # PyTorch stops at this step, with this exception type; so does this, saying what to do
        # (ReduceLROnPlateau's words are PyTorch's own, which say it too)
        with pytest.raises(getattr(builtins, want["error"]), match="add_param_group|a new param group being added"):
            s.step(2.0) if plateau else s.step()
    else:
        assert len(got) == 4


def test_plateau_reduces_a_group_added_after_three_bad_epochs():
    p = _params()
    o = optim.SGD([{"params": [p[0]], "lr": 0.1}, {"params": [p[1]], "lr": 0.2}], lr=0.1)
    s = L.ReduceLROnPlateau(o, factor=0.5, patience=0)
    s.step(1.0)
    o.add_param_group({"params": [p[2]], "lr": 0.4})
    for _ in range(3):
        s.step(2.0)
    assert [g["lr"] for g in o.param_groups] == [0.0125, 0.025, 0.05]  # was [0.0125, 0.025, 0.4]
    assert "default_min_lr" not in s.state_dict()  # the state keeps its fields (older snapshots load)


@pytest.mark.msgpack
@pytest.mark.parametrize("saved, resumed", [("named", "plain"), ("plain", "named"), ("named", "named")])
def test_a_snapshot_restores_across_named_and_plain_parameters(tmp_path, saved, resumed):
    """An optimizer built from ``named_parameters()`` keeps ``param_names`` in its groups: names, not a
    hyper-parameter.  A snapshot restored into one built the other way was refused ("parameter group
    0 has hyper-parameters [...]"); torch 2.13's load_state_dict takes the saved names (or keeps the
    optimizer's own when the state has none), and so does restore_into now -- the run goes on bit for bit."""
    from minigrad_ckpt import nn
    from minigrad_ckpt.snapshot import Snapshot, SnapshotError

    def program(kind, seed):
        mg.manual_seed(seed)
        model = nn.Sequential(nn.Linear(3, 2))
        opt = optim.Adam(model.named_parameters() if kind == "named" else model.parameters(), lr=0.1)
        ex = mg.Executor(model, opt)
        x = mg.tensor(np.arange(12.0).reshape(4, 3), dtype=mg.float32)

        def step():
            opt.zero_grad()
            loss = (model(x) ** 2).mean()
            loss.backward()
            opt.step()
            return loss.numpy().tobytes()

        return ex, opt, step

    ex, opt, step = program(saved, 0)
    step()
    Snapshot.from_executor(ex).save(tmp_path / "s.mgsnap")
    want = [step() for _ in range(3)]
    ex2, opt2, step2 = program(resumed, 1)
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(ex2)
    assert [step2() for _ in range(3)] == want
    assert opt2.param_groups[0]["param_names"] == ["0.weight", "0.bias"]
    with pytest.raises(SnapshotError, match="param_names must be a name for each of its 2 parameters"):
        snap = Snapshot.load(tmp_path / "s.mgsnap")
        snap.state["optimizer"]["param_groups"][0]["param_names"] = ["only one"]
        snap.restore_into(ex2)


def test_a_state_saved_with_a_scheduler_names_it_when_the_optimizer_has_none():
    """An LR scheduler adds ``initial_lr`` to the groups: restoring its snapshot into an executor
    without one is refused, and the error says why instead of listing hyper-parameter names."""
    from minigrad_ckpt.snapshot import Snapshot, SnapshotError

    def executor(with_scheduler):
        model = mg.nn.Linear(2, 3)
        opt = mg.optim.Adam(model.parameters(), lr=0.1)
        return mg.Executor(model, opt, mg.optim.lr_scheduler.StepLR(opt, 2) if with_scheduler else None)

    snap = Snapshot.from_executor(executor(True))
    with pytest.raises(SnapshotError, match="saved with a scheduler and this optimizer has none"):
        snap.restore_into(executor(False))
    with pytest.raises(SnapshotError, match="saved without a scheduler and this optimizer has one"):
        Snapshot.from_executor(executor(False)).restore_into(executor(True))
