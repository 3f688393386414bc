"""``mg.Generator`` and ``mg.manual_seed`` with ``torch.Generator``'s and ``torch.manual_seed``'s
contract (the engine's numbers are its own; what is checked is PyTorch's behaviour):

* ``torch.manual_seed(seed)`` converts with ``int()`` (a NumPy integer, a 0-d tensor, a float) and
  refuses a seed outside ``[-2**63, 2**64)``; ``g.manual_seed`` takes an ``int`` only.  Here NumPy
  integers were refused and ``2**64`` or ``-2**63 - 1`` silently wrapped around;
* ``Generator("cpu")`` (the device is PyTorch's first argument) was a ValueError, an unknown device
  was accepted, and ``g.device`` did not exist;
* ``g.seed()`` reseeds and returns the seed (``g.seed`` was the seed itself: "'int' object is not
  callable"), ``g.set_state`` returns ``g``, ``g.clone_state()`` copies it;
* ``rand_like``, ``randn_like`` and ``randint_like`` take ``generator=``.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in device)


@pytest.mark.parametrize("seed, kept", [
    (np.int64(5), 5), (np.uint64(7), 7), (mg.tensor(9), 9), (2.9, 2), (True, 1), ("11", 11),
    (-1, 2**64 - 1), (-2**63, 2**63), (2**64 - 1, 2**64 - 1),
])
def test_manual_seed_converts_with_int_as_pytorch_does(seed, kept):
    mg.manual_seed(kept)
    expected = mg.rand(3).tolist()
    assert mg.manual_seed(seed) is mg.default_generator
    assert mg.initial_seed() == kept
    assert mg.rand(3).tolist() == expected


@pytest.mark.parametrize("seed, error", [
    (2**64, ValueError), (2**70, ValueError), (-2**63 - 1, ValueError), (float("nan"), ValueError),
    (None, TypeError), ([1], TypeError),
])
def test_manual_seed_refuses_what_pytorch_refuses_and_keeps_the_state(seed, error):
    mg.manual_seed(3)
    mg.rand(1)
    before = mg.get_rng_state()
    with pytest.raises(error, match="manual_seed"):
        mg.manual_seed(seed)
    assert mg.get_rng_state() == before


@pytest.mark.parametrize("seed, error", [
    (np.int64(3), TypeError), (1.5, TypeError), (True, TypeError), ("4", TypeError),
    (2**64, ValueError), (-2**63 - 1, ValueError),
])
def test_generator_manual_seed_takes_an_int_in_range(seed, error):
    g = mg.Generator().manual_seed(8)
    with pytest.raises(error, match="Generator.manual_seed"):
        g.manual_seed(seed)
    assert g.initial_seed() == 8
    assert g.manual_seed(-1).initial_seed() == 2**64 - 1  # a negative seed modulo 2**64, as PyTorch's


@pytest.mark.parametrize("make", [
    lambda: mg.Generator(), lambda: mg.Generator("cpu"), lambda: mg.Generator(device="cpu"),
    lambda: mg.Generator(mg.device("cpu")), lambda: mg.Generator(device=None),
])
def test_a_generator_lives_on_the_cpu_by_default_and_takes_the_device_first(make):
    g = make()
    assert g.device == mg.device("cpu")
    assert g.initial_seed() == 0


def test_a_generator_of_another_device_labels_it_and_draws_the_same_keys():
    g = mg.Generator(device="strict").manual_seed(4)
    assert g.device == mg.device("strict")
    x = mg.rand(5, device="strict", generator=g)
    assert x.device == mg.device("strict")
    assert x.tolist() == mg.rand(5, generator=mg.Generator().manual_seed(4)).tolist()
    assert "strict" in repr(g)


@pytest.mark.parametrize("device, error", [
    ("banana", ValueError), (3.5, TypeError), ("meta", RuntimeError),
])
def test_a_generator_on_no_real_device_is_refused(device, error):
    with pytest.raises(error):
        mg.Generator(device=device)


def test_an_int_first_argument_is_still_the_seed():
    assert mg.Generator(7).initial_seed() == 7
    assert mg.Generator(np.int64(7)).initial_seed() == 7
    assert mg.Generator(seed=7).get_state() == {"seed": 7, "counter": 0}


@pytest.mark.parametrize("make", [lambda s: mg.Generator(s), lambda s: mg.Generator(seed=s)], ids=["first", "seed="])
def test_a_seed_given_to_the_constructor_is_checked_as_manual_seed_checks_it(make):
    # the seed 2**64 wrapped to 0 silently, where g.manual_seed(2**64) is refused
    for seed in (2**64, -2**63 - 1):
        with pytest.raises(ValueError, match="out of range"):
            make(seed)
    assert make(-1).initial_seed() == 2**64 - 1 and make(np.int64(7)).initial_seed() == 7


@pytest.mark.parametrize("g", [mg.Generator(), mg.default_generator])
def test_seed_reseeds_nondeterministically_and_returns_the_seed(g):
    keep = mg.get_rng_state()
    try:
        g.manual_seed(1)
        mg.rand(2, generator=g)
        first = g.seed()
        assert isinstance(first, int) and 0 <= first < 2**64
        assert g.initial_seed() == first and g.get_state()["counter"] == 0
        assert g.seed() != first
    finally:
        mg.set_rng_state(keep)


def test_set_state_returns_the_generator_and_clone_state_draws_on_independently():
    g = mg.Generator(device="strict").manual_seed(5)
    mg.rand(3, generator=g)
    assert g.set_state(g.get_state()) is g
    twin = g.clone_state()
    assert twin is not g and twin.device == g.device and twin.get_state() == g.get_state()
    ahead = mg.rand(4, generator=g).tolist()
    assert mg.rand(4, generator=twin).tolist() == ahead
    mg.rand(1, generator=twin)
    assert twin.get_state() != g.get_state()


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g))])
def test_a_copied_generator_keeps_its_device_and_position(copier):
    g = mg.Generator(device="strict").manual_seed(6)
    mg.rand(2, generator=g)
    twin = copier(g)
    assert twin.device == mg.device("strict") and twin.get_state() == g.get_state()
    assert mg.rand(3, generator=twin).tolist() == mg.rand(3, generator=g).tolist()


LIKE = {
    "rand_like": lambda x, g: mg.rand_like(x, generator=g),
    "randn_like": lambda x, g: mg.randn_like(x, generator=g),
    "randint_like": lambda x, g: mg.randint_like(x, 10, generator=g),
    "randint_like_low_high": lambda x, g: mg.randint_like(x, 2, 10, generator=g),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", sorted(LIKE))
def test_the_like_functions_draw_from_the_generator_given(name, dtype, device):
    x = mg.ones(2, 3, dtype=dtype, device=device)
    mg.manual_seed(0)
    before = mg.get_rng_state()
    first = LIKE[name](x, mg.Generator().manual_seed(3))
    assert mg.get_rng_state() == before  # the engine's generator is left alone
    assert first.shape == x.shape and first.dtype == dtype and first.device == x.device
    mg.rand(5)
    assert LIKE[name](x, mg.Generator().manual_seed(3)).tolist() == first.tolist()
    with pytest.raises(TypeError, match="generator"):
        LIKE[name](x, 5)
