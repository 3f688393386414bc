"""Reflect padding with a negative width on one side mirrors about the *uncropped* input's edges.

PyTorch's reflection kernels index the input as it is and crop afterwards, so the reflection on one
side may show elements that the other side's negative width crops away: ``F.pad(0 1 2 3 4, (-2, 3),
"reflect")`` is ``2 3 4 3 2 1``.  The engine cropped first and then refused ("reflect padding (0, 3)
must be less than the dim's length 3").  Values from torch 2.13.
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt import nn
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)


@pytest.mark.parametrize("widths, want", [
    ((-2, 3), [2, 3, 4, 3, 2, 1]),
    ((-3, 2), [3, 4, 3, 2]),
    ((-4, 4), [4, 3, 2, 1, 0]),
    ((3, -5), [3, 2, 1]),
    ((-1, 2), [1, 2, 3, 4, 3, 2]),  # these two never reach the cropped side: as before
    ((2, -1), [2, 1, 0, 1, 2, 3]),
])
def test_a_reflection_may_reach_what_the_other_side_crops(widths, want):
    x = mg.arange(5.0).reshape(1, 1, 5)
    assert F.pad(x, widths, mode="reflect").numpy().ravel().tolist() == want
    assert nn.ReflectionPad1d(widths)(x.reshape(1, 5)).numpy().ravel().tolist() == want


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_two_dims_values_and_gradient_match_torch(device, dtype):
    x = mg.arange(12, dtype=dtype, device=device).reshape(1, 1, 3, 4).requires_grad_()
    y = F.pad(x, (-2, 3, 2, -1), mode="reflect")
    assert y.dtype == dtype
    np.testing.assert_array_equal(y.numpy()[0, 0], [[10, 11, 10, 9, 8], [6, 7, 6, 5, 4], [2, 3, 2, 1, 0],
                                                    [6, 7, 6, 5, 4]])
    y.backward(mg.arange(20, dtype=dtype, device=device).reshape(y.shape))
    # each input element's gradient: the sum of the upstream values at its copies (torch's x.grad)
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [[14, 13, 22, 11], [28, 26, 44, 22], [4, 3, 2, 1]])


def test_a_width_at_or_past_the_uncropped_length_is_still_refused():
    with pytest.raises((ValueError, RuntimeError)):
        F.pad(mg.arange(5.0).reshape(1, 1, 5), (5, -1), mode="reflect")
    with pytest.raises((ValueError, RuntimeError)):
        F.pad(mg.arange(5.0).reshape(1, 1, 5), (-3, -3), mode="reflect")
