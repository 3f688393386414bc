"""Adagrad starts each parameter's ``sum`` from the optimizer's ``initial_accumulator_value``, as
PyTorch's does -- at construction and for a group added later alike -- and not from a value the
parameter's group gives (kept in the group, never read there).  Before, mg read the group's: a
group with ``initial_accumulator_value=5.0`` started at 5.0 where torch 2.13 starts at the
optimizer's 0.5, and every later step of that group differed.

torch's numbers: ``tests/data/torch_adagrad_group_accumulator.json``
(``tests/data/make_torch_adagrad_group_accumulator.py``, which defines the run); torch is not imported.
"""

from __future__ import annotations

import numpy as np
import pytest
from optim_cases import torch_numbers
from seam_fixtures import programs

import minigrad_ckpt as mg

generator = programs("make_torch_adagrad_group_accumulator")
TORCH = torch_numbers("torch_adagrad_group_accumulator")


@pytest.mark.parametrize("case", ["real", "complex"])
def test_each_group_starts_from_the_optimizers_initial_accumulator_value(case):
    got = generator.run(mg, mg.optim.Adagrad, complex_b=case == "complex")
    for name, want in TORCH[case].items():
        np.testing.assert_allclose(got[name]["sum"], want["sum"], rtol=1e-15, atol=0)
        np.testing.assert_allclose(got[name]["param"], want["param"], rtol=1e-14, atol=0)


def test_the_groups_own_value_stays_in_the_group():
    p, q = mg.zeros(2, requires_grad=True), mg.zeros(1, requires_grad=True)
    opt = mg.optim.Adagrad([{"params": [p]}, {"params": [q], "initial_accumulator_value": 5.0}],
                           initial_accumulator_value=0.5)
    assert opt.param_groups[1]["initial_accumulator_value"] == 5.0
    assert opt.state[q]["sum"].tolist() == [0.5]
