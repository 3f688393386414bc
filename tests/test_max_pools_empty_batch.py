"""The adaptive and fractional max pools of an empty batch (N = 0), as PyTorch's: torch 2.13 answers
an empty (0, C, *output_size) output and indices, and a (0, C, *input) gradient.  The engine crashed
in NumPy ("cannot reshape array of size 0 into shape (0,2,newaxis)"): its reshapes inferred a
length with -1, which an empty array cannot give."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)
from minigrad_ckpt.nn import functional as F

POOLS = {  # name: (input shape, the pool returning (output, indices), output shape)
    "adaptive_max_pool1d": ((0, 2, 5), lambda x: F.adaptive_max_pool1d(x, 3, return_indices=True), (0, 2, 3)),
    "adaptive_max_pool2d": ((0, 2, 5, 5), lambda x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True),
                            (0, 2, 2, 3)),
    "adaptive_max_pool3d": ((0, 2, 5, 4, 3), lambda x: F.adaptive_max_pool3d(x, 2, return_indices=True),
                            (0, 2, 2, 2, 2)),
    "fractional_max_pool2d": ((0, 2, 5, 5), lambda x: F.fractional_max_pool2d(x, 2, output_size=3,
                                                                              return_indices=True), (0, 2, 3, 3)),
    "fractional_max_pool3d": ((0, 2, 5, 5, 5), lambda x: F.fractional_max_pool3d(
        x, 2, output_size=3, return_indices=True, _random_samples=mg.zeros(0, 2, 3)), (0, 2, 3, 3, 3)),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(POOLS))
def test_an_empty_batch_pools_to_an_empty_batch(name, device):
    shape, pool, out_shape = POOLS[name]
    x = mg.zeros(*shape, device=device, requires_grad=True)
    out, idx = pool(x)
    assert out.shape == out_shape and idx.shape == out_shape and idx.dtype == mg.int64
    out.sum().backward()
    assert x.grad.shape == shape


UNPOOLS = {  # spatial dims: (the pool, its unpool, the input shape of an empty batch)
    1: (F.max_pool1d, F.max_unpool1d, (0, 3, 4)),
    2: (F.max_pool2d, F.max_unpool2d, (0, 3, 4, 4)),
    3: (F.max_pool3d, F.max_unpool3d, (0, 3, 4, 4, 4)),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("spatial", sorted(UNPOOLS))
def test_an_empty_batch_unpools_to_an_empty_batch(spatial, device):
    """max_unpool of an empty batch (PyTorch's torch.nn.MaxUnpool*d test of a zero batch dim): torch 2.13
    answers zeros of (0, C, *unpooled) and a zero gradient; the engine's reshape to (rows, -1) raised
    InvalidShape ("cannot infer -1 in (0, -1) from 0 elements")."""
    pool, unpool, shape = UNPOOLS[spatial]
    x = mg.zeros(*shape, device=device, requires_grad=True)
    out, idx = pool(x, 2, return_indices=True)
    up = unpool(out, idx, 2)
    assert up.shape == shape
    up.sum().backward()
    assert x.grad.shape == shape and not x.grad.numpy().any()
