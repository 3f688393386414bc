"""An average pool of a channels-last (N, C, H, W) input returns a channels-last result, as PyTorch's
(its channels-last kernels; the channels_last tutorial checks ``is_contiguous(memory_format=
torch.channels_last)`` along a network): ``avg_pool2d``, ``lp_pool2d`` (an average of powers) and
``adaptive_avg_pool2d`` with even and uneven windows.  Before, all four returned a row-major result.
The values and gradients are the row-major input's, bit for bit: only the layout is copied.  A
row-major input keeps a row-major result.  (Uneven adaptive windows are means of slices of the input as
it lies, so there the two layouts add in another order and agree to round-off, as before.)  The strides
are torch 2.13's."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

POOLS = {
    "avg_pool2d": lambda x: F.avg_pool2d(x, 2),
    "avg_pool2d_padded": lambda x: F.avg_pool2d(x, 3, 2, 1),
    "lp_pool2d": lambda x: F.lp_pool2d(x, 2, 2),
    "adaptive_avg_pool2d_even": lambda x: F.adaptive_avg_pool2d(x, 4),
    "adaptive_avg_pool2d_uneven": lambda x: F.adaptive_avg_pool2d(x, 3),
}
STRIDES = {"avg_pool2d": (64, 1, 16, 4), "avg_pool2d_padded": (64, 1, 16, 4), "lp_pool2d": (64, 1, 16, 4),
           "adaptive_avg_pool2d_even": (64, 1, 16, 4), "adaptive_avg_pool2d_uneven": (36, 1, 12, 4)}


def same(a, b, name):
    if name.endswith("uneven"):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    else:
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def images(device, dtype):
    return mg.tensor(np.random.RandomState(0).rand(2, 4, 8, 8), dtype=dtype, device=device)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", sorted(POOLS))
def test_a_channels_last_input_gives_a_channels_last_result_with_the_same_bits(name, dtype, device):
    pool = POOLS[name]
    x = images(device, dtype).requires_grad_()
    xl = x.detach().to(memory_format=mg.channels_last).requires_grad_()
    out, out_l = pool(x), pool(xl)
    assert out.is_contiguous() and not out.is_contiguous(memory_format=mg.channels_last)
    assert out_l.stride() == STRIDES[name] and out_l.is_contiguous(memory_format=mg.channels_last)
    assert not out_l.is_contiguous()
    same(out_l, out, name)
    g = mg.tensor(np.random.RandomState(1).rand(*out.shape), dtype=dtype, device=device)
    out.backward(g)
    out_l.backward(g)
    same(xl.grad, x.grad, name)
    assert xl.grad.is_contiguous(memory_format=mg.channels_last)  # the leaf's layout, as before


@pytest.mark.parametrize("name", sorted(POOLS))
def test_the_layout_holds_in_forward_mode_and_inside_a_checkpoint(name):
    pool = POOLS[name]
    x = images("cpu", mg.float64).to(memory_format=mg.channels_last)
    out, tangent = mg.func.jvp(pool, (x,), (mg.ones_like(x),))
    assert out.is_contiguous(memory_format=mg.channels_last)
    same(out, pool(x.contiguous()), name)
    xl = x.detach().requires_grad_()
    y = mg.checkpoint.checkpoint(pool, xl, use_reentrant=False)
    assert y.is_contiguous(memory_format=mg.channels_last)
    y.sum().backward()
    ref = x.contiguous().requires_grad_()
    pool(ref).sum().backward()
    same(xl.grad, ref.grad, name)


def test_an_unbatched_input_keeps_its_shape():
    x = images("cpu", mg.float64)[0]
    assert F.avg_pool2d(x, 2).shape == (4, 4, 4)
