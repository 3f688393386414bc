"""A mask gradient (relu, hardtanh, threshold, ...) is laid out as on the devices.

On the CPU the gradient ``mask ? grad : 0`` is computed on the bits of ``grad`` (NumPy's ``where``
is ten times slower); that result took the mask's memory layout, where ``where`` -- which the
devices run -- takes NumPy's rule for its two operands.  A convolution's output is channels-last in
memory, so its relu's mask is too, and the bias gradient, a sum over that layout, added in another
order: a unit off the strict device's in the last place (so a conv-relu model's gradients were not
the CPU's on it, bit for bit).  Now the bit trick is one ufunc of both operands: ``where``'s layout.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers "strict" and "strict-f32")
from minigrad_ckpt import nn
from minigrad_ckpt.backend import get_device
from minigrad_ckpt.nn import functional as F

ACTIVATIONS = {"relu": F.relu, "relu6": F.relu6, "hardtanh": F.hardtanh,
               "threshold": lambda y: F.threshold(y, 0.1, 0.0), "relu_times_3": lambda y: F.relu(y) * 3.0}


def conv_activation_gradients(device, activation, dtype):
    mg.manual_seed(0)
    conv = nn.Conv2d(4, 4, 3, padding=1).to(device=device, dtype=dtype)
    x = mg.tensor(np.random.default_rng(0).standard_normal((2, 4, 6, 6)), dtype=dtype, device=device,
                  requires_grad=True)
    loss = ACTIVATIONS[activation](conv(x)).pow(2).sum()
    return [g.cpu().numpy() for g in mg.autograd.grad(loss, [conv.bias, conv.weight, x])]


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_conv_activation_gradients_match_the_cpu_bitwise(device, dtype, activation):
    if device == "strict-f32" and dtype == "float64":
        pytest.skip("strict-f32 holds no float64")
    dt = getattr(mg, dtype)
    for got, want in zip(conv_activation_gradients(device, activation, dt),
                         conv_activation_gradients("cpu", activation, dt)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("layouts", [("c", "c"), ("channels_last", "c"), ("c", "channels_last"),
                                     ("channels_last", "channels_last"), ("f", "c")])
def test_the_cpu_mask_gradient_is_where_bit_for_bit_and_in_its_layout(dtype, layouts):
    rng = np.random.default_rng(1)

    def laid_out(a, layout):
        if layout == "channels_last":
            return np.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
        return np.asfortranarray(a) if layout == "f" else a

    mask = laid_out(rng.standard_normal((2, 3, 4, 5)) > 0, layouts[0])
    grad = laid_out(rng.standard_normal((2, 3, 4, 5)).astype(dtype), layouts[1])
    grad[0, 0, 0, :4] = [np.nan, -np.inf, -0.0, -1.0]
    mask[0, 0, 0, :4] = [True, False, True, False]
    got = get_device("cpu").xp.gradient_where(mask, grad)
    want = np.where(mask, grad, 0)
    assert got.dtype == want.dtype and got.strides == want.strides
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))
