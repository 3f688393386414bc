"""``nn.Embedding`` and ``nn.EmbeddingBag`` read their two lengths as PyTorch does: integers (a
NumPy integer, a one-element integer tensor), and a float is a TypeError -- torch 2.13's
``Embedding(5.0, 3)`` is "empty(): argument 'size' ... must be tuple of ints".  Here ``int()``
truncated it, so ``Embedding(vocab / 2, 8)`` with an odd vocab silently had a row fewer.  Found
while checking the float channel counts of kuangliu/pytorch-cifar's ShuffleNet against each
module's constructor (``Linear``, ``Conv*``, the norms and the recurrent layers already refused)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("cls", [mg.nn.Embedding, mg.nn.EmbeddingBag], ids=lambda c: c.__name__)
@pytest.mark.parametrize("sizes", [(5.0, 3), (5, 3.0), (5.5, 3), (np.float64(5), 3)], ids=repr)
def test_a_float_length_is_refused(cls, sizes):
    with pytest.raises(TypeError, match=r"must be int, not (float|float64)"):
        cls(*sizes)


@pytest.mark.parametrize("cls", [mg.nn.Embedding, mg.nn.EmbeddingBag], ids=lambda c: c.__name__)
def test_integer_kinds_are_lengths(cls):
    table = cls(np.int64(4), mg.tensor(3))
    assert table.weight.shape == (4, 3) and type(table.num_embeddings) is int and type(table.embedding_dim) is int
