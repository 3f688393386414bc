"""``mg.nn.utils.fuse_conv_bn_eval`` / ``fuse_linear_bn_eval`` (and ``fuse_*_bn_weights``): a batch norm in
eval mode folded into the convolution or linear layer before it -- the inference-time fusion the conv-bn
custom-Function tutorial contrasts itself with (an AttributeError before).

Expected values: torch 2.13 on the same weights (``torch.nn.utils.fuse_conv_bn_eval(conv, bn)`` with
the weights below, float64).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the strict devices

TORCH_CONV_OUT = [0.42177094212919986, 0.28306571661501223, 0.3422797669602803, 0.14739881550975498,
                  0.6504688779318591, -1.539472609171753]
TORCH_CT_BIAS = [-0.11433874318124389, 0.32364434705810124]
TORCH_LIN_W0 = [0.021996823545588594, 0.15888791491397705, 0.1799247991705985]
TORCH_LIN_B = [2.429820755091174, 1.439976414284532, -0.5162261577905677, 0.3958760576351861]


def _layers(device: str, dtype):
    rs = np.random.RandomState(0)

    def t(*s):
        return mg.tensor(rs.randn(*s))

    conv, bn = mg.nn.Conv2d(2, 3, 3, bias=False).double(), mg.nn.BatchNorm2d(3).double()
    with mg.no_grad():
        conv.weight.copy_(t(3, 2, 3, 3)), bn.weight.copy_(t(3)), bn.bias.copy_(t(3)), bn.running_mean.copy_(t(3))
        bn.running_var.copy_(mg.tensor(rs.uniform(0.5, 2, 3)))
    x = t(1, 2, 4, 4)
    ct, bn2 = mg.nn.ConvTranspose2d(3, 2, 2).double(), mg.nn.BatchNorm2d(2).double()
    with mg.no_grad():
        ct.weight.copy_(t(3, 2, 2, 2)), ct.bias.copy_(t(2)), bn2.running_mean.copy_(t(2))
        bn2.running_var.copy_(mg.tensor(rs.uniform(0.5, 2, 2)))
    lin, bn3 = mg.nn.Linear(3, 4).double(), mg.nn.BatchNorm1d(4).double()
    with mg.no_grad():
        lin.weight.copy_(t(4, 3)), lin.bias.copy_(t(4)), bn3.weight.copy_(t(4)), bn3.bias.copy_(t(4))
        bn3.running_mean.copy_(t(4)), bn3.running_var.copy_(mg.tensor(rs.uniform(0.5, 2, 4)))
    layers = [m.to(device, dtype).eval() for m in (conv, bn, ct, bn2, lin, bn3)]
    return layers, x.to(device, dtype)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_fused_layers_compute_the_pair_as_torchs(device, dtype):
    (conv, bn, ct, bn2, lin, bn3), x = _layers(device, dtype)
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == mg.float64 else dict(rtol=1e-5, atol=1e-5)
    fused = mg.nn.utils.fuse_conv_bn_eval(conv, bn)
    assert fused is not conv and conv.bias is None and isinstance(fused.bias, mg.nn.Parameter)
    np.testing.assert_allclose(fused(x).detach().cpu().numpy().ravel()[:6], TORCH_CONV_OUT, **tol)
    np.testing.assert_allclose(fused(x).detach().cpu().numpy(), bn(conv(x)).detach().cpu().numpy(), **tol)
    # as torch: the bias made for a layer without one does not require grad; the weight does
    assert fused.weight.requires_grad and not fused.bias.requires_grad and fused.weight.dtype == dtype
    fused_ct = mg.nn.utils.fuse_conv_bn_eval(ct, bn2, transpose=True)
    np.testing.assert_allclose(fused_ct.bias.detach().cpu().numpy(), TORCH_CT_BIAS, **tol)
    assert fused_ct.bias.requires_grad
    y = mg.ones(1, 3, 2, 2, dtype=dtype, device=device)
    np.testing.assert_allclose(fused_ct(y).detach().cpu().numpy(), bn2(ct(y)).detach().cpu().numpy(), **tol)
    fused_lin = mg.nn.utils.fuse_linear_bn_eval(lin, bn3)
    np.testing.assert_allclose(fused_lin.weight.detach().cpu().numpy()[0], TORCH_LIN_W0, **tol)
    np.testing.assert_allclose(fused_lin.bias.detach().cpu().numpy(), TORCH_LIN_B, **tol)
    z = mg.ones(5, 3, dtype=dtype, device=device)
    np.testing.assert_allclose(fused_lin(z).detach().cpu().numpy(), bn3(lin(z)).detach().cpu().numpy(), **tol)


def test_fusion_refuses_as_torch():
    (conv, bn, _, _, lin, _), _ = _layers("cpu", mg.float64)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        mg.nn.utils.fuse_conv_bn_eval(conv.train(), bn)
    with pytest.raises(AssertionError, match=r"linear.out_features=4 and bn.num_features=3"):
        mg.nn.utils.fuse_linear_bn_eval(lin, mg.nn.BatchNorm1d(3).double().eval())
    w, b = mg.nn.utils.fusion.fuse_linear_bn_weights(lin.weight, None, mg.zeros(4), mg.ones(4), 0.0, mg.ones(4),
                                                     mg.zeros(4))
    assert np.allclose(w.detach().numpy(), lin.weight.detach().numpy()) and not b.requires_grad
