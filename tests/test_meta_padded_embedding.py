"""A model with a padded embedding builds on the meta device, as PyTorch's does (deferred
initialization: ``with mg.device("meta"): model = Net()``, then ``to_empty`` and
``reset_parameters``).  ``reset_parameters`` zeroed the padding row by an indexed write, which the
meta device refuses, so construction itself raised NotImplementedError (found by a probe of the
meta device against the CPU)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn


@pytest.mark.parametrize("layer", [nn.Embedding, nn.EmbeddingBag])
def test_a_padded_table_builds_on_meta_and_initializes_as_on_the_cpu(layer):
    with mg.device("meta"):
        meta = layer(6, 3, padding_idx=2)
    assert meta.weight.device.type == "meta" and meta.weight.shape == (6, 3)
    mg.manual_seed(0)
    cpu = layer(6, 3, padding_idx=2)
    built = meta.to_empty(device="cpu")
    mg.manual_seed(0)
    built.reset_parameters()
    np.testing.assert_array_equal(built.weight.detach().numpy(), cpu.weight.detach().numpy())
    assert not built.weight.detach().numpy()[2].any()
