"""A snapshot gives back a parameter group's own entries exactly, as ``torch.save`` of the
optimizer's ``state_dict()`` does: a group may carry keys of the user's beside the
hyper-parameters (PyTorch keeps any key), and those may be a map with int keys or a NumPy array.

The header held the groups as plain data, so such a group's snapshot could not be restored into
the program that wrote it: "hyper-parameter 'layer_scale' = {'0': 1.0, ...} is not of the kind the
optimizer uses ({0: 1.0, ...})", "hyper-parameter 'mask' = [1.0, 0.0] is not of the kind ...
(array([1., 0.]))".  The header keeps the plain groups (older readers, the checks) and, for groups
whose entries are more than plain data, ``exact_groups``: their ``mg.save`` tree, which the restore
loads.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotError, SnapshotManager
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

pytestmark = pytest.mark.msgpack


def _build(seed=0, device="cpu", tensor_lr=False):
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1)).to(device)
    # (tensor hyper-parameters beside them: an lr, betas of tensors, which the plain groups place)
    kw = {"lr": mg.tensor(0.05), "betas": (mg.tensor(0.9), mg.tensor(0.999)), "capturable": True} if tensor_lr else {}
    opt = optim.Adam([{"params": model[0].parameters(), "layer_scale": {0: 1.0, 1: 0.5}, "tags": ("body", 0)},
                      {"params": model[1].parameters(), "mask": np.array([1.0, 0.0]), "name": "head"}],
                     **{"lr": 0.05, **kw})
    return model, opt, mg.Executor(model, opt)


def _train(model, opt, ex, n, log):
    for _ in range(n):
        x = mg.randn(5, 3).to(model[0].weight.device)
        opt.zero_grad()
        loss = ((model(x) - 0.5) ** 2).mean() * opt.param_groups[0]["layer_scale"][1]
        loss.backward()
        opt.step()
        for g in opt.param_groups:  # the user's entries change as training goes
            if "mask" in g:
                g["mask"] = g["mask"] * 0.5
        ex.step()
        log.append(loss.detach().cpu().numpy().tobytes())


def _entries(opt):
    return [(g["layer_scale"], g["tags"]) if "layer_scale" in g else (g["mask"].tobytes(), g["name"])
            for g in opt.param_groups]


@pytest.mark.parametrize("blocking", [True, False])
@pytest.mark.parametrize("device,tensor_lr", [("cpu", False), ("strict", False), ("cpu", True), ("strict", True)])
def test_a_groups_own_entries_come_back_exactly(tmp_path, device, tensor_lr, blocking):
    parts = _build(device=device, tensor_lr=tensor_lr)
    want = []
    _train(*parts, 6, want)
    want_entries = _entries(parts[1])
    parts = _build(device=device, tensor_lr=tensor_lr)
    got = []
    _train(*parts, 3, got)
    saved = SnapshotManager(tmp_path).save_snapshot(parts[2], blocking=blocking)
    path = saved if blocking else saved.result()
    parts = _build(seed=4, device=device, tensor_lr=tensor_lr)
    Snapshot.load(path).restore_into(parts[2])
    group0 = parts[1].param_groups[0]
    assert list(group0["layer_scale"]) == [0, 1] and type(group0["tags"]) is tuple
    assert isinstance(parts[1].param_groups[1]["mask"], np.ndarray)
    _train(*parts, 3, got)
    assert got == want
    assert _entries(parts[1]) == want_entries


def test_plain_groups_are_written_as_before():
    model = nn.Linear(3, 1)
    opt = optim.Adam([{"params": model.parameters(), "name": "all", "tags": ("a", 1)}], lr=mg.tensor(0.01),
                     capturable=True)
    assert "exact_groups" not in Snapshot.from_executor(mg.Executor(model, opt)).state["optimizer"]


@pytest.mark.parametrize("damage", ["not a list", "one group", "other kind"])
def test_exact_groups_that_do_not_fit_are_refused_and_change_nothing(damage):
    parts = _build()
    _train(*parts, 2, [])
    snap = Snapshot.from_executor(parts[2])
    exact = snap.state["optimizer"]["exact_groups"]
    if damage == "not a list":
        exact["tree"] = {"t": "dict", "keys": [], "values": []}
    elif damage == "one group":
        exact["tree"]["items"] = exact["tree"]["items"][:1]
    else:
        group = exact["tree"]["items"][0]
        group["values"][[k for k in group["keys"]].index("tags")] = 7
    parts = _build(seed=4)
    before = _entries(parts[1]), [p.detach().numpy().copy() for p in parts[0].parameters()]
    with pytest.raises(SnapshotError, match="optimizer"):
        snap.restore_into(parts[2])
    assert _entries(parts[1]) == before[0]
    assert all(np.array_equal(a, p.detach().numpy()) for a, p in zip(before[1], parts[0].parameters()))


def test_the_exact_entries_are_those_of_the_call_whatever_changes_in_place_after(tmp_path):
    """A snapshot keeps the groups' and the scheduler's exact entries of its call: written into in place
    afterwards (a list appended to, an array added to) before the snapshot is saved, they stay."""
    from minigrad_ckpt.optim import lr_scheduler as lrs

    class Seen:
        def __init__(self):
            self.by_epoch = {0: [1.0]}

        def __call__(self, epoch):
            self.by_epoch.setdefault(epoch, []).append(float(epoch))
            return 1.0

    def mutate(opt):
        opt.param_groups[0]["layer_scale"][0] += 1.0
        opt.param_groups[1]["mask"] += 1.0
        sched.lr_lambdas[0].by_epoch[0].append(2.0)

    model, opt, _ = _build()
    sched = lrs.LambdaLR(opt, Seen())
    ex = mg.Executor(model, opt, sched)
    Snapshot.from_executor(ex).save(tmp_path / "before.mgsnap")
    snap = Snapshot.from_executor(ex)
    mutate(opt)
    snap.save(tmp_path / "after.mgsnap")
    before, after = Snapshot.load(tmp_path / "before.mgsnap").state, Snapshot.load(tmp_path / "after.mgsnap").state
    assert before["optimizer"]["exact_groups"] == after["optimizer"]["exact_groups"]
    assert before["scheduler"]["exact"] == after["scheduler"]["exact"]
