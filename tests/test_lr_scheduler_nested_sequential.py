"""A ``SequentialLR`` of schedulers of schedulers -- another ``SequentialLR``, a ``ChainedScheduler`` --
takes back its schedulers' construction steps as PyTorch's ``recursive_undo`` does: it recurses into a
scheduler that holds schedulers and leaves that one's own epoch as it is.  Before, mg also stepped a
nested ``SequentialLR``'s own epoch back, so the nested schedule ran one epoch behind torch 2.13's
(``SequentialLR(o, [SequentialLR(o, [ConstantLR(o, 0.5, 2), ExponentialLR(o, 0.8)], [2]), CosineAnnealingLR(o, 4)],
[4])``: lrs 0.05, 0.05, 0.1, 0.08 where torch's are 0.05, 0.1, 0.08, 0.064), and a ``ChainedScheduler`` in a
``SequentialLR`` raised ``AttributeError: 'ChainedScheduler' object has no attribute 'last_epoch'``.

torch's lrs: ``tests/data/torch_nested_sequential_lr.json`` (``tests/data/make_torch_nested_sequential_lr.py``,
which defines the schedules); torch is not imported.
"""

from __future__ import annotations

import numpy as np
import pytest
from optim_cases import assert_resumes_bit_for_bit, torch_numbers
from seam_fixtures import programs

import minigrad_ckpt as mg
from minigrad_ckpt import nn, optim
from minigrad_ckpt.optim import lr_scheduler

generator = programs("make_torch_nested_sequential_lr")
TORCH = torch_numbers("torch_nested_sequential_lr")["lrs"]
# a nested schedule's construction steps its first scheduler after the optimizer's last step: torch warns too
pytestmark = pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step()`:UserWarning")


def test_nested_schedules_are_torchs():
    got = generator.run(lr_scheduler, optim.SGD, mg.tensor)
    assert sorted(got) == sorted(TORCH)
    for name, want in TORCH.items():
        np.testing.assert_allclose(got[name], want, rtol=1e-15, atol=0, err_msg=name)


def test_a_sequence_taking_over_as_a_later_schedule_is_refused_as_torchs():
    # torch 2.13: the milestone's _update_lr(0) calls the SequentialLR's get_lr, which it does not define
    opt = optim.SGD([mg.zeros(1, requires_grad=True)], lr=0.1)
    nested = generator._inner(lr_scheduler, opt)
    sched = lr_scheduler.SequentialLR(opt, [lr_scheduler.ConstantLR(opt, 0.5, 1), nested], [1])
    opt.step()
    with pytest.raises(NotImplementedError):
        sched.step()


@pytest.mark.parametrize("name", sorted(generator.SCHEDULES))
def test_a_nested_schedule_resumes_bit_for_bit_from_a_snapshot(tmp_path, name):
    def build():
        mg.manual_seed(0)
        model = nn.Linear(2, 1)
        opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = generator.SCHEDULES[name](lr_scheduler, opt)
        return model, opt, sched, mg.Executor(model, opt, sched)

    def steps(model, opt, sched, ex, n):
        out = []
        for _ in range(n):
            opt.step()
            sched.step()
            ex.step()
            out.append([g["lr"] for g in opt.param_groups])
        return out

    assert_resumes_bit_for_bit(tmp_path, build, steps, before=3, after=6)
