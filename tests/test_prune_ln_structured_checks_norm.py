"""``ln_structured`` with an order ``torch.norm`` refuses over the channel's dims raises even when it
prunes nothing, as PyTorch's (which takes the channel norms before reading the amount).

Before: ``ln_structured(conv, "weight", amount=0, n="fro", dim=0)`` -- 'fro' over a 4-D weight's three
other dims, a matrix norm of three dims -- pruned nothing and gave the pruned form, where torch 2.13
raises ``linalg.matrix_norm: dim must be a 2-tuple`` (and leaves the module as it was); with any
other amount both raised.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import nn
from minigrad_ckpt.nn.utils import prune


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("amount", [0, 0.0, 1])
@pytest.mark.parametrize(("layer", "order"), [(lambda d: nn.Conv2d(2, 3, 3, device=d), "fro"),
                                              (lambda d: nn.Conv2d(2, 3, 3, device=d), "nuc"),
                                              (lambda d: nn.Linear(4, 3, device=d), "nuc")])
def test_an_order_the_norm_refuses_raises_for_every_amount(layer, order, amount, device):
    module = layer(device)
    with pytest.raises((ValueError, RuntimeError)):
        prune.ln_structured(module, "weight", amount=amount, n=order, dim=0)
    # put back as PyTorch does, registered again (so after the bias)
    assert list(module.state_dict()) == ["bias", "weight"] and not prune.is_pruned(module)


@pytest.mark.parametrize("order", [1, 2, float("inf"), "fro"])
def test_pruning_nothing_with_a_valid_order_gives_the_pruned_form(order):
    module = prune.ln_structured(nn.Linear(4, 3), "weight", amount=0, n=order, dim=0)
    assert list(module.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert bool((module.weight_mask == 1).all())
