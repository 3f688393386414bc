"""``optimizer.state_dict()["state"]`` lists the parameters in the order they got their state, as
torch 2.13's does (``optimizer.state``'s order, an entry under another key in its place), and
``load_state_dict``, ``mg.save``/``mg.load`` and a snapshot's resume keep that order.

It listed them by position: a model whose last layer stepped first gave ``[0, 1, 2, 3]`` where
torch gives ``[2, 3, 0, 1]`` (and ``global_step`` last instead of in its place), so code ported
from torch that walks the state dict, and the saved file, saw another order.  torch's orders:
``tests/data/torch_optim_state_order.json`` (``tests/data/make_torch_optim_state_order.py``);
torch is not imported.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot

TORCH = json.loads((Path(__file__).parent / "data" / "torch_optim_state_order.json").read_text())
KWARGS = {"SGD": {"lr": 0.1, "momentum": 0.9}, "Adam": {"lr": 0.1}, "RMSprop": {"lr": 0.01}}


def _run(name, device="cpu", global_step=True):
    lin1, lin2 = nn.Linear(3, 3).to(device), nn.Linear(3, 1).to(device)
    params = [*lin1.parameters(), *lin2.parameters()]
    opt = getattr(optim, name)(params, **KWARGS[name])
    x = mg.ones(2, 3).to(device)
    opt.zero_grad()
    lin2(x).sum().backward()
    opt.step()
    if global_step:
        opt.state["global_step"] = 1
    opt.zero_grad()
    lin2(lin1(x)).sum().backward()
    opt.step()
    return nn.Sequential(lin1, lin2), opt


def _fresh(name, model):
    return getattr(optim, name)([mg.zeros_like(p).requires_grad_(True) for p in model.parameters()], **KWARGS[name])


def _keys(opt):
    return [str(k) for k in opt.state_dict()["state"]]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(KWARGS))
def test_the_state_is_listed_in_torchs_order_and_loads_in_it(name, device):
    from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

    want = TORCH["optimizers"][name]
    model, opt = _run(name, device)
    assert _keys(opt) == want["state_dict"]
    fresh = _fresh(name, model)
    fresh.load_state_dict(opt.state_dict())
    assert _keys(fresh) == want["reloaded"]
    buf = io.BytesIO()
    mg.save(opt.state_dict(), buf)
    buf.seek(0)
    again = _fresh(name, model)
    again.load_state_dict(mg.load(buf))
    assert _keys(again) == want["reloaded"]


@pytest.mark.parametrize("name", sorted(KWARGS))
def test_a_snapshot_resume_keeps_the_order(tmp_path, name):
    model, opt = _run(name, global_step=False)
    want = [k for k in TORCH["optimizers"][name]["state_dict"] if k != "global_step"]
    assert _keys(opt) == want
    Snapshot.from_executor(mg.Executor(model, opt)).save(tmp_path / "s.mgsnap")
    model2 = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
    opt2 = getattr(optim, name)(model2.parameters(), **KWARGS[name])
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(mg.Executor(model2, opt2))
    assert _keys(opt2) == want


def test_a_snapshot_resume_keeps_an_entry_under_another_key_in_its_place(tmp_path):
    """``state["global_step"]``, set after the second layer's first step and before the first
    layer's: the state dict lists it between them (torch's order, above), and so does a resume from
    a snapshot.  The header keeps such entries apart (``other``) and the restore put them last."""
    for name in sorted(KWARGS):
        model, opt = _run(name)
        want = TORCH["optimizers"][name]["state_dict"]
        assert _keys(opt) == want
        Snapshot.from_executor(mg.Executor(model, opt)).save(tmp_path / f"{name}.mgsnap")
        model2 = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
        opt2 = getattr(optim, name)(model2.parameters(), **KWARGS[name])
        Snapshot.load(tmp_path / f"{name}.mgsnap").restore_into(mg.Executor(model2, opt2))
        assert _keys(opt2) == want
        assert opt2.state["global_step"] == 1


@pytest.mark.parametrize("damage", [[["param", "0.weight"]], [["param", "0.weight"]] * 5, [["who", "x"]] * 5, "x"])
def test_a_malformed_state_order_is_refused(damage):
    from minigrad_ckpt.snapshot import SnapshotError

    model, opt = _run("Adam")
    snap = Snapshot.from_executor(mg.Executor(model, opt))
    assert len(snap.state["optimizer"]["state_order"]) == 5
    snap.state["optimizer"]["state_order"] = damage
    model2 = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
    opt2 = optim.Adam(model2.parameters(), lr=0.1)
    with pytest.raises(SnapshotError, match="order"):
        snap.restore_into(mg.Executor(model2, opt2))
    assert not opt2.state
