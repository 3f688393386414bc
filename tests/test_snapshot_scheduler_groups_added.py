"""A run that adds a parameter group after its LR scheduler was made (``add_param_group``: unfreezing
a layer mid-training) resumes from a snapshot bit for bit.  The scheduler's lists of a number per group
(``_last_lr``, ``min_lrs``) then hold more entries than a freshly made scheduler's: the restore takes
them as saved, as PyTorch's ``load_state_dict`` does, where it refused them as "not of the kind"."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.optim import lr_scheduler as sched
from minigrad_ckpt.snapshot import Snapshot

# (the schedulers whose lr formula reads a base lr per group refuse a group added after them, in the
# unbroken run as well: those are built after the group is added, and their lists then agree)
SCHEDULERS = {
    "StepLR": lambda o: sched.StepLR(o, 2, 0.5),
    "MultiStepLR": lambda o: sched.MultiStepLR(o, [1, 3], 0.5),
    "ExponentialLR": lambda o: sched.ExponentialLR(o, 0.9),
    "ReduceLROnPlateau": lambda o: sched.ReduceLROnPlateau(o, patience=0, factor=0.5),
    "SequentialLR": lambda o: sched.SequentialLR(o, [sched.ConstantLR(o, 0.5, 2), sched.ExponentialLR(o, 0.9)], [2]),
    "ChainedScheduler": lambda o: sched.ChainedScheduler([sched.StepLR(o, 2, 0.5), sched.ExponentialLR(o, 0.9)]),
}


def _run(name, dtype):
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1)).to(dtype)
    opt = optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.05}],
                    lr=0.1, momentum=0.9)
    return model, opt, SCHEDULERS[name](opt)


def _unfreeze(model, opt):
    opt.add_param_group({"params": model[4].parameters(), "lr": 0.02})


def _steps(model, opt, scheduler, n, dtype):
    x, y = mg.randn(8, 4, dtype=dtype), mg.randn(8, 1, dtype=dtype)
    for _ in range(n):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        scheduler.step(10.0) if isinstance(scheduler, sched.ReduceLROnPlateau) else scheduler.step()


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_a_group_added_after_the_scheduler_resumes_bit_for_bit(tmp_path, name, dtype):
    model, opt, scheduler = _run(name, dtype)
    _steps(model, opt, scheduler, 2, dtype)
    _unfreeze(model, opt)
    _steps(model, opt, scheduler, 2, dtype)
    Snapshot.from_executor(mg.Executor(model, opt, scheduler)).save(tmp_path / "s.mgsnap")
    _steps(model, opt, scheduler, 3, dtype)

    model2, opt2, scheduler2 = _run(name, dtype)
    _unfreeze(model2, opt2)  # the program's own code adds the group again, after making the scheduler
    Snapshot.load(tmp_path / "s.mgsnap").restore_into(mg.Executor(model2, opt2, scheduler2))
    _steps(model2, opt2, scheduler2, 3, dtype)
    for a, b in zip(model.parameters(), model2.parameters()):
        assert a.numpy().tobytes() == b.numpy().tobytes()
    assert scheduler2.state_dict().keys() == scheduler.state_dict().keys()
    assert [g["lr"] for g in opt2.param_groups] == [g["lr"] for g in opt.param_groups]
    assert scheduler2.get_last_lr() == scheduler.get_last_lr()


def test_a_per_group_list_of_another_kind_is_still_refused(tmp_path):
    model, opt, scheduler = _run("StepLR", mg.float32)
    _steps(model, opt, scheduler, 1, mg.float32)
    snap = Snapshot.from_executor(mg.Executor(model, opt, scheduler))
    snap.state["scheduler"]["state"]["_last_lr"] = ["a", "b"]
    model2, opt2, scheduler2 = _run("StepLR", mg.float32)
    with pytest.raises(Exception, match="_last_lr"):
        snap.restore_into(mg.Executor(model2, opt2, scheduler2))
