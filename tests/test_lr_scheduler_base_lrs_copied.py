"""A scheduler's ``base_lrs`` are copies of the groups' tensor ``initial_lr``, as PyTorch's.

With a tensor lr, ``initial_lr`` is a tensor, and ``base_lrs`` held that very tensor: a write into
the group's ``initial_lr`` in place (``fill_``, to rebase a schedule) moved the base of every
scheduler already built on the optimizer -- a ``LambdaLR`` of ``0.5 ** epoch`` from 0.1 stepped to
0.5, 0.25, 0.125 where PyTorch's gives 0.05, 0.025, 0.0125 (values from torch 2.13).  Found by
PyTorch's ``test_constant_initial_lr`` (``sch.base_lrs[0] is not group["initial_lr"]``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.optim import lr_scheduler as lrs

SCHEDULERS = {
    "LambdaLR": lambda o: lrs.LambdaLR(o, lambda e: 0.5**e),
    "StepLR": lambda o: lrs.StepLR(o, step_size=1, gamma=0.5),
    "ConstantLR": lambda o: lrs.ConstantLR(o, factor=0.5, total_iters=1),
    "PolynomialLR": lambda o: lrs.PolynomialLR(o, total_iters=4),
    "CosineAnnealingWarmRestarts": lambda o: lrs.CosineAnnealingWarmRestarts(o, T_0=4),
}


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_base_lrs_do_not_alias_a_tensor_initial_lr(name):
    opt = mg.optim.SGD([mg.nn.Parameter(mg.zeros(2))], lr=mg.tensor(0.1))
    sched = SCHEDULERS[name](opt)
    assert sched.base_lrs[0] is not opt.param_groups[0]["initial_lr"]
    assert float(sched.base_lrs[0]) == pytest.approx(0.1)


def test_a_rebased_initial_lr_leaves_a_built_schedule_alone():
    opt = mg.optim.SGD([mg.nn.Parameter(mg.zeros(2))], lr=mg.tensor(0.1))
    sched = lrs.LambdaLR(opt, lambda e: 0.5**e)
    opt.param_groups[0]["initial_lr"].fill_(1.0)
    got = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no gradients: the optimizer's step is a no-op
        for _ in range(3):
            opt.step()
            sched.step()
            got.append(float(opt.param_groups[0]["lr"]))
    np.testing.assert_allclose(got, [0.05, 0.025, 0.0125], rtol=1e-6)  # torch 2.13's values
    assert float(sched.base_lrs[0]) == pytest.approx(0.1)
