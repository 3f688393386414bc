"""Data-parallel training: the spirals MLP on every rank, gradients averaged.

    mpiexec -n 2 python examples/ddp_spirals.py                  # 2 processes
    python examples/ddp_spirals.py                               # the same script, one process
    mpiexec -n 2 python examples/ddp_spirals.py --out run        # + a snapshot every 50 steps
    mpiexec -n 2 python examples/ddp_spirals.py --out run --resume

Every rank runs this whole script.  What makes it data-parallel:

1. ``dist.init_process_group()``: join the job (a world of one without mpiexec);
2. ``DistributedSampler``: each rank reads its own shard of every epoch;
3. ``DistributedDataParallel``: the model starts as rank 0's on every rank and
   backward averages the gradients, so every rank takes the same step;
4. ``dist.manual_seed_per_rank``: each rank's own random stream (dropout);
5. ``SnapshotManager``: collective in a multi-rank run (rank 0 writes one
   snapshot with every rank's RNG state; ``--resume`` continues exactly).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import distributed as dist
from minigrad_ckpt import nn, optim
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.nn.parallel import DistributedDataParallel
from minigrad_ckpt.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_spirals(n_per_class: int = 100, noise: float = 0.2):
    """Points (300, 2) on three spiral arms and their labels (as in mlp_spirals.py)."""
    rng = np.random.default_rng(0)
    r = np.tile(np.linspace(0.0, 1.0, n_per_class), 3)
    c = np.repeat(np.arange(3), n_per_class)
    t = np.concatenate([np.linspace(k * 4.0, (k + 1) * 4.0, n_per_class) for k in range(3)])
    t = t + rng.normal(0.0, noise, t.shape)
    return np.stack([r * np.sin(t), r * np.cos(t)], axis=1).astype(np.float32), c


def main(argv: list[str] | None = None) -> float:
    p = argparse.ArgumentParser(description="Data-parallel MLP on spirals (run under mpiexec -n N).")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--global-batch", type=int, default=64, help="split evenly among the ranks")
    p.add_argument("--out", default=None, help="snapshot directory parent (snapshots every 50 steps)")
    p.add_argument("--resume", action="store_true")
    args = p.parse_args(argv)

    dist.init_process_group()
    world = dist.get_world_size()
    if args.global_batch % world:
        raise SystemExit(f"--global-batch {args.global_batch} does not divide among {world} ranks")
    x, y = make_spirals()
    data = TensorDataset(mg.tensor(x), mg.tensor(y))
    sampler = DistributedSampler(data, seed=0)
    loader = DataLoader(data, batch_size=args.global_batch // world, sampler=sampler, drop_last=True)

    mg.manual_seed(0)
    model = DistributedDataParallel(nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Dropout(0.1),
                                                  nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 3)))
    dist.manual_seed_per_rank(0)  # after construction: parameters came from rank 0 anyway
    opt = optim.Adam(model.parameters(), lr=0.01)
    ex = mg.Executor(model, opt)
    manager = mg.snapshot.SnapshotManager(Path(args.out) / "snapshots") if args.out else None
    if args.resume and manager is not None:
        manager.load_latest().restore_into(ex)  # every rank: shared state + its own RNG state
    step, epoch = ex.iteration, ex.iteration // len(loader)
    while step < args.steps:
        sampler.set_epoch(epoch)  # every rank: the same permutation, its own shard
        for i, (xb, yb) in enumerate(loader):
            if epoch * len(loader) + i < ex.iteration:
                continue  # batches this run did before the snapshot
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
            step = ex.iteration = step + 1
            if manager is not None and step % 50 == 0:
                manager.save_snapshot(ex)
            if step == args.steps:
                break
        epoch += 1
    model.eval()
    with mg.no_grad():
        accuracy = float((model(mg.tensor(x)).numpy().argmax(1) == y).mean())
    dist.print0(f"{world} rank(s), {args.steps} steps: training accuracy {accuracy:.3f}")
    dist.destroy_process_group()
    return accuracy


if __name__ == "__main__":
    main()
