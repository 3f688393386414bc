"""``mg.linspace`` gives PyTorch's float32 and float64 values to the bit: each value one fused
multiply-add from the nearer end (``start + step * i`` in the first half, ``end - step * (n - 1 - i)``
in the second), which NumPy's ``start + i * step`` missed in the last bit of about half of them
(``mg.linspace(-3.3, 7.1, 7, dtype=mg.float64)[3]`` was ``0x1.e666666666664p+0``, torch's is
``0x1.e666666666667p+0``).  Those bits are pixel positions in ``F.affine_grid``'s identity grid, where
``grid_sample``'s bilinear gradient takes one side or the other.  Expected values:
``tests/data/make_torch_linspace_bits.py`` (torch 2.13, CPU).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.backend import fused_multiply_add
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

REF = np.load(Path(__file__).parent / "data" / "torch_linspace_bits.npz")
CASES = [tuple(c) for c in REF["cases"]]


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float32), ("cpu", mg.float64), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_linspace_values_are_pytorchs_to_the_bit(device, dtype):
    name = "float32" if dtype == mg.float32 else "float64"
    for i, (start, end, steps) in enumerate(CASES):
        got = mg.linspace(start, end, int(steps), dtype=dtype, device=device)
        assert got.dtype == dtype
        want = REF[f"{name}|{i}"]
        np.testing.assert_array_equal(got.numpy(), want, err_msg=f"linspace({start}, {end}, {int(steps)})")


def test_the_default_dtype_and_torchs_keywords_take_the_same_values():
    i = CASES.index((-3.3, 7.1, 29.0))
    np.testing.assert_array_equal(mg.linspace(-3.3, 7.1, steps=29).numpy(), REF[f"float32|{i}"])
    np.testing.assert_array_equal(mg.linspace(start=-3.3, end=7.1, steps=29).numpy(), REF[f"float32|{i}"])
    old = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    try:
        np.testing.assert_array_equal(mg.linspace(-3.3, 7.1, 29).numpy(), REF[f"float64|{i}"])
    finally:
        mg.set_default_dtype(old)


def test_fused_multiply_add_rounds_once():
    # 0.1 * 3 - 0.3 rounded twice is 5.55e-17; the exact value of the binary 0.1 * 3 - 0.3 is 2.78e-17
    assert fused_multiply_add(0.1, 3.0, -0.3, np.float64) == float(Fraction(0.1) * 3 - Fraction(0.3))
    a, b, c = np.float32(0.1), np.float32(3.0), np.float32(-0.3)
    exact = float(np.float64(a) * np.float64(b) + np.float64(c))  # exact: 24-bit terms in 53 bits
    assert fused_multiply_add(a, b, c, np.float32) == np.float32(exact)
    assert np.isnan(fused_multiply_add(np.inf, 0.0, 1.0, np.float64))
