"""``full``, ``full_like`` and ``new_full`` read a tensor fill value as PyTorch reads a Scalar.

A 0-d tensor of any device is a number there (``torch.full(shape, gpu_loss, device="cuda")``).
The engine handed the tensor to the array library's ``full``, which converted it implicitly: a
device tensor was refused (a GPU array cannot become a host one silently), a 1-d tensor was
broadcast where PyTorch raises, and a float64 value too big for the result's dtype became inf
where PyTorch refuses it.  Now the one value is read explicitly, on any device.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict" and "strict-f32")

DEVICES = ["cpu", "strict", "strict-f32"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_a_zero_d_tensor_of_any_device_is_a_fill_number(device, dtype):
    value = mg.tensor(3, dtype=getattr(mg, dtype), device=device)
    made = [mg.full((2, 3), value, device=device), mg.full((2, 3), value),
            mg.full_like(mg.zeros(2, 3, device=device), value, dtype=getattr(mg, dtype)),
            mg.zeros(1, device=device, dtype=getattr(mg, dtype)).new_full((2, 3), value)]
    for t, where in zip(made, [device, "cpu", device, device]):
        assert t.dtype == getattr(mg, dtype) and str(t.device).split(":")[0] == where
        np.testing.assert_array_equal(t.cpu().numpy(), np.full((2, 3), 3, dtype=dtype))


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_float64_fill_tensor_too_big_for_the_dtype_is_refused(device):
    with pytest.raises(RuntimeError, match="without overflow"):
        mg.full((2,), mg.tensor(1e300, dtype=mg.float64, device=device), dtype=mg.float32, device=device)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_fill_tensor_of_one_or_more_dimensions_is_not_a_number(device):
    x = mg.zeros(2, device=device)
    for make in (lambda v: mg.full((2,), v, device=device), lambda v: mg.full_like(x, v),
                 lambda v: x.new_full((3,), v)):
        with pytest.raises(TypeError, match="must be Number, not Tensor"):
            make(mg.tensor([2.5], device=device))


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_fill_tensor_that_requires_grad_is_refused_not_its_gradient_lost(device):
    # PyTorch's TypeError, in grad mode or not: the value would be read as a number and the
    # result would not require grad, its gradient silently lost
    w = mg.tensor(1.5, requires_grad=True, device=device)
    x = mg.zeros(2, device=device)
    for make in (lambda v: mg.full((2,), v, device=device), lambda v: mg.full_like(x, v),
                 lambda v: x.new_full((3,), v)):
        for value in (w, w * 2):
            with pytest.raises(TypeError, match="requires grad"):
                make(value)
        with mg.no_grad(), pytest.raises(TypeError, match="requires grad"):
            make(w)
        np.testing.assert_array_equal(make(w.detach()).cpu().numpy(), 1.5)  # its value, detached: a number
