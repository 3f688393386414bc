"""Datasets as PyTorch 2.13's: their refusals' exception types and what they accept (differential).

Each expected behaviour is torch 2.13's answer for ``torch.utils.data`` with the same arguments,
written here (the tests never import torch).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import ChainDataset, ConcatDataset, DataLoader, IterableDataset, Subset, TensorDataset


def test_construction_refusals_are_pytorchs_assertion_errors():
    # torch: TensorDataset(zeros(3), zeros(4)) AssertionError('Size mismatch between tensors');
    # ConcatDataset([]) AssertionError('datasets should not be an empty iterable') (before: ValueError)
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(mg.zeros(3), mg.zeros(4))
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])


def test_concat_dataset_refuses_a_too_negative_index_with_a_value_error():
    # torch: for cumulative_sizes [3, 8], index -9 is ValueError('absolute value of index should not
    # exceed dataset length') and 8 an IndexError; -8 is the first sample, -1 the last
    c = ConcatDataset([[0, 1, 2], [10, 11, 12, 13, 14]])
    assert c.cumulative_sizes == [3, 8]
    assert (c[-8], c[-6], c[-5], c[-1], c[3]) == (0, 2, 10, 14, 10)
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        c[-9]
    with pytest.raises(IndexError):
        c[8]


class _Counting(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_chain_dataset_length_refuses_a_map_style_member():
    # torch: len(ChainDataset([[1, 2]])) is AssertionError('ChainDataset only supports IterableDataset')
    # (before: 2, a length for a chain that cannot be iterated)
    assert len(ChainDataset([_Counting(2), _Counting(3)])) == 5
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        len(ChainDataset([[1, 2]]))


def test_iterable_dataset_is_abstract_and_has_no_indices():
    # torch: IterableDataset() is TypeError("Can't instantiate abstract class ... __iter__"), as is a
    # subclass without __iter__; ds[0] is NotImplementedError (before: made; TypeError)
    class NoIter(IterableDataset):
        pass

    for cls in (IterableDataset, NoIter):
        with pytest.raises(TypeError, match="abstract"):
            cls()
    with pytest.raises(NotImplementedError, match="it has no indices"):
        _Counting(2)[0]
    assert isinstance(_Counting(1), IterableDataset) and not isinstance([1], IterableDataset)


class _Unsized(mg.utils.data.Dataset):
    def __getitem__(self, i):
        return i * 10


def test_subset_takes_a_dataset_without_a_length_and_keys_as_given():
    # torch: Subset(ds_without_len, [3, 4])[1] == ds[4] (it asks no length); Subset({"a": 1}, ["a"])[0]
    # is 1 (keys passed on); Subset(list, [1.0])[0] a TypeError from the list (before: TypeError at
    # construction; ValueError; silently index 1)
    sub = Subset(_Unsized(), [3, 4])
    assert (sub[1], len(sub)) == (40, 2)
    assert [b.tolist() for b in DataLoader(sub, batch_size=2)] == [[30, 40]]
    assert Subset({"a": 1, "b": 2}, ["b", "a"])[0] == 2
    with pytest.raises(TypeError):
        Subset(list(range(5)), [1.0])[0]
    assert Subset(list(range(5)), [np.int64(1), mg.tensor(2), -1]).indices == [1, 2, -1]
