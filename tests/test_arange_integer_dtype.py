"""``arange`` into an integer dtype reads start, end and step in that dtype first, as torch 2.13's:
``arange(0, 10, 1.5, dtype=int64)`` is ``0..9`` (it was NumPy's ``[0, 1, 3, 4, 6, 7, 9]``, seven
values), and a step that truncates to 0 is torch's "step must be nonzero".  The values are torch's."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

TORCH = {
    (0, 10, 1.5): list(range(10)),
    (0.5, 10, 1.5): list(range(10)),
    (0.9, 3): [0, 1, 2],
    (-0.5, 3): [0, 1, 2],
    (0, -3.7, -1): [0, -1, -2],
    (0, 10.7, 2): [0, 2, 4, 6, 8],
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("args", list(TORCH), ids=str)
def test_integer_arange_of_float_arguments_as_pytorch(args, device):
    got = mg.arange(*args, dtype=mg.int64, device=device)
    assert got.dtype == mg.int64 and got.tolist() == TORCH[args]
    assert mg.arange(*args, dtype=mg.int32, device=device).tolist() == TORCH[args]


def test_a_step_that_truncates_to_zero_is_pytorchs_error():
    with pytest.raises(ValueError, match="step must be nonzero"):
        mg.arange(0, 10, 0.5, dtype=mg.int64)
    assert mg.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]  # a float dtype keeps the fraction
