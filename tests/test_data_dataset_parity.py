"""Datasets as PyTorch 2.13's: their refusals' exception types and what they accept (differential).

Each expected behaviour is torch 2.13's answer for ``torch.utils.data`` with the same arguments,
written here (the tests never import torch).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import (
    ChainDataset,
    ConcatDataset,
    DataLoader,
    IterableDataset,
    Subset,
    TensorDataset,
    default_collate,
)


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


# A DataLoader over a TensorDataset (or a Subset of one) fetches a batch in one indexing op per
# tensor; its answers must be those of the per-sample path, ``default_collate([ds[k] for k in batch])``.
_ROWS = np.arange(20, dtype=np.float32).reshape(10, 2)


def _tensor_datasets():
    """A TensorDataset, a Subset of one (both fetched in one op) and a subclass fetched per sample."""
    class PerSample(TensorDataset):
        def __getitem__(self, index):
            return super().__getitem__(index)

    return [TensorDataset(mg.tensor(_ROWS)), Subset(TensorDataset(mg.tensor(_ROWS)), list(range(10))),
            PerSample(mg.tensor(_ROWS))]


@pytest.mark.parametrize("num_workers", [0, 1])
@pytest.mark.parametrize("keys", [[1.5, 2.7], [1.0, 2.0], [2, np.float64(3.0)]])
def test_a_float_sampler_key_is_refused_as_ds_of_it_is(keys, num_workers):
    # torch: ds[1.5] and the loader over a sampler of floats, IndexError ("only integers, slices ...");
    # (before: the one-op fetch took them as rows 1 and 2)
    for ds in _tensor_datasets():
        with pytest.raises((IndexError, TypeError)):
            list(DataLoader(ds, batch_size=2, sampler=keys, num_workers=num_workers))
    with pytest.raises(IndexError):
        list(DataLoader(_tensor_datasets()[0], batch_sampler=[keys]))
    with pytest.raises(IndexError):
        _tensor_datasets()[0][1.5]


def test_a_bool_sampler_key_is_a_new_axis_as_in_ds_of_it():
    # torch: ds[True] is the whole tensor under a new axis, shape (1, 10, 2); a batch [True, True]
    # stacks two of them, (2, 1, 10, 2); [True, 3] and [True, False] are ragged, RuntimeError from the
    # stack (before: the one-op fetch took True as row 1, False as row 0); a Subset's key is a position
    # in its list of indices, where True is 1, as Python's list[True]
    tensors, subset, per_sample = _tensor_datasets()
    for ds in (tensors, per_sample):
        (batch,) = next(iter(DataLoader(ds, batch_size=2, sampler=[True, True])))
        assert batch.shape == (2, 1, 10, 2) and (batch.numpy() == _ROWS).all()
        for keys in ([True, 3], [True, False]):
            with pytest.raises(RuntimeError):
                list(DataLoader(ds, batch_size=2, sampler=keys))
    assert [b[0].tolist() for b in DataLoader(subset, batch_size=2, sampler=[True, 3])] == [_ROWS[[1, 3]].tolist()]


@pytest.mark.parametrize("num_workers", [0, 1])
def test_an_empty_batch_from_a_batch_sampler_is_refused_as_default_collate_refuses_it(num_workers):
    # torch: default_collate([]) IndexError, so a batch sampler's empty batch raises from next()
    # (before: the one-op fetch gave an empty (0, 2) batch)
    for ds in _tensor_datasets():
        it = iter(DataLoader(ds, batch_sampler=[[0, 1], []], num_workers=num_workers))
        assert next(it)[0].tolist() == _ROWS[:2].tolist()
        with pytest.raises(IndexError, match="empty batch"):
            next(it)
    with pytest.raises(IndexError, match="empty batch"):
        default_collate([])


@pytest.mark.parametrize("num_workers", [0, 1])
def test_a_one_element_tensor_key_keeps_its_dim_as_ds_of_it_does(num_workers):
    # torch 2.13: a sampler of tensor([3]), tensor([5]) gives a batch of shape (2, 1, 2), as ds[tensor([3])]
    # is a (1, 2) row; a 0-d tensor is an integer index (before: both read as integers, (2, 2))
    for ds in _tensor_datasets():
        (batch,) = list(DataLoader(ds, batch_size=2, sampler=[mg.tensor([3]), mg.tensor([5])], num_workers=num_workers))
        # (a Subset over a list reads the key as the list does, by its __index__: a row, as torch's)
        assert batch[0].shape == ((2, 2) if isinstance(ds, Subset) else (2, 1, 2))
        assert np.array_equal(batch[0].numpy().reshape(2, 2), _ROWS[[3, 5]])
        (batch,) = list(DataLoader(ds, batch_size=2, sampler=[mg.tensor(3), mg.tensor(5)], num_workers=num_workers))
        assert batch[0].shape == (2, 2)
    assert DataLoader(Subset(TensorDataset(mg.tensor(_ROWS)), [mg.tensor([3]), mg.tensor([5])]),
                      batch_size=2).__iter__().__next__()[0].shape == (2, 1, 2)
