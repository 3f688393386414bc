"""``scatter_reduce``/``index_reduce`` with ``"mean"`` divide integers exactly, as PyTorch's floor division.

The integer mean was ``floor(sum / count)`` with a true division, whose quotient of int32 (or int64)
is a float32 (float64) that rounds: ``mg.tensor([0], dtype=mg.int32).scatter_reduce(0, mg.tensor([0, 0]),
mg.tensor([2**29 + 1] * 2, dtype=mg.int32), "mean", include_self=False)`` gave ``[536870912]``
(torch 2.13: ``[536870913]``), and a wrapped int64 sum was off by billions.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

INTEGERS = [mg.int8, mg.int16, mg.int32, mg.int64, mg.uint8]
# (include_self, dtype) -> torch 2.13's scatter_reduce(1, [[0, 0, 2, 2, 3, 4]], src, "mean") of the rows below
TORCH = {
    (True, mg.int8): [41, 1, -43, -2, -3], (False, mg.int8): [-1, 1, 0, -3, 126],
    (True, mg.int16): [10921, 1, -10923, -2, -3], (False, mg.int16): [-1, 1, 0, -3, 32766],
    (True, mg.int32): [715827881, 1, -715827883, -2, -3], (False, mg.int32): [-1, 1, 0, -3, 2147483646],
    (True, mg.int64): [3074457345618258601, 1, -3074457345618258603, -2, -3],
    (False, mg.int64): [-1, 1, 0, -3, 9223372036854775806],
    (True, mg.uint8): [84, 1, 0, 1, 125], (False, mg.uint8): [127, 1, 0, 3, 254],
}


def _rows(dtype):
    info = np.iinfo(dtype)
    hi, lo = int(info.max), int(info.min)
    x = [hi, 1, lo, 0, hi - 3]
    src = [hi, hi, lo, lo, -3 if lo else 3, hi - 1]   # sums that wrap, as PyTorch's do before dividing
    return x, src


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", INTEGERS)
def test_the_integer_mean_is_the_floor_of_the_wrapped_sum_over_the_count(dtype, include_self, device):
    x, src = _rows(dtype)
    x, src = mg.tensor([x], dtype=dtype, device=device), mg.tensor([src], dtype=dtype, device=device)
    index = mg.tensor([[0, 0, 2, 2, 3, 4]], device=device)
    out = x.scatter_reduce(1, index, src, "mean", include_self=include_self)
    assert out.dtype == dtype and out.numpy().tolist() == [TORCH[include_self, dtype]]
    out = x.index_reduce(1, index[0], src, "mean", include_self=include_self)
    assert out.dtype == dtype and out.numpy().tolist() == [TORCH[include_self, dtype]]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_large_mean_is_not_rounded_through_a_float(device):
    for dtype, big in ((mg.int32, 2**29 + 1), (mg.int64, 2**60 + 1)):
        out = mg.zeros(1, dtype=dtype, device=device).scatter_reduce(
            0, mg.tensor([0, 0], device=device), mg.tensor([big, big], dtype=dtype, device=device), "mean",
            include_self=False)
        assert out.numpy().tolist() == [big]
    out = mg.tensor([-7], dtype=mg.int32, device=device).scatter_reduce(
        0, mg.tensor([0], device=device), mg.tensor([2], dtype=mg.int32, device=device), "mean")
    assert out.numpy().tolist() == [-3]   # floor(-5 / 2), as torch 2.13
