"""A PyTorch data-parallel training script as its authors write it for ``torchrun`` (the shape of
nanoGPT's train.py and PyTorch's DDP tutorial), ported by renaming ``torch`` to ``minigrad_ckpt``.

It reads its place in the job from torchrun's environment variables, decides from ``RANK``
whether it is distributed at all, and accumulates gradients over micro-batches by setting
``model.require_backward_grad_sync`` (nanoGPT's way) instead of entering ``no_sync()``.
tests/test_distributed_torchrun.py starts it with ``python -m minigrad_ckpt.distributed.run``
and reads the ``RESULT <rank> <json>`` line each rank prints.

    python -m minigrad_ckpt.distributed.run --nproc-per-node 2 tests/torchrun_style_script.py --micro 2
"""

import argparse
import json
import os

import numpy as np

import minigrad_ckpt as torch
import minigrad_ckpt.nn as nn
from minigrad_ckpt.distributed import destroy_process_group, init_process_group
from minigrad_ckpt.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--micro", type=int, default=2)  # micro-batches per step, over all ranks
parser.add_argument("--steps", type=int, default=3)
args = parser.parse_args()

ddp = int(os.environ.get("RANK", -1)) != -1  # nanoGPT's test: is this a ddp run?
if ddp:
    init_process_group(backend="gloo")
    rank, local_rank, world = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"])
    assert rank == torch.distributed.get_rank() and world == torch.distributed.get_world_size()
    assert args.micro % world == 0
    micro = args.micro // world
else:
    rank, local_rank, world, micro = 0, 0, 1, args.micro

torch.set_default_dtype(torch.float64)
torch.manual_seed(1337)  # the same weights everywhere (DDP would broadcast rank 0's anyway)
raw = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 3))
model = DDP(raw) if ddp else raw
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
data = np.random.default_rng(0).standard_normal((args.steps, args.micro, 5, 6))
targets = np.random.default_rng(1).standard_normal((args.steps, args.micro, 5, 3))

grads_differ_mid_step = []
for step in range(args.steps):
    for m in range(micro):
        batch = rank * micro + m  # this rank's share of the step's micro-batches
        if ddp:  # sync only on the last micro-step, as nanoGPT does
            model.require_backward_grad_sync = m == micro - 1
        out = model(torch.tensor(data[step, batch]))
        loss = ((out - torch.tensor(targets[step, batch])) ** 2).mean() / args.micro
        loss.backward()
        if ddp and m < micro - 1:  # not averaged yet: each rank holds its own partial sum
            first = raw[0].weight.grad.numpy().copy()
            every = torch.distributed.group().allgather_object(first.tolist())
            grads_differ_mid_step.append(not np.array_equal(every[0], every[-1]))
    if ddp:  # the full sum over all micro-batches of all ranks, divided by the world size
        for p in raw.parameters():
            p.grad.mul_(world)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)

env = {k: os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                                       "MASTER_PORT", "OMP_NUM_THREADS")}
weights = [p.numpy().tolist() for p in raw.parameters()]
print(f"RESULT {rank} " + json.dumps({"env": env, "weights": weights, "differ": grads_differ_mid_step}), flush=True)
if ddp:
    destroy_process_group()
