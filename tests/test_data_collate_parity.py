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


@pytest.mark.parametrize("batch, dtype, values", [
    (np.array(["a", "b"]), None, ["a", "b"]),                  # torch: the array itself (its items are str)
    (np.array([1, 2, 3]), mg.int64, [1, 2, 3]),                 # torch: as_tensor of the NumPy scalars
    (np.array([True, False]), mg.bool, [True, False]),
    (np.ones((2, 3), np.float32), mg.float32, [[1.0] * 3] * 2),  # torch: the rows stacked
])
def test_a_numpy_array_is_a_batch_of_its_items_as_in_pytorch(batch, dtype, values):
    # PyTorch's test_default_collate_bad_numpy_types passes a string array as the batch; the engine
    # asked the batch's truth value first, which a NumPy array of more than one item refuses (ValueError)
    out = default_collate(batch)
    if dtype is None:
        assert out is batch
    else:
        assert isinstance(out, mg.Tensor) and out.dtype == dtype and out.tolist() == values


@pytest.mark.parametrize("batch", [np.array([[["a", "b", "c"]]]), np.array([object(), object()]),
                                   np.array([[[object(), object(), object()]]])])
def test_a_numpy_array_of_strings_or_objects_rows_is_refused_with_pytorchs_type_error(batch):
    with pytest.raises(TypeError):
        default_collate(batch)


def test_an_empty_numpy_batch_is_pytorchs_index_error():
    with pytest.raises(IndexError):  # torch: index 0 is out of bounds for axis 0 with size 0
        default_collate(np.array([]))
