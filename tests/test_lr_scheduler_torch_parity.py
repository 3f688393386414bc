"""Scheduler behaviour around the schedule itself, as PyTorch 2.13's: the warning when
``scheduler.step()`` comes before ``optimizer.step()``, resuming with ``last_epoch``, and
``ReduceLROnPlateau`` being an ``LRScheduler``.  The warnings' words are PyTorch's (copied from
torch/optim/lr_scheduler.py) so that a filter written for PyTorch catches these."""

from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import optim
from minigrad_ckpt.optim import lr_scheduler as S

BEFORE = "Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"


def _sgd():
    p = mg.zeros(2, requires_grad=True)
    p.grad = mg.ones(2)
    return optim.SGD([p], lr=0.1, momentum=0.9), p


def _warnings(run) -> list[str]:
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        run()
    return [str(w.message) for w in rec]


@pytest.mark.parametrize("make", [
    lambda o: S.StepLR(o, 2),
    lambda o: S.OneCycleLR(o, 0.5, total_steps=10),
    lambda o: S.SequentialLR(o, [S.ConstantLR(o, 0.5, total_iters=2), S.ExponentialLR(o, 0.9)], [2]),
    lambda o: optim.swa_utils.SWALR(o, 0.05),
], ids=["StepLR", "OneCycleLR", "SequentialLR", "SWALR"])
def test_stepping_the_scheduler_first_warns_once_as_pytorch_does(make) -> None:
    opt, _ = _sgd()
    sched = make(opt)
    with pytest.warns(UserWarning, match=BEFORE):
        sched.step()
    assert _warnings(lambda: (opt.step(), sched.step())) == []  # only the first step is checked
    opt, _ = _sgd()
    sched = make(opt)
    assert _warnings(lambda: (opt.step(), sched.step(), opt.step(), sched.step())) == []


def test_what_counts_as_the_optimizer_stepping() -> None:
    # PyTorch starts watching optimizer.step when the first scheduler is built: a step before that
    # does not count (torch: the warning is given)
    opt, _ = _sgd()
    opt.step()
    sched = S.StepLR(opt, 2)
    with pytest.warns(UserWarning, match=BEFORE):
        sched.step()
    # an optimizer with its own step (LBFGS) is seen stepping too: no warning
    p = mg.ones(2, requires_grad=True)
    lbfgs = optim.LBFGS([p])
    sched = S.StepLR(lbfgs, 2)

    def closure():
        lbfgs.zero_grad()
        loss = (p ** 2).sum()
        loss.backward()
        return loss
    assert _warnings(lambda: (lbfgs.step(closure), sched.step())) == []
    # optimizer.step replaced on the instance after the scheduler was built: PyTorch's other warning
    opt, _ = _sgd()
    sched = S.StepLR(opt, 2)
    opt.step = lambda closure=None: None
    with pytest.warns(UserWarning, match="Seems like `optimizer.step\\(\\)` has been overridden"):
        sched.step()
    # ReduceLROnPlateau and CosineAnnealingWarmRestarts have their own step, which does not check
    opt, _ = _sgd()
    plateau, warm = S.ReduceLROnPlateau(opt), S.CosineAnnealingWarmRestarts(opt, 3)
    assert _warnings(lambda: (plateau.step(1.0), warm.step())) == []


def test_resuming_needs_the_initial_lr_the_optimizer_state_carries() -> None:
    # torch.optim.lr_scheduler.StepLR(SGD([p], lr=0.1), 2, last_epoch=3) raises KeyError; building it
    # silently took base_lrs from the current (maybe already decayed) lr
    opt, _ = _sgd()
    with pytest.raises(KeyError, match=r"param 'initial_lr' is not specified in param_groups\[0\]"):
        S.StepLR(opt, 2, last_epoch=3)
    # with initial_lr loaded, the resumed schedule continues from epoch 4 (torch: lr 0.1 -> 0.01 at epoch 4)
    opt, _ = _sgd()
    opt.param_groups[0]["initial_lr"] = 0.1
    sched = S.StepLR(opt, 2, last_epoch=3)
    assert sched.last_epoch == 4 and opt.param_groups[0]["lr"] == pytest.approx(0.010000000000000002, abs=0)


def test_reduce_on_plateau_is_an_lr_scheduler() -> None:
    opt, _ = _sgd()
    sched = S.ReduceLROnPlateau(opt)
    assert isinstance(sched, S.LRScheduler)
    sched.step(1.0)
    assert sched.last_epoch == 1 and sched.get_last_lr() == [0.1]


