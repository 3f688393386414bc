"""``restore_into`` is all or nothing.  For each way a snapshot can fail to fit -- a bad
optimizer moment, a 0-d moment, malformed parameter groups or scalars, a bad RNG state, a tape
with an unknown leaf, op or dtype, a scheduler field of the wrong kind, a model tensor of the
wrong dtype -- it raises SnapshotError and model, optimizer, scheduler, RNG, tensors, tape and
iteration are exactly as before (compared field by field)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig, SnapshotError

pytest.importorskip("msgpack", reason="msgpack (a runtime dependency) is not installed")
pytestmark = pytest.mark.msgpack


def build():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.3), nn.Tanh(), nn.Linear(4, 2))
    opt = optim.Adam(model.parameters(), lr=0.01)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2)
    ex = mg.Executor(model, opt, sched)
    ex.add_tensor("user", np.arange(4.0))
    x = mg.randn(5, 3)

    def step():
        loss = (model(x) ** 2).sum()
        opt.zero_grad()
        loss.backward(retain_graph=True)
        opt.step()
        sched.step()
        ex.step()
        ex.record(loss)

    return ex, step


def fingerprint(ex: mg.Executor) -> dict:
    """Everything restore_into may change, as plain comparable data."""
    def plain(v):
        if isinstance(v, mg.Tensor):
            return ("tensor", str(v.dtype), v.shape, v.numpy().tobytes())
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v
    return {"model": plain(dict(ex.model.state_dict())), "optimizer": plain(ex.optimizer.state_dict()),
            "scheduler": plain(ex.scheduler.state_dict()), "rng": mg.get_rng_state(), "iteration": ex.iteration,
            "tensors": plain(dict(ex._tensors)), "tape": id(ex.tape), "param_ids": [id(p) for p in
                                                                                    ex.model.parameters()]}


def first_leaf_input(tape):
    for node in tape["nodes"]:
        for i, e in enumerate(node["inputs"]):
            if isinstance(e, list) and e[0] == "leaf":
                return node["inputs"], i
    raise AssertionError("no leaf input on the tape")


def _moment_name(snap):
    return next(n for n in snap._tensors if n.startswith("optimizer.state.") and n.endswith("exp_avg"))


VARIANTS = {
    "moment_wrong_shape": lambda s: s._tensors.__setitem__(_moment_name(s), np.zeros((7, 7), np.float32)),
    "moment_0d": lambda s: s._tensors.__setitem__(_moment_name(s), np.array(0.5, np.float32)),
    "moment_int": lambda s: s._tensors.__setitem__(_moment_name(s), s._tensors[_moment_name(s)].astype(np.int32)),
    "moment_unknown_param": lambda s: s._tensors.__setitem__("optimizer.state.nope.exp_avg", np.zeros(2)),
    "groups_not_a_list": lambda s: s.state["optimizer"].__setitem__("param_groups", {"a": 1}),
    "group_not_a_map": lambda s: s.state["optimizer"]["param_groups"].__setitem__(0, [1, 2]),
    "group_params_differ": lambda s: s.state["optimizer"]["param_groups"][0]["params"].reverse(),
    "group_lr_a_string": lambda s: s.state["optimizer"]["param_groups"][0].__setitem__("lr", "fast"),
    "group_betas_short": lambda s: s.state["optimizer"]["param_groups"][0].__setitem__("betas", [0.9]),
    "group_unknown_hyper": lambda s: s.state["optimizer"]["param_groups"][0].__setitem__("evil", 1),
    "two_groups": lambda s: s.state["optimizer"]["param_groups"].append(
        copy.deepcopy(s.state["optimizer"]["param_groups"][0])),
    "scalars_bad": lambda s: next(iter(s.state["optimizer"]["scalars"].values())).__setitem__("step", [1]),
    "optimizer_type": lambda s: s.state["optimizer"].__setitem__("type", "SGD"),
    "rng_seed_inf": lambda s: s.state["rng"].__setitem__("seed", float("inf")),
    "rng_negative": lambda s: s.state["rng"].__setitem__("counter", -1),
    "rng_string": lambda s: s.state.__setitem__("rng", "seed"),
    "tape_unknown_leaf": lambda s: (lambda ins, i: ins.__setitem__(i, ["leaf", "model.9.weight"]))(
        *first_leaf_input(s.state["tape"])),
    "tape_bad_dtype": lambda s: s.state["tape"]["nodes"][0].__setitem__("dtype", "object"),
    "tape_dtype_list": lambda s: s.state["tape"]["nodes"][-1].__setitem__("dtype", ["float32"]),
    "tape_unknown_op": lambda s: s.state["tape"]["nodes"][-1].__setitem__("op", "no_such_op"),
    "tape_bad_shape": lambda s: s.state["tape"]["nodes"][0].__setitem__("shape", [-1]),
    "tape_missing_output": lambda s: s.state["tape"].__setitem__("output", "__tape__/none"),
    "scheduler_field_kind": lambda s: s.state["scheduler"]["state"].__setitem__("last_epoch", "x"),
    "scheduler_injects_attribute": lambda s: s.state["scheduler"]["state"].__setitem__("optimizer", None),
    "scheduler_type": lambda s: s.state["scheduler"].__setitem__("type", "CosineAnnealingLR"),
    "model_wrong_dtype": lambda s: s._tensors.__setitem__("model.0.weight",
                                                          s._tensors["model.0.weight"].astype(np.float64)),
    "model_missing": lambda s: s._tensors.pop("model.3.bias"),
    "iteration_negative": lambda s: setattr(s.metadata, "iteration", -3),
}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    ex, step = build()
    step()
    path = tmp_path_factory.mktemp("atomic") / "s.mgsnap"
    Snapshot.from_executor_with_config(ex, None, SnapshotConfig(include_tape=True, fsync=False)).save(path)
    return path


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_snapshot_that_does_not_fit_changes_nothing(saved, variant):
    ex, step = build()
    step()
    step()  # the executor's state now differs from the snapshot's in every part
    snap = Snapshot.load(saved)
    VARIANTS[variant](snap)
    before = fingerprint(ex)
    with pytest.raises(SnapshotError):
        snap.restore_into(ex)
    assert fingerprint(ex) == before


def test_the_unmodified_snapshot_restores_every_part(saved):
    """The control: without a variant, restore_into changes every compared part."""
    ex, step = build()
    step()
    step()
    before = fingerprint(ex)
    Snapshot.load(saved).restore_into(ex)
    after = fingerprint(ex)
    for part in ("model", "optimizer", "scheduler", "rng", "iteration", "tape"):
        assert after[part] != before[part], part
    assert after["param_ids"] == before["param_ids"]  # loaded in place: the tape's leaves stay valid
    ex.tape.backward()  # the restored tape runs
