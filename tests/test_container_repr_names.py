"""A ``ModuleList`` subclass prints under its own name, as PyTorch's (``self._get_name()``): a
parametrized layer's ``ParametrizationList`` (the parametrizations tutorial's ``print(layer)``) and a
user's ``class Blocks(nn.ModuleList)`` printed as ``ModuleList(...)``.  torch 2.13, on the same
programs: ``ParametrizationList(\\n  (0): Symmetric()\\n)``, ``Blocks(...)``, ``Blocks()`` when empty."""

from __future__ import annotations

import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.utils.parametrize as parametrize


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class Blocks(nn.ModuleList):
    pass


def test_a_parametrized_layer_prints_its_parametrization_list():
    layer = nn.Linear(3, 3)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    assert repr(layer.parametrizations.weight) == "ParametrizationList(\n  (0): Symmetric()\n)"
    assert repr(layer) == ("ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n"
                           "  (parametrizations): ModuleDict(\n    (weight): ParametrizationList(\n"
                           "      (0): Symmetric()\n    )\n  )\n)")


def test_a_module_list_subclass_prints_its_own_name():
    assert repr(Blocks([nn.ReLU(), nn.ReLU(), nn.Tanh()])) == "Blocks(\n  (0-1): 2 x ReLU()\n  (2): Tanh()\n)"
    assert repr(Blocks()) == "Blocks()"
    assert repr(nn.ModuleList([nn.ReLU()])) == "ModuleList(\n  (0): ReLU()\n)"
