"""``x.sum_to_size(...)`` of integers gives PyTorch's dtype: int64 where it sums (uint8 included), the
input's own where the size is already ``x``'s (then it is ``x``).

NumPy sums unsigned integers to uint64, so ``mg.ones(3, 4, dtype=mg.uint8).sum_to_size(1, 4)`` was uint64
where torch 2.13 gives int64 (the signed integers and bool already gave int64).
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

# dtype -> torch 2.13's dtypes of sum_to_size to (1, 4), (3, 4), (1, 1) of a (3, 4) tensor
TORCH = {
    mg.bool: (mg.int64, mg.bool, mg.int64), mg.uint8: (mg.int64, mg.uint8, mg.int64),
    mg.int8: (mg.int64, mg.int8, mg.int64), mg.int32: (mg.int64, mg.int32, mg.int64),
    mg.int64: (mg.int64, mg.int64, mg.int64), mg.float32: (mg.float32, mg.float32, mg.float32),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", list(TORCH))
def test_the_summed_dtype_is_pytorchs(dtype, device):
    x = mg.ones(3, 4, dtype=dtype, device=device)
    for size, want in zip([(1, 4), (3, 4), (1, 1)], TORCH[dtype]):
        assert x.sum_to_size(*size).dtype == want
    assert x.sum_to_size(3, 4) is x


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_uint8_sum_is_not_wrapped_at_256(device):
    x = mg.full((3, 4), 200, dtype=mg.uint8, device=device)
    assert x.sum_to_size(1, 4).numpy().tolist() == [[600] * 4]
    assert x.sum_to_size((1, 1)).numpy().tolist() == [[2400]]
