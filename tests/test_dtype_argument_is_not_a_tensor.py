"""A tensor (or an array) where a dtype is asked for is PyTorch's TypeError: NumPy's ``dtype()``, which
the engine's dtype check called, reads any object's ``.dtype``, so ``mg.zeros(2, dtype=t)`` made
``t``'s dtype and ``mg.promote_types(t, mg.float32)`` answered (found translating PyTorch's
test/test_type_promotion.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

T = mg.ones(2, dtype=mg.int64)


@pytest.mark.parametrize("call", [
    lambda: mg.zeros(2, dtype=T), lambda: mg.tensor([1.0], dtype=T), lambda: mg.promote_types(T, mg.float32),
    lambda: mg.promote_types(mg.float32, T), lambda: mg.can_cast(T, mg.float32), lambda: mg.ones(2).sum(dtype=T),
    lambda: mg.zeros(2, dtype=np.zeros(2)), lambda: mg.set_default_dtype(mg.ones(2)),
], ids=["zeros", "tensor", "promote_types", "promote_types_second", "can_cast", "sum", "ndarray",
        "set_default_dtype"])
def test_a_tensor_for_a_dtype_is_a_type_error(call):
    with pytest.raises(TypeError, match="must be torch.dtype, not (Tensor|ndarray)"):
        call()
    assert mg.get_default_dtype() == mg.float32


def test_what_takes_a_tensor_for_its_dtype_still_does():
    assert mg.ones(2).to(T).dtype == mg.int64 and mg.ones(2).type_as(T).dtype == mg.int64
    assert mg.ones(2).type(mg.LongTensor).dtype == mg.int64
    assert mg.zeros(2, dtype=np.float64).dtype == mg.float64 and mg.zeros(2, dtype="int32").dtype == mg.int32
    assert mg.promote_types(mg.int8, mg.uint8) == mg.int16 and mg.can_cast(mg.float64, mg.float32)
