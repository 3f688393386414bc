"""A max pool of a channels-last input returns channels-last results, as PyTorch's (found running its
test/nn/test_pooling.py -- test_max_unpool2d_nhwc_cpu, test_max_pool2d_nhwc, test_max_pool3d_ndhwc,
test_adaptive_pooling_max_nhwc -- against the engine): ``max_pool2d``'s values and indices,
``adaptive_max_pool2d``'s values and indices, ``max_unpool2d``'s result (laid out as its input) and
``max_pool3d``'s values and indices (channels-last-3d).  Before, the indices, the adaptive pool and
the unpool answered row-major, and so did ``max_pool2d``'s values for most shapes.  PyTorch's
``adaptive_max_pool3d`` and ``max_unpool3d`` answer row-major, and so do these.  The strides are
torch 2.13's; the values and gradients are the row-major input's."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

CASES = [  # (input shape, max_pool2d args, strides of: values, indices, adaptive (3) values, indices, unpool)
    ((2, 10, 9, 9), (3, 2), [(160, 1, 40, 10)] * 2 + [(90, 1, 30, 10)] * 2 + [(810, 1, 90, 10)]),
    ((2, 3, 8, 8), (2, 2), [(48, 1, 12, 3)] * 2 + [(27, 1, 9, 3)] * 2 + [(192, 1, 24, 3)]),
    ((3, 5, 6, 6), (2, 1, 1), [(245, 1, 35, 5)] * 2 + [(45, 1, 15, 5)] * 2 + [(180, 1, 30, 5)]),
]


@pytest.mark.parametrize("shape, args, strides", CASES)
def test_2d_max_pools_of_a_channels_last_input_are_channels_last(shape, args, strides):
    data = np.random.RandomState(0).randn(*shape).astype(np.float32)
    x = mg.tensor(data).contiguous(memory_format=mg.channels_last).requires_grad_()
    ref = mg.tensor(data, requires_grad=True)
    out, idx = F.max_pool2d(x, *args, return_indices=True)
    aout, aidx = F.adaptive_max_pool2d(x, 3, return_indices=True)
    up = F.max_unpool2d(out, idx, *args)
    assert [o.stride() for o in (out, idx, aout, aidx, up)] == strides
    r_out, r_idx = F.max_pool2d(ref, *args, return_indices=True)
    r_aout, r_aidx = F.adaptive_max_pool2d(ref, 3, return_indices=True)
    for a, b in ((out, r_out), (idx, r_idx), (aout, r_aout), (aidx, r_aidx)):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert b.is_contiguous()  # a row-major input keeps row-major results
    (up.sum() + aout.sum()).backward()
    (F.max_unpool2d(r_out, r_idx, *args).sum() + r_aout.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), ref.grad.numpy())


def test_3d_max_pool_of_a_channels_last_3d_input():
    data = np.random.RandomState(1).randn(2, 3, 4, 6, 8).astype(np.float32)
    x = mg.tensor(data).contiguous(memory_format=mg.channels_last_3d)
    out, idx = F.max_pool3d(x, 2, return_indices=True)
    assert out.stride() == idx.stride() == (72, 1, 36, 12, 3)
    assert F.max_unpool3d(out, idx, 2).stride() == (576, 192, 48, 8, 1)
    aout, aidx = F.adaptive_max_pool3d(x, 2, return_indices=True)
    assert aout.stride() == aidx.stride() == (24, 8, 4, 2, 1)
    r_out, r_idx = F.max_pool3d(mg.tensor(data), 2, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), r_out.numpy())
    np.testing.assert_array_equal(idx.numpy(), r_idx.numpy())
