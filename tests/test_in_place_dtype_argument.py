"""An in-place twin given a ``dtype=`` other than the tensor's is refused, as PyTorch's.

torch 2.13: ``x.cumsum_(0, dtype=torch.float64)`` of a float32 ``x`` raises "Bad in-place call:
input tensor dtype float and output tensor dtype double should match"; the engine computed in
float64 and rounded the result back into float32 silently (an int64 ``x`` with ``dtype=float32``
met the fraction rule's error instead of this one).
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("dtype, asked", [("float32", mg.float64), ("int64", mg.float32), ("float64", "float32")])
@pytest.mark.parametrize("name", ["cumsum_", "cumprod_"])
def test_a_dtype_other_than_the_tensors_is_refused(name, dtype, asked):
    x = mg.tensor([1, 2, 3], dtype=dtype)
    with pytest.raises(RuntimeError, match="Bad in-place call"):
        getattr(x, name)(0, dtype=asked)
    assert x.tolist() == [1, 2, 3]


def test_the_tensors_own_dtype_or_none_is_accepted():
    x = mg.tensor([1.5, 2.5])
    assert x.cumsum_(0, dtype=mg.float32).tolist() == [1.5, 4.0]
    assert x.cumprod_(0, dtype="float32").tolist() == [1.5, 6.0]
    assert mg.tensor([1, 2]).cumsum_(0).tolist() == [1, 3]
