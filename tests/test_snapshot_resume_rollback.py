"""Resuming from an earlier snapshot starts a new timeline: the manager's next save of that
executor abandons the snapshots of later iterations, so ``load_latest`` never resumes the old one.

Training saved at iterations 1..10, diverged, and was resumed from 5 with a smaller learning
rate; it saved 6 and 7 and crashed.  ``load_latest`` used to answer the abandoned timeline's 10
(the highest iteration), silently resuming the run the user had thrown away.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.snapshot import Snapshot, SnapshotConfig, SnapshotManager

pytestmark = pytest.mark.msgpack


def _run(seed: int = 0):
    """A model, its optimizer and an executor holding both, fresh from ``seed``."""
    mg.manual_seed(seed)
    model = nn.Linear(3, 2)
    opt = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    return model, opt, mg.Executor(model, opt)


def _step(model, opt, ex, lr: float) -> None:
    for g in opt.param_groups:
        g["lr"] = lr
    x = mg.tensor(np.arange(6.0).reshape(2, 3) / (ex.iteration + 1), dtype=mg.float32)
    loss = (model(x) ** 2).sum() + mg.randn(1).sum() * 0  # the RNG is part of the state
    opt.zero_grad()
    loss.backward()
    opt.step()
    ex.iteration += 1


def _train(manager, model, opt, ex, until: int, lr: float, blocking: bool = True) -> None:
    while ex.iteration < until:
        _step(model, opt, ex, lr)
        manager.save_snapshot(ex, blocking=blocking)
    manager.wait()


def _weights(model):
    return [p.detach().numpy().copy() for p in model.parameters()]


def _iterations(manager):
    return [Snapshot.load(p).metadata.iteration for p in manager.list_snapshots()]


@pytest.mark.parametrize("blocking", [True, False], ids=["blocking", "asynchronous"])
@pytest.mark.parametrize("incremental", [False, True], ids=["full", "incremental"])
def test_load_latest_resumes_the_new_timeline_not_the_abandoned_one(tmp_path, blocking, incremental):
    config = SnapshotConfig(incremental=incremental)
    manager = SnapshotManager(tmp_path, max_snapshots=None, config=config, full_every=20)
    model, opt, ex = _run()
    _train(manager, model, opt, ex, 10, lr=0.1, blocking=blocking)
    assert _iterations(manager) == list(range(1, 11))

    model, opt, ex = _run(seed=99)  # a fresh process goes back to iteration 5
    five = [p for p in manager.list_snapshots() if Snapshot.load(p).metadata.iteration == 5][0]
    Snapshot.load(five).restore_into(ex)
    assert ex.iteration == 5 and ex.resumed_from[2] == 5
    _train(manager, model, opt, ex, 7, lr=0.01, blocking=blocking)
    assert ex.resumed_from is None
    want = _weights(model)

    assert _iterations(manager) == [1, 2, 3, 4, 5, 6, 7]
    assert not (tmp_path / "snapshot-000000000010.mgsnap").exists()  # the manager wrote it: deleted
    model, opt, ex = _run(seed=7)  # the crash: resume from whatever is latest
    snap = manager.load_latest()
    assert snap.metadata.iteration == 7
    snap.restore_into(ex)
    for got, w in zip(_weights(model), want):
        np.testing.assert_array_equal(got, w)

    # ... and the new timeline goes on, bitwise the run that never stopped
    _train(manager, model, opt, ex, 9, lr=0.01, blocking=blocking)
    ref_model, ref_opt, ref_ex = _run(seed=5)
    Snapshot.load(five).restore_into(ref_ex)
    other = SnapshotManager(tmp_path / "reference")
    _train(other, ref_model, ref_opt, ref_ex, 9, lr=0.01)
    for got, w in zip(_weights(model), _weights(ref_model)):
        np.testing.assert_array_equal(got, w)
    assert _iterations(manager) == list(range(1, 10))


def test_resuming_the_newest_snapshot_abandons_nothing(tmp_path):
    manager = SnapshotManager(tmp_path, max_snapshots=None)
    model, opt, ex = _run()
    _train(manager, model, opt, ex, 4, lr=0.1)
    model, opt, ex = _run(seed=1)
    manager.load_latest().restore_into(ex)
    _train(manager, model, opt, ex, 6, lr=0.1)
    assert _iterations(manager) == [1, 2, 3, 4, 5, 6]


def test_saves_that_follow_no_restore_keep_their_order_by_iteration(tmp_path):
    """Out of order saves, or several processes saving into one directory, supersede nothing."""
    manager = SnapshotManager(tmp_path, max_snapshots=None)
    model, opt, ex = _run()
    manager.save_snapshot(ex, 10)
    manager.save_snapshot(ex, 5)
    assert manager.load_latest().metadata.iteration == 10
    assert _iterations(manager) == [5, 10]


def test_a_restore_from_another_directory_or_a_foreign_file_abandons_nothing_here(tmp_path):
    here = SnapshotManager(tmp_path / "here", max_snapshots=None)
    elsewhere = SnapshotManager(tmp_path / "elsewhere", max_snapshots=None)
    model, opt, ex = _run()
    _train(elsewhere, model, opt, ex, 2, lr=0.1)
    for it in (3, 4):
        here.save_snapshot(ex, it)
    model, opt, ex = _run(seed=2)
    Snapshot.load(elsewhere.list_snapshots()[0]).restore_into(ex)  # iteration 1, another directory
    here.save_snapshot(ex, 2)
    assert _iterations(here) == [2, 3, 4]
    assert ex.resumed_from is not None  # its next save into "elsewhere" still rolls back there
    elsewhere.save_snapshot(ex, 2)
    assert _iterations(elsewhere) == [1, 2] and ex.resumed_from is None


def test_an_abandoned_chain_goes_and_the_bases_of_the_resumed_snapshot_stay(tmp_path):
    """Incremental chains: resumed from 8, the new 9 is based on 8 (whose chain stays on disk); the
    abandoned 9 and 10 are deleted, although the old 9 was the old 10's base."""
    manager = SnapshotManager(tmp_path, max_snapshots=3, config=SnapshotConfig(incremental=True),
                              full_every=20)
    model, opt, ex = _run()
    _train(manager, model, opt, ex, 10, lr=0.1)
    old_ten = tmp_path / "snapshot-000000000010.mgsnap"
    assert Snapshot.load(old_ten).base is not None
    model, opt, ex = _run(seed=3)
    Snapshot.load(tmp_path / "snapshot-000000000008.mgsnap").restore_into(ex)
    _train(manager, model, opt, ex, 9, lr=0.01)
    assert 10 not in _iterations(manager) and not old_ten.exists()
    latest = manager.load_latest()
    assert latest.metadata.iteration == 9
    nines = sorted(p.name for p in tmp_path.glob("snapshot-000000000009*"))
    assert nines == [latest.path.name]  # the old 9 is gone too
    assert Snapshot.load(latest.base.path).metadata.iteration == 8
    for got, w in zip(_weights(model), [latest.tensors[f"model.{n}"] for n, _ in model.named_parameters()]):
        np.testing.assert_array_equal(got, w)


