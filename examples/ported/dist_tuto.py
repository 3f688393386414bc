"""PyTorch's "Writing Distributed Applications with PyTorch" (pytorch/tutorials
``intermediate_source/dist_tuto.rst``), ported by the rename: blocking and immediate point-to-point
messages, the collectives, the hand-written ring all-reduce and the synchronous SGD that averages
gradients itself (``dist.all_reduce(param.grad.data, op=dist.reduce_op.SUM)``).

Run it as the tutorial's MPI section does (``init_process(0, 0, run, backend='mpi')`` under
``mpirun``), two ranks::

    mpiexec -n 2 python examples/ported/dist_tuto.py

Each rank prints ``RESULT <rank> <json>``: what the tutorial prints, as numbers (with
``DIST_TUTO_RESULTS=<folder>`` set, it writes ``<folder>/rank<rank>.json`` instead: two ranks'
prints may interleave mid-line on a shared stdout).
``tests/test_ported_dist_tuto.py`` compares them with torch 2.13's (gloo, two processes started by
``torch.multiprocessing.Process``, as the tutorial's template starts them), which
``tests/data/make_ported_dist_tuto.py`` recorded from this source with the rename undone.
"""

from __future__ import annotations

import json
import os
import warnings
from math import ceil
from random import Random

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.distributed as dist
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim


def blocking_p2p(rank, size, out):
    """Blocking point-to-point communication."""
    tensor = mg.zeros(1)
    if rank == 0:
        tensor += 1
        dist.send(tensor=tensor, dst=1)
    else:
        dist.recv(tensor=tensor, src=0)
    out["send/recv"] = tensor[0].item()


def immediate_p2p(rank, size, out):
    """Non-blocking point-to-point communication."""
    tensor = mg.zeros(1)
    req = None
    if rank == 0:
        tensor += 1
        req = dist.isend(tensor=tensor, dst=1)
    else:
        req = dist.irecv(tensor=tensor, src=0)
    req.wait()
    out["isend/irecv"] = tensor[0].item()


def all_reduce_example(rank, size, out):
    """All-Reduce example."""
    group = dist.new_group([0, 1])
    tensor = mg.ones(1)
    dist.all_reduce(tensor, op=dist.reduce_op.SUM, group=group)
    out["all_reduce"] = tensor[0].item()
    for name in ("PRODUCT", "MAX", "MIN"):
        t = mg.tensor([rank + 2.0, -rank])
        dist.all_reduce(t, op=getattr(dist.reduce_op, name), group=group)
        out[name] = t.tolist()


def collectives(rank, size, out):
    """The other collectives of the tutorial's list, one call each."""
    t = mg.tensor([float(rank + 1)] * 3)
    dist.broadcast(t, 1)
    out["broadcast"] = t.tolist()
    t = mg.tensor([float(rank + 1)] * 3)
    dist.reduce(t, 0, op=dist.ReduceOp.SUM)
    out["reduce"] = t.tolist() if rank == 0 else None
    t = mg.zeros(2)
    dist.scatter(t, src=0, scatter_list=[mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0])] if rank == 0 else None)
    out["scatter"] = t.tolist()
    gather_list = [mg.zeros(2) for _ in range(size)] if rank == 0 else None
    dist.gather(mg.tensor([rank, rank + 0.5]), dst=0, gather_list=gather_list)
    out["gather"] = [g.tolist() for g in gather_list] if gather_list else None
    tensor_list = [mg.zeros(2) for _ in range(size)]
    dist.all_gather(tensor_list, mg.tensor([rank * 1.0, 7.0]))
    out["all_gather"] = [g.tolist() for g in tensor_list]
    dist.barrier()


def allreduce(send, recv):
    """Implementation of a ring-reduce with addition."""
    rank = dist.get_rank()
    size = dist.get_world_size()
    send_buff = send.clone()
    recv_buff = send.clone()
    accum = send.clone()

    left = ((rank - 1) + size) % size
    right = (rank + 1) % size

    for i in range(size - 1):
        if i % 2 == 0:
            # Send send_buff
            send_req = dist.isend(send_buff, right)
            dist.recv(recv_buff, left)
            accum[:] += recv_buff[:]
        else:
            # Send recv_buff
            send_req = dist.isend(recv_buff, right)
            dist.recv(send_buff, left)
            accum[:] += send_buff[:]
        send_req.wait()
    recv[:] = accum[:]


def ring(rank, size, out):
    send = mg.arange(4.0) * (rank + 1)
    recv = mg.zeros(4)
    allreduce(send, recv)
    out["ring"] = recv.tolist()


