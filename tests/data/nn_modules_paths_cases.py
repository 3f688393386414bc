"""Losses written for PyTorch as subclasses of ``nn.modules.loss._Loss`` / ``_WeightedLoss``, built
from either library's ``nn`` (``tests/data/make_torch_nn_modules_paths.py`` records torch's answers,
``tests/test_nn_modules_paths.py`` asks the same of minigrad_ckpt)."""

from __future__ import annotations

from typing import Any


def loss_subclasses(nn: Any) -> tuple[type, type]:
    """``(Dice, Weighted)``: a ``_Loss`` and a ``_WeightedLoss`` with a ``forward`` of their own."""

    class Dice(nn.modules.loss._Loss):
        def forward(self, input, target):
            return (input * target).sum()

    class Weighted(nn.modules.loss._WeightedLoss):
        def forward(self, input, target):
            return (self.weight * input * target).sum()

    return Dice, Weighted
