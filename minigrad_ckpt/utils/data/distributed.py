"""``DistributedSampler``: each rank of a data-parallel run visits its own shard.

Every rank draws the *same* permutation of the dataset (from ``seed`` and the
epoch, not from the engine generator, whose state differs per rank), pads or
trims it to a multiple of the world size and takes every ``num_replicas``-th
index starting at its rank, so the shards are disjoint and together cover the
dataset (with ``drop_last=False`` a few indices repeat to even the shards)::

    sampler = DistributedSampler(dataset)          # rank and world from mg.distributed
    loader = DataLoader(dataset, batch_size=global_batch // world, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)                    # a new order every epoch
        for x, y in loader: ...
"""

from __future__ import annotations

from collections.abc import Iterator, Sized
from typing import Any

from ... import random as _random
from ...backend import cpu
from ...tensor import Tensor
from .sampler import Sampler, _is_index

__all__ = ["DistributedSampler"]


def _integer(value: Any, name: str) -> int:
    """An int from a Python or NumPy integer (PyTorch slices with it, so both work there); anything
    else is PyTorch's TypeError."""
    if isinstance(value, bool) or not _is_index(value) or isinstance(value, Tensor):
        raise TypeError(f"DistributedSampler: {name} must be an int, got {value!r}")
    return int(value)


class DistributedSampler(Sampler):
    """The indices of ``dataset`` that rank ``rank`` of ``num_replicas`` visits.

    ``num_replicas`` / ``rank`` default to the process group's world size and
    rank (1 and 0 without one; an error in a process an MPI launcher started as
    one of several ranks before ``init_process_group``).  ``shuffle`` permutes with a key made from
    ``seed`` and the epoch (:meth:`set_epoch`); ``drop_last`` drops the tail
    that does not divide evenly instead of repeating indices to pad it.
    """

    def __init__(self, dataset: Sized, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        super().__init__(dataset)
        if num_replicas is None or rank is None:
            from ... import distributed as dist

            own_rank, world = dist.place_in_job("DistributedSampler")  # never rank 0 of 1 by mistake
            num_replicas = world if num_replicas is None else num_replicas
            rank = own_rank if rank is None else rank
        num_replicas, rank = _integer(num_replicas, "num_replicas"), _integer(rank, "rank")
        if num_replicas < 1:
            raise ValueError(f"DistributedSampler: num_replicas must be a positive int, got {num_replicas!r}")
        if not 0 <= rank < num_replicas:
            raise ValueError(f"DistributedSampler: Invalid rank {rank!r}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"DistributedSampler: seed must be an int, got {seed!r}")
        self.dataset = dataset
        self.num_replicas, self.rank = num_replicas, rank
        self.shuffle, self.seed, self.drop_last = bool(shuffle), seed, bool(drop_last)
        self.epoch = 0
        self._epoch_was_set = False  # by set_epoch: the loop picks the epochs (a restore does not count)

    @property
    def num_samples(self) -> int:
        """How many indices this rank visits per epoch (the same on every rank)."""
        n, w = len(self.dataset), self.num_replicas
        return n // w if self.drop_last else -(-n // w)

    @property
    def total_size(self) -> int:
        """The indices of all ranks together per epoch: ``num_samples * num_replicas`` (PyTorch's)."""
        return self.num_samples * self.num_replicas

    def set_epoch(self, epoch: int) -> None:
        """Use the order of ``epoch`` (call it on every rank before each epoch).  Any int, as
        PyTorch's (whose order is seeded with ``seed + epoch``): a negative one too."""
        if not isinstance(epoch, int) or isinstance(epoch, bool):  # (PyTorch's seeding refuses it with TypeError)
            raise TypeError(f"DistributedSampler: epoch must be an int, got {epoch!r}")
        self.epoch, self._epoch_was_set = epoch, True

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        xp = cpu.xp
        if self.shuffle:
            # The same key on every rank: a function of (seed, epoch) only.
            gen = _random.Generator(self.seed)
            gen.counter = self.epoch & _random._MASK64  # (a negative epoch: its own order too)
            order = _random.permutation(xp, gen.next_key(), n).tolist()
        else:
            order = list(range(n))
        total = self.total_size
        if total > len(order) and order:  # pad by repeating from the start
            order = (order * -(-total // len(order)))[:total]
        else:
            order = order[:total]
        return iter(order[self.rank:total:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def state_dict(self) -> dict[str, int]:
        """``{"epoch": ...}``: the order is a function of ``seed`` and the epoch; the rank and
        the world size are the resumed run's own (an elastic resume may change them)."""
        return {"epoch": self.epoch}

    def load_state_dict(self, state: Any) -> None:
        if (not isinstance(state, dict) or set(state) != {"epoch"} or not isinstance(state["epoch"], int)
                or isinstance(state["epoch"], bool)):
            raise ValueError(f"DistributedSampler.load_state_dict: not its state: {state!r:.120}")
        was_set = self._epoch_was_set
        self.set_epoch(state["epoch"])
        self._epoch_was_set = was_set

    def __repr__(self) -> str:
        return (f"DistributedSampler(rank={self.rank}, num_replicas={self.num_replicas}, "
                f"shuffle={self.shuffle}, seed={self.seed}, epoch={self.epoch})")
