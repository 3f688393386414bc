"""Scenarios of tests/test_state_seams.py, each run under ``mpiexec -n 2`` (under a timeout).

    mpiexec -n 2 python tests/state_seams_worker.py SCENARIO [ARGS...]

A scenario asserts on every rank (a failed assertion aborts the job); what the
test reads is printed as ``RESULT <rank> <json>`` lines.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import distributed as dist
from minigrad_ckpt import nn, optim
from minigrad_ckpt.nn.parallel import DistributedDataParallel as DDP


def result(value) -> None:
    sys.stdout.write(f"RESULT {dist.get_rank()} {json.dumps(value)}\n")
    sys.stdout.flush()


def state_digest(module) -> str:
    """Every parameter and buffer, bit for bit."""
    h = hashlib.sha256()
    for name, t in module.state_dict().items():
        h.update(name.encode())
        h.update(np.ascontiguousarray(t.numpy()).tobytes())
    return h.hexdigest()


def scenario_own_state(out_dir: str, mode: str) -> None:
    """DDP with ``broadcast_buffers=False``: each rank's BatchNorm statistics follow its own
    batches; a user tensor sums the rank's own inputs.  ``fresh`` trains 6 steps with a snapshot
    after step 3; ``resume`` restores that snapshot and trains steps 4-6.  Each rank reports the
    digest of its parameters and buffers, and its sum."""
    from minigrad_ckpt.snapshot import SnapshotManager

    mg.set_default_dtype("float64")
    rank = dist.get_rank()
    mg.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 6),
                        nn.BatchNorm1d(6, momentum=None), nn.Linear(6, 2))
    model = DDP(net, broadcast_buffers=False)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    ex = mg.Executor(model, opt)
    seen = ex.add_tensor("seen", np.zeros(4))
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"))
    rng = np.random.default_rng(rank)
    batches = [mg.tensor(rng.standard_normal((5, 4))) for _ in range(6)]
    start = 0
    if mode == "resume":
        manager.load_latest().restore_into(ex)
        start = ex.iteration
    for i in range(start, 6):
        seen.add_(batches[i].sum(0))
        loss = (model(batches[i]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        ex.step()
        if mode == "fresh" and ex.iteration == 3:
            manager.save_snapshot(ex)
    result({"digest": state_digest(net), "seen": ex.get_tensor("seen").numpy().tolist(), "start": start})


def scenario_tape(out_dir: str) -> None:
    """A collective save with ``include_tape``: each rank recorded the loss of its own batch.
    Refused on every rank (a snapshot holds rank 0's replicated state only), and nothing is
    committed; then the same save without the tape."""
    from minigrad_ckpt.snapshot import SnapshotConfig, SnapshotManager

    mg.set_default_dtype("float64")
    rank = dist.get_rank()
    mg.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1)))
    ex = mg.Executor(model)
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"), config=SnapshotConfig(include_tape=True))
    loss = model(mg.tensor(np.full((2, 4), float(rank + 1)))).sum()
    ex.record(loss)
    try:
        manager.save_snapshot(ex, 1)
        refused = None
    except dist.DistributedError as exc:
        refused = str(exc)
    listed = [p.name for p in manager.list_snapshots()]
    manager.save_snapshot(ex, 2, config=SnapshotConfig())
    result({"refused": refused, "listed": listed, "after": [p.name for p in manager.list_snapshots()]})


def scenario_before_init() -> None:
    """What needs this rank's place in the job, asked for before ``init_process_group``: refused
    (every rank would be rank 0 of 1), then, after it, each rank's own shard and seed."""
    from minigrad_ckpt.utils.data import DistributedSampler

    refused = []
    for what, call in (("DistributedSampler", lambda: DistributedSampler(list(range(8)))),
                       ("manual_seed_per_rank", lambda: dist.manual_seed_per_rank(3))):
        try:
            call()
        except RuntimeError as exc:
            assert "init_process_group() first" in str(exc), exc
            refused.append(what)
    dist.init_process_group("mpi", timeout=60)
    shard = list(DistributedSampler(list(range(8)), seed=0))
    dist.manual_seed_per_rank(3)
    result({"refused": refused, "shard": shard, "seed": mg.get_rng_state()["seed"]})


if __name__ == "__main__":
    name, *args = sys.argv[1:]
    if name != "before_init":
        dist.init_process_group("mpi", timeout=60)
    globals()[f"scenario_{name}"](*args)
    dist.destroy_process_group()
