"""``mg.nn.modules.utils``: PyTorch's helpers that library code imports from that path.

``from torch.nn.modules.utils import _pair`` (torchvision's ops, custom conv layers) and loading
a checkpoint saved from DistributedDataParallel into a plain model with
``consume_prefix_in_state_dict_if_present(sd, "module.")`` were ImportErrors here. The expected
values below are torch 2.13's on the same calls.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn.modules.utils import (
    _ntuple,
    _pair,
    _quadruple,
    _reverse_repeat_tuple,
    _single,
    _triple,
    consume_prefix_in_state_dict_if_present,
)


def test_the_tuple_helpers():
    assert _pair(3) == (3, 3) and _pair((1, 2)) == (1, 2) and _pair([4, 5]) == (4, 5)
    assert _single(2) == (2,) and _triple(1) == (1, 1, 1) and _quadruple(0) == (0, 0, 0, 0)
    assert _ntuple(5, "quint")(7) == (7,) * 5 and _ntuple(5, "quint").__name__ == "quint"
    assert _pair.__name__ == "_pair"
    assert _reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)


class Wrapper(nn.Module):
    """What DistributedDataParallel looks like to state_dict(): the model under ``module``."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module


def test_a_wrapped_models_checkpoint_loads_into_the_plain_model():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    model(mg.randn(4, 2))  # running statistics to carry over
    sd = Wrapper(model).state_dict()
    assert list(sd._metadata) == ["", "module", "module.0", "module.1"]
    consume_prefix_in_state_dict_if_present(sd, "module.")
    assert list(sd) == ["0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
                        "1.num_batches_tracked"]
    assert sd._metadata == OrderedDict([("", {"version": 1}), ("0", {"version": 1}), ("1", {"version": 2})])
    plain = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    plain.load_state_dict(sd)
    np.testing.assert_array_equal(plain[1].running_mean.numpy(), model[1].running_mean.numpy())
    assert plain[1].num_batches_tracked.item() == 1


def test_keys_without_the_prefix_and_dicts_without_metadata_are_left_alone():
    sd = {"module.w": 1, "other.w": 2}
    consume_prefix_in_state_dict_if_present(sd, "module.")
    assert sd == {"w": 1, "other.w": 2}
