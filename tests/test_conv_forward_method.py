"""``ConvNd._conv_forward(input, weight, bias)``: the layer's convolution with a weight given at
the call, PyTorch's method that layers derived from a convolution override ``forward`` with
(weight standardization -- timm's ``StdConv2d``, BiT -- calls it with a weight it computed).
Before, the engine's convolutions had no such method: such a port stopped with AttributeError."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.functional.errors import InputMismatch
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

LAYERS = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}
CONVS = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def std_conv(n: int):
    """A weight-standardized convolution, written as timm's StdConv2d is."""

    class StdConv(LAYERS[n]):
        def forward(self, x):
            w = self.weight
            dims = tuple(range(1, w.ndim))
            w = (w - w.mean(dim=dims, keepdim=True)) / mg.sqrt(w.var(dim=dims, keepdim=True, unbiased=False) + 1e-5)
            return self._conv_forward(x, w, self.bias)

    return StdConv


def _standardized(w):
    dims = tuple(range(1, w.ndim))
    return (w - w.mean(dim=dims, keepdim=True)) / mg.sqrt(w.var(dim=dims, keepdim=True, unbiased=False) + 1e-5)


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv_forward_is_the_layers_convolution_with_the_given_weight(n, mode):
    mg.manual_seed(0)
    layer = std_conv(n)(4, 6, 3, stride=1, padding=1, dilation=1, groups=2, padding_mode=mode).double()
    x = mg.randn(2, 4, *(5,) * n, dtype="float64", requires_grad=True)
    y = layer(x)
    w = _standardized(layer.weight)
    xp = x if mode == "zeros" else F.pad(x, (1, 1) * n, mode=mode)
    expected = CONVS[n](xp, w, layer.bias, 1, 1 if mode == "zeros" else 0, 1, 2)
    assert np.array_equal(y.numpy(), expected.numpy())
    gx, gw = mg.autograd.grad((y * y).sum(), (x, layer.weight))
    ex, ew = mg.autograd.grad((expected * expected).sum(), (x, layer.weight))
    assert np.array_equal(gx.numpy(), ex.numpy()) and np.array_equal(gw.numpy(), ew.numpy())


def test_a_standardized_convolution_passes_gradcheck_through_its_weight():
    mg.manual_seed(1)
    layer = std_conv(2)(2, 3, (2, 3), padding="same", padding_mode="reflect").double()
    x = mg.randn(1, 2, 4, 5, dtype="float64")
    w0 = layer.weight.detach().clone()

    def through_weight(w):
        return layer._conv_forward(x, _standardized(w), layer.bias)

    assert mg.autograd.gradcheck(through_weight, (w0.requires_grad_(),))


def test_plain_forward_is_unchanged_and_checks_the_given_weight():
    mg.manual_seed(2)
    conv = nn.Conv2d(3, 4, 3, padding=1)
    x = mg.randn(2, 3, 6, 6)
    assert np.array_equal(conv(x).numpy(), conv._conv_forward(x, conv.weight, conv.bias).numpy())
    # (PyTorch's words; the input as the padding mode padded it, here by none)
    with pytest.raises(InputMismatch, match=r"weight of size \[4, 6, 3, 3\], expected input\[2, 3, 6, 6\] to have 6 "):
        conv._conv_forward(x, mg.randn(4, 6, 3, 3), None)  # the check reads the weight given
    with pytest.raises(InputMismatch, match=r"expected input\[2, 5, 7\] to have 3 channels, but got 5 channels"):
        nn.Conv1d(3, 4, 3)(mg.randn(2, 5, 7))
    with pytest.raises(InputMismatch, match=r"expected input\[2, 5, 4, 4, 4\] to have 3 channels, but got 5 "):
        nn.Conv3d(3, 4, 3)(mg.randn(2, 5, 4, 4, 4))


def test_transposed_convolutions_have_no_conv_forward_as_in_pytorch():
    assert not hasattr(nn.ConvTranspose2d(2, 3, 3), "_conv_forward")
    assert hasattr(nn.Conv2d(2, 3, 3), "_conv_forward")


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices_under_checkpoint_and_vmap(device):
    mg.manual_seed(3)
    layer = std_conv(2)(2, 3, 3, padding=1, padding_mode="circular").to(device)
    x = mg.randn(2, 2, 5, 5, device=device)
    plain = layer(x)
    again = mg.checkpoint.checkpoint(layer, x)
    assert np.array_equal(plain.numpy(), again.numpy())
    batched = mg.func.vmap(lambda xi: layer(xi))(x)  # unbatched (C, H, W) inputs, one per image
    np.testing.assert_allclose(batched.numpy(), plain.numpy(), rtol=1e-5, atol=1e-6)
