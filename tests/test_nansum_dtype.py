"""``x.nansum(dim, dtype=)`` answers in ``dtype`` and counts a NaN as zero before the cast.

torch 2.13: ``tensor([[1.5, 2.5], [3.0, nan]]).nansum(1, dtype=torch.int32)`` is int32 ``[3, 3]``.
The engine cast first (NaN became -2147483648 in the integer) and summed in int64 (NumPy's
promotion of an int32 sum), so it answered int64 ``[3, -2147483645]``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

NAN = float("nan")
X = [[1.5, 2.5], [3.0, NAN]]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("spelling", [
    lambda x: x.nansum(1, dtype=mg.int32),
    lambda x: mg.nansum(x, dim=1, dtype=mg.int32),
    lambda x: x.nansum(dim=-1, keepdim=False, dtype=mg.int32),
])
def test_an_integer_dtype_is_kept_and_nan_counts_as_zero(spelling, device):
    out = spelling(mg.tensor(X, device=device))
    assert out.dtype == mg.int32 and out.tolist() == [3, 3]          # torch 2.13


def test_float_dtypes_and_the_gradient():
    x = mg.tensor(X, requires_grad=True)
    total = x.nansum(dtype=mg.float64)
    assert total.dtype == mg.float64 and total.item() == 7.0
    total.backward()
    np.testing.assert_equal(x.grad.numpy(), [[1.0, 1.0], [1.0, 0.0]])  # torch 2.13: 0 at the NaN
    assert x.grad.dtype == mg.float32
    assert mg.nansum(mg.tensor(X)).dtype == mg.float32
    assert mg.nansum(mg.tensor([1, 2], dtype="int32")).dtype == mg.int64  # torch: an int sum is int64
