"""An adaptive pool's output too large to count is PyTorch's RuntimeError (its
test_adaptive_pooling_size_overflow, test/nn/test_pooling.py: ``AdaptiveMaxPool1d(0x3FFFFFFFFFFFFFFF)``
of a (2, 2, 2) input, "Storage size calculation overflowed with sizes=[2, 2, 1, 4611686018427387903]").
The engine looped over the windows one by one until the machine ran out of memory."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

HUGE = 0x3FFFFFFFFFFFFFFF


@pytest.mark.parametrize("layer, shape", [
    (mg.nn.AdaptiveMaxPool1d, (2, 2, 2)),
    (mg.nn.AdaptiveAvgPool1d, (2, 2, 2)),
    (mg.nn.AdaptiveMaxPool2d, (2, 2, 2, 2)),
    (mg.nn.AdaptiveAvgPool2d, (2, 2, 2, 2)),
    (mg.nn.AdaptiveMaxPool3d, (2, 2, 2, 2, 2)),
    (mg.nn.AdaptiveAvgPool3d, (2, 2, 2, 2, 2)),
])
def test_an_output_too_large_to_count_is_refused(layer, shape):
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        layer(HUGE)(mg.empty(*shape))
