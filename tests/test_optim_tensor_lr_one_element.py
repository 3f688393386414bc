"""Every optimizer refuses a tensor ``lr`` of more than one element first, in PyTorch's words ("Tensor lr
must be 1-element", a ``ValueError``), as torch's ``optim_db`` error inputs expect of each of them.  Only
Adam, AdamW and Adafactor did; the others reached their range check (``lr >= 0``) with the two-element
tensor and failed as an ambiguous truth value, a message that names no lr.  Found by running torch 2.13's
``optim_error_inputs_func`` of each OptimizerInfo against mg's optimizers."""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import optim

NAMES = ["SGD", "Adam", "AdamW", "Adadelta", "Adagrad", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop", "Rprop",
         "LBFGS", "Adafactor"]


@pytest.mark.parametrize("name", NAMES)
def test_a_two_element_tensor_lr_is_refused_by_name(name):
    p = mg.zeros(3, requires_grad=True)
    with pytest.raises(ValueError, match="^Tensor lr must be 1-element$"):
        getattr(optim, name)([p], lr=mg.tensor([0.001, 0.001]))


@pytest.mark.parametrize("name", NAMES)
def test_a_one_element_tensor_lr_of_any_shape_is_taken(name):
    p = mg.zeros(3, requires_grad=True)
    getattr(optim, name)([p], lr=mg.tensor([[0.001]]))
