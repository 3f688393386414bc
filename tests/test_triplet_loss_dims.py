"""``triplet_margin_loss`` and ``triplet_margin_with_distance_loss`` refuse an anchor, positive and
negative of different numbers of dimensions, as PyTorch's (torch 2.13: RuntimeError, its words
below).  The engine broadcast them: a (3, 4) positive beside (2, 3, 4) anchors compared every
anchor batch with the one positive batch and answered a number."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

X = np.random.default_rng(0).standard_normal((2, 3, 4))


@pytest.mark.parametrize("loss", [F.triplet_margin_loss, F.triplet_margin_with_distance_loss,
                                  lambda a, p, n: mg.nn.TripletMarginLoss(swap=True)(a, p, n)])
@pytest.mark.parametrize("shapes, words", [
    ((X, X[0], X), "anchor 3D, positive 2D, and negative 3D inputs"),
    ((X[0], X[0], X[0, 0]), "anchor 2D, positive 2D, and negative 1D inputs"),
])
def test_different_numbers_of_dimensions_are_refused(loss, shapes, words):
    with pytest.raises(RuntimeError) as caught:
        loss(*(mg.tensor(s) for s in shapes))
    assert str(caught.value) == ("The anchor, positive, and negative tensors are expected to have the same number "
                                 f"of dimensions, but got: {words}")


def test_one_number_of_dimensions_is_taken():
    a = mg.tensor(X[0], requires_grad=True)
    F.triplet_margin_loss(a, mg.tensor(X[1]), mg.tensor(X[1] * 0.5)).backward()
    assert a.grad.shape == (3, 4)
