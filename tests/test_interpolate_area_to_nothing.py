"""``F.interpolate(mode="area")`` to an output size of 0: PyTorch 2.13 computes ``area`` as the adaptive
average pool, which takes a size of 0 and answers an empty axis (``size=0`` on (2, 3, 3) -> (2, 3, 0);
``scale_factor=0.3`` on (2, 3, 5, 4, 3) -> (2, 3, 1, 1, 0)).  The engine refused them with the
interpolating modes' "Input and output sizes should be greater than 0", which stays for those modes, for
a negative size and for an empty input axis.  (PyTorch's backward through the empty result raises;
the engine's gradient is zeros.)"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.nn.functional

# (input shape, interpolate keywords, torch 2.13's output shape)
TO_NOTHING = [
    ((2, 3, 3), dict(size=0), (2, 3, 0)),
    ((2, 3, 3), dict(scale_factor=0.3), (2, 3, 0)),
    ((2, 3, 3, 3), dict(size=(0, 2)), (2, 3, 0, 2)),
    ((2, 3, 4, 4), dict(scale_factor=0.0), (2, 3, 0, 0)),
    ((2, 3, 5, 4, 3), dict(scale_factor=0.3), (2, 3, 1, 1, 0)),
    ((0, 3, 4, 4), dict(size=(0, 3)), (0, 3, 0, 3)),
]


@pytest.mark.parametrize("shape, kwargs, want", TO_NOTHING)
def test_area_answers_an_empty_axis(shape, kwargs, want):
    x = mg.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
    y = F.interpolate(x, mode="area", **kwargs)
    assert y.shape == want and y.dtype == x.dtype and y.is_contiguous()
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(shape))


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "linear"])
def test_the_interpolating_modes_still_refuse_it(mode):
    with pytest.raises(RuntimeError, match="sizes should be greater than 0"):
        F.interpolate(mg.zeros(2, 3, 3), size=0, mode=mode)


@pytest.mark.parametrize("shape, kwargs", [((2, 3, 4), dict(size=-1)), ((2, 3, 0), dict(size=2))])
def test_area_refuses_a_negative_size_and_an_empty_input(shape, kwargs):
    with pytest.raises(RuntimeError):  # torch 2.13: RuntimeError from adaptive_avg_pool2d
        F.interpolate(mg.zeros(*shape), mode="area", **kwargs)
