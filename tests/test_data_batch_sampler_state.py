"""A loader's saved position over a batch sampler of its own (any batch lengths: the "prefixed" layout).

A batch sampler may yield an empty batch (a bucketing sampler's empty bucket): PyTorch's loader hands
``[]`` to the ``collate_fn`` -- torch 2.13: ``list(DataLoader(list(range(5)), batch_sampler=[[0, 1], [],
[2]], collate_fn=lambda b: b)) == [[0, 1], [], [2]]``.  The engine made the same batches, but a state
saved mid-epoch was refused on load ("the batches' lengths do not add up"), so a snapshot of such a run
could not be restored; and a saved state with a negative batch length made the loader loop for ever
(growing a list) instead of refusing it."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot
from minigrad_ckpt.utils.data import DataLoader

BATCHES = [[4, 0], [], [1, 2, 3], [], [5]]


def _loader() -> DataLoader:
    return DataLoader(list(range(6)), batch_sampler=BATCHES, collate_fn=lambda b: list(b))


@pytest.mark.parametrize("stop", [1, 2, 4])
def test_an_epoch_with_empty_batches_resumes_from_its_saved_state(stop):
    loader = _loader()
    assert list(loader) == BATCHES
    it = iter(loader)
    done = [next(it) for _ in range(stop)]
    state = loader.state_dict()
    fresh = _loader()
    fresh.load_state_dict(state)
    assert done + list(fresh) == BATCHES
    assert list(fresh) == BATCHES  # the next epoch starts afresh


def test_a_snapshot_mid_epoch_with_an_empty_batch_restores():
    loader = _loader()
    ex = mg.Executor()
    ex.register_state("loader", loader)
    it = iter(loader)
    next(it), next(it)
    snap = Snapshot.from_executor(ex)
    fresh = _loader()
    ex2 = mg.Executor()
    ex2.register_state("loader", fresh)
    snap.restore_into(ex2)
    assert list(fresh) == BATCHES[2:]


@pytest.mark.parametrize("order", [[-1, 0, 0], [2, 0, 1, -2, 3], [1, 0, -3]])
def test_a_negative_batch_length_in_a_saved_state_is_refused(order):
    loader = _loader()
    iter(loader)
    state = loader.state_dict()
    state["epoch"] = {**state["epoch"], "order": order, "position": 0}
    with pytest.raises(ValueError, match="do not add up"):
        loader.load_state_dict(state)
