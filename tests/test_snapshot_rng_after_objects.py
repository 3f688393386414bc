"""A snapshot's RNG state is the one after its registered objects' states were taken.

Taking a DataLoader's state mid-epoch draws the rest of the epoch first (its sampler is drawn
as the batches are made, as PyTorch's loader draws it), and a shuffling sampler draws its keys
from the engine's generator.  So a snapshot taken after ``iter(loader)`` and before the first
batch, or mid-epoch with a sampler that draws as it goes, moves the engine's generator while it
is taken: the RNG it keeps must be the one after that draw, or the resumed run draws a shifted
stream (dropout masks, ``mg.rand``).  Every way a snapshot is taken is checked: in memory, a
manager's blocking, asynchronous and incremental saves, the rank files of a data-parallel save,
and an elastic resume from them.
"""

from __future__ import annotations

import json

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig, SnapshotManager
from minigrad_ckpt.snapshot.ranks import RANK_FILES_KEY, WORLD_KEY
from minigrad_ckpt.utils.data import DataLoader, Sampler

pytestmark = pytest.mark.msgpack


class _DrawsAsItGoes(Sampler):
    """Each index drawn from the engine's generator when it is asked for."""

    def __iter__(self):
        for _ in range(6):
            yield int(mg.randint(0, 10, ()).item())

    def __len__(self) -> int:
        return 6


def _loader(kind: str, num_workers: int = 0) -> DataLoader:
    if kind == "shuffle":
        return DataLoader(list(range(10)), batch_size=3, shuffle=True, num_workers=num_workers)
    return DataLoader(list(range(10)), batch_size=2, sampler=_DrawsAsItGoes(), num_workers=num_workers)


def _started(kind: str, batches: int, num_workers: int = 0, seed: int = 0):
    """A seeded executor whose registered loader handed out ``batches`` batches of its epoch."""
    mg.manual_seed(seed)
    loader = _loader(kind, num_workers)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    it = iter(loader)
    for _ in range(batches):
        next(it)
    return ex, it


def _rest(batches) -> list:
    """The remaining batches, each with a draw the training step would make after it."""
    return [(b.tolist(), mg.rand(2).tolist()) for b in batches]


def _resumed(snap_or_load, kind: str, num_workers: int = 0) -> list:
    mg.manual_seed(123)  # another stream: only the snapshot's RNG may count
    loader = _loader(kind, num_workers)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    snap_or_load().restore_into(ex)
    return _rest(loader)


CASES = [("shuffle", 0), ("draws", 1), ("draws", 0)]  # (before the first batch, mid-epoch)


@pytest.mark.parametrize("kind, batches", CASES)
@pytest.mark.parametrize("num_workers", [0, 1])
def test_an_in_memory_snapshot_resumes_the_random_stream_bit_for_bit(kind, batches, num_workers):
    ex, it = _started(kind, batches, num_workers)
    snap = Snapshot.from_executor(ex)
    want = _rest(it)
    assert _resumed(lambda: snap, kind, num_workers) == want


@pytest.mark.parametrize("kind, batches", CASES)
@pytest.mark.parametrize("blocking", [True, False])
def test_a_managers_save_blocking_or_not_resumes_bit_for_bit(tmp_path, kind, batches, blocking):
    manager = SnapshotManager(tmp_path)
    ex, it = _started(kind, batches)
    handle = manager.save_snapshot(ex, blocking=blocking)
    want = _rest(it)  # the loop goes on while an asynchronous save writes
    if not blocking:
        handle.wait()
    assert _resumed(manager.load_latest, kind) == want


@pytest.mark.parametrize("kind, batches", CASES)
def test_an_incremental_save_resumes_bit_for_bit(tmp_path, kind, batches):
    manager = SnapshotManager(tmp_path, config=SnapshotConfig(incremental=True), full_every=5)
    mg.manual_seed(0)
    loader = _loader(kind)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    ex.add_tensor("w", mg.zeros(4))  # a tensor the incremental save takes from its base
    manager.save_snapshot(ex, 0)  # the base, between epochs
    it = iter(loader)
    for _ in range(batches):
        next(it)
    path = manager.save_snapshot(ex, 1)
    assert Snapshot.load(path).base is not None, "the second save was not incremental"
    want = _rest(it)
    assert _resumed(manager.load_latest, kind) == want


def _save_with_rank_files(manager: SnapshotManager, world: int, kind: str, batches: int) -> list[list]:
    """A data-parallel save made by hand in one process: each rank's executor writes its own rank
    file as the collective save has it do, rank 0 the snapshot; each rank's continuation."""
    files, wants = [], []
    for rank in range(world):
        ex, it = _started(kind, batches, seed=100 + rank)  # each rank its own stream
        files.append(manager._write_rank_state(ex, 7, "ab12cd34", rank, world))
        wants.append(_rest(it))
        if rank == 0:
            ex0 = ex
    meta = {RANK_FILES_KEY: json.dumps([list(f) for f in files]), WORLD_KEY: str(world)}
    manager.save_snapshot(ex0, 7, metadata=meta, _local=True, _rank_files=[name for name, _ in files])
    return wants


@pytest.mark.parametrize("kind, batches", CASES)
def test_each_rank_resumes_its_own_random_stream_from_its_rank_file(tmp_path, kind, batches):
    manager = SnapshotManager(tmp_path)
    wants = _save_with_rank_files(manager, 2, kind, batches)
    for rank in range(2):
        assert _resumed(lambda r=rank: manager.load_latest(_rank=(r, 2)), kind) == wants[rank]


@pytest.mark.parametrize("kind, batches", CASES)
def test_an_elastic_resume_takes_rank_0s_random_stream_after_its_loaders_draw(tmp_path, kind, batches):
    manager = SnapshotManager(tmp_path)
    wants = _save_with_rank_files(manager, 2, kind, batches)
    mg.manual_seed(123)
    loader = _loader(kind)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    manager.load_latest().restore_into(ex)  # 2 ranks -> 1 process: rank 0's RNG
    assert mg.rand(2).tolist() == wants[0][0][1]
