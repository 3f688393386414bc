"""A loader's saved epoch is refused by a loader that cuts its epochs otherwise, and a sampler's
state by a sampler of another kind.

A saved epoch is a list of indices cut into batches as the saving loader cut it.  Loaded by a loader
with another ``batch_size`` or ``drop_last``, the resumed epoch handed out the saving loader's batches
(a ``drop_last=True`` loader then yields a short batch, disagreeing with its own ``len()``), and a
``WeightedRandomSampler`` took a ``RandomSampler``'s state (the two are alike: a generator's).  Both are
refused now with an error naming what differs -- by ``load_state_dict`` and, before anything changes,
by a snapshot's restore.  What may differ still loads: the loader's configuration between epochs (the
next epoch is cut afresh), and an elastic resume, whose loaders take their share of the interrupted
epoch in their own batches (``reshard_state_dict``), whatever the world size and batch size.
"""

from __future__ import annotations

import json

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.snapshot import Snapshot, SnapshotError, SnapshotManager
from minigrad_ckpt.snapshot.ranks import RANK_FILES_KEY, WORLD_KEY
from minigrad_ckpt.utils.data import (
    DataLoader,
    DistributedSampler,
    RandomSampler,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
)

DATA = list(range(10))


def _mid_epoch(batches: int = 1, **options) -> DataLoader:
    """A loader that handed out ``batches`` batches of its epoch (its iterator kept on it: ``loader.rest``)."""
    loader = DataLoader(DATA, **options)
    loader.rest = iter(loader)
    for _ in range(batches):
        next(loader.rest)
    return loader


def _plain(batches) -> list:
    return [b.tolist() if isinstance(b, mg.Tensor) else b for b in batches]


def _without_batching(state: dict) -> dict:
    """The state as a loader wrote it before epochs recorded their batching."""
    return {**state, "epoch": {k: v for k, v in state["epoch"].items() if k != "batching"}}


@pytest.mark.parametrize("saved, loading, named", [
    (dict(batch_size=3), dict(batch_size=4, drop_last=True), "batch_size=3"),
    (dict(batch_size=3), dict(batch_size=4), "batch_size=3"),
    (dict(batch_size=3), dict(batch_size=3, drop_last=True), "drop_last=False"),
    (dict(batch_size=3, drop_last=True), dict(batch_size=3), "drop_last=True"),
    (dict(batch_size=4, shuffle=True), dict(batch_size=2, shuffle=True), "batch_size=4"),
])
def test_a_saved_epoch_of_another_batching_is_refused_and_nothing_changes(saved, loading, named):
    state = _mid_epoch(**saved).state_dict()
    fresh = DataLoader(DATA, **loading)
    before = fresh.state_dict()
    with pytest.raises(ValueError, match=named):
        fresh.load_state_dict(state)
    assert fresh.state_dict() == before
    assert len(list(fresh)) == len(fresh)  # it starts its own epoch


@pytest.mark.parametrize("saved, loading, named", [
    (dict(batch_size=3), dict(batch_size=4, drop_last=True), "batch_size"),
    (dict(batch_size=3), dict(batch_size=3, drop_last=True), "drop_last"),
    (dict(batch_size=3), dict(batch_size=2), "batch_size"),
    (dict(batch_sampler=[[0, 1, 2], [3], [4, 5]]), dict(batch_size=3), "batch_sampler"),
])
def test_an_older_saved_epoch_is_checked_by_its_batches_lengths(saved, loading, named):
    state = _without_batching(_mid_epoch(**saved).state_dict())
    with pytest.raises(ValueError, match=named):
        DataLoader(DATA, **loading).load_state_dict(state)


@pytest.mark.parametrize("options", [dict(batch_size=3), dict(batch_size=5, drop_last=True),
                                     dict(batch_size=20), dict(batch_size=3, shuffle=True)])
def test_an_older_saved_epoch_that_fits_still_loads(options):
    loader = _mid_epoch(**options)
    state = _without_batching(loader.state_dict())
    fresh = DataLoader(DATA, **options)
    fresh.load_state_dict(state)
    assert _plain(fresh) == _plain(loader.rest)


@pytest.mark.parametrize("num_workers", [0, 1])
@pytest.mark.parametrize("options", [dict(batch_size=3), dict(batch_size=3, drop_last=True),
                                     dict(batch_size=4, shuffle=True), dict(batch_size=None),
                                     dict(batch_sampler=[[0, 1, 2], [3], [4, 5]])])
