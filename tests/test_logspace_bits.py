"""``mg.logspace`` gives PyTorch's values to the bit: the ends in the dtype (an integer dtype
truncates them), the step ``(end - start) / (steps - 1)`` in double, the exponent from the nearer
end in double and ``pow(base, exponent)`` rounded to the dtype (float16 by way of float), as
PyTorch's CPU loop.  NumPy's ``base ** linspace(start, end)`` in float64 put a third of the float32
values a bit off (``mg.logspace(0, 1, 7)[4]``), and an integer dtype's values far off
(``mg.logspace(-2.5, 3.3, 13, dtype=mg.int64)`` ends at 1995, torch's at 1000: its ends are -2 and 3).
An integer dtype refuses an end outside its range, as PyTorch's.  Expected values:
``tests/data/make_torch_logspace_bits.py`` (torch 2.13, CPU).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy_simd import AVX512  # tests/numpy_simd.py

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).parent / "data"
REF = np.load(DATA / "torch_logspace_bits.npz")
CASES = [tuple(c) for c in REF["cases"]]
DTYPES = sorted({key.split("|")[0] for key in REF.files if "|" in key})


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_logspace_values_are_pytorchs_to_the_bit(dtype, device):
    for i, (start, end, steps, base) in enumerate(CASES):
        call = f"logspace({start}, {end}, {int(steps)}, base={base}, dtype={dtype})"
        if f"{dtype}|{i}|error" in REF.files:
            with pytest.raises(RuntimeError, match=str(REF[f"{dtype}|{i}|error"])):
                mg.logspace(start, end, int(steps), base=base, dtype=dtype, device=device)
            continue
        got = mg.logspace(start, end, int(steps), base=base, dtype=dtype, device=device)
        assert str(got.dtype) == dtype, call
        want = REF[f"{dtype}|{i}"]
        if AVX512 and dtype == "float64":  # NumPy's vectorized float64 pow: up to an ulp from glibc's (torch's);
            # logspace(0, 38, 39)[23] is 1e+23 there, torch's 1.0000000000000001e+23
            np.testing.assert_array_max_ulp(got.cpu().numpy(), want, maxulp=1)
            continue
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=call)


def test_the_default_dtype_takes_the_same_values():
    i = CASES.index((-2.5, 3.3, 13.0, 10.0))
    np.testing.assert_array_equal(mg.logspace(-2.5, 3.3, 13).numpy(), REF[f"float32|{i}"])
    np.testing.assert_array_equal(mg.logspace(mg.tensor(-2.5), mg.tensor(3.3), 13).numpy(), REF[f"float32|{i}"])


def test_negative_steps_are_refused_as_pytorchs():
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        mg.logspace(0, 1, -1)
