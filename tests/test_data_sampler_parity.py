"""Samplers as PyTorch 2.13's: what they accept, and when and how they refuse (differential).

Each expected behaviour is torch 2.13's answer for ``torch.utils.data`` with the same arguments,
written here (the tests never import torch; its permutations are not ours, so orders are
compared by their properties).
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import (
    BatchSampler,
    DistributedSampler,
    RandomSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)


def test_batch_sampler_refuses_a_non_bool_drop_last_with_a_value_error():
    # torch: BatchSampler(s, 3, drop_last=1) is ValueError('drop_last should be a boolean value, but got
    # drop_last=1') (before: TypeError)
    for bad in (1, None, "yes"):
        with pytest.raises(ValueError, match="drop_last should be a boolean value"):
            BatchSampler(range(10), 3, drop_last=bad)


class _Buffer:
    """A replay buffer: empty when its sampler is made, filled before the first draw."""

    def __init__(self):
        self.items = []

    def __len__(self):
        return len(self.items)


def test_random_sampler_over_an_empty_source_with_num_samples_is_made():
    # torch: RandomSampler([], replacement=True, num_samples=3) is made (it draws when iterated);
    # RandomSampler([]) is ValueError('num_samples should be a positive integer value, but got
    # num_samples=0') (before: both refused)
    buffer = _Buffer()
    sampler = RandomSampler(buffer, replacement=True, num_samples=3)
    with pytest.raises(RuntimeError, match="empty data source"):
        list(sampler)
    buffer.items.extend("abcd")
    drawn = list(sampler)
    assert len(drawn) == 3 and all(0 <= i < 4 for i in drawn)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        RandomSampler([])


@pytest.mark.parametrize("weights, why", [([-1.0, 2.0], "entry < 0"), ([0.0, 0.0], "sum of probabilities <= 0"),
                                          ([float("nan"), 1.0], "infinity or NaN"),
                                          ([float("inf"), 1.0], "infinity or NaN"), ([], "sum of probabilities")])
def test_weighted_sampler_checks_its_weights_when_it_draws(weights, why):
    # torch: WeightedRandomSampler(weights, 5) is made; list() raises RuntimeError('invalid multinomial
    # distribution (...)') (before: ValueError at construction)
    sampler = WeightedRandomSampler(weights, 5)
    with pytest.raises(RuntimeError, match=f"invalid multinomial distribution.*{why}"):
        list(sampler)


def test_weighted_sampler_draws_with_priorities_set_after_construction():
    # torch: the sampler's weights tensor may be updated in place before a draw (prioritised replay)
    sampler = WeightedRandomSampler([0.0, 0.0, 0.0], 20)
    sampler.weights[2] = 1.0
    assert set(sampler) == {2}


def test_distributed_sampler_takes_a_negative_epoch():
    # torch: set_epoch(-1) is accepted (the order is seeded with seed + epoch): each rank's shard is
    # disjoint from the others' and together they are the dataset, in an order of its own
    data = list(range(10))
    shards = []
    for rank in range(2):
        s = DistributedSampler(data, num_replicas=2, rank=rank, seed=3)
        s.set_epoch(-1)
        shards.append(list(s))
    assert sorted(shards[0] + shards[1]) == data
    s = DistributedSampler(data, num_replicas=1, rank=0, seed=3)
    orders = {}
    for epoch in (-2, -1, 0, 1):
        s.set_epoch(epoch)
        orders[epoch] = list(s)
    assert len({tuple(o) for o in orders.values()}) == 4
    assert s.state_dict() == {"epoch": 1}
    s.load_state_dict({"epoch": -1})
    assert list(s) == orders[-1]


def test_distributed_sampler_with_a_negative_epoch_resumes_in_a_loader():
    from minigrad_ckpt.utils.data import DataLoader, TensorDataset

    ds = TensorDataset(mg.arange(12))
    sampler = DistributedSampler(ds, num_replicas=1, rank=0, seed=1)
    sampler.set_epoch(-3)
    loader = DataLoader(ds, batch_size=4, sampler=sampler)
    it = iter(loader)
    first = next(it)[0].tolist()
    state = loader.state_dict()
    whole = [first] + [b[0].tolist() for b in it]
    fresh_sampler = DistributedSampler(ds, num_replicas=1, rank=0, seed=1)
    fresh = DataLoader(ds, batch_size=4, sampler=fresh_sampler)
    fresh.load_state_dict(state)
    assert [first] + [b[0].tolist() for b in fresh] == whole


def test_distributed_sampler_takes_numpy_integers_for_its_world():
    # torch: DistributedSampler(range(10), np.int64(3), np.int64(1), shuffle=False) visits [1, 4, 7, 0]
    # (before: ValueError); num_replicas=2.0 or rank=1.0 is a TypeError (torch's, when it slices)
    import numpy as np

    s = DistributedSampler(list(range(10)), np.int64(3), np.int64(1), shuffle=False)
    assert list(s) == [1, 4, 7, 0] and (len(s), s.total_size) == (4, 12)
    assert type(s.rank) is int and type(s.num_replicas) is int
    with pytest.raises(TypeError, match="num_replicas must be an int"):
        DistributedSampler(list(range(10)), 2.0, 1)
    with pytest.raises(TypeError, match="rank must be an int"):
        DistributedSampler(list(range(10)), 2, 1.0)


def test_weighted_sampler_keeps_a_float64_weights_tensor_itself():
    # torch: WeightedRandomSampler(w, 10) with w a float64 tensor keeps w (torch.as_tensor shares it):
    # w[3] = 1.0 afterwards makes every draw 3, and sampler.weights is w; a float32 w is copied, so
    # updating it changes nothing (before: always a copy, the update silently ignored)
    w = mg.zeros(4, dtype=mg.float64)
    sampler = WeightedRandomSampler(w, 10)
    w[3] = 1.0
    assert sampler.weights is w and set(sampler) == {3}
    w32 = mg.zeros(4, dtype=mg.float32)
    copied = WeightedRandomSampler(w32, 10)
    w32[3] = 1.0
    assert copied.weights is not w32 and copied.weights.dtype == mg.float64
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        list(copied)


_RANDOM_SAMPLERS = {
    "RandomSampler": lambda g: RandomSampler(range(100), generator=g),
    "RandomSampler(replacement)": lambda g: RandomSampler(range(100), replacement=True, num_samples=5, generator=g),
    "SubsetRandomSampler": lambda g: SubsetRandomSampler(range(10), generator=g),
    "WeightedRandomSampler": lambda g: WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5, generator=g),
    "WeightedRandomSampler(no replacement)": lambda g: WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5,
                                                                             replacement=False, generator=g),
}


@pytest.mark.parametrize("make", _RANDOM_SAMPLERS.values(), ids=_RANDOM_SAMPLERS.keys())
def test_random_samplers_draw_at_the_first_next_as_pytorchs(make):
    # PyTorch's test_sampler_reproducibility: two iterators made first, the seed set before each one's
    # first next(), give the same order (torch's __iter__ is a generator function); the engine drew
    # each iterator's keys at iter(), before the seed was set, so the orders differed
    sampler = make(None)
    its = (iter(sampler), iter(sampler))
    orders: tuple[list[int], list[int]] = ([], [])
    for idx in range(len(sampler)):
        for i in range(2):
            if idx == 0:
                mg.manual_seed(0)
            orders[i].append(next(its[i]))
    assert orders[0] == orders[1]
    # iter() alone draws nothing, from the engine's generator or the sampler's own
    mg.manual_seed(0)
    g = mg.Generator().manual_seed(1)
    before = (mg.get_rng_state(), g.get_state())
    iter(make(None)), iter(make(g))
    assert (mg.get_rng_state(), g.get_state()) == before
