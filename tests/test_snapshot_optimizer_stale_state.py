"""A snapshot leaves out the optimizer state of a tensor no parameter group holds any more, as
``Optimizer.state_dict()`` does -- a layer taken out of the groups (frozen), a parameter replaced
by a new one -- so the snapshot restores and the run goes on as the one that never stopped.

It wrote that state under the tensor's model name, and the restore refused the file ("scalar
state for unknown parameter '0.weight'"): a snapshot the program that wrote it could not resume
from.  A replaced parameter (in no group and not in the model) made the capture itself fail with
a bare ``KeyError`` of an object id.  (torch 2.13's ``state_dict()`` raises ``KeyError`` for such
state; the engine's has always left it out, and no step reads it.)
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotManager
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)

pytestmark = pytest.mark.msgpack


def _build(seed, device, dtype, opt_name):
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to(device=device, dtype=dtype)
    kw = {"lr": 0.05, "momentum": 0.9} if opt_name == "SGD" else {"lr": 0.05}
    opt = getattr(optim, opt_name)(model.parameters(), **kw)
    return model, opt


def _freeze_first_layer(model, opt):
    """Take the first layer out of the groups, as a fine-tuning script does; its state stays behind."""
    opt.param_groups[0]["params"] = list(model[2].parameters())


def _train(model, opt, ex, n, log):
    for _ in range(n):
        x = mg.randn(5, 3, dtype=model[0].weight.dtype).to(model[0].weight.device)
        opt.zero_grad()
        loss = ((model(x) - 0.5) ** 2).mean()
        loss.backward()
        opt.step()
        ex.step()
        log.append(loss.detach().cpu().numpy().tobytes())


def _resumed(tmp_path, device, dtype, opt_name, blocking):
    model, opt = _build(0, device, dtype, opt_name)
    ex = mg.Executor(model, opt)
    log = []
    _train(model, opt, ex, 2, log)
    _freeze_first_layer(model, opt)
    _train(model, opt, ex, 1, log)
    saved = SnapshotManager(tmp_path).save_snapshot(ex, blocking=blocking)
    path = saved if blocking else saved.result()
    _train(model, opt, ex, 2, log)
    model2, opt2 = _build(7, device, dtype, opt_name)
    _freeze_first_layer(model2, opt2)
    ex2 = mg.Executor(model2, opt2)
    Snapshot.load(path).restore_into(ex2)
    log2 = log[:3]
    _train(model2, opt2, ex2, 2, log2)
    return (log, opt.state_dict()), (log2, opt2.state_dict())


@pytest.mark.parametrize("opt_name", ["Adam", "SGD"])
@pytest.mark.parametrize("device,dtype,blocking", [("cpu", mg.float64, True), ("cpu", mg.float32, False),
                                                   ("strict", mg.float64, True)])
def test_a_layer_taken_out_of_the_groups_resumes_bit_for_bit(tmp_path, device, dtype, blocking, opt_name):
    (want, want_state), (got, got_state) = _resumed(tmp_path, device, dtype, opt_name, blocking)
    assert got == want
    assert list(got_state["state"]) == list(want_state["state"])
    for i, st in want_state["state"].items():
        for k, v in st.items():
            assert got_state["state"][i][k].numpy().tobytes() == v.numpy().tobytes()


def test_a_replaced_parameter_leaves_its_state_behind(tmp_path):
    model, opt = _build(0, "cpu", mg.float64, "Adam")
    ex = mg.Executor(model, opt)
    _train(model, opt, ex, 2, [])
    model[2].weight = nn.Parameter(model[2].weight.detach().clone())  # the old one keeps its state
    opt.param_groups[0]["params"][2] = model[2].weight
    assert len(opt.state) == 4
    snap = Snapshot.from_executor(ex)
    assert sorted(snap.state["optimizer"]["scalars"]) == ["0.bias", "0.weight", "2.bias"]
    model2, opt2 = _build(7, "cpu", mg.float64, "Adam")
    snap.restore_into(mg.Executor(model2, opt2))
    assert sorted(opt2.state_dict()["state"]) == sorted(opt.state_dict()["state"]) == [0, 1, 3]
