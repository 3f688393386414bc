"""Rprop on NaN and infinite gradients is PyTorch's: ``torch.sign`` is 0 at NaN (NumPy's ``sign`` is NaN),
so where the product of this gradient and the last is NaN -- a NaN gradient, or an infinite one after a
0 (``inf * 0``) -- the step size is kept and the parameter does not move.  Before, mg's rule took NumPy's
sign: such a coordinate became NaN for good (torch 2.13: ``Rprop([p], lr=0.1)`` with ``p = [0.5, -1.0]``
and gradient ``[nan, inf]`` keeps 0.5 and moves -1.0 to -1.1; mg gave ``[nan, nan]``).

torch's numbers: ``tests/data/torch_rprop_nonfinite.json`` (``tests/data/make_torch_rprop_nonfinite.py``,
which defines the run); torch is not imported.
"""

from __future__ import annotations

import numpy as np
import pytest
from optim_cases import torch_numbers
from seam_fixtures import programs

import minigrad_ckpt as mg

generator = programs("make_torch_rprop_nonfinite")
TORCH = torch_numbers("torch_rprop_nonfinite")["runs"]
# NumPy's "invalid value encountered in multiply" at inf * 0, as mg's own ops give it (torch is silent)
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")


@pytest.mark.parametrize("key", sorted(TORCH))
def test_nonfinite_gradients_step_as_torchs(key):
    name, dtype = key.split("/")
    got = generator.run(mg, mg.optim.Rprop, dtype, generator.OPTIONS[name])
    np.testing.assert_array_equal(np.array(got), np.array(TORCH[key]))  # (NaN where torch has NaN)
