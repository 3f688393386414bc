"""Regenerate ``tests/data/torch_ddp_comm_hooks.json``: the gradients and parameters of a 2-rank
PyTorch DDP job whose buckets are reduced by communication hooks (``register_comm_hook``).

    python tests/data/make_torch_ddp_comm_hooks.py     # needs torch (gloo on loopback); the tests do not

Cases: no hook; PyTorch's ``allreduce_hook`` (the same mean); ``fp16_compress_hook`` and
``fp16_compress_wrapper(allreduce_hook)`` (the gradients sent as float16: float16's rounding
stays in them); a hook that reduces nothing (each rank keeps its own gradient); PyTorch's
``allreduce_hook`` written out as a script would (``dist.group.WORLD.size()``); and
``allreduce_hook`` inside ``Join([ddp])`` with one batch on rank 0 and three on rank 1.
``tests/distributed_worker.py comm_hooks`` runs the same code (:func:`record`) on the engine.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).with_name("torch_ddp_comm_hooks.json")
CASES = ["none", "allreduce", "fp16", "fp16_wrapper", "local", "join", "written_out"]


def written_out_allreduce_hook(dist: Any) -> Any:
    """PyTorch's ``allreduce_hook`` as a script writes it, reading the world size from its group."""

    def hook(process_group, bucket):  # unannotated: torch refuses a bucket annotation other than GradBucket
        group = process_group if process_group is not None else dist.group.WORLD
        buffer = bucket.buffer().div_(group.size())
        return dist.all_reduce(buffer, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])

    return hook


def record(lib: Any, ddp_class: Any, join_class: Any, hooks: Any, dist: Any, rank: int) -> dict[str, Any]:
    """Every case's first gradients and last parameters on this rank: ``lib`` is ``torch`` or
    ``minigrad_ckpt`` (the same names), with its DDP, ``Join``, ``default_hooks`` and distributed."""
    out = {}
    for case in CASES:
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2)).double()
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(lib.tensor(np.sin(np.arange(p.numel()).reshape(tuple(p.shape)) / 7 + i / 3)))
        ddp = ddp_class(model, bucket_cap_mb=0.0001)  # a few buckets, each handed to the hook
        hook = {"allreduce": hooks.allreduce_hook, "join": hooks.allreduce_hook, "fp16": hooks.fp16_compress_hook,
                "fp16_wrapper": hooks.fp16_compress_wrapper(hooks.allreduce_hook),
                "written_out": written_out_allreduce_hook(dist),
                "local": lambda state, bucket: dist.barrier(async_op=True).get_future().then(
                    lambda fut: bucket.buffer())}.get(case)
        if hook is not None:
            ddp.register_comm_hook(None, hook)
        opt = lib.optim.SGD(ddp.parameters(), lr=0.5)
        steps = (1, 3)[rank] if case == "join" else 2
        grads = None
        with join_class([ddp], enable=case == "join"):
            for k in range(steps):
                opt.zero_grad()
                x = lib.tensor(np.cos(np.arange(6.0).reshape(2, 3) * (rank + 1 + k) / 5))
                ddp(x).pow(2).sum().backward()
                grads = grads or [p.grad.flatten().tolist() for p in model.parameters()]
                opt.step()
        out[case] = {"grads": grads, "params": [p.detach().flatten().tolist() for p in model.parameters()]}
    return out


def _rank(rank: int, world: int, found: Any) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.distributed.algorithms.join import Join
    from torch.nn.parallel import DistributedDataParallel

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29541")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    found[rank] = record(torch, DistributedDataParallel, Join, default_hooks, dist, rank)
    dist.destroy_process_group()


def main() -> None:
    import torch
    import torch.multiprocessing as mp

    with mp.Manager() as manager:
        found = manager.dict()
        mp.spawn(_rank, args=(2, found), nprocs=2)
        ranks = [found[r] for r in range(2)]
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": CASES, "ranks": ranks}))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
