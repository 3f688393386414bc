"""Samplers registered with an executor on their own, resumed at a larger world size: a rank the old
run did not have must not draw rank 0's orders.  RandomSampler seeds its generator apart
(``reshard_state_dict``); SubsetRandomSampler and WeightedRandomSampler, which save the same state,
took rank 0's generator as it was, so every new rank drew rank 0's indices."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot.sections import RanksSection
from minigrad_ckpt.utils.data import RandomSampler, SubsetRandomSampler, WeightedRandomSampler

_MAKE = {
    "RandomSampler": lambda g: RandomSampler(list(range(12)), generator=g),
    "SubsetRandomSampler": lambda g: SubsetRandomSampler(range(3, 15), generator=g),
    "WeightedRandomSampler": lambda g: WeightedRandomSampler([1.0] * 12, 12, replacement=False, generator=g),
}


@pytest.mark.parametrize("kind", sorted(_MAKE))
def test_a_registered_sampler_new_in_an_elastic_resume_does_not_draw_as_rank_0(kind):
    make = _MAKE[kind]
    states = []
    for r in range(2):  # the old run's two ranks, each its own generator, one epoch drawn
        sampler = make(mg.random.Generator(10 + r))
        list(sampler)
        states.append({"sampler": {"type": type(sampler).__name__, "state": sampler.state_dict()}})
    orders = []
    for r in range(3):
        ex = mg.Executor()
        sampler = ex.register_state("sampler", make(mg.random.Generator(0)))
        sampler.load_state_dict(states[r if r < 2 else 0]["sampler"]["state"])  # the objects section's part
        section = RanksSection()
        built = section.build(ex, {"rank": r, "world_size": 3, "states": states}, None)
        if built is not None:
            section.install(ex, built)
        orders.append(list(sampler))
    assert len({tuple(o) for o in orders}) == 3  # (before: new rank 2 drew rank 0's order)
    assert all(sorted(o) == sorted(orders[0]) for o in orders)  # each still a permutation of its indices
