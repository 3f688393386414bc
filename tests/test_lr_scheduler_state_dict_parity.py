"""Scheduler state dicts in PyTorch's layout load into mg's schedulers and the schedule goes on as
the uninterrupted one (torch 2.13's layouts, written here as literals: torch is not imported).

- ``CyclicLR`` with a custom ``scale_fn``: torch saves ``"_scale_fn_custom": None`` (a function)
  or the callable object's attributes.  Loading torch's ``None`` replaced mg's custom function, so
  the built-in mode's scale was used from then on -- silently another schedule; and mg did not save
  a callable object's attributes, which torch's round trip keeps.
- ``MultiStepLR``: torch's dict holds ``milestones`` as a ``Counter``; mg's next step raised
  ``AttributeError: 'Counter' object has no attribute 'count'``.
- ``ReduceLROnPlateau.in_cooldown``, PyTorch's public property, was missing.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import optim
from minigrad_ckpt.optim import lr_scheduler as lrs

# keys torch 2.13's LRScheduler.state_dict() holds that mg's does not need: loaded, they change nothing
TORCH_PRIVATE = {"_get_lr_called_within_step": False, "_is_initial": False}


def _optimizer():
    return optim.SGD([mg.zeros(2, requires_grad=True)], lr=0.1, momentum=0.9)


def _lrs(opt, sched, steps):
    out = []
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(opt.param_groups[0]["lr"])
    return out


class Scale:
    """A scale_fn with state, as torch's docs allow (a callable object)."""

    def __init__(self) -> None:
        self.k = 1.0

    def __call__(self, x: float) -> float:
        return 1.0 / (self.k * x)


def _resumed(make, steps_before, steps_after, to_torch_layout):
    opt = _optimizer()
    sched = make(opt)
    _lrs(opt, sched, steps_before)
    saved = to_torch_layout(sched.state_dict())
    opt2 = _optimizer()
    opt2.load_state_dict(opt.state_dict())
    sched2 = make(opt2)
    sched2.load_state_dict(saved)
    return _lrs(opt2, sched2, steps_after), sched2


def test_cyclic_lr_with_a_function_scale_fn_keeps_it_after_loading_torchs_dict():
    def make(opt):
        return lrs.CyclicLR(opt, 0.01, 0.1, step_size_up=3, scale_fn=lambda x: 1 / x)
    whole_opt = _optimizer()
    whole = _lrs(whole_opt, make(whole_opt), 14)
    # torch: CyclicLR(..., scale_fn=lambda x: 1 / x).state_dict()["_scale_fn_custom"] is None
    got, _ = _resumed(make, 7, 7, lambda sd: {**sd, **TORCH_PRIVATE, "_scale_fn_custom": None})
    np.testing.assert_array_equal(got, whole[7:])


def test_cyclic_lr_saves_and_restores_a_callable_scale_fns_attributes_as_torch():
    # torch: a CyclicLR with scale_fn=Scale() whose k became 2.0 saves "_scale_fn_custom": {"k": 2.0}
    opt = _optimizer()
    fn = Scale()
    sched = lrs.CyclicLR(opt, 0.01, 0.1, step_size_up=3, scale_fn=fn)
    fn.k = 2.0
    assert sched.state_dict()["_scale_fn_custom"] == {"k": 2.0}
    fresh = Scale()
    sched2 = lrs.CyclicLR(_optimizer(), 0.01, 0.1, step_size_up=3, scale_fn=fresh)
    sched2.load_state_dict({**sched.state_dict(), **TORCH_PRIVATE})
    assert fresh.k == 2.0 and sched2._scale_fn_custom is fresh


def test_multistep_lr_loads_torchs_counter_of_milestones():
    def make(opt):
        return lrs.MultiStepLR(opt, [2, 5, 5, 9], gamma=0.5)
    whole_opt = _optimizer()
    whole = _lrs(whole_opt, make(whole_opt), 12)
    # torch: MultiStepLR(opt, [2, 5, 5, 9]).state_dict()["milestones"] == Counter({5: 2, 2: 1, 9: 1})
    got, sched = _resumed(make, 3, 9, lambda sd: {**sd, **TORCH_PRIVATE, "milestones": Counter({5: 2, 2: 1, 9: 1})})
    np.testing.assert_array_equal(got, whole[3:])
    assert sched.milestones == Counter({5: 2, 2: 1, 9: 1}) and type(sched.milestones) is Counter


class _CountingScale:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, x: float) -> float:
        self.calls += 1
        return 0.9**x


@pytest.mark.msgpack
def test_a_snapshot_resumes_cyclic_lr_with_a_callable_scale_fn_bit_for_bit(tmp_path):
    from minigrad_ckpt.snapshot import Snapshot

    def build():
        opt = _optimizer()
        return opt, lrs.CyclicLR(opt, 0.01, 0.1, step_size_up=3, scale_fn=_CountingScale(), scale_mode="iterations")
    opt, sched = build()
    whole = _lrs(opt, sched, 12)
    opt, sched = build()
    _lrs(opt, sched, 5)
    path = Snapshot.from_executor(mg.Executor(None, opt, sched), 5).save(tmp_path / "s.mgsnap")
    opt2, sched2 = build()
    Snapshot.load(path).restore_into(mg.Executor(None, opt2, sched2))
    assert sched2._scale_fn_custom.calls == sched._scale_fn_custom.calls  # the object's state came back
    np.testing.assert_array_equal(_lrs(opt2, sched2, 7), whole[5:])


