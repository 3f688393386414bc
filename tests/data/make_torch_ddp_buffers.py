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
join_buffers`` and ``accumulation_buffers`` run the same cases.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

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


def _accumulation(torch: object, rank: int, steps: list | None = None, joined: bool = False) -> list:
    """The running statistics after each of ``steps`` (``accumulation_steps()`` by default); with
    ``joined``, ``JOINED_ACCUMULATION``: this rank's steps inside a Join block, then the common ones."""
    from torch.distributed.algorithms.join import Join
    from torch.nn.parallel import DistributedDataParallel

    model = torch.nn.Sequential(torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 2)).double()
    ddp = DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    found = []
    if joined:
        with Join([ddp]):
            found += _accumulation_steps(torch, ddp, opt, JOINED_ACCUMULATION[0][rank], rank)
        steps = JOINED_ACCUMULATION[1]
    return found + _accumulation_steps(torch, ddp, opt, accumulation_steps() if steps is None else steps, rank)


def _accumulation_steps(torch: object, ddp: object, opt: object, steps: list, rank: int) -> list:
    import contextlib

    model, found = ddp.module, []
    for how, k in steps:
        x = torch.tensor(batch(rank, k))
        if how == "no_grad":
            with torch.no_grad():
                ddp(x)
        else:
            with ddp.no_sync() if how == "no_sync" else contextlib.nullcontext():
                ddp(x).sum().backward()
            if how == "sync":
                opt.step()
                opt.zero_grad()
        found.append([model[0].running_mean.tolist(), model[0].running_var.tolist()])
    return found


def _rank(rank: int, world: int, port: int, out: str) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.join import Join
    from torch.nn.parallel import DistributedDataParallel

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    found = []
    for counts, broadcast_buffers in CASES:
        model = torch.nn.Sequential(torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 2)).double()
        with warnings.catch_warnings():  # (2.13 names it forward_sync_buffers; the old name still works)
            warnings.simplefilter("ignore", FutureWarning)
            ddp = DistributedDataParallel(model, broadcast_buffers=broadcast_buffers)
        opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
        steps = []
        with Join([ddp]):
            for k in range(counts[rank]):
                opt.zero_grad()
                ddp(torch.tensor(batch(rank, k))).sum().backward()
                opt.step()
                steps.append([model[0].running_mean.tolist(), model[0].running_var.tolist()])
        found.append({"steps": steps, "end": [model[0].running_mean.tolist(), model[0].running_var.tolist()]})
    with open(f"{out}.{rank}", "w") as f:
        json.dump({"join": found, "accumulation": _accumulation(torch, rank),
                   "joined_accumulation": _accumulation(torch, rank, joined=True)}, f)
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
