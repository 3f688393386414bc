"""Pooling's PyTorch keywords (``ceil_mode``, ``return_indices``, ``count_include_pad``,
``divisor_override``, ``dilation``) and ``padding="same"`` with even kernels, beyond the
values the PyTorch fixture checks (``tests/test_nn_vs_torch.py``): derivatives of every
order in both modes, float32, the unbatched forms, the layers, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the "strict" device)

RNG = np.random.default_rng(7)

CALLS = {
    "max_pool2d_ceil": lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
    "max_pool2d_ceil_dilation": lambda x: F.max_pool2d(x, 2, 2, 0, dilation=2, ceil_mode=True),
    "avg_pool2d_ceil_excl": lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    "avg_pool2d_ceil_incl": lambda x: F.avg_pool2d(x, 2, 3, 1, ceil_mode=True),
    "avg_pool2d_override": lambda x: F.avg_pool2d(x, 2, 2, divisor_override=3, ceil_mode=True),
    "max_pool1d_ceil": lambda x: F.max_pool1d(mg.reshape(x, (2, 3, 12)), 3, 2, ceil_mode=True),
    "avg_pool1d_ceil": lambda x: F.avg_pool1d(mg.reshape(x, (2, 3, 12)), 3, 2, 1, True, False),
    "adaptive_max_pool2d": lambda x: F.adaptive_max_pool2d(x, (2, 3)),
    "conv2d_same_even": lambda x: F.conv2d(x, mg.reshape(mg.arange(24.0, dtype=x.dtype, device=x.device), (2, 3, 2, 2)),
                                           padding="same"),
}


def distinct(shape, dtype="float64"):
    """Distinct values far apart, so that finite differences never cross a max-pooling kink."""
    vals = RNG.permutation(int(np.prod(shape))).astype(dtype) * 0.5
    return mg.tensor(vals.reshape(shape), requires_grad=True)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_derivatives_both_modes_and_second_order(name):
    x = distinct((2, 3, 3, 4))
    assert gradcheck(CALLS[name], x, modes=("rev", "fwd"))
    assert gradgradcheck(CALLS[name], x)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_float32_stays_float32(name):
    x = mg.tensor(np.asarray(distinct((2, 3, 3, 4)).numpy(), dtype="float32"), requires_grad=True)
    out = CALLS[name](x)
    assert out.dtype == np.float32
    out.sum().backward()
    assert x.grad.dtype == np.float32 and np.isfinite(x.grad.numpy()).all()


def test_ceil_mode_keeps_the_partial_window():
    x = mg.arange(5.0, dtype="float64")[None, None]
    assert F.max_pool1d(x, 2).shape == (1, 1, 2)
    out, idx = F.max_pool1d(x, 2, ceil_mode=True, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), [[[1.0, 3.0, 4.0]]])
    np.testing.assert_array_equal(idx.numpy(), [[[1, 3, 4]]])
    # the last window must start inside the input (or its left padding): 5 with k=2, s=4 gives 2, not 3
    assert F.max_pool1d(x, 2, 4, ceil_mode=True).shape == (1, 1, 2)
    np.testing.assert_allclose(F.avg_pool1d(x, 2, ceil_mode=True).numpy(), [[[0.5, 2.5, 4.0]]])


def test_indices_unbatched_and_of_the_first_maximum():
    x = mg.tensor([[[1.0, 3.0, 3.0], [0.0, 3.0, 2.0]]], dtype="float64")  # (C, H, W) = (1, 2, 3)
    out, idx = F.max_pool2d(x, 2, 1, return_indices=True)
    assert out.shape == idx.shape == (1, 1, 2)
    np.testing.assert_array_equal(idx.numpy(), [[[1, 1]]])  # 3 at (0, 1) comes first
    assert idx.dtype == np.int64 and not idx.requires_grad


def test_layers_take_the_keywords_and_show_them():
    x = distinct((1, 2, 5, 5))
    out, idx = nn.MaxPool2d(2, ceil_mode=True, return_indices=True)(x)
    assert out.shape == idx.shape == (1, 2, 3, 3)
    layer = nn.AvgPool2d(2, ceil_mode=True, divisor_override=2)
    np.testing.assert_allclose(layer(x).numpy(), F.avg_pool2d(x, 2, ceil_mode=True, divisor_override=2).numpy())
    assert "ceil_mode=True" in repr(layer) or "kernel_size=2" in repr(layer)
    out, idx = nn.AdaptiveMaxPool2d(2, return_indices=True)(x)
    assert out.shape == (1, 2, 2, 2) and idx.dtype == np.int64
    assert nn.AvgPool1d(3, 2, ceil_mode=True)(mg.randn(2, 3, 6)).shape == (2, 3, 3)


def test_conv_layers_same_padding_with_even_kernels():
    conv = nn.Conv2d(3, 2, (2, 4), padding="same", dtype="float64")
    x = mg.randn(1, 3, 5, 6, dtype="float64")
    assert conv(x).shape == (1, 2, 5, 6)
    assert nn.Conv1d(3, 2, 4, padding="same", dtype="float64")(mg.randn(1, 3, 7, dtype="float64")).shape == (1, 2, 7)
    assert conv.__class__(3, 2, 2, padding="valid", dtype="float64")(x).shape == (1, 2, 4, 5)


@pytest.mark.parametrize("call, match", [
    (lambda: F.avg_pool2d(mg.randn(1, 1, 4, 4), 2, divisor_override=0), "divisor_override"),
    (lambda: F.conv2d(mg.randn(1, 1, 4, 4), mg.randn(1, 1, 2, 2), stride=2, padding="same"),
     "padding='same' is not supported for strided convolutions"),
    (lambda: F.conv2d(mg.randn(1, 1, 4, 4), mg.randn(1, 1, 2, 2), padding="full"), "'valid' or 'same'"),
    (lambda: F.max_pool2d(mg.randn(1, 1, 4, 4), 2, padding=2, ceil_mode=True), "padding"),
])
def test_bad_arguments_are_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_strict_device_matches_the_cpu(name):
    x = distinct((2, 3, 3, 4))
    xs = mg.tensor(x.numpy(), device="strict", requires_grad=True)
    out, outs = CALLS[name](x), CALLS[name](xs)
    np.testing.assert_array_equal(outs.numpy(), out.numpy())
    (g,), (gs,) = mg.grad(out.sum(), [x]), mg.grad(outs.sum(), [xs])
    np.testing.assert_array_equal(gs.numpy(), g.numpy())


def test_indices_on_the_strict_device():
    xs = mg.tensor(distinct((1, 2, 5, 5)).numpy(), device="strict")
    for idx in (F.max_pool2d(xs, 2, ceil_mode=True, return_indices=True)[1],
                F.adaptive_max_pool2d(xs, 2, return_indices=True)[1]):
        assert str(idx.device) == "strict:0" and idx.dtype == np.int64
