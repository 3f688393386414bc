"""Assigning a ``.grad`` that does not fit raises PyTorch's exception types, in its words: torch
2.13 raises a RuntimeError for a gradient of another size, dtype or device ("attempting to assign
a gradient of size '[2]' to a tensor of size '[3]'..."), and a TypeError for a non-Tensor.  The
engine raised ValueError (size, device) and TypeError (dtype), which PyTorch code's
``except RuntimeError`` misses.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)


def _x(dtype=mg.float64, device="cpu"):
    return mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device, requires_grad=True)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_a_gradient_of_another_size_is_a_runtime_error(dtype):
    x = _x(dtype)
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient of size '\[2\]' to a tensor of size "
                                           r"'\[3\]'\. Please ensure that the gradient and the tensor are the same"):
        x.grad = mg.ones(2, dtype=dtype)
    assert x.grad is None


def test_a_gradient_of_another_dtype_is_a_runtime_error():
    x = _x(mg.float64)
    with pytest.raises(RuntimeError, match="^attempting to assign a gradient with dtype 'float32' to a tensor with "
                                           "dtype 'float64'"):
        x.grad = mg.ones(3, dtype=mg.float32)


def test_a_gradient_on_another_device_is_a_runtime_error():
    x = _x(device="strict")
    with pytest.raises(RuntimeError, match="^attempting to assign a gradient located on device"):
        x.grad = mg.ones(3, dtype=mg.float64)


def test_a_non_tensor_is_a_type_error():
    x = _x()
    with pytest.raises(TypeError, match="^assigned grad expected to be a Tensor or None but got grad of type float"):
        x.grad = 3.0
    x.grad = mg.ones(3, dtype=mg.float64)
    x.grad = None
    assert x.grad is None


def test_a_tensor_cannot_be_its_own_gradient():
    """PyTorch refuses ``x.grad = x``: backward would then accumulate into ``x``'s own values (the
    engine accepted it, and the next backward changed the leaf)."""
    x = _x()
    with pytest.raises(RuntimeError, match="^can't assign Variable as its own grad$"):
        x.grad = x
    assert x.grad is None
    x.grad = x.detach()  # another tensor over the same memory is PyTorch's to allow too
