"""Cross entropy against class probabilities refuses a class ``ignore_index``, as PyTorch: torch 2.13's
``F.cross_entropy(x, probs, ignore_index=2)`` raises ``RuntimeError: ignore_index is not supported for
floating point target`` (for any ``ignore_index >= 0``; a negative one names no class and is accepted).
The engine ignored the argument and answered as if no class were ignored -- silently not what was asked."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.nn.functional
X = mg.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]])
PROBS = mg.tensor([[0.2, 0.5, 0.3], [1.0, 0.0, 0.0]])


@pytest.mark.parametrize("ignore_index", [0, 2, 100])
@pytest.mark.parametrize("spelling", ["F", "nn"])
def test_a_class_ignore_index_is_refused_with_probability_targets(spelling, ignore_index):
    loss = (lambda: F.cross_entropy(X, PROBS, ignore_index=ignore_index)) if spelling == "F" else \
        (lambda: mg.nn.CrossEntropyLoss(ignore_index=ignore_index)(X, PROBS))
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point target"):
        loss()


@pytest.mark.parametrize("ignore_index", [-100, -5])
def test_a_negative_ignore_index_is_accepted(ignore_index):
    # torch: the same value as without ignore_index
    got = F.cross_entropy(X, PROBS, ignore_index=ignore_index, label_smoothing=0.1)
    np.testing.assert_allclose(got.item(), F.cross_entropy(X, PROBS, label_smoothing=0.1).item())


def test_class_index_targets_still_take_ignore_index():
    got = F.cross_entropy(X, mg.tensor([2, 1]), ignore_index=1)
    np.testing.assert_allclose(got.item(), F.cross_entropy(X[:1], mg.tensor([2])).item(), rtol=1e-6)
