"""``adaptive_{avg,max}_pool1d`` take one output size (an int or a sequence of one), as PyTorch's:
torch 2.13 refuses ``(2, 3)`` (RuntimeError "adaptive_avg_pool1d() argument 'output_size' should
contain one int (got 2)") and ``None`` (TypeError "... must be tuple of ints, not NoneType"; only the
2-D and 3-D pools keep an axis for None).  The engine pooled to the first of two sizes and kept the
length for None."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

X = mg.tensor(np.random.default_rng(0).standard_normal((2, 6, 7)))


@pytest.mark.parametrize("name", ["adaptive_avg_pool1d", "adaptive_max_pool1d"])
def test_two_sizes_are_refused(name):
    with pytest.raises(RuntimeError) as caught:
        getattr(F, name)(X, (2, 3))
    assert str(caught.value) == f"{name}() argument 'output_size' should contain one int (got 2)"


@pytest.mark.parametrize("layer", [mg.nn.AdaptiveAvgPool1d, mg.nn.AdaptiveMaxPool1d])
def test_none_is_refused(layer):
    with pytest.raises(TypeError, match="must be tuple of ints, not NoneType"):
        layer(None)(X)


@pytest.mark.parametrize("size", [3, (3,), [3], mg.Size([3])])
def test_one_size_is_taken(size):
    assert F.adaptive_avg_pool1d(X, size).shape == (2, 6, 3)
    assert F.adaptive_max_pool1d(X[0], size, return_indices=True)[1].shape == (6, 3)


@pytest.mark.parametrize("name", ["adaptive_avg_pool1d", "adaptive_max_pool1d"])
@pytest.mark.parametrize("size", [(None,), [None]])
def test_none_inside_the_one_size_is_refused(name, size):
    """torch 2.13: the same TypeError for ``(None,)`` and ``[None]``, batched or not (the engine kept the length)."""
    for x in (X, X[0]):
        with pytest.raises(TypeError) as caught:
            getattr(F, name)(x, size)
        assert str(caught.value) == (f"{name}(): argument 'output_size' (position 2) must be tuple of ints, "
                                     "but found element of type NoneType at pos 0")
