"""``mg.utils.data.DistributedSampler``: disjoint per-rank shards, the same order on every rank."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, DistributedSampler, TensorDataset

DATA = list(range(10))


def shards(n_ranks, **kw):
    return [list(DistributedSampler(DATA, num_replicas=n_ranks, rank=r, **kw)) for r in range(n_ranks)]


def test_unshuffled_shards_interleave():
    assert shards(2, shuffle=False) == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]


@pytest.mark.parametrize("drop_last", [False, True])
def test_shards_are_disjoint_and_cover_the_data(drop_last):
    parts = shards(3, seed=5, drop_last=drop_last)
    assert [len(p) for p in parts] == ([3, 3, 3] if drop_last else [4, 4, 4])
    flat = [i for p in parts for i in p]
    if drop_last:
        assert len(set(flat)) == 9  # disjoint; one index dropped
    else:
        assert set(flat) == set(DATA) and len(flat) == 12  # padded by repeating two indices


def test_order_depends_on_seed_and_epoch_not_on_the_engine_generator():
    mg.manual_seed(1)
    a = shards(2, seed=3)
    mg.manual_seed(99)  # another rank's generator state: same shards
    assert shards(2, seed=3) == a
    assert sorted(a[0] + a[1]) == DATA
    s = DistributedSampler(DATA, num_replicas=2, rank=0, seed=3)
    assert list(s) == list(s) == a[0]  # the same epoch, the same order
    s.set_epoch(1)
    other = DistributedSampler(DATA, num_replicas=2, rank=1, seed=3)
    other.set_epoch(1)
    assert list(s) != a[0] and sorted(list(s) + list(other)) == DATA
    assert shards(2, seed=4) != a


def test_defaults_come_from_the_process_group():
    s = DistributedSampler(DATA)  # no process group: a world of one
    assert (s.rank, s.num_replicas, len(s)) == (0, 1, 10)
    assert sorted(s) == DATA


def test_with_a_dataloader():
    ds = TensorDataset(mg.arange(8))
    loader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False))
    assert [b[0].tolist() for b in loader] == [[1, 3], [5, 7]]


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):  # torch's words
        DistributedSampler(DATA, num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="num_replicas must be a positive int"):
        DistributedSampler(DATA, num_replicas=0, rank=0)
    with pytest.raises(TypeError, match="epoch must be an int"):  # (torch: TypeError when it seeds)
        DistributedSampler(DATA, 1, 0).set_epoch(1.5)


# Where a loop of the documented exact-resume recipe can take its snapshot: after the k-th batch
# of an epoch (k = 2 is the epoch's last batch, still inside the loop), after the loop has ended
# (before the next set_epoch), and after the next set_epoch.
SAVE_POINTS = [("batch", 1), ("batch", 2), ("after_loop", None), ("after_set_epoch", None)]


def _one_rank_loader(snapshot=None):
    """A shuffled DistributedSampler of 8 samples on one rank, its loader registered with an
    executor, restored from ``snapshot`` if given."""
    ds = TensorDataset(mg.arange(8))
    sampler = DistributedSampler(ds, num_replicas=1, rank=0, seed=0)
    loader = DataLoader(ds, batch_size=4, sampler=sampler)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    if snapshot is not None:
        snapshot.restore_into(ex)
    return sampler, loader, ex


def _run_recipe(epochs, snap_epoch=None, where=None, snapshot=None):
    """The recipe of docs/distributed.md (Snapshots and exact resume) on one rank: the batches
    it sees, as (epoch, indices), and the snapshot taken at ``where`` in epoch ``snap_epoch``."""
    sampler, loader, ex = _one_rank_loader(snapshot)
    seen, taken = [], []

    def save(point, of_epoch):
        if (of_epoch, point) == (snap_epoch, where):
            taken.append(mg.snapshot.Snapshot.from_executor(ex))

    for epoch in range(sampler.epoch, epochs):
        sampler.set_epoch(epoch)
        if epoch > 0:
            save(("after_set_epoch", None), epoch - 1)  # the next epoch set, its loop not started
        for k, (xb,) in enumerate(loader, 1):
            seen.append((epoch, xb.tolist()))
            save(("batch", k), epoch)
        save(("after_loop", None), epoch)
    return seen, taken


@pytest.mark.parametrize("where", SAVE_POINTS, ids=lambda w: f"{w[0]}{w[1] or ''}")
def test_the_exact_resume_recipe_neither_replays_nor_skips_an_epoch(where):
    full, _ = _run_recipe(3)
    seen, (snap,) = _run_recipe(3, 0, where)
    done = {("batch", 1): 1, ("batch", 2): 2, ("after_loop", None): 2, ("after_set_epoch", None): 2}[where]
    resumed, _ = _run_recipe(3, snapshot=snap)
    assert seen[:done] + resumed == full


def test_a_loop_that_never_calls_set_epoch_resumes_with_the_same_order():
    """Without set_epoch every epoch is epoch 0's order; an end-of-epoch snapshot keeps it so."""
    def run(epochs, snapshot=None):
        sampler, loader, ex = _one_rank_loader(snapshot)
        seen = [xb.tolist() for _ in range(epochs) for (xb,) in loader]
        return seen, mg.snapshot.Snapshot.from_executor(ex), sampler

    full, _, _ = run(3)
    first, snap, _ = run(1)
    rest, _, sampler = run(2, snap)
    assert first + rest == full and sampler.epoch == 0
