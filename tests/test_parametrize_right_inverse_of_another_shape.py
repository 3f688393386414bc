"""A parametrization whose ``right_inverse`` stores the tensor in another shape (a flattened
matrix that ``forward`` reshapes back) is registered without ``unsafe``, as PyTorch's: PyTorch
checks that the *parametrized* tensor keeps the registered one's shape and dtype, not what is
stored.  The engine compared the parametrized tensor with the original after ``right_inverse``'s
value had replaced it ('(9,) float32 became (3, 3) float32').

Fixtures made offline with torch 2.13 (the same lines with ``torch`` for ``mg``)."""

from __future__ import annotations

import copy

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)
from minigrad_ckpt.nn.utils import parametrize


class Flat(mg.nn.Module):
    def forward(self, x):
        return x.reshape(3, 3)

    def right_inverse(self, x):
        return x.reshape(-1)


class Double(mg.nn.Module):
    def forward(self, x):
        return x * 2

    def right_inverse(self, x):
        return x / 2


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_flattened_original_registers_and_assigns(device):
    m = mg.nn.Linear(3, 3, device=device)
    m.weight.data = mg.arange(9.0, device=device).reshape(3, 3)
    parametrize.register_parametrization(m, "weight", Flat())
    assert m.parametrizations.weight.original.shape == (9,)
    assert m.weight.tolist() == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    parametrize.register_parametrization(m, "weight", Double())  # a second one, checked on (3, 3) too
    assert m.weight.tolist() == [[0, 2, 4], [6, 8, 10], [12, 14, 16]]
    m.weight = mg.ones(3, 3, device=device)
    assert m.weight.tolist() == [[1.0] * 3] * 3 and m.parametrizations.weight.original.tolist() == [0.5] * 9
    assert copy.deepcopy(m).weight.tolist() == [[1.0] * 3] * 3


def test_a_forward_that_changes_the_registered_shape_is_still_refused():
    class Rows(mg.nn.Module):
        def forward(self, x):
            return x[:2]

    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(mg.nn.Linear(3, 3), "weight", Rows())
    parametrize.register_parametrization(mg.nn.Linear(3, 3), "weight", Rows(), unsafe=True)
