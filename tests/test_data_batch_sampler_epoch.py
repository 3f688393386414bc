"""A DistributedSampler inside a ``batch_sampler`` (``DataLoader(ds, batch_sampler=BatchSampler(
DistributedSampler(ds), 2, False))``, PyTorch's other spelling of a sharded loader) orders the epochs as
one given as ``sampler=``: the documented resume recipe -- ``for epoch in range(sampler.epoch, epochs):
sampler.set_epoch(epoch)`` after a restore -- neither replays nor skips an epoch, wherever the snapshot
was taken.  Before, the loader read the epoch of its own ``sampler`` only (the default
SequentialSampler here): an end-of-epoch snapshot saved the finished epoch, and the resumed run
replayed it."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot
from minigrad_ckpt.utils.data import BatchSampler, DataLoader, DistributedSampler

EPOCHS = 3


def _loader(spelling: str) -> tuple[DataLoader, DistributedSampler]:
    sampler = DistributedSampler(range(12), num_replicas=2, rank=1, seed=4)
    if spelling == "batch_sampler":
        return DataLoader(list(range(12)), batch_sampler=BatchSampler(sampler, 2, False)), sampler
    return DataLoader(list(range(12)), batch_size=2, sampler=sampler), sampler


def _run(spelling: str, snapshot_after: int | None = None, mid_epoch: bool = False):
    """The recipe's loop: each epoch's batches, and a snapshot at a chosen point."""
    loader, sampler = _loader(spelling)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    seen, snap = {}, None
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        seen[epoch] = []
        for k, batch in enumerate(loader):
            seen[epoch].append(batch.tolist())
            if mid_epoch and epoch == snapshot_after and k == 1:
                snap = Snapshot.from_executor(ex)
        if not mid_epoch and epoch == snapshot_after:
            snap = Snapshot.from_executor(ex)   # between epochs: before the next set_epoch
    return seen, snap


def _resumed(spelling: str, snap: Snapshot) -> dict[int, list]:
    loader, sampler = _loader(spelling)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    snap.restore_into(ex)
    got = {}
    for epoch in range(sampler.epoch, EPOCHS):
        sampler.set_epoch(epoch)
        got[epoch] = [batch.tolist() for batch in loader]
    return got


@pytest.mark.parametrize("spelling", ["sampler", "batch_sampler"])
def test_an_end_of_epoch_snapshot_resumes_with_the_next_epoch(spelling):
    seen, snap = _run(spelling, snapshot_after=0)
    got = _resumed(spelling, snap)
    assert sorted(got) == [1, 2]  # (before, with batch_sampler: [0, 1, 2], epoch 0 replayed)
    assert all(got[e] == seen[e] for e in got)


@pytest.mark.parametrize("spelling", ["sampler", "batch_sampler"])
def test_a_mid_epoch_snapshot_resumes_the_rest_of_its_epoch(spelling):
    seen, snap = _run(spelling, snapshot_after=1, mid_epoch=True)
    got = _resumed(spelling, snap)
    assert sorted(got) == [1, 2]
    assert got[1] == seen[1][2:] and got[2] == seen[2]


def test_a_batch_samplers_epoch_set_apart_from_the_restored_one_starts_afresh():
    seen, snap = _run("batch_sampler", snapshot_after=1, mid_epoch=True)
    loader, sampler = _loader("batch_sampler")
    ex = mg.Executor()
    ex.register_state("loader", loader)
    snap.restore_into(ex)
    sampler.set_epoch(2)   # another epoch than the interrupted one: its own order, from its start
    assert [batch.tolist() for batch in loader] == seen[2]
