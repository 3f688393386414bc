"""Refusals of the convolutions, ``pad`` and ``interpolate`` found by running PyTorch's
``test/nn/test_convolution.py`` against the engine (torch 2.13 gave the expected classes and words).

- A weight with a spatial size of 0 answered silently: ``conv2d`` of a 4x4 input with a 0x0 kernel
  returned a 5x5 output of the bias (the output-size rule counts one window more than there are
  elements), ``conv1d``, ``conv3d`` and the transposed ones alike.  PyTorch refuses it with a
  RuntimeError ("kernel size should be greater than zero").
- ``pad(mode="circular")`` wider than the dim raised a bare ValueError; PyTorch's is a RuntimeError.
- ``interpolate`` of an integer or bool input raised a bare TypeError; PyTorch's is a
  NotImplementedError ('"upsample_bilinear2d_channels_last" not implemented for 'Long'').
Each class here is also the engine's old one, so an ``except`` written for either library catches it.
"""

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F


@pytest.mark.parametrize("call, words", [
    (lambda: F.conv2d(mg.ones(1, 1, 4, 4), mg.ones(1, 1, 0, 0)), " kernel_height: 0 kernel_width: 0"),
    (lambda: F.conv2d(mg.ones(1, 1, 4, 4), mg.ones(1, 1, 0, 2)), " kernel_height: 0 kernel_width: 2"),
    (lambda: F.conv1d(mg.ones(1, 1, 4), mg.ones(1, 1, 0)), " kernel_height: 1 kernel_width: 0"),
    (lambda: F.conv3d(mg.ones(1, 1, 4, 4, 4), mg.ones(1, 1, 1, 0, 1)), r": 1 x 0 x 1 \(TxHxW\)"),
    (lambda: F.conv3d(mg.ones(1, 1, 4, 4, 4), mg.ones(1, 1, 0, 1, 1)), r": 0 x 1 x 1 \(TxHxW\)"),
    (lambda: F.conv_transpose2d(mg.ones(1, 1, 4, 4), mg.ones(1, 1, 0, 0)), " kernel_height: 0 kernel_width: 0"),
    (lambda: F.conv_transpose1d(mg.ones(1, 1, 4), mg.ones(1, 1, 0)), " kernel_height: 1 kernel_width: 0"),
    (lambda: F.conv_transpose3d(mg.ones(1, 1, 4, 4, 4), mg.ones(1, 1, 0, 1, 1)), r": 0 x 1 x 1 \(TxHxW\)"),
])
def test_a_kernel_of_size_zero_is_refused_not_answered(call, words):
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero, but got" + words):
        call()


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
@pytest.mark.parametrize("layer, shape", [
    (lambda: nn.Conv2d(1, 1, 0), (1, 1, 4, 4)), (lambda: nn.Conv1d(1, 1, 0), (1, 1, 4)),
    (lambda: nn.Conv3d(1, 1, (1, 0, 1)), (1, 1, 4, 4, 4)), (lambda: nn.ConvTranspose2d(1, 1, 0), (1, 1, 4, 4)),
])
def test_a_layer_with_kernel_size_zero_is_built_and_refused_at_its_call(layer, shape):
    m = layer()  # (PyTorch builds it too, warning that the empty weight's init does nothing)
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        m(mg.ones(*shape))


def test_circular_padding_wider_than_the_dim_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="wrap around more than once") as info:
        F.pad(mg.ones(1, 2, 3), (4, 0), mode="circular")
    assert isinstance(info.value, ValueError)  # (the engine's class before)
    assert F.pad(mg.arange(3.0).reshape(1, 1, 3), (3, 3), mode="circular").tolist() == [[[0, 1, 2] * 3]]


@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.bool])
@pytest.mark.parametrize("mode, shape", [
    ("nearest", (1, 1, 2, 3)), ("bilinear", (1, 1, 2, 3)), ("bicubic", (1, 1, 2, 3)), ("linear", (1, 1, 3)),
    ("trilinear", (1, 1, 2, 2, 2)), ("area", (1, 1, 2, 4)), ("nearest-exact", (1, 1, 3)),
])
def test_interpolate_of_integers_or_bools_is_pytorchs_not_implemented_error(dtype, mode, shape):
    x = mg.ones(*shape, dtype=dtype)
    with pytest.raises(NotImplementedError, match="expected a floating input") as info:
        F.interpolate(x, scale_factor=2, mode=mode)
    assert isinstance(info.value, TypeError)  # (the engine's class before)
    assert "not implemented for" in str(info.value)  # the words PyTorch's own tests match
    with pytest.raises(NotImplementedError, match="not implemented for"):
        nn.Upsample(scale_factor=2, mode=mode)(x)


def test_interpolate_takes_uint8_with_the_nearest_modes():
    x = mg.arange(6, dtype=mg.uint8).reshape(1, 1, 2, 3)
    out = F.interpolate(x, scale_factor=2, mode="nearest")
    assert out.dtype == mg.uint8 and out.shape == (1, 1, 4, 6) and out[0, 0, 1].tolist() == [0, 0, 1, 1, 2, 2]
