"""Scenarios of ``nn.SyncBatchNorm`` run by tests/test_sync_batchnorm_distributed.py under ``mpiexec -n 2``.

    mpiexec -n 2 python tests/sync_batchnorm_worker.py SCENARIO [ARGS...]

Each rank holds some rows of one batch (uneven, one or none included) and compares what it gets with
one plain ``BatchNorm`` given the whole batch, which every rank computes by itself.  A failed
assertion aborts the job; what the test reads is printed as ``RESULT <rank> <json>`` lines.
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


def rows_of(rank: int, split: tuple[int, ...]) -> slice:
    start = sum(split[:rank])
    return slice(start, start + split[rank])


def summed(t) -> np.ndarray:
    """``t``'s values summed over the ranks (the weight and bias gradients: DDP's sum)."""
    every = [mg.zeros_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(every, t.detach())
    return sum(e.numpy() for e in every)


def rel_err(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b), initial=0.0) / max(np.max(np.abs(b), initial=0.0), 1e-300))


#: (the plain layer, the keywords both take, the input's shape after the batch axis)
LAYERS = {
    "1d": (nn.BatchNorm1d, {}, (3, 4)),
    "2d": (nn.BatchNorm2d, {"momentum": None, "bias": False}, (3, 2, 2)),
    "flat": (nn.BatchNorm1d, {"affine": False, "track_running_stats": False}, (3,)),
}


def _pair(kind: str, dtype: str):
    plain, kwargs, _ = LAYERS[kind]
    ref = plain(3, dtype=dtype, **kwargs)
    sync = nn.SyncBatchNorm(3, dtype=dtype, **kwargs)
    rng = np.random.default_rng(5)
    with mg.no_grad():
        for p, q in zip(ref.parameters(), sync.parameters()):
            p.copy_(mg.tensor(rng.uniform(0.5, 1.5, p.shape), dtype=dtype))
            q.copy_(p)
    return ref, sync


def _one_step(ref, sync, kind: str, split: tuple[int, ...], step: int, dtype: str) -> dict[str, float]:
    """One forward and backward of the whole batch through ``ref`` and of this rank's rows through ``sync``:
    the relative differences of the values, gradients and running statistics."""
    rank, n = dist.get_rank(), sum(split)
    rng = np.random.default_rng(100 + step)
    # a mean far from zero beside the spread: what a sum of squares would cancel in
    x = rng.standard_normal((n, *LAYERS[kind][2])) * 0.5 + 3.0
    g = rng.standard_normal(x.shape)
    mine = rows_of(rank, split)
    for m in (ref, sync):
        m.zero_grad()
    xf = mg.tensor(x, dtype=dtype, requires_grad=True)
    out_ref = ref(xf)
    (out_ref * mg.tensor(g, dtype=dtype)).sum().backward()
    xr = mg.tensor(x[mine], dtype=dtype, requires_grad=True)
    out = sync(xr)
    (out * mg.tensor(g[mine], dtype=dtype)).sum().backward()
    errs = {"value": rel_err(out.numpy(), out_ref.numpy()[mine]),
            "input_grad": rel_err(xr.grad.numpy(), xf.grad.numpy()[mine])}
    for (name, p), q in zip(sync.named_parameters(), ref.parameters()):
        errs[f"{name}_grad"] = rel_err(summed(p.grad), q.grad.numpy())
    for (name, b), c in zip(sync.named_buffers(), ref.buffers()):
        errs[name] = rel_err(b.numpy(), c.numpy())
    return errs


def scenario_equivalence(dtype: str) -> None:
    """Two training steps, then eval mode, for each layer and split of the 7 rows; the worst error of each."""
    worst: dict[str, float] = {}
    for split in ((5, 2), (7, 0), (1, 6)):
        for kind in LAYERS:
            ref, sync = _pair(kind, dtype)
            for step in range(2):
                for name, e in _one_step(ref, sync, kind, split, step, dtype).items():
                    worst[name] = max(worst.get(name, 0.0), e)
            ref.eval()
            sync.eval()  # no synchronization: this rank's rows alone, by the running statistics
            x = mg.tensor(np.random.default_rng(9).standard_normal((2, *LAYERS[kind][2])), dtype=dtype)
            worst["eval"] = max(worst.get("eval", 0.0), rel_err(sync(x).numpy(), ref(x).numpy()))
    result(worst)


def _net(dtype: str = "float64"):
    mg.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.Tanh(), nn.Linear(6, 2)).to(dtype)


class _Counted:
    """How many times the module-level collectives SyncBatchNorm calls ran."""

    def __init__(self) -> None:
        self.calls = {"all_gather": 0, "all_reduce": 0}
        for name in self.calls:
            setattr(dist, name, self._counting(name, getattr(dist, name)))

    def _counting(self, name, fn):
        def counted(*args, **kwargs):
            self.calls[name] += 1
            return fn(*args, **kwargs)
        return counted


def scenario_checkpoint() -> None:
    """A checkpointed segment holding a SyncBatchNorm: its replay reproduces the forward bit for bit
    (``determinism_check="value"``), runs no collective, and does not update the running statistics again."""
    rank, split = dist.get_rank(), (5, 3)
    plain = nn.SyncBatchNorm.convert_sync_batchnorm(_net())
    ckpt = nn.SyncBatchNorm.convert_sync_batchnorm(_net())
    x = np.random.default_rng(3).standard_normal((8, 4))[rows_of(rank, split)]
    counted = _Counted()
    plain(mg.tensor(x)).pow(2).sum().backward()
    calls_plain = dict(counted.calls)
    counted.calls = dict.fromkeys(counted.calls, 0)
    out = mg.checkpoint.checkpoint(ckpt, mg.tensor(x), determinism_check="value", use_reentrant=False)
    out.pow(2).sum().backward()
    bitwise = all(bool((p.grad == q.grad).all()) for p, q in zip(plain.parameters(), ckpt.parameters()))
    buffers = all(bool((a == b).all()) for a, b in zip(plain.buffers(), ckpt.buffers()))
    result({"grads_bitwise": bitwise, "buffers_bitwise": buffers, "calls_plain": calls_plain,
            "calls_checkpointed": counted.calls, "batches_tracked": int(ckpt[1].num_batches_tracked)})


def _train(model, opt, steps: int, shard, world: int) -> None:
    for step in range(steps):
        _train_step(model, opt, step, shard, world)


def scenario_ddp(dtype: str) -> None:
    """DDP over a converted model, uneven shards (5 and 3 rows), four SGD steps with momentum: the
    parameters and running statistics of one process training plain BatchNorm on the whole batch."""
    rank, world = dist.get_rank(), dist.get_world_size()
    ref = _net(dtype)
    _train(ref, optim.SGD(ref.parameters(), lr=0.05, momentum=0.9), 4, slice(None), 1)
    # (process_group: new_group() of every rank, PyTorch's handle of the world)
    model = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(_net(dtype), dist.new_group()))
    assert model.module[1].process_group is dist.group.WORLD
    _train(model, optim.SGD(model.parameters(), lr=0.05, momentum=0.9), 4, rows_of(rank, (5, 3)), world)
    errs = {"parameters": max(rel_err(p.numpy(), q.numpy()) for p, q in zip(model.module.parameters(),
                                                                              ref.parameters())),
            "buffers": max(rel_err(a.numpy(), b.numpy()) for a, b in zip(model.module.buffers(), ref.buffers()))}
    result(errs)


def _digest(model) -> str:
    h = hashlib.sha256()
    for t in (*model.parameters(), *model.buffers()):
        h.update(np.ascontiguousarray(t.numpy()).tobytes())
    return h.hexdigest()


def scenario_resume(out_dir: str, stop_at: str, mode: str) -> None:
    """Six steps with a snapshot every 2; ``fresh`` dies (os._exit) after step ``stop_at`` (> 0),
    ``resume`` continues from the newest snapshot.  The digest covers the running statistics."""
    from minigrad_ckpt.executor import Executor
    from minigrad_ckpt.snapshot import SnapshotManager

    rank, world, stop_at = dist.get_rank(), dist.get_world_size(), int(stop_at)
    model = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(_net()))
    opt = optim.Adam(model.parameters(), lr=0.01)
    ex = Executor(model, opt)
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"), max_snapshots=2)
    if mode == "resume":
        manager.load_latest().restore_into(ex)
    for step in range(ex.iteration, 6):
        _train_step(model, opt, step, rows_of(rank, (5, 3)), world)
        ex.iteration = step + 1
        if ex.iteration % 2 == 0:
            manager.save_snapshot(ex)
        if ex.iteration == stop_at:
            sys.stdout.flush()
            os._exit(3)  # killed: no clean shutdown
    result({"digest": _digest(model.module)})


def _train_step(model, opt, step: int, shard, world: int) -> None:
    rng = np.random.default_rng(50 + step)
    x, y = rng.standard_normal((8, 4)), rng.standard_normal((8, 2))
    opt.zero_grad()
    (((model(mg.tensor(x[shard])) - mg.tensor(y[shard])) ** 2).sum() * (world / 8)).backward()
    opt.step()


if __name__ == "__main__":
    name, *args = sys.argv[1:]
    dist.init_process_group("mpi")
    globals()[f"scenario_{name}"](*args)
    dist.destroy_process_group()
