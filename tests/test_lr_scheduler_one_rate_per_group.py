"""A scheduler sets one learning rate per parameter group, or none: PyTorch's ``_update_lr`` zips the
groups with the new rates strictly, so a closed form of the base lrs (SequentialLR's restart of its
next scheduler at a milestone, the deprecated ``step(epoch)``) after ``add_param_group``, or a
user's ``get_lr`` giving too few or too many rates, is a ValueError.  mg zipped loosely: the added
group silently kept its lr (or an extra rate was dropped) while training went on."""

from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.optim import lr_scheduler as lrs


def _optimizer_and_spare():
    a, b = mg.nn.Parameter(mg.ones(2)), mg.nn.Parameter(mg.ones(2))
    return mg.optim.SGD([a], lr=0.1), b


def _add(opt, spare):
    opt.add_param_group({"params": [spare], "lr": 0.03})


def test_sequential_restart_at_a_milestone_after_a_group_was_added():
    opt, spare = _optimizer_and_spare()
    sched = lrs.SequentialLR(opt, [lrs.ExponentialLR(opt, 0.9), lrs.ExponentialLR(opt, 0.5)], milestones=[2])
    _add(opt, spare)
    opt.step()
    sched.step()  # the chainable ExponentialLR takes the new group along, as PyTorch's
    assert [g["lr"] for g in opt.param_groups] == pytest.approx([0.09, 0.027], rel=1e-15)
    opt.step()
    with pytest.raises(ValueError, match="parameter groups"):
        sched.step()  # the milestone: the next scheduler restarts from the base lrs, which lack the new group


@pytest.mark.parametrize("make", [lambda o: lrs.ExponentialLR(o, 0.9), lambda o: lrs.StepLR(o, 1, 0.5),
                                  lambda o: lrs.MultiStepLR(o, [1], 0.5), lambda o: lrs.LinearLR(o, 0.5, total_iters=3),
                                  lambda o: lrs.CosineAnnealingWarmRestarts(o, 2)],
                         ids=["ExponentialLR", "StepLR", "MultiStepLR", "LinearLR", "CosineAnnealingWarmRestarts"])
def test_the_deprecated_step_epoch_after_a_group_was_added(make):
    opt, spare = _optimizer_and_spare()
    sched = make(opt)
    _add(opt, spare)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="parameter groups"):
            sched.step(2)
    assert opt.param_groups[1]["lr"] == 0.03


@pytest.mark.parametrize("rates", [[0.5], [0.5, 0.2, 0.1]], ids=["too_few", "too_many"])
def test_a_user_get_lr_of_the_wrong_length(rates):
    class Mine(lrs.LRScheduler):
        def get_lr(self):
            return list(rates)

    opt, spare = _optimizer_and_spare()
    if len(rates) == 1:
        _add(opt, spare)
        with pytest.raises(ValueError, match="2 parameter groups"):
            Mine(opt)  # its first step, at construction
    else:
        with pytest.raises(ValueError, match="3 learning rates"):
            Mine(opt)
