"""The norms' refusals of too few values in training and of an input of the wrong rank, in torch
2.13's words (pasted): programs and PyTorch's own tests match them ("Expected more than 1 value per
channel when training").  The engine's said the same things in its own words."""

from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F

CASES = {
    "BatchNorm1d batch of one": (lambda: nn.BatchNorm1d(10)(mg.rand(1, 10)),
                                 "Expected more than 1 value per channel when training, got input size "
                                 "torch.Size([1, 10])"),
    "batch_norm one value per channel": (lambda: F.batch_norm(mg.rand(1, 10, 1), None, None, training=True),
                                         "Expected more than 1 value per channel when training, got input size "
                                         "torch.Size([1, 10, 1])"),
    "InstanceNorm1d one spatial element": (lambda: nn.InstanceNorm1d(3, track_running_stats=True)(mg.rand(10, 3, 1)),
                                           "Expected more than 1 spatial element when training, got input size "
                                           "torch.Size([10, 3, 1])"),
    "instance_norm one spatial element": (lambda: F.instance_norm(mg.rand(10, 3, 1)),
                                          "Expected more than 1 spatial element when training, got input size "
                                          "torch.Size([10, 3, 1])"),
    "GroupNorm one value per group": (lambda: nn.GroupNorm(10, 10)(mg.rand(1, 10, 1)),
                                      "Expected more than 1 value per channel when training, got input size "
                                      "[1, 10, 1]"),
    "BatchNorm1d of 4-D input": (lambda: nn.BatchNorm1d(3)(mg.rand(2, 3, 4, 5)),
                                 "expected 2D or 3D input (got 4D input)"),
    "BatchNorm2d of 3-D input": (lambda: nn.BatchNorm2d(3)(mg.rand(2, 3, 4)), "expected 4D input (got 3D input)"),
    "BatchNorm3d of 4-D input": (lambda: nn.BatchNorm3d(3)(mg.rand(2, 3, 4, 4)), "expected 5D input (got 4D input)"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_refusal_in_pytorch_words(case):
    call, words = CASES[case]
    with pytest.raises(ValueError, match=f"^{re.escape(words)}"):  # (a layer's adds itself and the shape)
        call()


def test_one_value_per_channel_passes_in_evaluation():
    bn = nn.BatchNorm1d(3).eval()
    assert bn(mg.rand(1, 3)).shape == (1, 3)
