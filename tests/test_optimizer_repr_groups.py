"""``print(optimizer)`` with two parameter groups is PyTorch's text: a blank line before each group after
the first.  ``mg.optim.SGD([{'params': [w]}, {'params': [b], 'lr': 0.5}], lr=0.1)`` printed
``weight_decay: 0\\nParameter Group 1``; torch 2.13 prints ``weight_decay: 0\\n\\nParameter Group 1``
(its ``__repr__`` opens every group with a newline).  The expected text is torch 2.13's, copied."""

from __future__ import annotations

import minigrad_ckpt as mg

TORCH_TEXT = ("SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
              "    fused: None\n    lr: 0.1\n    maximize: False\n    momentum: 0\n    nesterov: False\n"
              "    weight_decay: 0\n\nParameter Group 1\n    dampening: 0\n    differentiable: False\n"
              "    foreach: None\n    fused: None\n    lr: 0.5\n    maximize: False\n    momentum: 0\n"
              "    nesterov: False\n    weight_decay: 0\n)")


def test_two_groups_print_as_pytorch_prints_them():
    w, b = mg.nn.Parameter(mg.ones(2)), mg.nn.Parameter(mg.ones(1))
    assert repr(mg.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)) == TORCH_TEXT


def test_one_group_prints_as_before():
    w = mg.nn.Parameter(mg.ones(2))
    text = repr(mg.optim.SGD([w], lr=0.1))
    assert text.startswith("SGD (\nParameter Group 0\n    dampening: 0\n") and text.endswith("weight_decay: 0\n)")
    assert "\n\n" not in text
