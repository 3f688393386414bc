"""``max_unpool{1,2,3}d``'s ``output_size`` is checked as PyTorch checks it: the spatial sizes (or with
(N, C) before them), each one of the sizes the pooling's floor division could have come from --
strictly between the default size minus and plus the stride.  The engine took any sizes (the last
ones of a longer sequence), so ``MaxUnpool2d(2)(y, i, output_size=(9, 9))`` of a pooled 6 x 7 plane
answered a 9 x 9 plane, its values in rows PyTorch would not put them (torch 2.13: ValueError
'invalid output_size "(9, 9)" (dim 0 must be between 4 and 8)'; the messages below are its words)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)
from minigrad_ckpt.nn import functional as F

X = np.random.default_rng(0).standard_normal((1, 2, 6, 7))


def _pooled(device="cpu"):
    return F.max_pool2d(mg.tensor(X, device=device), 2, return_indices=True)


@pytest.mark.parametrize("output_size, message", [
    ((9, 9), 'invalid output_size "(9, 9)" (dim 0 must be between 4 and 8)'),
    ((6, 8), 'invalid output_size "(6, 8)" (dim 1 must be between 4 and 8)'),
    ([4, 7], 'invalid output_size "[4, 7]" (dim 0 must be between 4 and 8)'),
    ((2, 6, 7), "output_size should be a sequence containing 2 or 4 elements, but it has a length of '3'"),
    ((1, 2, 3, 6, 7), "output_size should be a sequence containing 2 or 4 elements, but it has a length of '5'"),
])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_an_output_size_pooling_could_not_have_come_from_is_pytorchs_value_error(output_size, message, device):
    y, i = _pooled(device)
    with pytest.raises(ValueError) as caught:
        mg.nn.MaxUnpool2d(2)(y, i, output_size=output_size)
    assert str(caught.value) == message


@pytest.mark.parametrize("output_size, shape", [
    ([6, 7], (1, 2, 6, 7)), ((1, 2, 6, 7), (1, 2, 6, 7)), ([7, 6], (1, 2, 7, 6)), (mg.Size([7, 7]), (1, 2, 7, 7)),
])
def test_an_output_size_within_a_stride_is_taken(output_size, shape):
    y, i = _pooled()
    assert mg.nn.MaxUnpool2d(2)(y, i, output_size=output_size).shape == shape


def test_one_and_three_spatial_axes():
    y, i = F.max_pool1d(mg.tensor(X[0]), 3, 2, 1, return_indices=True)
    assert F.max_unpool1d(y, i, 3, 2, 1, output_size=(1, 2, 8)).shape == (2, 6, 8)
    with pytest.raises(ValueError) as caught:
        F.max_unpool1d(y, i, 3, 2, 1, output_size=(5,))
    assert str(caught.value) == 'invalid output_size "(5,)" (dim 0 must be between 5 and 9)'
    y3, i3 = F.max_pool3d(mg.tensor(X[None]), 2, return_indices=True)  # (1, 1, 2, 6, 7) -> (1, 1, 1, 3, 3)
    assert F.max_unpool3d(y3, i3, 2, output_size=(2, 7, 7)).shape == (1, 1, 2, 7, 7)
    with pytest.raises(ValueError) as caught:
        F.max_unpool3d(y3, i3, 2, output_size=(2, 6, 8))
    assert str(caught.value) == 'invalid output_size "(2, 6, 8)" (dim 2 must be between 4 and 8)'
