"""Shapes that do not broadcast raise PyTorch's ``RuntimeError`` with its message, and stay the
``ValueError`` NumPy raised before (so handlers of either catch them).

``mg.ones(3, 4) * mg.ones(3)`` raised NumPy's bare ValueError ('operands could not be broadcast
together'); torch 2.13 raises ``RuntimeError: The size of tensor a (4) must match the size of tensor
b (3) at non-singleton dimension 1``. The messages below are torch's on the same shapes.
"""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

CASES = [
    ((3, 4), (3,), "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"),
    ((2, 3), (4, 3), "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0"),
    ((5, 1, 4), (3, 2), "The size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 2"),
    ((2,), (3,), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
]


@pytest.mark.parametrize("a, b, message", CASES)
@pytest.mark.parametrize("op", ["add", "mul", "maximum", "atan2"])
@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_an_unbroadcastable_pair_is_pytorchs_error(a, b, message, op, device, requires_grad):
    x = mg.ones(*a, device=device, requires_grad=requires_grad)
    y = mg.ones(*b, device=device)
    with pytest.raises(RuntimeError) as err:
        getattr(mg, op)(x, y)
    # torch's message, then the shapes (this engine's rule: an error names both)
    assert isinstance(err.value, ValueError) and str(err.value).startswith(message + " (shapes ")


def test_other_value_errors_pass_through_unchanged():
    with pytest.raises(ValueError, match="not aligned") as err:
        mg.ones(3, 4) @ mg.ones(3, 4)
    assert "must match the size" not in str(err.value)  # matmul's own message, not a broadcast one
