"""``mg.linspace`` in an integer dtype gives PyTorch's values: the ends are read in the dtype first
(truncated toward zero), the step between them is taken in float64, and each value is one fused
multiply-add from the nearer end, truncated.  NumPy's ``linspace`` of the ends as given, cast
afterwards, was one off wherever an end had a fraction (found by running PyTorch's OpInfo samples
for ``linspace`` against the engine).  The literals below are torch 2.13's (CPU); the property test
checks the rule against exact rational arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("start, end, steps, dtype, head, want", [
    (4.3, 50, 50, mg.int64, 0, [4, 4, 5, 6, 7, 8]),
    (4.3, -3, 50, mg.int64, 0, [4, 3, 3, 3, 3, 3]),
    (21.0, -64.0, 146, mg.int16, 55, [-11, -11, -12, -12, -13, -14]),  # [58]: 21 - 58 * 85/145 rounds above -13
    (-4.9, 3.9, 9, mg.int8, 0, [-4, -3, -2, -1, 0, 0, 1, 2, 3]),
    (2.9, 7.2, 1, mg.int32, 0, [2]),
])
def test_integer_linspace_is_pytorchs(start, end, steps, dtype, head, want):
    got = mg.linspace(start, end, steps, dtype=dtype)
    assert got.dtype == dtype
    assert got.tolist()[head:head + len(want)] == want


def test_the_tensor_overload_reads_the_ends_the_same_way():
    got = mg.linspace(mg.tensor(4.3), mg.tensor(50.0), 50, dtype=mg.int64)
    assert got.tolist()[:6] == [4, 4, 5, 6, 7, 8]


def _exact(start: float, end: float, steps: int) -> list[int]:
    """The rule in exact arithmetic: trunc(round_to_float64(base + slope * k)), slope the float64 step."""
    first, last = math.trunc(start), math.trunc(end)
    step = (float(last) - float(first)) / (steps - 1)
    out = []
    for i in range(steps):
        base, slope, k = (first, step, i) if i < steps // 2 else (last, -step, steps - 1 - i)
        out.append(math.trunc(float(Fraction(base) + Fraction(slope) * k)))
    return out


def test_every_value_is_one_rounding_of_the_exact_value_truncated():
    rng = np.random.default_rng(0)
    for _ in range(300):
        start, end = (float(v) for v in rng.uniform(-100, 100, 2))
        if rng.random() < 0.3:
            start, end = float(round(start)), float(round(end))
        steps = int(rng.integers(2, 160))
        assert mg.linspace(start, end, steps, dtype=mg.int64).tolist() == _exact(start, end, steps), (start, end, steps)


def test_bool_has_no_kernel_for_two_or_more_steps_as_pytorchs():
    with pytest.raises(NotImplementedError, match="linspace_cpu"):
        mg.linspace(0, 1, 3, dtype=mg.bool)
    assert mg.linspace(0, 1, 0, dtype=mg.bool).tolist() == []


def test_an_end_that_does_not_fit_the_dtype_is_refused():
    with pytest.raises(RuntimeError, match="without overflow"):
        mg.linspace(-1.5, 200, 3, dtype=mg.uint8)