@pytest.mark.parametrize("make, expected", [
    (lambda o, le: S.ExponentialLR(o, 0.9, last_epoch=le),
     [0.020589113209464913, 0.01853020188851842, 0.01667718169966658, 0.015009463529699923]),
    (lambda o, le: S.CosineAnnealingLR(o, 10, eta_min=0.001, last_epoch=le),
     [0.05050000000000022, 0.06104151995445015, 0.06940731755688052, 0.07477849025002611]),
    (lambda o, le: S.LinearLR(o, 0.25, 0.9, total_iters=30, last_epoch=le),
     [0.05750000000000002, 0.05958798882681567, 0.06167597765363132, 0.06376396648044697]),
], ids=["ExponentialLR", "CosineAnnealingLR", "LinearLR"])
def test_a_scheduler_resumed_with_last_epoch_continues_where_it_stopped(make, expected) -> None:
    # torch: SGD([p], lr=0.1); 15 x (opt.step(); sched.step()); a new SGD loads opt.state_dict(); the
    # scheduler is built on it with last_epoch=sched.last_epoch; lrs then and after 3 more steps.
    # The construction step keeps the loaded lr (PyTorch's _is_initial); it decayed it once more here
    # (ExponentialLR: 0.01853 at once instead of 0.02059).
    opt, _ = _sgd()
    sched = make(opt, -1)
    for _ in range(15):
        opt.step()
        sched.step()
    opt2, _ = _sgd()
    opt2.load_state_dict(opt.state_dict())
    sched2 = make(opt2, sched.last_epoch)
    lrs = [opt2.param_groups[0]["lr"]]
    for _ in range(3):
        opt2.step()
        sched2.step()
        lrs.append(opt2.param_groups[0]["lr"])
    assert lrs == expected


def test_a_tensor_lr_is_scheduled_in_place_in_its_dtype() -> None:
    # torch: lr = torch.tensor(0.1); SGD([p], lr=lr, momentum=0.9); OneCycleLR(opt, 0.5, total_steps=10);
    # 5 x (opt.step(); sched.step()): the group's lr stays the tensor `lr`, filled in place with float32 values
    # (the group's lr became a new Python float, 0.40587283 where torch has 0.40587282)
    lr = mg.tensor(0.1)
    opt, p = _sgd()
    opt.param_groups[0]["lr"] = lr
    sched = S.OneCycleLR(opt, 0.5, total_steps=10)
    seen = []
    for _ in range(5):
        opt.step()
        sched.step()
        seen.append(lr.item())
    assert seen == [0.25999999046325684, 0.5, 0.4752423167228699, 0.40587282180786133, 0.30563101172447205]
    assert opt.param_groups[0]["lr"] is lr and sched.get_last_lr()[0] is not lr  # get_last_lr gives copies
    # torch: StepLR(SGD([p], lr=tensor(0.1)), 2) after 3 steps: lr 0.010000000707805157, initial_lr still 0.1
    # (a copy: writing the lr in place must not move the base lr)
    lr = mg.tensor(0.1)
    opt, p = _sgd()
    opt.param_groups[0]["lr"] = lr
    sched = S.StepLR(opt, 2)
    for _ in range(3):
        opt.step()
        sched.step()
    assert lr.item() == 0.010000000707805157 and opt.param_groups[0]["initial_lr"].item() == 0.10000000149011612


class _Warmup:
    """An lr function with state of its own, as warm-up helpers are written."""

    def __init__(self, base: float) -> None:
        self.base, self.calls = base, 0

    def __call__(self, epoch: int) -> float:
        self.calls += 1
        return self.base ** epoch * min(1.0, self.calls / 4)


def test_a_callable_objects_attributes_are_the_lambda_schedulers_state() -> None:
    # torch: LambdaLR(SGD([p], lr=0.1), [Warmup(0.9)]) stepped 3 times; state_dict()["lr_lambdas"] ==
    # [{"base": 0.9, "calls": 4}]; a new LambdaLR built with Warmup(0.5) loads it and steps 3 times:
    # lrs [0.06561, 0.05904900000000001, 0.05314410000000001], its Warmup {"base": 0.9, "calls": 7}.
    # (The object's attributes were not saved: the resumed schedule ran on Warmup(0.5), silently.)
    opt, _ = _sgd()
    sched = S.LambdaLR(opt, [_Warmup(0.9)])
    for _ in range(3):
        opt.step()
        sched.step()
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"base": 0.9, "calls": 4}]
    opt2, _ = _sgd()
    fresh = _Warmup(0.5)
    sched2 = S.LambdaLR(opt2, [fresh])
    sched2.load_state_dict(state)
    lrs = []
    for _ in range(3):
        opt2.step()
        sched2.step()
        lrs.append(opt2.param_groups[0]["lr"])
    assert lrs == [0.06561, 0.05904900000000001, 0.05314410000000001]
    assert fresh.__dict__ == {"base": 0.9, "calls": 7}
    # a plain function is code: None in the state (torch's MultiplicativeLR(opt, lambda e: 0.9) too)
    assert S.MultiplicativeLR(opt2, lambda e: 0.9).state_dict()["lr_lambdas"] == [None]
    sched2.load_state_dict({k: v for k, v in state.items() if k != "lr_lambdas"})  # an older state loads


def test_calling_get_lr_by_hand_warns_as_pytorch_does() -> None:
    # torch: StepLR(opt, 2).get_lr() warns "To get the last learning rate computed by the scheduler, please use
    # `get_last_lr()`." (it computes the next lr); a step's own call, and a user's subclass, do not warn
    opt, _ = _sgd()
    sched = S.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()

    class Halving(S.LRScheduler):
        def get_lr(self):
            return [g["lr"] / 2 for g in self.optimizer.param_groups]
    mine = Halving(opt)
    assert _warnings(lambda: (mine.get_lr(), opt.step(), sched.step(), mine.step())) == []
