"""Convolutions and batch norm check their input against their weights (and running statistics), as
PyTorch's ``F.conv*d`` / ``F.batch_norm`` do, not against ``in_channels`` / ``num_features``: a channel
pruning script that cuts the layers through ``.data`` (``conv.weight.data = conv.weight.data[keep]``,
``bn.running_mean = bn.running_mean[keep]``, the next layer's input channels) and leaves the attributes
raised InputMismatch ("expected (N, 4, H, W)").  torch 2.13 runs the program: ``nxt(bn(conv(x)))`` is
(2, 5, 4, 4), a cut ``ConvTranspose2d`` (1, 2, 6, 6), a cut ``Conv1d`` (1, 2, 3); the numbers are the
uncut layers' on the kept channels.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_channels_cut_through_data_run_as_the_kept_channels(device, dtype):
    mg.manual_seed(0)
    conv, bn, nxt = (m.to(device=device, dtype=dtype) for m in (nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4),
                                                                   nn.Conv2d(4, 5, 1)))
    bn.eval()
    with mg.no_grad():
        bn.running_mean.copy_(mg.tensor([0.1, -0.2, 0.3, 0.4]))
        bn.running_var.copy_(mg.tensor([1.5, 0.5, 2.0, 1.0]))
    x = mg.randn(2, 3, 6, 6, dtype=dtype, device=device)
    keep = mg.tensor([0, 2], device=device)
    # what the full network gives when the cut channels are zero after batch norm
    mask = mg.tensor([1.0, 0.0, 1.0, 0.0], dtype=dtype, device=device)[None, :, None, None]
    want = nxt(bn(conv(x)) * mask).detach().cpu().numpy()
    conv.weight.data = conv.weight.data[keep]
    conv.bias.data = conv.bias.data[keep]
    for name in ("weight", "bias"):
        getattr(bn, name).data = getattr(bn, name).data[keep]
    bn.running_mean = bn.running_mean[keep]
    bn.running_var = bn.running_var[keep]
    nxt.weight.data = nxt.weight.data[:, keep]
    y = nxt(bn(conv(x)))
    assert y.shape == (2, 5, 4, 4)
    np.testing.assert_allclose(y.detach().cpu().numpy(), want, rtol=1e-5, atol=1e-5)
    y.sum().backward()
    assert conv.weight.grad.shape == (2, 3, 3, 3) and nxt.weight.grad.shape == (5, 2, 1, 1)


def test_cut_transposed_and_one_dimensional_convolutions():
    ct = nn.ConvTranspose2d(4, 2, 3)
    ct.weight.data = ct.weight.data[mg.tensor([0, 2])]
    assert ct(mg.randn(1, 2, 4, 4)).shape == (1, 2, 6, 6)
    c1 = nn.Conv1d(4, 2, 3)
    c1.weight.data = c1.weight.data[:, mg.tensor([0, 2])]
    assert c1(mg.randn(1, 2, 5)).shape == (1, 2, 3)
    c3 = nn.Conv3d(4, 2, 1)
    c3.weight.data = c3.weight.data[:, :3]
    assert c3(mg.randn(1, 3, 2, 2, 2)).shape == (1, 2, 2, 2, 2)
    words = r"weight of size \[2, 3, 1, 1, 1\], expected input\[1, 4, 2, 2, 2\] to have 3 "  # (PyTorch's)
    with pytest.raises(mg.functional.errors.InputMismatch, match=words):
        c3(mg.randn(1, 4, 2, 2, 2))  # the weight's count is the one checked


def test_a_parametrized_layer_computes_its_weight_once_per_call():
    calls = []

    class Noisy(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X

    for layer, x in ((nn.Linear(2, 3), mg.ones(1, 2)), (nn.Conv2d(2, 3, 1), mg.ones(1, 2, 2, 2)),
                     (nn.Conv1d(2, 3, 1), mg.ones(1, 2, 2)), (nn.ConvTranspose1d(2, 3, 1), mg.ones(1, 2, 2)),
                     (nn.BatchNorm1d(2), mg.ones(3, 2))):
        nn.utils.parametrize.register_parametrization(layer, "weight", Noisy())
        calls.clear()
        layer(x)
        assert len(calls) == 1
