"""Ranks resume their own data, at any world size (``tests/distributed_worker.py elastic``).

A 2-rank run -- shuffled DistributedSampler, a DataLoader with 2 worker processes, DDP with
dropout, the loader registered with the executor, an asynchronous snapshot every 3 steps -- is
killed mid-epoch right after submitting a save, then resumed from the newest committed snapshot
on 2, 1 and 3 ranks (and a single process killed the same way resumes on 2).  Every sample of
the interrupted epoch is consumed exactly once across the killed run (up to the snapshot) and
the resumed ranks; later epochs follow DistributedSampler with the new world size; 2 -> 2 is
bitwise the uninterrupted run.  Each launch runs under a timeout.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter

import pytest
from test_distributed import WORKER, launch, results, run

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
pytestmark = pytest.mark.msgpack

N, EPOCHS, KILL_AT = 50, 3, 15  # 9 batches per rank and epoch: saves at 12 and 15 are mid-epoch 1


def _log(directory, mode, world):
    out = {}
    for r in range(world):
        path = directory / f"log-{mode}-{world}-{r}.jsonl"
        out[r] = [json.loads(line) for line in path.read_text().splitlines()]
    return out


def _shards(world, epoch):
    from minigrad_ckpt.utils.data import DistributedSampler

    out = []
    for r in range(world):
        s = DistributedSampler(list(range(N)), num_replicas=world, rank=r, seed=0)
        s.set_epoch(epoch)
        out.append(list(s))
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("elastic")
    whole, cut = root / "whole", root / "cut"
    whole.mkdir()
    cut.mkdir()
    full = results(launch("elastic", str(whole), "fresh", str(EPOCHS), "0", timeout=120))
    killed = launch("elastic", str(cut), "fresh", str(EPOCHS), str(KILL_AT), timeout=120)
    assert killed.returncode != 0  # it died with the save of step KILL_AT in flight
    resumed = {}
    for world in (2, 3, 1):
        d = root / f"resume{world}"
        shutil.copytree(cut, d)
        if world == 1:  # one process, no launcher
            proc = run([sys.executable, str(WORKER), "elastic", str(d), "resume", str(EPOCHS), "0"], timeout=120)
        else:
            proc = launch("elastic", str(d), "resume", str(EPOCHS), "0", n=world, timeout=120)
        resumed[world] = (d, results(proc, n=world))
    # and 1 -> 2: a single process killed the same way, resumed on two ranks
    single = root / "single"
    single.mkdir()
    killed = run([sys.executable, str(WORKER), "elastic", str(single), "fresh", str(EPOCHS), str(KILL_AT)], timeout=120)
    assert killed.returncode != 0
    up = root / "up"
    shutil.copytree(single, up)
    resumed["1to2"] = (up, results(launch("elastic", str(up), "resume", str(EPOCHS), "0", timeout=120)), single, 1)
    return full, cut, resumed


def test_two_to_two_is_bitwise_the_uninterrupted_run(runs):
    full, _, resumed = runs
    _, r = resumed[2]
    assert r[0]["digest"] == r[1]["digest"] == full[0]["digest"]


@pytest.mark.parametrize("case", [1, 2, 3, "1to2"])
def test_every_sample_of_the_interrupted_epoch_is_seen_exactly_once(runs, case):
    _, cut, resumed = runs
    d, r, cut, old = resumed[case] if case == "1to2" else (*resumed[case], cut, 2)
    world = 2 if case == "1to2" else case
    epoch = r[0]["start_epoch"]
    after = _log(d, "resume", world)
    snap_it = min(e["it"] for rank in after.values() for e in rank) - 1
    assert 0 < snap_it < KILL_AT + 1 and snap_it % 3 == 0
    before = _log(cut, "fresh", old)
    seen = [i for rank in before.values() for e in rank if e["epoch"] == epoch and e["it"] <= snap_it
            for i in e["ids"]]
    rest = [i for rank in after.values() for e in rank if e["epoch"] == epoch for i in e["ids"]]
    assert seen and rest  # the snapshot (step 12, or 15 if the save in flight was committed) is mid-epoch
    seen += rest
    want = [i for shard in _shards(old, epoch) for i in shard]  # the epoch as the old run dealt it
    assert Counter(seen) == Counter(want)
    counts = [sum(len(e["ids"]) for e in after[k] if e["epoch"] == epoch) for k in range(world)]
    assert max(counts) - min(counts) <= 1  # the remaining samples were dealt out evenly
    for later in range(epoch + 1, EPOCHS):  # then DistributedSampler with the new world size
        for k, shard in enumerate(_shards(world, later)):
            assert [i for e in after[k] if e["epoch"] == later for i in e["ids"]] == shard


def test_an_in_flight_save_left_the_previous_snapshot_the_newest(runs):
    _, cut, _ = runs
    from minigrad_ckpt.snapshot import SnapshotManager

    snap = SnapshotManager(cut / "snapshots").load_latest()  # one process may load it too now
    assert snap.metadata.iteration in (KILL_AT - 3, KILL_AT)
    assert snap.get_metadata("distributed.world_size") == "2"


def test_the_killed_runs_workers_did_not_outlive_it(runs):
    import time

    _, cut, resumed = runs
    killed = [f"distributed_worker.py elastic {d} fresh" for d in (cut, resumed["1to2"][2])]  # (not another job's)
    for _ in range(40):  # a worker notices its parent is gone within a second
        out = [subprocess.run(["pgrep", "-af", k], capture_output=True, text=True).stdout.strip() for k in killed]
        if not any(out):
            return
        time.sleep(0.25)
    pytest.fail(f"processes of the killed runs are still alive: {out}")
