"""Per-rank state files (``minigrad_ckpt/snapshot/ranks.py``) without MPI: a 2-rank snapshot made
by hand in one process, loaded as each rank and as one process; damaged rank files, pruning."""

from __future__ import annotations

import json

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import SnapshotManager
from minigrad_ckpt.snapshot.ranks import RANK_FILES_KEY, WORLD_KEY, rank_file_name, write_rank_state
from minigrad_ckpt.utils.data import DataLoader, DistributedSampler, TensorDataset

pytestmark = pytest.mark.msgpack
N = 20


def _rank(rank, world=2, batches=2):
    """Rank ``rank``'s loader after ``batches`` batches of epoch 1, and its executor."""
    ds = TensorDataset(mg.arange(N))
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, seed=3)
    loader = DataLoader(ds, batch_size=3, sampler=sampler)
    ex = mg.Executor()
    ex.register_state("loader", loader)
    sampler.set_epoch(1)
    it = iter(loader)
    seen = [i for _ in range(batches) for i in next(it)[0].tolist()]
    return ex, loader, sampler, seen


def _save_two_ranks(manager, iteration, token="ab12cd34"):
    files, seen = [], []
    for r in range(2):
        ex, loader, _, s = _rank(r)
        mg.manual_seed(100 + r)
        name = rank_file_name(iteration, token, r, 2)
        files.append([name, write_rank_state(manager.directory, name, iteration, r, 2, mg.get_rng_state(),
                                             ex.object_states())])
        seen += s
    meta = {RANK_FILES_KEY: json.dumps(files), WORLD_KEY: "2"}
    manager.save_snapshot(ex, iteration, metadata=meta, _local=True, _rank_files=[f[0] for f in files])
    return files, seen


def test_each_rank_gets_its_own_state_and_one_process_gets_the_whole_epoch(tmp_path):
    manager = SnapshotManager(tmp_path)
    _, seen = _save_two_ranks(manager, 5)
    for r in range(2):
        snap = manager.load_latest(_rank=(r, 2))
        assert snap.state["rng"]["seed"] == 100 + r and snap.state["ranks"] is None
        ex, loader, sampler, _ = _rank(r, batches=0)
        sampler.set_epoch(0)
        snap.restore_into(ex)
        assert sampler.epoch == 1 and mg.get_rng_state()["seed"] == 100 + r
        want = list(sampler)[6:]  # the rank's shard after its two batches
        assert [i for b in loader for i in b[0].tolist()] == want
    # one process (an elastic resume 2 -> 1): rank 0's RNG, every rank's remaining samples
    snap = manager.load_latest()
    ex, loader, sampler, _ = _rank(0, world=1, batches=0)
    snap.restore_into(ex)
    rest = [i for b in loader for i in b[0].tolist()]
    assert mg.get_rng_state()["seed"] == 100 and sampler.epoch == 1
    both = [i for r in range(2) for i in _shard(r, 2, 1)]
    assert sorted(seen + rest) == sorted(both)  # every sample of the epoch once (padding included)
    # a rank the old run did not have: seeded as manual_seed_per_rank would have
    assert manager.load_latest(_rank=(2, 3)).state["rng"]["seed"] == 102


def _shard(rank, world, epoch):
    s = DistributedSampler(list(range(N)), num_replicas=world, rank=rank, seed=3)
    s.set_epoch(epoch)
    return list(s)


def test_a_damaged_or_missing_rank_file_skips_the_snapshot_and_pruning_deletes_them(tmp_path):
    manager = SnapshotManager(tmp_path, max_snapshots=1)
    _save_two_ranks(manager, 1, "00000001")
    files, _ = _save_two_ranks(manager, 2, "00000002")
    assert not list(tmp_path.glob("ranks-000000000001-*"))  # pruned with their snapshot
    manager = SnapshotManager(tmp_path, max_snapshots=None)
    _save_two_ranks(manager, 3, "00000003")
    victim = tmp_path / rank_file_name(3, "00000003", 1, 2)
    victim.write_bytes(victim.read_bytes()[:-1] + b"\\x00")
    with pytest.warns(UserWarning, match="rank file .* does not match"):
        assert manager.load_latest(_rank=(1, 2)).metadata.iteration == 2
    victim.unlink()
    with pytest.warns(UserWarning, match=r"1-of-2\.mgrank.*No such file"):
        assert manager.load_latest().metadata.iteration == 2