def test_a_two_rank_snapshot_abandoned_takes_its_rank_files_with_it(tmp_path):
    """The collective save's commit (rank 0's local save, with the ranks' files) rolls back too."""
    import json

    from minigrad_ckpt.snapshot.ranks import RANK_FILES_KEY, WORLD_KEY, rank_file_name, write_rank_state

    manager = SnapshotManager(tmp_path, max_snapshots=None)
    model, opt, ex = _run()

    def save(it: int, token: str) -> list[str]:
        ex.iteration = it
        files = []
        for r in range(2):
            name = rank_file_name(it, token, r, 2)
            files.append([name, write_rank_state(manager.directory, name, it, r, 2, mg.get_rng_state(), {})])
        meta = {RANK_FILES_KEY: json.dumps(files), WORLD_KEY: "2"}
        manager.save_snapshot(ex, it, metadata=meta, _local=True, _rank_files=[f[0] for f in files])
        return [f[0] for f in files]

    old = [save(it, f"{it:08x}") for it in (1, 2, 3)]
    manager.load_latest(_rank=(0, 2))  # a load alone changes nothing
    snap = Snapshot.load(manager.list_snapshots()[0])
    snap.restore_into(ex)
    save(2, "0000aaaa")
    assert _iterations(manager) == [1, 2]
    assert manager.load_latest(_rank=(1, 2)).metadata.iteration == 2
    for name in old[1] + old[2]:
        assert not (tmp_path / name).exists()
    for name in old[0]:
        assert (tmp_path / name).exists()