class Partition(object):
    """Dataset partitioning helper"""

    def __init__(self, data, index):
        self.data = data
        self.index = index

    def __len__(self):
        return len(self.index)

    def __getitem__(self, index):
        data_idx = self.index[index]
        return self.data[data_idx]


class DataPartitioner(object):

    def __init__(self, data, sizes=[0.7, 0.2, 0.1], seed=1234):  # noqa: B006 (the tutorial's default)
        self.data = data
        self.partitions = []
        rng = Random()
        rng.seed(seed)
        data_len = len(data)
        indexes = [x for x in range(0, data_len)]
        rng.shuffle(indexes)

        for frac in sizes:
            part_len = int(frac * data_len)
            self.partitions.append(indexes[0:part_len])
            indexes = indexes[part_len:]

    def use(self, partition):
        return Partition(self.data, self.partitions[partition])


def synthetic_data():
    """64 single-channel 8x8 images of 4 classes, and the net's first weights (instead of MNIST and
    the two engines' different initial draws)."""
    rng = np.random.default_rng(0)
    images = rng.standard_normal((64, 1, 8, 8)).astype(np.float32)
    labels = rng.integers(0, 4, 64)
    weights = {"conv.weight": rng.standard_normal((3, 1, 3, 3)).astype(np.float32) * 0.3,
               "conv.bias": np.zeros(3, np.float32),
               "fc.weight": rng.standard_normal((4, 27)).astype(np.float32) * 0.2,
               "fc.bias": np.zeros(4, np.float32)}
    return images, labels, weights


IMAGES, LABELS, WEIGHTS = synthetic_data()


class Net(nn.Module):
    """A small convnet standing in for the MNIST example's."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3)
        self.fc = nn.Linear(27, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return F.log_softmax(self.fc(x.view(-1, 27)), dim=1)


def partition_dataset():
    """Partitioning the data set (the tutorial's MNIST: the synthetic images)."""
    dataset = [(mg.from_numpy(IMAGES[i]), int(LABELS[i])) for i in range(len(LABELS))]
    size = dist.get_world_size()
    bsz = 16 // size
    partition_sizes = [1.0 / size for _ in range(size)]
    partition = DataPartitioner(dataset, partition_sizes)
    partition = partition.use(dist.get_rank())
    train_set = mg.utils.data.DataLoader(partition, batch_size=bsz, shuffle=False)
    return train_set, bsz


def average_gradients(model):
    """Gradient averaging."""
    size = float(dist.get_world_size())
    for param in model.parameters():
        dist.all_reduce(param.grad.data, op=dist.reduce_op.SUM)
        param.grad.data /= size


def synchronous_sgd(rank, size, out):
    """Distributed Synchronous SGD Example"""
    mg.manual_seed(1234)
    train_set, bsz = partition_dataset()
    model = Net()
    model.load_state_dict({k: mg.from_numpy(v) for k, v in WEIGHTS.items()})
    optimizer = optim.SGD(model.parameters(), lr=0.01, momentum=0.5)

    num_batches = ceil(len(train_set.dataset) / float(bsz))
    out["epoch_loss"] = []
    for epoch in range(3):
        epoch_loss = 0.0
        for data, target in train_set:
            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            epoch_loss += loss.item()
            loss.backward()
            average_gradients(model)
            optimizer.step()
        out["epoch_loss"].append(epoch_loss / num_batches)
    out["weights"] = {k: v.detach().numpy().ravel().tolist() for k, v in model.state_dict().items()}


def run(rank, size):
    out = {}
    with warnings.catch_warnings():  # reduce_op is PyTorch's deprecated name: a FutureWarning per use
        warnings.simplefilter("ignore", FutureWarning)
        for part in (blocking_p2p, immediate_p2p, all_reduce_example, collectives, ring, synchronous_sgd):
            part(rank, size, out)
    folder = os.environ.get("DIST_TUTO_RESULTS")
    if folder:
        with open(os.path.join(folder, f"rank{rank}.json"), "w") as f:
            json.dump(out, f)
    else:
        print(f"RESULT {rank} {json.dumps(out)}", flush=True)
    return out


def init_process(rank, size, fn, backend='gloo'):
    """ Initialize the distributed environment. """
    os.environ['MASTER_ADDR'] = '127.0.0.1'
    os.environ['MASTER_PORT'] = '29500'
    with warnings.catch_warnings():  # "For MPI backend, world_size (0) and rank (0) are ignored ..."
        warnings.simplefilter("ignore", UserWarning)
        dist.init_process_group(backend, rank=rank, world_size=size)
    fn(dist.get_rank(), dist.get_world_size())


if __name__ == "__main__":
    init_process(0, 0, run, backend='mpi')