def test_a_cyclic_lr_state_saved_before_it_kept_scale_fn_custom_still_restores():
    # snapshots written before CyclicLR's state_dict() held "_scale_fn_custom" lack the field
    opt = _optimizer()
    sched = lrs.CyclicLR(opt, 0.01, 0.1, step_size_up=3)
    _lrs(opt, sched, 4)
    saved = mg.Executor(None, opt, sched).scheduler_state()
    del saved["state"]["_scale_fn_custom"]
    opt2 = _optimizer()
    sched2 = lrs.CyclicLR(opt2, 0.01, 0.1, step_size_up=3)
    sched2.load_state_dict(mg.Executor(None, opt2, sched2).scheduler_state_from(saved))
    assert sched2.last_epoch == 4


def test_reduce_lr_on_plateau_has_pytorchs_in_cooldown_property():
    # torch: SGD lr=1.0; ReduceLROnPlateau(o, patience=0, cooldown=2); step(m) for m in [1, 2, 2, 2, 2, 2]:
    # (in_cooldown, lr) = (F, 1.0) (T, 0.1) (T, 0.1) (F, 0.1) (T, 0.010000000000000002) (T, 0.010000000000000002)
    opt = optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
    sched = lrs.ReduceLROnPlateau(opt, patience=0, cooldown=2)
    got = []
    for metric in [1.0, 2.0, 2.0, 2.0, 2.0, 2.0]:
        sched.step(metric)
        got.append((sched.in_cooldown, opt.param_groups[0]["lr"]))
    assert got == [(False, 1.0), (True, 0.1), (True, 0.1), (False, 0.1), (True, 0.010000000000000002),
                   (True, 0.010000000000000002)]


def test_reduce_lr_on_plateau_has_pytorchs_mode_worse_and_reset():
    # torch 2.13: ReduceLROnPlateau(o).mode_worse == inf, mode="max": -inf; state_dict() holds "mode_worse";
    # after step(1.0) best == 1.0, and _reset() brings best back to mode_worse with the counters at 0
    for mode, worse in (("min", float("inf")), ("max", float("-inf"))):
        opt = optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
        sched = lrs.ReduceLROnPlateau(opt, mode=mode, patience=0)
        assert sched.mode_worse == worse and sched.best == worse and sched.state_dict()["mode_worse"] == worse
        sched.step(1.0)
        sched.step(1.0 if mode == "min" else 0.5)
        assert sched.best == 1.0 and sched.cooldown_counter == 0
        sched._reset()
        assert (sched.best, sched.num_bad_epochs, sched.cooldown_counter) == (worse, 0, 0)


@pytest.mark.msgpack
@pytest.mark.parametrize("mode", ["min", "max"])
def test_a_snapshot_resumes_reduce_lr_on_plateau_with_its_mode_worse(tmp_path, mode):
    # mode_worse (+-inf) is in the state_dict now: through a msgpack snapshot it comes back, the resumed
    # scheduler reduces at the same epochs as the run that never stopped, and _reset() still reaches it
    from minigrad_ckpt.snapshot import Snapshot

    metrics = [1.0, 0.9, 0.95, 0.97, 0.99, 0.5, 0.6, 0.7, 0.8, 0.9]
    metrics = metrics if mode == "min" else [-m for m in metrics]

    def build():
        opt = optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
        return opt, lrs.ReduceLROnPlateau(opt, mode=mode, patience=1)

    def run(opt, sched, ms):
        out = []
        for m in ms:
            sched.step(m)
            out.append(opt.param_groups[0]["lr"])
        return out

    opt, sched = build()
    whole = run(opt, sched, metrics)
    opt, sched = build()
    run(opt, sched, metrics[:4])
    path = Snapshot.from_executor(mg.Executor(None, opt, sched), 4).save(tmp_path / "s.mgsnap")
    opt2, sched2 = build()
    Snapshot.load(path).restore_into(mg.Executor(None, opt2, sched2))
    assert sched2.mode_worse == sched.mode_worse == (float("inf") if mode == "min" else float("-inf"))
    assert run(opt2, sched2, metrics[4:]) == whole[4:]
    sched2._reset()
    assert sched2.best == sched2.mode_worse


@pytest.mark.parametrize("epochs", [None, [0.5, 1.25, 2.0, 7.5]])
def test_cosine_warm_restarts_keeps_the_step_count_of_its_construction_as_torch(epochs):
    # torch 2.13: CosineAnnealingWarmRestarts.step neither counts _step_count nor warns, so after any steps
    # (step() or fractional step(epoch)) its state_dict()["_step_count"] is 0, as after construction; mg counted
    opt = _optimizer()
    sched = lrs.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
    for e in epochs or [None] * 4:
        opt.step()
        sched.step(e)
    assert sched.state_dict()["_step_count"] == 0
