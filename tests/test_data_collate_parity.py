"""``default_convert`` and ``default_collate`` with PyTorch 2.13's container rules (differential).

Each expected value is torch 2.13's answer for ``torch.utils.data.default_convert`` /
``default_collate`` of the same input, written here (the tests never import torch).
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, default_collate, default_convert


class Fields(list):
    """A list subclass: torch keeps its type (a copy, its items replaced)."""


def test_default_convert_keeps_a_mutable_containers_type():
    # torch: default_convert(MyList([np.array([1])])) is a MyList; of defaultdict(int, a=...) a
    # defaultdict that still answers 0 for a missing key (before: a plain list, a plain dict)
    out = default_convert(Fields([np.array([1, 2]), "s"]))
    assert type(out) is Fields and isinstance(out[0], mg.Tensor) and out[0].tolist() == [1, 2] and out[1] == "s"
    d = default_convert(defaultdict(int, a=np.array([1.5])))
    assert type(d) is defaultdict and d["missing"] == 0
    assert isinstance(d["a"], mg.Tensor) and d["a"].dtype == mg.float64
    o = default_convert(OrderedDict(b=np.int32(3), a=1))
    assert type(o) is OrderedDict and list(o) == ["b", "a"] and o["b"].dtype == mg.int32 and o["a"] == 1


def test_default_convert_turns_other_sequences_into_lists():
    # torch: default_convert(range(2)) == [0, 1] (a Sequence that cannot be built from a list); a tuple
    # is a list too; str and bytes stay as they are
    assert default_convert(range(2)) == [0, 1]
    assert default_convert((1, 2)) == [1, 2]
    assert default_convert("ab") == "ab" and default_convert(b"ab") == b"ab"
    nested = default_convert([(np.array([1]),)])
    assert isinstance(nested[0], list) and nested[0][0].tolist() == [1]


def test_a_loader_without_batching_converts_with_the_same_rules():
    samples = [defaultdict(list, x=np.arange(2)), defaultdict(list, x=np.arange(2) + 2)]
    out = list(DataLoader(samples, batch_size=None))
    assert [type(o) for o in out] == [defaultdict, defaultdict]
    assert [o["x"].tolist() for o in out] == [[0, 1], [2, 3]] and out[0]["other"] == []


def test_an_empty_batch_is_an_index_error():
    # torch: default_collate([]) raises IndexError('list index out of range') (before: ValueError)
    with pytest.raises(IndexError, match="empty batch"):
        default_collate([])
