"""Rprop on NaN and infinite gradients is PyTorch's: ``torch.sign`` is 0 at NaN (NumPy's ``sign`` is NaN),
so where the product of this gradient and the last is NaN -- a NaN gradient, or an infinite one after a
0 (``inf * 0``) -- the step size is kept and the parameter does not move.  Before, mg's rule took NumPy's
sign: such a coordinate became NaN for good (torch 2.13: ``Rprop([p], lr=0.1)`` with ``p = [0.5, -1.0]``
and gradient ``[nan, inf]`` keeps 0.5 and moves -1.0 to -1.1; mg gave ``[nan, nan]``).

torch's numbers: ``tests/data/torch_rprop_nonfinite.json`` (``tests/data/make_torch_rprop_nonfinite.py``,
which defines the run); torch is not imported.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from make_torch_rprop_nonfinite import OPTIONS, run  # noqa: E402

TORCH = json.loads((DATA / "torch_rprop_nonfinite.json").read_text())["runs"]
# NumPy's "invalid value encountered in multiply" at inf * 0, as mg's own ops give it (torch is silent)
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")


@pytest.mark.parametrize("key", sorted(TORCH))
def test_nonfinite_gradients_step_as_torchs(key):
    name, dtype = key.split("/")
    got = run(mg, mg.optim.Rprop, dtype, OPTIONS[name])
    np.testing.assert_array_equal(np.array(got), np.array(TORCH[key]))  # (NaN where torch has NaN)
