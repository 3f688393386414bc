"""``parametrize.transfer_parametrizations_and_params``, PyTorch's: it was missing (AttributeError).

The references are structural (torch 2.13 gives the same state dict keys, the same parametrization
objects and shared originals, checked in a probe): the target's tensor is computed from the very
tensors of the source, so the two modules' parametrized values agree and move together.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import nn
from minigrad_ckpt.nn.utils import parametrizations, parametrize


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


def _source(device):
    layer = nn.Linear(4, 4, device=device)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    parametrizations.weight_norm(layer, "bias", dim=0)
    return layer


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("bare", [False, True])
def test_every_parametrization_and_original_is_shared(bare, device):
    source = _source(device)
    target = nn.Module() if bare else nn.Linear(4, 4, device=device)
    assert parametrize.transfer_parametrizations_and_params(source, target) is target
    assert list(target.state_dict()) == ["parametrizations.weight.original", "parametrizations.bias.original0",
                                         "parametrizations.bias.original1"]
    assert target.parametrizations.weight[0] is source.parametrizations.weight[0]
    assert target.parametrizations.weight.original is source.parametrizations.weight.original
    assert target.parametrizations.bias.original1 is source.parametrizations.bias.original1
    with mg.no_grad():
        source.parametrizations.weight.original.mul_(2)
    np.testing.assert_array_equal(target.weight.numpy(), source.weight.numpy())
    np.testing.assert_array_equal(target.bias.numpy(), source.bias.numpy())
    w = target.weight.numpy()
    np.testing.assert_array_equal(w, w.T)


def test_one_name_only_and_an_unparametrized_source():
    source = _source("cpu")
    target = parametrize.transfer_parametrizations_and_params(source, nn.Linear(4, 4), "weight")
    assert parametrize.is_parametrized(target, "weight") and not parametrize.is_parametrized(target, "bias")
    plain = nn.Linear(4, 4)
    assert parametrize.transfer_parametrizations_and_params(nn.Linear(4, 4), plain) is plain
    assert not parametrize.is_parametrized(plain)
