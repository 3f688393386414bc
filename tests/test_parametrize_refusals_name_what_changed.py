"""``register_parametrization``'s refusals say what changed in PyTorch's words -- the dtype (checked
first) or the shape, each its own message, with the two values on lines of their own -- where the
engine said "may not change the shape or dtype" for both, so a handler matching PyTorch's message
("may not change the dtype") missed it. Found running PyTorch's test/nn/test_parametrization.py
(``test_errors_unparametrized_tensor_parametrization``, ``test_errors_parametrized_tensor_parametrization``,
``test_register_and_remove_parametrization``) against the engine."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

nn = mg.nn
P = mg.nn.utils.parametrize


class Identity(nn.Module):
    def forward(self, x: mg.Tensor) -> mg.Tensor:
        return x


class ToBool(nn.Module):
    def forward(self, x: mg.Tensor) -> mg.Tensor:
        return x.bool()


class DropRow(nn.Module):
    def forward(self, x: mg.Tensor) -> mg.Tensor:
        return x[:-1]


class BoolAndShorter(nn.Module):
    def forward(self, x: mg.Tensor) -> mg.Tensor:
        return x[:-1].bool()


class InverseDropsRow(Identity):
    def right_inverse(self, x: mg.Tensor) -> mg.Tensor:
        return x[:-1]


class InverseToBool(Identity):
    def right_inverse(self, x: mg.Tensor) -> mg.Tensor:
        return x.bool()


class InverseOfTwo(Identity):
    def right_inverse(self, x: mg.Tensor) -> tuple:
        return x, x


FIRST = [  # a tensor not parametrized yet
    (ToBool, "Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag is "
             "enabled.\nunparametrized dtype: float32\nparametrized dtype: bool"),
    (DropRow, "Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag is "
              "enabled.\nunparametrized shape: (4, 3)\nparametrized shape: (3, 3)"),
    (BoolAndShorter, "may not change the dtype of the tensor"),
]
APPENDED = [  # a second parametrization on the chain
    (ToBool, "Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` flag is "
             "enabled.\nmodule.weight.dtype: float32\nparametrization(module.weight).dtype: bool"),
    (DropRow, "Registering a parametrization may not change the shape of the tensor, unless the `unsafe` flag is "
              "enabled.\nmodule.weight.shape: (4, 3)\nparametrization(module.weight).shape: (3, 3)"),
    (InverseToBool, "The tensor returned by parametrization.right_inverse must have the same dtype as "
                    "module.weight, unless the `unsafe` flag is enabled.\nmodule.weight.dtype: float32\n"
                    "returned dtype: bool"),
    (InverseDropsRow, "The tensor returned by parametrization.right_inverse must have the same shape as "
                      "module.weight, unless the `unsafe` flag is enabled.\nmodule.weight.shape: (4, 3)\n"
                      "returned shape: (3, 3)"),
    (InverseOfTwo, "parametrization.right_inverse must return a tensor. Got: tuple"),
]


@pytest.mark.parametrize("parametrization, words", FIRST)
def test_the_first_parametrization(parametrization: type, words: str) -> None:
    m = nn.Linear(3, 4)
    with pytest.raises(ValueError) as caught:
        P.register_parametrization(m, "weight", parametrization())
    assert words in str(caught.value) and not P.is_parametrized(m)


@pytest.mark.parametrize("parametrization, words", APPENDED)
def test_a_parametrization_appended(parametrization: type, words: str) -> None:
    m = nn.Linear(3, 4)
    P.register_parametrization(m, "weight", Identity())
    with pytest.raises(ValueError) as caught:
        P.register_parametrization(m, "weight", parametrization())
    assert str(caught.value) == words
    assert len(m.parametrizations.weight) == 1  # the chain as it was


def test_unsafe_still_skips_the_checks() -> None:
    m = nn.Linear(3, 4)
    P.register_parametrization(m, "weight", DropRow(), unsafe=True)
    assert m.weight.shape == (3, 3)
