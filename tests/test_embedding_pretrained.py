"""``nn.Embedding.from_pretrained`` / ``nn.EmbeddingBag.from_pretrained`` (loading GloVe-style
vectors) and ``nn.init._calculate_fan_in_and_fan_out``: AttributeErrors in ported code before.
Expected behaviour is torch 2.13's: ``torch.nn.Embedding.from_pretrained(w, padding_idx=1)`` has
``w`` itself as its weight (``e.weight.data_ptr() == w.data_ptr()``), ``requires_grad`` False,
the padding row as given; ``freeze=False`` trains it; nothing is drawn from the generator."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn


def test_from_pretrained_shares_the_table_and_is_frozen_by_default():
    w = mg.arange(6.0).reshape(3, 2)
    state = mg.get_rng_state()
    e = nn.Embedding.from_pretrained(w, padding_idx=1)
    assert mg.get_rng_state() == state  # PyTorch draws nothing for a given weight
    assert np.shares_memory(e.weight.numpy(), w.numpy()) and not e.weight.requires_grad
    assert e(mg.tensor([1, 2])).tolist() == [[2.0, 3.0], [4.0, 5.0]]  # the padding row kept as given
    assert repr(e) == "Embedding(3, 2, padding_idx=1)" and list(e.parameters()) == [e.weight]


def test_from_pretrained_trains_with_freeze_false_and_bags_take_their_mode():
    w = mg.tensor(np.arange(6.0).reshape(3, 2))
    bag = nn.EmbeddingBag.from_pretrained(w, freeze=False, mode="sum")
    out = bag(mg.tensor([0, 2, 1]), mg.tensor([0, 2]))
    np.testing.assert_array_equal(out.numpy(), [[4.0, 6.0], [2.0, 3.0]])  # torch: the same sums
    out.sum().backward()
    np.testing.assert_array_equal(bag.weight.grad.numpy(), np.ones((3, 2)))
    e = nn.Embedding.from_pretrained(w, freeze=False, max_norm=1.0)
    assert e.weight.requires_grad and e.max_norm == 1.0
    with pytest.raises(ValueError, match="2-D"):
        nn.Embedding.from_pretrained(mg.zeros(3))


def test_calculate_fan_in_and_fan_out_is_pytorchs():
    assert nn.init._calculate_fan_in_and_fan_out(mg.zeros(4, 3, 2, 2)) == (12, 16)  # torch: (12, 16)
