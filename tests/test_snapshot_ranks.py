"""Per-rank state files (``minigrad_ckpt/snapshot/ranks.py``) without MPI: a 2-rank snapshot made
by hand in one process, loaded as each rank and as one process; damaged rank files, pruning."""

from __future__ import annotations

import json

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot, SnapshotManager, claims
from minigrad_ckpt.snapshot.ranks import RANK_FILES_KEY, WORLD_KEY, assign, rank_file_name, write_rank_state
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


def _dead_save(directory, iteration, token):
    """The rank files of a collective save whose job died before rank 0 committed it."""
    names = [rank_file_name(iteration, token, r, 2) for r in range(2)]
    for r, name in enumerate(names):
        write_rank_state(directory, name, iteration, r, 2, mg.get_rng_state(), None)
    return names


def _rank_files(directory):
    return sorted(p.name for p in directory.glob("*.mgrank"))


def test_orphaned_rank_files_are_deleted_at_the_next_successful_save(tmp_path):
    """Orphans (a job died between its rank files and the commit) were never deleted; now the
    next successful save deletes them -- never a committed snapshot's, never a claimed save's."""
    manager = SnapshotManager(tmp_path, max_snapshots=None)
    committed = [f[0] for f in _save_two_ranks(manager, 1, "00000001")[0]]
    orphans = _dead_save(tmp_path, 2, "00000002")
    stale = "00000004"  # a dead process's claim: the file is there, nobody holds its lock
    (tmp_path / f".saving-{stale}.lock").write_bytes(b"")
    orphans += _dead_save(tmp_path, 4, stale)
    in_flight = claims.claim(tmp_path)  # a save still running (in another process, or queued)
    pending = _dead_save(tmp_path, 3, in_flight)
    assert _rank_files(tmp_path) == sorted(committed + orphans + pending)
    manager.save_snapshot(mg.Executor(), 5)
    assert _rank_files(tmp_path) == sorted(committed + pending)
    assert not (tmp_path / f".saving-{stale}.lock").exists()
    assert manager.load_latest(_rank=(1, 2)).metadata.iteration == 5
    assert [manager.load_latest(_rank=(r, 2)) for r in range(2)]  # (rank files checked on load)
    claims.release(tmp_path, in_flight)  # that save died too
    manager.save_snapshot(mg.Executor(), 6)
    assert _rank_files(tmp_path) == sorted(committed)
    snap = Snapshot.load(manager.path_for(1))
    assert assign(snap, 1, 2).state["rng"]["seed"] == 101  # the committed snapshot's rank files intact


def test_rank_files_named_only_by_a_snapshot_header_are_kept(tmp_path):
    """The manifest is lost (rebuilt from the files on disk, without rank lists): the rank files
    its snapshots name in their headers are still theirs; an unreadable snapshot stops the cleanup."""
    manager = SnapshotManager(tmp_path, max_snapshots=None)
    committed = [f[0] for f in _save_two_ranks(manager, 1, "00000001")[0]]
    (tmp_path / "MANIFEST.msgpack").unlink()
    orphans = _dead_save(tmp_path, 2, "00000002")
    (tmp_path / "snapshot-000000000009.mgsnap").write_bytes(b"not a snapshot")
    manager.save_snapshot(mg.Executor(), 3)
    assert _rank_files(tmp_path) == sorted(committed + orphans)  # a header it cannot read: delete nothing
    (tmp_path / "snapshot-000000000009.mgsnap").unlink()
    manager.save_snapshot(mg.Executor(), 4)
    assert _rank_files(tmp_path) == sorted(committed)
    assert assign(Snapshot.load(manager.path_for(1)), 1, 2).state["rng"]["seed"] == 101


def test_a_queued_asynchronous_save_keeps_its_rank_files_while_a_later_save_commits(tmp_path):
    """Within one job: rank 0's asynchronous save waits for the writer while a later save
    commits and cleans up; the waiting save's rank files are claimed, so they stay."""
    import threading

    manager = SnapshotManager(tmp_path, max_snapshots=None)
    token = manager._claim_save()
    ex, _, _, _ = _rank(0)
    files = [[name, write_rank_state(tmp_path, name, 7, r, 2, mg.get_rng_state(), ex.object_states())]
             for r, name in enumerate(rank_file_name(7, token, r, 2) for r in range(2))]
    gate = threading.Event()
    manager._writer.submit(lambda: gate.wait(60), -1)
    handle = manager.save_snapshot(ex, 7, metadata={RANK_FILES_KEY: json.dumps(files), WORLD_KEY: "2"},
                                   blocking=False, _local=True, _rank_files=[f[0] for f in files])
    manager.save_snapshot(mg.Executor(), 8)  # commits (in this thread) and cleans up
    assert _rank_files(tmp_path) == sorted(f[0] for f in files)
    gate.set()
    handle.wait()
    assert manager.load_latest(_rank=(1, 2)).metadata.iteration == 8
    assert assign(Snapshot.load(handle.path), 1, 2).metadata.iteration == 7
    assert not list(tmp_path.glob(".saving-*"))  # the claim ended with the commit
