"""Regenerate ``tests/data/torch_ddp_buffers.json``: the BatchNorm running statistics each rank of
a 2-rank PyTorch DDP job holds inside and after ``Join([ddp])`` with uneven inputs, and through
gradient accumulation (``no_sync``) and forwards without grad.

    python tests/data/make_torch_ddp_buffers.py     # needs torch (gloo on loopback); the tests do not

PyTorch's DDP under ``Join`` broadcasts the buffers before each forward from the highest rank
that still has data (rank 0 may have joined, its buffers stale), and at the end of the block
from the highest rank that ran to the end -- the buffers only with ``broadcast_buffers=True``.
The model is ``Sequential(BatchNorm1d(3), Linear(3, 2))``: its running statistics depend on the
inputs and the broadcasts only, not on the weights (whose initialisation differs between the
libraries).

PyTorch decides at the end of each forward whether the next one broadcasts the buffers
(``require_forward_param_sync``): only after a forward with grad enabled and gradient sync on.
So through ``no_sync`` accumulation the buffers are broadcast before the first micro-batch only,
and before the first of a run of forwards under ``no_grad`` only.  ``tests/distributed_worker.py
buffers`` runs the same code (:func:`record`) on the engine.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).with_name("torch_ddp_buffers.json")
# (batches per rank, broadcast_buffers)
CASES = [([1, 3], True), ([3, 1], True), ([2, 2], True), ([1, 3], False)]


def batch(rank: int, k: int) -> np.ndarray:
    """Rank ``rank``'s ``k``-th input, 4 samples of 3 features (the worker draws the same)."""
    rng = np.random.default_rng(100 * rank + k)
    return rng.standard_normal((4, 3)) * (1 + rank) + k


def accumulation_steps() -> list[tuple[str, int]]:
    """The accumulation case's forwards: (how, batch number); ``how`` is ``"no_sync"``, ``"sync"``
    (a backward, then an optimizer step) or ``"no_grad"`` (a forward only, the model in training
    mode, so the statistics move)."""
    steps = []
    for cycle in range(2):
        steps += [("no_sync", 3 * cycle), ("no_sync", 3 * cycle + 1), ("sync", 3 * cycle + 2)]
    return steps + [("no_grad", 6), ("no_grad", 7), ("sync", 8), ("sync", 9)]


#: Each rank's forwards inside a Join block (rank 1's last one under no_sync), then two synced
#: steps on both after it: the rank that shadowed must skip the buffers' broadcast as the other does
JOINED_ACCUMULATION = ([[("sync", 0)], [("sync", 0), ("no_sync", 1)]], [("sync", 2), ("sync", 3)])


def record(lib: Any, ddp_class: Any, join_class: Any, rank: int) -> dict[str, Any]:
    """Every case's running statistics on this rank: ``lib`` is ``torch`` or ``minigrad_ckpt``
    (the same names: ``nn``, ``optim``, ``tensor``, ``no_grad``), with its DDP and its ``Join``."""
    found = []
    for counts, broadcast_buffers in CASES:
        steps = [("sync", k) for k in range(counts[rank])]
        stats = _run(lib, ddp_class, join_class, rank, [], steps, broadcast_buffers=broadcast_buffers)
        found.append({"steps": stats[:-1], "end": stats[-1]})
    joined, after = JOINED_ACCUMULATION
    return {"join": found, "accumulation": _run(lib, ddp_class, None, rank, accumulation_steps(), [])[1:],
            "joined_accumulation": _run(lib, ddp_class, join_class, rank, after, joined[rank])}


def _run(lib: Any, ddp_class: Any, join_class: Any, rank: int, steps: list, joined: list, **options: Any) -> list:
    """The statistics after each forward of ``joined`` (inside a Join block), after the block, and
    after each forward of ``steps``."""
    import contextlib

    model = lib.nn.Sequential(lib.nn.BatchNorm1d(3), lib.nn.Linear(3, 2)).double()
    with warnings.catch_warnings():  # (2.13 names it forward_sync_buffers; the old name still works)
        warnings.simplefilter("ignore", FutureWarning)
        ddp = ddp_class(model, **options)
    opt = lib.optim.SGD(ddp.parameters(), lr=0.1)
    found = []

    def step(how: str, k: int) -> None:
        x = lib.tensor(batch(rank, k))
        if how == "no_grad":
            with lib.no_grad():
                ddp(x)
        else:
            with ddp.no_sync() if how == "no_sync" else contextlib.nullcontext():
                ddp(x).sum().backward()
            if how == "sync":
                opt.step()
                opt.zero_grad()
        found.append([model[0].running_mean.tolist(), model[0].running_var.tolist()])

    with join_class([ddp]) if join_class is not None else contextlib.nullcontext():
        for how, k in joined:
            step(how, k)
    found.append([model[0].running_mean.tolist(), model[0].running_var.tolist()])
    for how, k in steps:
        step(how, k)
    return found


def _rank(rank: int, world: int, port: int, out: str) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.join import Join
    from torch.nn.parallel import DistributedDataParallel

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    found = record(torch, DistributedDataParallel, Join, rank)
    with open(f"{out}.{rank}", "w") as f:
        json.dump(found, f)
    dist.destroy_process_group()


def main() -> None:
    import tempfile

    import torch
    import torch.multiprocessing as mp

    world = 2
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rank")
        mp.spawn(_rank, args=(world, 29533, out), nprocs=world)
        ranks = [json.loads(Path(f"{out}.{r}").read_text()) for r in range(world)]
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": CASES, "steps": accumulation_steps(),
                               "ranks": ranks}) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
