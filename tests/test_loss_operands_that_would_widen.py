"""Loss operands that PyTorch refuses because they would widen the loss, refused here too.

PyTorch's kernels of ``binary_cross_entropy`` (its ``weight``), ``binary_cross_entropy_with_logits``
(``weight``, ``pos_weight``) and ``soft_margin_loss`` (its ``target``) write the loss into a buffer of
the input's shape, so an operand that broadcasts to a *wider* shape is PyTorch's RuntimeError
("output with shape [3, 4] doesn't match the broadcast shape [2, 3, 4]").  Here those losses broadcast
it: a (2, 3, 4) weight beside a (3, 4) input gave a (2, 3, 4) unreduced loss and a sum counted twice,
silently.  ``multi_margin_loss`` took a ``weight`` of any size that its targets could index (5 weights
for 6 classes) and a 2-D one; PyTorch refuses both ("weight must be one-dimensional", "inconsistent
weight size, expected 6 but got [5]").  Found by running the same losses on torch 2.13 and here.
Operands that broadcast to the input's shape keep working.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

X = np.linspace(-1.5, 1.5, 12).reshape(3, 4)
P = np.linspace(0.1, 0.9, 12).reshape(3, 4)
Q = np.linspace(0.0, 1.0, 12).reshape(3, 4)
WIDER = [(2, 3, 4), (5, 1, 1), (1, 3, 4), (3, 3, 1)]
FITTING = [(3, 4), (4,), (3, 1), (), (1, 4)]


def _losses(shape):
    w = mg.tensor(np.full(shape, 2.0))
    return {
        "bce weight": lambda r: F.binary_cross_entropy(mg.tensor(P), mg.tensor(Q), weight=w, reduction=r),
        "bce_with_logits weight": lambda r: F.binary_cross_entropy_with_logits(
            mg.tensor(X), mg.tensor(Q), weight=w, reduction=r),
        "bce_with_logits pos_weight": lambda r: F.binary_cross_entropy_with_logits(
            mg.tensor(X), mg.tensor(Q), pos_weight=w, reduction=r),
        "soft_margin target": lambda r: F.soft_margin_loss(mg.tensor(X), mg.tensor(np.sign(np.full(shape, -1.0))),
                                                           reduction=r),
    }


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("shape", WIDER)
@pytest.mark.parametrize("name", list(_losses(())))
def test_an_operand_wider_than_the_input_is_refused(name, shape, reduction):
    wide = list(np.broadcast_shapes((3, 4), shape))
    message = f"output with shape [3, 4] doesn't match the broadcast shape {wide}"
    with pytest.raises(RuntimeError, match=re.escape(message)):
        _losses(shape)[name](reduction)


@pytest.mark.parametrize("shape", FITTING)
@pytest.mark.parametrize("name", list(_losses(())))
def test_an_operand_that_broadcasts_to_the_input_still_works(name, shape):
    loss = _losses(shape)[name]("none")
    assert loss.shape == (3, 4)
    full = _losses((3, 4))[name]("none")  # the same values written out at the input's shape
    np.testing.assert_allclose(loss.numpy(), full.numpy())


def test_soft_margin_with_a_column_input_and_a_row_target():
    # torch 2.13: F.soft_margin_loss(torch.full((3, 1), 0.5), torch.ones(3)) -> RuntimeError
    with pytest.raises(RuntimeError, match=r"output with shape \[3, 1\] doesn't match the broadcast shape \[3, 3\]"):
        F.soft_margin_loss(mg.full((3, 1), 0.5, requires_grad=True), mg.ones(3))


def test_soft_margin_gradient_with_a_target_row_broadcast_to_the_input():
    x = mg.tensor(X, requires_grad=True)
    y = np.array([1.0, -1.0, 1.0, -1.0])
    F.soft_margin_loss(x, mg.tensor(y), reduction="sum").backward()
    np.testing.assert_allclose(x.grad.numpy(), -y / (1 + np.exp(y * X)), rtol=1e-12)


@pytest.mark.parametrize("weight, error, message", [
    (np.ones(5), RuntimeError, r"inconsistent weight size, expected 6 but got \[5\]"),
    (np.ones(7), RuntimeError, r"inconsistent weight size, expected 6 but got \[7\]"),
    (np.ones((1, 6)), ValueError, "weight must be one-dimensional"),
    (np.ones((6, 1)), ValueError, "weight must be one-dimensional"),
    (np.array(1.0), ValueError, "weight must be one-dimensional"),
])
def test_multi_margin_loss_refuses_a_weight_not_one_per_class(weight, error, message):
    x = mg.tensor(np.linspace(-1.0, 1.0, 24).reshape(4, 6))
    with pytest.raises(error, match=message):
        F.multi_margin_loss(x, mg.tensor([0, 1, 2, 3]), weight=mg.tensor(weight))
    with pytest.raises(error, match=message):
        mg.nn.MultiMarginLoss(weight=mg.tensor(weight))(x, mg.tensor([0, 1, 2, 3]))


def test_multi_margin_loss_with_one_weight_per_class_still_weighs_by_the_target():
    x = mg.tensor([[0.1, 0.2, 0.4, 0.8]])
    w = mg.tensor([1.0, 2.0, 3.0, 4.0])
    # torch 2.13: F.multi_margin_loss(x, torch.tensor([3]), weight=w) == 4 * 0.325
    np.testing.assert_allclose(F.multi_margin_loss(x, mg.tensor([3]), weight=w).item(), 1.3, rtol=1e-6)
