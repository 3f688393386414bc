"""Subtraction with a bool operand is PyTorch's RuntimeError, in every spelling.

torch 2.13: ``f - True``, ``True - f``, ``mask - 1``, ``f.sub(True)``, ``torch.rsub(f, True)``
raise "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to
invert a mask, use the `~` or `logical_not()` operator instead."; the engine answered NumPy's
arithmetic on ``True`` as 1 (``mask - 1`` an int64 tensor of 0s and -1s), silently.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

F = [1.5, -2.0]
B = [True, False]

SPELLINGS = {
    "float - True": lambda f, b: f - True,
    "True - float": lambda f, b: True - f,
    "mask - 1": lambda f, b: b - 1,
    "1 - mask": lambda f, b: 1 - b,
    "float - mask": lambda f, b: f - b,
    "sub method": lambda f, b: f.sub(True),
    "subtract": lambda f, b: mg.subtract(b, 1),
    "rsub": lambda f, b: mg.rsub(f, True),
    "sub alpha": lambda f, b: f.sub(b, alpha=2),
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_bool_operand_of_subtraction_is_refused(spelling):
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        SPELLINGS[spelling](mg.tensor(F), mg.tensor(B))


def test_other_subtractions_and_mask_inversion_still_answer():
    f, i = mg.tensor(F, requires_grad=True), mg.tensor([3, 1])
    assert (f - 1).tolist() == [0.5, -3.0] and (1 - f).tolist() == [-0.5, 3.0]
    assert (i - 1).tolist() == [2, 0] and (2 - i).tolist() == [-1, 1] and (f - i).dtype == mg.float32
    assert (~mg.tensor(B)).tolist() == [False, True]
    (f - f.detach() * 2).sum().backward()
    assert f.grad.tolist() == [1.0, 1.0]
