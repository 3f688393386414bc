"""``add``/``sub`` of two integral operands with a float ``alpha`` is PyTorch's RuntimeError.

torch 2.13: ``tensor([1, 2]).add(2, alpha=0.5)`` raises "For integral input tensors, argument
alpha must not be a floating point number."; the engine answered a float32 tensor ``[2.0, 3.0]``
(NumPy's promotion of ``0.5 * 2``), silently changing the result's dtype and value.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

SPELLINGS = {
    "method add": lambda i: i.add(2, alpha=0.5),
    "function add": lambda i: mg.add(i, i, alpha=0.5),
    "method sub": lambda i: i.sub(i, alpha=1.5),
    "function subtract": lambda i: mg.subtract(i, 3, alpha=-0.5),
    "bool": lambda i: mg.tensor([True]).add(mg.tensor([True]), alpha=2.0),
}


@pytest.mark.parametrize("dtype", ["int64", "uint8"])
@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_float_alpha_beside_integers_is_refused(spelling, dtype):
    i = mg.tensor([1, 2], dtype=dtype)
    with pytest.raises(RuntimeError, match="argument alpha must not be a floating point number"):
        SPELLINGS[spelling](i)
    assert i.tolist() == [1, 2]


def test_in_place_it_is_refused_too():
    i = mg.tensor([1, 2])
    with pytest.raises(RuntimeError):       # the in-place rule's message: the float result can't be cast
        i.add_(2, alpha=0.5)
    assert i.tolist() == [1, 2]


def test_an_integer_alpha_or_a_float_operand_still_answers_as_pytorch():
    i = mg.tensor([1, 2])
    assert i.add(2, alpha=3).tolist() == [7, 8] and i.add(2, alpha=3).dtype == mg.int64
    assert i.add(2.5, alpha=2).tolist() == [6.0, 7.0] and i.add(2.5, alpha=2).dtype == mg.float32
    f = mg.tensor([1.5, 2.0], requires_grad=True)
    out = f.add(mg.tensor([2, 4]), alpha=0.5)
    assert out.tolist() == [2.5, 4.0] and out.dtype == mg.float32
    out.sum().backward()
    assert f.grad.tolist() == [1.0, 1.0]
