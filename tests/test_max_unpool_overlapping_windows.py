"""``max_unpool1d``/``2d``/``3d`` after pools with overlapping windows (kernel 3, stride 1): one
position appears in several windows' indices.  A design choice (docs/from-pytorch.md): the write
that stands -- the last, as PyTorch 2.13's with one thread -- gets the gradient, the others 0, so
``max_unpool(max_pool(x))``'s gradient is its derivative, 1 at each maximum.  PyTorch's backward
gathers the gradient into every write: a maximum that k windows picked gets k (torch 2.13:
``x.grad[..., 2, 2] == 4`` for a 4x4 plane whose maximum sits in the middle of four 3x3 windows).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

F = mg.nn.functional
POOLS = {1: (F.max_pool1d, F.max_unpool1d), 2: (F.max_pool2d, F.max_unpool2d), 3: (F.max_pool3d, F.max_unpool3d)}
SEAMS = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


def _plane(spatial):
    """A maximum in the middle, picked by every 3-wide window over it (2 per axis)."""
    x = np.arange(4 ** spatial, dtype=np.float64).reshape((1, 1) + (4,) * spatial) / 100
    x[(0, 0) + (1,) * spatial] = 10.0
    return x


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("spatial", [1, 2, 3])
@pytest.mark.parametrize("checkpointed", [False, True])
@pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")  # (a tiny stretch)
def test_pool_then_unpool_has_its_derivative(spatial, device, dtype, checkpointed):
    pool, unpool = POOLS[spatial]
    x = mg.tensor(_plane(spatial), dtype=dtype, device=device, requires_grad=True)

    def roundtrip(x):
        y, idx = pool(x, 3, stride=1, return_indices=True)
        return unpool(y, idx, 3, stride=1)
    z = mg.checkpoint.checkpoint(roundtrip, x, use_reentrant=False) if checkpointed else roundtrip(x)
    z.sum().backward()
    want = np.zeros(x.shape)
    want[(0, 0) + (1,) * spatial] = 1.0  # the one position every window picked: once, not 2 ** spatial times
    np.testing.assert_array_equal(x.grad.cpu().numpy(), want)
    assert x.grad.dtype == dtype


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_the_last_write_stands_and_takes_the_gradient(device, dtype):
    v = mg.tensor([[[1.0, 2.0, 3.0]]], dtype=dtype, device=device, requires_grad=True)
    out = F.max_unpool1d(v, mg.tensor([[[1, 1, 1]]], device=device), 3, stride=1)
    np.testing.assert_array_equal(out.cpu().numpy(), [[[0, 3, 0, 0, 0]]])  # torch 2.13, one thread: the same
    out.backward(mg.tensor([[[5.0, 7.0, 9.0, 11.0, 13.0]]], dtype=dtype, device=device))
    np.testing.assert_array_equal(v.grad.cpu().numpy(), [[[0, 0, 7]]])  # torch: [[[7, 7, 7]]]
