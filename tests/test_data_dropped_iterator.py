"""A loader whose epoch iterator is dropped -- the longer loader of a ``zip``, whose last
``StopIteration`` nobody asks for, or a ``break`` -- and a snapshot taken afterwards.

In PyTorch (and so in the uninterrupted run) the next ``iter(loader)`` starts a new epoch whatever
the dropped iterator had left.  A resumed run must do the same: an epoch whose every batch was handed
out is over once its iterator is gone (before, the resumed loader replayed its empty rest, and a
``zip`` over the two loaders lost a whole epoch); an epoch dropped with batches to come (a ``break``
to save and stop) stays resumable where it stopped."""

from __future__ import annotations

import pytest
from timeouts import deadline

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot
from minigrad_ckpt.utils.data import DataLoader, DistributedSampler


def _loaders(workers: int | str) -> tuple[DataLoader, DataLoader]:
    # "persistent": the longer loader keeps its workers, and PyTorch's one iterator, between epochs
    options = {"num_workers": 1, "persistent_workers": True} if workers == "persistent" else {"num_workers": workers}
    shuffled = DataLoader(list(range(6)), batch_size=2, shuffle=True)
    in_order = DataLoader(list(range(6)), batch_size=2, **options)
    return shuffled, in_order


def _registered(loaders: tuple[DataLoader, ...]) -> mg.Executor:
    ex = mg.Executor()
    for k, loader in enumerate(loaders):
        ex.register_state(f"loader{k}", loader)
    return ex


def _zipped(a: DataLoader, b: DataLoader) -> list[tuple[list[int], list[int]]]:
    return [(x.tolist(), y.tolist()) for x, y in zip(a, b)]


@pytest.mark.parametrize("workers", [0, 2, "persistent"])
def test_the_longer_loader_of_a_zip_starts_the_next_epoch_after_a_resume(workers):
    with deadline(90, "zipped loaders"):
        mg.manual_seed(0)
        a, b = _loaders(workers)
        ex = _registered((a, b))
        _zipped(a, b)                      # epoch 0: zip stops at a's end; b never hears its own
        snap = Snapshot.from_executor(ex)
        assert b.state_dict()["epoch"] is None   # b's every batch was handed out: between epochs
        uninterrupted = _zipped(a, b)      # epoch 1
        a2, b2 = _loaders(workers)
        snap.restore_into(_registered((a2, b2)))
        resumed = _zipped(a2, b2)
        assert len(uninterrupted) == 3 and resumed == uninterrupted  # (before: [], a lost epoch)


def test_a_dropped_spent_epoch_advances_a_distributed_samplers_saved_epoch():
    sampler = DistributedSampler(range(8), num_replicas=2, rank=1, seed=3)
    loader = DataLoader(list(range(8)), batch_size=2, sampler=sampler)
    sampler.set_epoch(4)
    it = iter(loader)
    [next(it) for _ in range(len(loader))]   # every batch, and no StopIteration asked for
    assert loader.state_dict()["sampler"] == {"epoch": 4}   # its iterator alive: the epoch may end yet
    del it
    # the recipe's `for epoch in range(sampler.epoch, epochs)` resumes with the next epoch
    assert loader.state_dict() == {"epoch": None, "epochs_started": 1, "generator": None, "sampler": {"epoch": 5}}


@pytest.mark.parametrize("workers", [0, 2])
def test_a_break_with_batches_to_come_stays_resumable(workers):
    with deadline(90, "a loader left by a break"):
        mg.manual_seed(1)
        loader = DataLoader(list(range(10)), batch_size=2, shuffle=True, num_workers=workers)
        whole = [b.tolist() for b in loader]
        mg.manual_seed(1)
        loader = DataLoader(list(range(10)), batch_size=2, shuffle=True, num_workers=workers)
        head = []
        for b in loader:                   # a preempted run: break, save, stop
            head.append(b.tolist())
            if len(head) == 2:
                break
        state = loader.state_dict()
        assert state["epoch"]["position"] == 2
        again = DataLoader(list(range(10)), batch_size=2, shuffle=True, num_workers=workers)
        again.load_state_dict(state)
        assert head + [b.tolist() for b in again] == whole
