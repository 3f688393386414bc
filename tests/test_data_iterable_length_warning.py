"""PyTorch's warning when an IterableDataset yields more batches than the samples its ``len()`` told
``len(loader)``: with workers, the sign of a dataset that does not take its shard per worker, so
that every worker yields all of it and each sample comes ``num_workers`` times -- silently wrong data
without the warning.  PyTorch compares the batches handed out with the samples the dataset's
``len()`` reported when ``len(loader)`` was called before ``iter()``; so does the loader now (it
never warned).  Which cases warn is torch 2.13's."""

from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, IterableDataset, get_worker_info


class _Stream(IterableDataset):
    """Six samples; ``len()`` says ``told``; with ``shard`` each worker takes its share."""

    def __init__(self, told: int, shard: bool) -> None:
        self.told, self.shard = told, shard

    def __iter__(self):
        info = get_worker_info()
        if self.shard and info is not None:
            return iter(range(info.id, 6, info.num_workers))
        return iter(range(6))

    def __len__(self) -> int:
        return self.told


def _warned(loader: DataLoader, ask_len: bool) -> tuple[bool, list[int]]:
    if ask_len:
        len(loader)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seen = sorted(int(x) for batch in loader for x in mg.as_tensor(batch).reshape(-1).tolist())
    return any("Length of IterableDataset" in str(w.message) for w in caught), seen


@pytest.mark.parametrize("batch_size", [None, 1])
def test_unsharded_workers_warn_once_len_was_asked(batch_size):
    loader = DataLoader(_Stream(6, shard=False), batch_size=batch_size, num_workers=2)
    warned, seen = _warned(loader, ask_len=True)
    assert warned and seen == sorted(list(range(6)) * 2)  # torch: warns; every sample twice


@pytest.mark.parametrize("batch_size", [None, 2])
def test_sharded_workers_do_not_warn(batch_size):
    warned, seen = _warned(DataLoader(_Stream(6, shard=True), batch_size=batch_size, num_workers=2), ask_len=True)
    assert not warned and seen == list(range(6))


def test_a_dataset_longer_than_its_len_warns_without_workers():
    warned, _ = _warned(DataLoader(_Stream(3, shard=False), batch_size=None), ask_len=True)
    assert warned  # torch: 6 samples fetched, 3 reported


def test_no_warning_unless_len_was_asked_before_iter():
    loader = DataLoader(_Stream(3, shard=False), batch_size=None)
    assert not _warned(loader, ask_len=False)[0]
    # torch: list(loader) asks len() as a length hint only after iter(): its epoch does not warn, the
    # next one does (that hint told the loader)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(loader)
    assert _warned(loader, ask_len=False)[0]


def test_batches_are_compared_with_samples_as_pytorch_does():
    # torch: 3 batches of 2 from 6 samples reported: no warning; 6 batches of 2 from two unsharded
    # workers: none either (6 batches, 6 samples reported), though every sample came twice
    assert not _warned(DataLoader(_Stream(6, shard=False), batch_size=2), ask_len=True)[0]
    assert not _warned(DataLoader(_Stream(6, shard=False), batch_size=2, num_workers=2), ask_len=True)[0]
