"""``nn.functional`` calls with a mode they have no implementation of for the input raise PyTorch's
``NotImplementedError`` -- and still the ``ValueError`` the engine raised before (torch 2.13's
words in the comments).  A program's ``except NotImplementedError`` written against PyTorch
missed them."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.functional.errors import ModeNotImplemented
from minigrad_ckpt.nn import functional as F

X = mg.tensor(np.random.default_rng(0).standard_normal((1, 2, 6, 7)))

CASES = {
    "bilinear_of_3d": lambda: F.interpolate(X[0], scale_factor=2.0, mode="bilinear"),  # Got 3D input, but ...
    "linear_of_4d": lambda: F.interpolate(X, scale_factor=2.0, mode="linear"),
    "trilinear_of_4d": lambda: F.interpolate(X, scale_factor=2.0, mode="trilinear"),
    "interpolate_2d_input": lambda: F.interpolate(X[0, 0], scale_factor=2.0),  # Input Error: Only 3D, 4D ...
    "interpolate_unknown_mode": lambda: F.interpolate(X, scale_factor=2.0, mode="foo"),
    "pad_unknown_mode": lambda: F.pad(X, (1, 1), mode="foo"),  # Unrecognised padding mode foo
    "embedding_bag_weights_of_a_mean": lambda: F.embedding_bag(  # per_sample_weights was not None. ...
        mg.tensor([[1, 2]]), mg.ones(5, 3), mode="mean", per_sample_weights=mg.ones(1, 2)),
    "embedding_bag_layer_weights_of_a_max": lambda: mg.nn.EmbeddingBag(5, 3, mode="max")(
        mg.tensor([[1, 2]]), per_sample_weights=mg.ones(1, 2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_refusal_is_a_not_implemented_error_and_a_value_error(name):
    with pytest.raises(NotImplementedError) as caught:
        CASES[name]()
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, ModeNotImplemented)
