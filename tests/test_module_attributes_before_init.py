"""Plain attributes before ``Module.__init__()``, as PyTorch allows them.

timm's DenseNet sets ``self.num_classes = num_classes`` before ``super().__init__()``; every
assignment before it was refused here. PyTorch refuses only what would be registered -- a
Parameter or a Module (its messages below are torch 2.13's) -- and keeps anything else as a plain
attribute, a tensor too.
"""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn


class Early(nn.Module):
    def __init__(self) -> None:
        self.num_classes = 3
        self.scale = mg.ones(2)  # a plain tensor: an attribute, not a buffer
        super().__init__()
        self.fc = nn.Linear(2, self.num_classes)

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        return self.fc(x * self.scale)


def test_plain_attributes_before_init_are_kept():
    m = Early()
    assert m.num_classes == 3 and m.scale.tolist() == [1.0, 1.0]
    assert list(m.state_dict()) == ["fc.weight", "fc.bias"]
    assert m(mg.ones(4, 2)).shape == (4, 3)


@pytest.mark.parametrize("value, kind", [(nn.Parameter(mg.ones(2)), "parameters"), (nn.Linear(2, 2), "module")])
def test_a_parameter_or_module_before_init_is_pytorchs_error(value, kind):
    class Wrong(nn.Module):
        def __init__(self) -> None:
            self.part = value
            super().__init__()

    with pytest.raises(AttributeError, match=f"cannot assign {kind} .*before Module.__init__\\(\\) call"):
        Wrong()
