"""``nn.TripletMarginWithDistanceLoss(margin=m)`` with ``m <= 0`` is refused by its constructor, as torch
2.13's ValueError; the engine built the layer and refused only at the first call."""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("margin", [0, 0.0, -1])
def test_a_margin_not_above_zero_is_refused_at_construction(margin):
    with pytest.raises(ValueError) as caught:
        mg.nn.TripletMarginWithDistanceLoss(margin=margin)
    want = f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead"  # torch 2.13
    assert str(caught.value) == want


def test_a_small_positive_margin_is_taken():
    assert mg.nn.TripletMarginWithDistanceLoss(margin=1e-9).margin == 1e-9
