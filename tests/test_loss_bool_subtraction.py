"""``F.l1_loss`` and ``F.hinge_embedding_loss`` subtract first (``input - target``, ``margin - input``):
a bool operand there is PyTorch's ``RuntimeError`` in its words, where the engine raised NumPy's
``TypeError`` (``l1_loss`` of two masks), answered (``l1_loss(mask, floats)``) or raised the mean's
refusal (``hinge_embedding_loss`` of a mask).  ``mask - mask`` and ``mask - True`` take PyTorch's
two-bool words too.

Expected messages: torch 2.13 on the same calls (``F.l1_loss(torch.tensor([True, False]), ...)``).
"""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

TWO = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
       "operator instead.")
ONE = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
       "use the `~` or `logical_not()` operator instead.")
DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def _operands(device, dtype):
    mask = mg.tensor([True, False], device=device)
    return mask, mg.ones(2, dtype=dtype, device=device), mg.tensor([1, 0], device=device)


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_loss_of_a_mask_is_pytorchs_subtraction_error(device, dtype, reduction):
    mask, floats, ints = _operands(device, dtype)
    for x, y, message in ((mask, mask, TWO), (mask, floats, ONE), (floats, mask, ONE), (ints, mask, ONE),
                          (mask, ints, ONE)):
        with pytest.raises(RuntimeError) as caught:
            F.l1_loss(x, y, reduction=reduction)
        assert str(caught.value) == message
    assert F.l1_loss(floats, floats, reduction=reduction).dtype == dtype


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_hinge_embedding_loss_of_a_mask_is_pytorchs_subtraction_error(device, dtype, reduction):
    mask, floats, ints = _operands(device, dtype)
    for target in (mask, floats, ints):
        with pytest.raises(RuntimeError) as caught:
            F.hinge_embedding_loss(mask, target, reduction=reduction)
        assert str(caught.value) == TWO
    # a bool target is read as numbers, as PyTorch's (True is not -1: both terms)
    out = F.hinge_embedding_loss(floats, mask, reduction="sum")
    assert out.dtype == dtype and out.item() == 2.0


def test_two_bool_operands_of_a_subtraction_take_pytorchs_two_bool_words():
    mask = mg.tensor([True])
    for call in (lambda: mask - mask, lambda: mask - True, lambda: True - mask, lambda: mg.subtract(mask, mask)):
        with pytest.raises(RuntimeError) as caught:
            call()
        assert str(caught.value) == TWO
    for call in (lambda: mask - 1, lambda: 1 - mask, lambda: mg.subtract(mg.ones(1), mask)):
        with pytest.raises(RuntimeError) as caught:
            call()
        assert str(caught.value) == ONE
