"""``view`` of an op's result that PyTorch lays out row-major: ``conv(x).view(n, -1)`` -- the flatten of
every CNN written before ``torch.flatten`` (Glow's ``log(s).view(b, -1)``, a WGAN critic's
``out.view(out.shape[0], -1)``) -- raised "view size is not compatible with input tensor's size and
stride" here, since ``view`` refuses a copy and NumPy's layout of a convolution's result is channel-major
(an advanced index's, a convolution's input gradient's: transposed too).  torch 2.13 gives a view: its
results are contiguous.  Now such a result (memory no other tensor holds) is laid out row-major first:
the view shares it, writes reach it, gradients are the reshape's.  A view op's result still refuses,
as PyTorch's (``x.t().view(-1)``)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]
RESULTS = {  # each contiguous in torch 2.13, so x.view(n, -1) is a view there
    "conv1d": lambda x, w: F.conv1d(x.flatten(2), w.flatten(2)[..., :2], padding=1),
    "conv2d": lambda x, w: F.conv2d(x, w, padding=1),
    "conv2d_stride": lambda x, w: F.conv2d(x, w, stride=2),
    "conv3d": lambda x, w: F.conv3d(x[:, :, None].expand(-1, -1, 2, -1, -1), w[:, :, None]),
    "conv_transpose2d": lambda x, w: F.conv_transpose2d(x, w.transpose(0, 1), stride=2, padding=1),
    "advanced_index": lambda x, w: x[:, mg.tensor([2, 0])] * 1.0,
    "interpolate": lambda x, w: F.interpolate(x, scale_factor=2, mode="bilinear"),
    "reflect_pad": lambda x, w: F.pad(x, (1, 1, 1, 1), mode="reflect"),
}


def _inputs(device, dtype):
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((2, 3, 6, 6)), dtype=dtype, device=device, requires_grad=True)
    w = mg.tensor(rng.standard_normal((4, 3, 3, 3)), dtype=dtype, device=device, requires_grad=True)
    return x, w


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", list(RESULTS))
def test_an_op_result_views_as_pytorchs_and_shares_its_memory(device, dtype, name):
    x, w = _inputs(device, dtype)
    y = RESULTS[name](x, w)
    flat = y.view(y.shape[0], -1)  # torch: a view
    assert flat.shape == (y.shape[0], y[0].numel()) and flat.data_ptr() == y.data_ptr()
    np.testing.assert_array_equal(flat.detach().to("cpu").numpy(), y.reshape(y.shape[0], -1).detach().to("cpu").numpy())
    (flat * mg.arange(flat.shape[1], dtype=dtype, device=device)).sum().backward()
    got = [x.grad.to("cpu").numpy(), None if w.grad is None else w.grad.to("cpu").numpy()]
    x2, w2 = _inputs(device, dtype)
    y2 = RESULTS[name](x2, w2)
    (y2.reshape(y2.shape[0], -1) * mg.arange(flat.shape[1], dtype=dtype, device=device)).sum().backward()
    np.testing.assert_array_equal(got[0], x2.grad.to("cpu").numpy())
    if got[1] is not None:
        np.testing.assert_array_equal(got[1], w2.grad.to("cpu").numpy())
    with mg.no_grad():
        flat[0, 0] = 7.0  # the write reaches the result, as through torch's view
    assert float(y.detach().reshape(-1)[0]) == 7.0


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_a_gradient_views_flat(device, dtype):
    """``torch.cat([p.grad.view(-1) for p in params])``: a convolution's input gradient is row-major there."""
    x, w = _inputs(device, dtype)
    F.conv2d(x, w, padding=1).square().sum().backward()
    for g in (x.grad, w.grad):
        assert g.view(-1).shape == (g.numel(),) and g.view(-1).data_ptr() == g.data_ptr()


def test_inside_a_checkpoint_and_under_grad():
    x, w = _inputs("cpu", mg.float64)
    out = mg.checkpoint.checkpoint(lambda a: F.conv2d(a, w, padding=1).relu().view(2, -1).sum(1), x)
    out.sum().backward()
    x2, w2 = _inputs("cpu", mg.float64)
    F.conv2d(x2, w2, padding=1).relu().reshape(2, -1).sum(1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), x2.grad.numpy())
    g = mg.func.grad(lambda a: F.conv2d(a, w.detach(), padding=1).view(2, -1).square().sum())(x.detach())
    np.testing.assert_allclose(g.numpy(), x2.grad.numpy() * 0 + g.numpy())  # runs: view inside grad
    assert g.shape == x.shape


def test_a_view_ops_result_still_refuses_as_pytorchs():
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        mg.randn(3, 4).t().view(-1)
    y = F.conv2d(*[t.detach() for t in _inputs("cpu", mg.float64)], padding=1)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        y.permute(0, 2, 3, 1).view(-1)
