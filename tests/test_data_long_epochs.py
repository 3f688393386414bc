"""Samplers and loaders over epochs too long to list, as minGPT's trainer makes one.

minGPT's ``Trainer`` draws its batches from ``RandomSampler(dataset, replacement=True,
num_samples=int(1e10))`` and pulls them with ``next(data_iter)``. The sampler drew all 10**10
indices at ``iter()`` (a 75 GiB allocation: MemoryError) and the loader listed its epoch first.
Now a sampler draws its indices a block at a time -- the same indices as before, each a function
of its position in the key's stream -- and an epoch longer than ``_LISTED_AT_MOST`` indices is
drawn as its batches are made, as PyTorch's loader does.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import random as mg_random
from minigrad_ckpt.utils.data import DataLoader, RandomSampler, TensorDataset
from minigrad_ckpt.utils.data import dataloader as loader_module


def dataset(n: int = 10) -> TensorDataset:
    return TensorDataset(mg.arange(n))


@pytest.mark.parametrize("replacement", [True, False])
def test_an_endless_looking_sampler_starts_at_once(replacement):
    sampler = RandomSampler(dataset(), replacement=replacement, num_samples=int(1e10))
    assert len(sampler) == 10 ** 10
    first = list(itertools.islice(iter(sampler), 25))
    assert len(first) == 25 and all(0 <= i < 10 for i in first)
    if not replacement:  # each run of 10 is a permutation
        assert sorted(first[:10]) == list(range(10)) and sorted(first[10:20]) == list(range(10))


@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("n, m", [(7, 5), (7, 100_000), (1000, 70_001)])
def test_the_indices_are_the_ones_drawn_in_one_piece(replacement, n, m):
    # what the sampler drew before it drew in blocks: every value is its index's in the key's stream
    xp = mg.backend.cpu.xp
    gen = mg_random.Generator(11)
    sampler = RandomSampler(dataset(n), replacement=replacement, num_samples=m, generator=gen)
    got = list(sampler)
    check = mg_random.Generator(11)
    if replacement:
        want = (xp.uniform_bits(check.next_key(), m) % xp.uint64(n)).astype(np.int64)
    else:
        reps = [mg_random.permutation(xp, check.next_key(), n) for _ in range(-(-m // n))]
        want = np.concatenate(reps)[:m]
    assert got == want.tolist() and gen.get_state() == check.get_state()


def test_next_keys_are_the_keys_of_next_key():
    a, b = mg_random.Generator(5), mg_random.Generator(5)
    reserved = a.next_keys(4)
    assert a.get_state()["counter"] == 4  # advanced at once, before any key is read
    assert list(reserved) == [b.next_key() for _ in range(4)]


def test_mingpts_trainer_loop_runs():
    train_loader = DataLoader(dataset(), sampler=RandomSampler(dataset(), replacement=True, num_samples=int(1e10)),
                              shuffle=False, pin_memory=True, batch_size=4, num_workers=0)
    data_iter = iter(train_loader)
    batches = [next(data_iter)[0] for _ in range(3)]
    assert [tuple(b.shape) for b in batches] == [(4,)] * 3
    with pytest.raises(TypeError, match="cannot be saved"):
        train_loader.state_dict()


def test_an_epoch_beyond_the_listing_bound_is_streamed_and_one_within_it_is_resumable(monkeypatch):
    monkeypatch.setattr(loader_module, "_LISTED_AT_MOST", 40)
    long = DataLoader(dataset(), sampler=RandomSampler(dataset(), num_samples=41), batch_size=1)
    it = iter(long)
    next(it)
    with pytest.raises(TypeError, match="more than 40 samples"):
        long.state_dict()
    mg.manual_seed(0)
    short = DataLoader(dataset(), sampler=RandomSampler(dataset(), num_samples=40), batch_size=1)
    it = iter(short)
    seen = [next(it)[0].item() for _ in range(3)]
    state = short.state_dict()
    rest = [b[0].item() for b in it]
    again = DataLoader(dataset(), sampler=RandomSampler(dataset(), num_samples=40), batch_size=1)
    again.load_state_dict(state)
    assert [b[0].item() for b in again] == rest and len(seen + rest) == 40
