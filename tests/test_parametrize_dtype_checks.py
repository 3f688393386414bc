"""``register_parametrization``'s checks on what ``right_inverse`` gives, and pickling, as PyTorch's.

Before: assigning ``module.weight = value`` of another dtype (float64 to a float32 weight) was
silently cast by ``.to(original.dtype)`` where torch 2.13 raises ``ValueError: The tensor returned by
`right_inverse` has dtype torch.float64 while `original` has dtype torch.float32``; a ``right_inverse``
that changes the dtype at registration raised set_'s RuntimeError (PyTorch: ValueError, with or
without ``unsafe``); a second parametrization whose ``right_inverse`` changes the dtype or shape was
appended unchecked (PyTorch: ValueError unless ``unsafe``); a ``right_inverse`` raising
NotImplementedError at registration propagated (PyTorch skips it); and ``pickle.dumps`` of a
parametrized module raised pickle's "attribute lookup ParametrizedLinear failed" where PyTorch raises
a RuntimeError pointing to ``state_dict()`` (``copy.deepcopy`` still works in both).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import nn
from minigrad_ckpt.nn.utils import parametrize


class Double(nn.Module):
    """X -> 2 X, stored as Y / 2."""

    def forward(self, x):
        return x * 2

    def right_inverse(self, y):
        return y / 2


class Split(nn.Module):
    """(A, B) -> A + B, stored as a quarter and three quarters."""

    def forward(self, a, b):
        return a + b

    def right_inverse(self, y):
        return y * 0.25, y * 0.75


class InverseInFloat64(nn.Module):
    def forward(self, x):
        return x.float()

    def right_inverse(self, y):
        return y.double()


class InverseOfOtherShape(nn.Module):
    def forward(self, x):
        return x

    def right_inverse(self, y):
        return y[:1]


class NoInverseYet(nn.Module):
    def forward(self, x):
        return x * 3

    def right_inverse(self, y):
        raise NotImplementedError


def _linear(device):
    layer = nn.Linear(3, 3, device=device)
    with mg.no_grad():
        layer.weight.copy_(mg.arange(9, dtype=mg.float32, device=device).reshape(3, 3))
    return layer


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("parametrization", [Double, Split])
def test_assigning_another_dtype_is_refused_and_changes_nothing(parametrization, device):
    layer = parametrize.register_parametrization(_linear(device), "weight", parametrization())
    before = layer.weight.numpy().copy()
    with pytest.raises(ValueError, match="dtype"):
        layer.weight = mg.ones(3, 3, dtype=mg.float64, device=device)
    np.testing.assert_array_equal(layer.weight.numpy(), before)
    assert all(t.dtype == mg.float32 for t in layer.parametrizations.weight.parameters())
    layer.weight = mg.ones(3, 3, device=device)  # its own dtype is stored
    np.testing.assert_array_equal(layer.weight.numpy(), np.ones((3, 3), np.float32))


@pytest.mark.parametrize("unsafe", [False, True])
def test_a_right_inverse_changing_the_dtype_is_a_value_error(unsafe):
    layer = _linear("cpu")
    with pytest.raises(ValueError, match="may not change the dtype"):
        parametrize.register_parametrization(layer, "weight", InverseInFloat64(), unsafe=unsafe)
    assert list(layer.state_dict()) == ["weight", "bias"]  # left as it was


@pytest.mark.parametrize("parametrization", [InverseInFloat64, InverseOfOtherShape])
def test_a_second_parametrization_s_right_inverse_is_checked(parametrization):
    layer = parametrize.register_parametrization(_linear("cpu"), "weight", Double())
    with pytest.raises(ValueError, match="right_inverse"):
        parametrize.register_parametrization(layer, "weight", parametrization())
    assert len(layer.parametrizations.weight) == 1
    parametrize.register_parametrization(layer, "weight", parametrization(), unsafe=True)  # unchecked
    assert len(layer.parametrizations.weight) == 2


def test_a_right_inverse_not_implemented_keeps_the_tensor_at_registration():
    layer = parametrize.register_parametrization(_linear("cpu"), "weight", NoInverseYet())
    np.testing.assert_array_equal(layer.parametrizations.weight.original.numpy(),
                                  np.arange(9, dtype=np.float32).reshape(3, 3))
    np.testing.assert_array_equal(layer.weight.numpy(), 3 * np.arange(9, dtype=np.float32).reshape(3, 3))


def test_pickling_a_parametrized_module_points_to_the_state_dict():
    layer = parametrize.register_parametrization(_linear("cpu"), "weight", Double())
    with pytest.raises(RuntimeError, match="state_dict"):
        pickle.dumps(layer)
    twin = copy.deepcopy(layer)  # deep copies still work, and are independent
    with mg.no_grad():
        twin.parametrizations.weight.original.mul_(0)
    # stored as weight / 2 by right_inverse, so still the weight it was given
    np.testing.assert_array_equal(layer.weight.numpy(), np.arange(9, dtype=np.float32).reshape(3, 3))
    assert type(twin).__name__ == "ParametrizedLinear"
    parametrize.remove_parametrizations(layer, "weight")
    assert pickle.loads(pickle.dumps(layer)).weight.shape == (3, 3)  # a plain Linear again pickles
