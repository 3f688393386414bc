"""``EmbeddingBag(scale_grad_by_freq=True)`` stays refused, saying why: torch 2.13's CPU backward
divides the gradient of the k-th distinct id (ascending) by the count of the k-th id of the sorted
input, not by that id's own count (``ids [1, 2, 2, 2, 3]``, one bag, ``mode="sum"``: torch's
``weight.grad`` rows 1, 2, 3 are 1, 1, 1/3; its docs and ``Embedding``'s rule give 1, 1, 1), in
``mode="mean"`` and with ``per_sample_weights`` alike (docs/from-pytorch.md).  The documented
gradient is ``F.embedding(..., scale_grad_by_freq=True)`` reduced over the bags."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.nn.functional


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_the_refusal_says_why(mode):
    w = mg.ones(6, 1, requires_grad=True)
    with pytest.raises(ValueError, match="PyTorch's CPU backward scales a row by another id's count"):
        F.embedding_bag(mg.tensor([1, 2, 2, 2, 3]), w, mg.tensor([0]), mode=mode, scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="EmbeddingBag: scale_grad_by_freq is not supported: PyTorch's"):
        mg.nn.EmbeddingBag(6, 1, mode=mode, scale_grad_by_freq=True)


def test_the_documented_gradient_is_embeddings_reduced_over_the_bags():
    w = mg.ones(6, 1, dtype=mg.float64, requires_grad=True)
    F.embedding(mg.tensor([1, 2, 2, 2, 3]), w, scale_grad_by_freq=True).sum(0).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy().ravel(), [0, 1, 1, 1, 0, 0])
