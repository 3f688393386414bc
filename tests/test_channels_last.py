"""PyTorch's layouts: ``memory_format=mg.channels_last`` (and ``channels_last_3d``) lays a 4-d (5-d)
tensor out channels innermost -- PyTorch's strides, the same values -- in ``Tensor.to``, ``clone``,
``contiguous``, ``is_contiguous``, the ``*_like`` creators and ``Module.to`` (milesial's U-Net trains with
``model.to(memory_format=torch.channels_last)`` and ``images.to(..., memory_format=torch.channels_last)``);
and ``preserve_format``, the default of ``clone`` and the ``*_like`` creators, keeps the order of the
input's strides (a transpose's clone is a transpose).  (``view`` of a tensor whose memory no other holds
lays it out row-major first, docs/from-pytorch.md's table: ``y.view(n, -1)`` answers where PyTorch refuses.)
Before, the channels-last formats were refused with a TypeError and every clone was row-major.
The strides below are torch 2.13's."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)


def nchw(device="cpu", dtype=mg.float64):
    return mg.tensor(np.arange(120.0).reshape(2, 3, 4, 5), dtype=dtype, device=device)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_to_channels_last_is_pytorchs_layout_with_the_same_values(device):
    x = nchw(device)
    y = x.to(memory_format=mg.channels_last)
    assert y.stride() == (60, 1, 15, 3)
    assert not y.is_contiguous() and y.is_contiguous(memory_format=mg.channels_last)
    assert y.equal(x) and y.to(memory_format=mg.channels_last) is y
    assert (y * 2).stride() == (60, 1, 15, 3)  # an elementwise result keeps it, as PyTorch's
    assert y.contiguous().stride() == (60, 20, 5, 1) and y.contiguous().equal(x)
    assert x.clone(memory_format=mg.channels_last).stride() == (60, 1, 15, 3)
    assert x.contiguous(memory_format=mg.channels_last).stride() == (60, 1, 15, 3)
    assert mg.randn(2, 3, 4, 5, 6).to(memory_format=mg.channels_last_3d).stride() == (360, 1, 90, 18, 3)
    assert y.reshape(2, -1).stride() == (60, 1)


def test_a_layout_is_a_differentiable_copy_under_the_transforms():
    x = nchw().requires_grad_()
    y = x.to(memory_format=mg.channels_last)
    (y * y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * x.detach().numpy())
    g = mg.func.grad(lambda t: t.to(memory_format=mg.channels_last).pow(3).sum())(nchw())
    np.testing.assert_allclose(g.numpy(), 3 * nchw().numpy() ** 2)
    _, t = mg.func.jvp(lambda t: t.contiguous(memory_format=mg.channels_last), (nchw(),), (nchw(),))
    assert t.equal(nchw())
    out = mg.func.vmap(lambda t: t.clone(memory_format=mg.channels_last))(nchw().unsqueeze(1).expand(2, 2, 3, 4, 5))
    assert out.shape == (2, 2, 3, 4, 5)


@pytest.mark.parametrize("shape", [(3,), (2, 3, 4)])
def test_another_rank_is_pytorchs_runtime_error(shape):
    x = mg.zeros(*shape)
    assert x.is_contiguous(memory_format=mg.channels_last) is False
    cl = mg.channels_last
    for call in (lambda: x.to(memory_format=cl), lambda: x.contiguous(memory_format=cl),
                 lambda: x.clone(memory_format=cl), lambda: mg.empty_like(x, memory_format=cl)):
        with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
            call()
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d format"):
        nchw().to(memory_format=mg.channels_last_3d)


def test_preserve_format_keeps_the_order_of_the_strides():
    t = mg.arange(12.0).reshape(3, 4).t()
    assert t.clone().stride() == (1, 4) and not t.clone().is_contiguous()
    assert t[::2].clone().stride() == (1, 2)  # not dense: dense strides in the input's order
    assert mg.arange(3.0).expand(2, 3).clone().stride() == (3, 1)
    y = nchw().to(memory_format=mg.channels_last)
    for like in (mg.empty_like(y), mg.zeros_like(y), mg.ones_like(y), mg.full_like(y, 2.0), mg.rand_like(y),
                 mg.randn_like(y), mg.randint_like(y, 5), y.clone()):
        assert like.stride() == (60, 1, 15, 3)
    assert mg.zeros_like(y, memory_format=mg.contiguous_format).stride() == (60, 20, 5, 1)
    assert mg.ones_like(nchw(), memory_format=mg.channels_last).stride() == (60, 1, 15, 3)


def test_module_to_lays_out_its_4d_tensors_and_trains_as_before():
    conv, lin = nn.Conv2d(3, 4, 3, dtype=mg.float64), nn.Linear(3, 4, dtype=mg.float64)
    model = nn.Sequential(conv)
    weight = conv.weight
    before = {k: v.clone() for k, v in conv.state_dict().items()}
    assert model.to(memory_format=mg.channels_last) is model
    assert conv.weight is weight and conv.weight.stride() == (27, 1, 9, 3) and not conv.weight.is_contiguous()
    assert all(conv.state_dict()[k].equal(v) for k, v in before.items())
    assert lin.to(memory_format=mg.channels_last).weight.stride() == (3, 1)  # not 4-d: as it was
    opt = mg.optim.Adam(model.parameters(), lr=0.1)
    x = nchw().to(memory_format=mg.channels_last)
    for _ in range(2):
        opt.zero_grad()
        F.relu(model(x)).sum().backward()
        opt.step()
    assert np.isfinite(conv.weight.detach().numpy()).all()
