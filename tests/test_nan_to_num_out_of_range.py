"""``nan_to_num`` with a replacement beyond the tensor's dtype writes +-inf, as PyTorch's.

``mg.nan_to_num(half_tensor, posinf=1e6)`` raised ``ValueOverflow`` (``where``'s check of a number
its dtype cannot hold); torch 2.13 rounds the replacement to the dtype: inf.  Expected values are
torch 2.13's, written in: ``torch.nan_to_num(torch.tensor([nan, inf, -inf, 1.0], dtype=...), ...)``.
"""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

NAN, INF = math.nan, math.inf
X = [NAN, INF, -INF, 1.0]


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_out_of_range_replacements_are_infinite(device):
    half = mg.tensor(X, dtype=mg.float16, device=device)
    # torch.nan_to_num(half, nan=7e4, posinf=1e6, neginf=-1e9)
    assert mg.nan_to_num(half, nan=7e4, posinf=1e6, neginf=-1e9).tolist() == [INF, INF, -INF, 1.0]
    # 65519 still rounds to 65504, 65520 to inf (torch: [65504.0], [inf])
    assert mg.nan_to_num(half[:1], nan=65519.0).tolist() == [65504.0]
    assert mg.nan_to_num(half[:1], nan=65520.0).tolist() == [INF]
    single = mg.tensor(X, dtype=mg.float32, device=device, requires_grad=True)
    out = mg.nan_to_num(single, nan=1e40, neginf=-1e300)
    assert out.dtype == mg.float32
    assert out.tolist() == [INF, 3.4028234663852886e38, -INF, 1.0]
    out.backward(mg.ones_like(out))  # (out.sum() is inf - inf)
    assert single.grad.tolist() == [0.0, 0.0, 0.0, 1.0]


def test_replacements_in_range_are_kept():
    x = mg.tensor(X, dtype=mg.float16)
    assert mg.nan_to_num(x, nan=2.5, posinf=100.0, neginf=-7.0).tolist() == [2.5, 100.0, -7.0, 1.0]
    assert mg.nan_to_num(x).tolist() == [0.0, 65504.0, -65504.0, 1.0]