def test_the_same_configuration_resumes_the_epoch(options, num_workers):
    mg.manual_seed(0)
    loader = _mid_epoch(**options, num_workers=num_workers)
    state = loader.state_dict()
    fresh = DataLoader(DATA, **options, num_workers=num_workers)
    fresh.load_state_dict(state)
    assert _plain(fresh) == _plain(loader.rest)
    assert fresh.state_dict()["epoch"] is None and len(list(fresh)) == len(fresh)


def test_between_epochs_another_batching_loads_and_cuts_the_next_epoch_its_own_way():
    loader = DataLoader(DATA, batch_size=3)
    list(loader)
    fresh = DataLoader(DATA, batch_size=4, drop_last=True)
    fresh.load_state_dict(loader.state_dict())
    assert [len(b) for b in fresh] == [4, 4]


@pytest.mark.parametrize("saved, loading", [
    (lambda: RandomSampler(DATA), lambda: WeightedRandomSampler([1.0] * 10, 10)),
    (lambda: WeightedRandomSampler([1.0] * 10, 10), lambda: RandomSampler(DATA)),
    (lambda: SubsetRandomSampler(DATA), lambda: RandomSampler(DATA)),
    (lambda: RandomSampler(DATA, generator=mg.random.Generator(1)),
     lambda: WeightedRandomSampler([1.0] * 10, 10, generator=mg.random.Generator(2))),
])
def test_a_sampler_refuses_the_state_of_another_kind_of_sampler(saved, loading):
    a, b = saved(), loading()
    with pytest.raises(ValueError, match=f"{type(a).__name__}.*{type(b).__name__}"):
        b.load_state_dict(a.state_dict())
    state = _mid_epoch(batch_size=3, sampler=saved()).state_dict()
    with pytest.raises(ValueError, match=type(a).__name__):
        DataLoader(DATA, batch_size=3, sampler=loading()).load_state_dict(state)


def test_a_samplers_older_state_without_its_kind_still_loads():
    gen = mg.random.Generator(5)
    state = RandomSampler(DATA, generator=gen).state_dict()
    fresh = WeightedRandomSampler([1.0] * 10, 10, generator=mg.random.Generator(0))
    fresh.load_state_dict({"generator": state["generator"]})
    assert fresh.generator.get_state() == gen.get_state()


def _executor(loader: DataLoader):
    mg.manual_seed(0)
    model = nn.Linear(2, 1)
    ex = mg.Executor(model, mg.optim.SGD(model.parameters(), lr=0.1))
    ex.register_state("loader", loader)
    return ex, model


@pytest.mark.parametrize("blocking", [True, False])
@pytest.mark.parametrize("loading, named", [
    (lambda: DataLoader(DATA, batch_size=4, sampler=RandomSampler(DATA)), "batch_size=3"),
    (lambda: DataLoader(DATA, batch_size=3, sampler=RandomSampler(DATA), drop_last=True), "drop_last=False"),
    (lambda: DataLoader(DATA, batch_size=3, sampler=WeightedRandomSampler([1.0] * 10, 10)), "RandomSampler"),
])
def test_a_snapshot_restore_refuses_another_batching_before_changing_anything(tmp_path, loading, named, blocking):
    ex, model = _executor(_mid_epoch(batch_size=3, sampler=RandomSampler(DATA)))
    with mg.no_grad():
        model.weight.add_(1.0)
    ex.step()
    manager = SnapshotManager(tmp_path)
    handle = manager.save_snapshot(ex, blocking=blocking)
    if not blocking:
        handle.wait()
    ex2, model2 = _executor(loading())
    mg.manual_seed(7)
    before = (mg.get_rng_state(), model2.weight.tolist(), ex2.iteration, ex2.objects["loader"].state_dict())
    with pytest.raises(SnapshotError, match=f"'loader'.*{named}"):
        manager.load_latest().restore_into(ex2)
    assert (mg.get_rng_state(), model2.weight.tolist(), ex2.iteration, ex2.objects["loader"].state_dict()) == before


def _rank(rank: int, world: int, batch_size: int, batches: int = 0) -> tuple[mg.Executor, DataLoader, list[int]]:
    ds = TensorDataset(mg.arange(24))
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, seed=3)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    sampler.set_epoch(1)
    it = iter(loader)
    return ex, loader, [i for _ in range(batches) for i in next(it)[0].tolist()]


@pytest.mark.parametrize("world, batch_size", [(1, 6), (3, 2), (2, 3), (1, 3)])
def test_an_elastic_resume_deals_the_epoch_out_in_the_new_loaders_batches(tmp_path, world, batch_size):
    # the global batch kept (6 = 2 ranks x 3) or not: each new rank's loader takes its share in its own batches
    manager = SnapshotManager(tmp_path)
    files, seen = [], []
    for r in range(2):
        ex, _, s = _rank(r, 2, 3, batches=2)
        files.append(manager._write_rank_state(ex, 4, "ab12cd34", r, 2))
        seen += s
    meta = {RANK_FILES_KEY: json.dumps([list(f) for f in files]), WORLD_KEY: "2"}
    manager.save_snapshot(ex, 4, metadata=meta, _local=True, _rank_files=[name for name, _ in files])
    rest = []
    for r in range(world):
        ex, loader, _ = _rank(r, world, batch_size)
        manager.load_latest(_rank=(r, world)).restore_into(ex)
        batches = [b[0].tolist() for b in loader]
        assert all(len(b) == batch_size for b in batches[:-1]) and 0 < len(batches[-1]) <= batch_size
        rest += [i for b in batches for i in b]
        assert loader.sampler.epoch == 1 and loader.sampler.num_replicas == world
    assert sorted(seen + rest) == list(range(24))


def test_an_in_memory_snapshot_of_a_loader_refuses_another_batch_size():
    ex, _ = _executor(_mid_epoch(batch_size=3))
    snap = Snapshot.from_executor(ex)
    ex2, _ = _executor(DataLoader(DATA, batch_size=5))
    with pytest.raises(SnapshotError, match="batch_size=3"):
        snap.restore_into(ex2)
    ex3, _ = _executor(DataLoader(DATA, batch_size=3))
    snap.restore_into(ex3)
    assert [b.tolist() for b in ex3.objects["loader"]] == [[3, 4, 5], [6, 7, 8], [9]]


@pytest.mark.parametrize("size", [5, 20])
def test_an_epoch_drawn_for_a_dataset_of_another_size_is_refused(size):
    """A loader over a dataset of 20 samples took the order drawn for 10 and handed out half the
    dataset that epoch (of 5: an index out of range was the only refusal)."""
    from minigrad_ckpt.utils.data import TensorDataset

    saved = DataLoader(TensorDataset(mg.arange(10.0)), batch_size=3, shuffle=True)
    it = iter(saved)
    next(it)
    state = saved.state_dict()
    other = DataLoader(TensorDataset(mg.arange(float(size))), batch_size=3, shuffle=True)
    with pytest.raises(ValueError, match=f"drawn for a dataset of 10 samples, this loader's has {size}"):
        other.load_state_dict(state)
    same = DataLoader(TensorDataset(mg.arange(10.0)), batch_size=3, shuffle=True)
    same.load_state_dict(state)
    older = {**state, "epoch": {k: v for k, v in state["epoch"].items() if k != "dataset_size"}}
    DataLoader(TensorDataset(mg.arange(20.0)), batch_size=3, shuffle=True).load_state_dict(older)  # (not recorded)


def test_an_epoch_of_whole_batches_loads_into_a_loader_that_drops_the_last():
    """drop_last changes nothing for an epoch whose batches are all whole (9 samples in 3s): the
    loader with drop_last=True hands out the same batches; the other way round (9 of 10 samples,
    one dropped) stays refused, since this loader would hand out the dropped one."""
    from minigrad_ckpt.utils.data import TensorDataset

    def mid_epoch(n, **options):
        loader = DataLoader(TensorDataset(mg.arange(float(n))), batch_size=3, shuffle=True, **options)
        it = iter(loader)
        next(it)
        return loader.state_dict(), [b[0].tolist() for b in it]

    state, rest = mid_epoch(9)
    other = DataLoader(TensorDataset(mg.arange(9.0)), batch_size=3, shuffle=True, drop_last=True)
    other.load_state_dict(state)
    assert [b[0].tolist() for b in other] == rest
    state, _ = mid_epoch(10, drop_last=True)
    with pytest.raises(ValueError, match="drop_last"):
        DataLoader(TensorDataset(mg.arange(10.0)), batch_size=3, shuffle=True).load_state_dict(state)
