"""PyTorch's ``generator=`` on the sampling functions: ``mg.randn(3, generator=g)`` draws from
``g`` and leaves the engine's generator where it was, as ``torch.randn(3, generator=g)`` does.
Ported code passing it (reproducible noise, ``torch.Generator().manual_seed(42)``) was a
TypeError ("unexpected keyword argument 'generator'").  The numbers are the engine's, not
PyTorch's (two generators' streams differ); what is checked is PyTorch's contract."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

W = mg.tensor([[0.2, 0.5, 0.3], [0.9, 0.05, 0.05]])
DRAWS = {
    "rand": lambda g: mg.rand(2, 3, generator=g),
    "randn": lambda g: mg.randn(4, generator=g),
    "randint": lambda g: mg.randint(0, 10, (5,), generator=g),
    "randperm": lambda g: mg.randperm(6, generator=g),
    "bernoulli": lambda g: mg.bernoulli(mg.full((6,), 0.5), generator=g),
    "multinomial": lambda g: mg.multinomial(W, 2, generator=g),
    "multinomial_method": lambda g: W.multinomial(3, replacement=True, generator=g),
    "normal": lambda g: mg.normal(mg.zeros(3), mg.ones(3), generator=g),
    "normal_size": lambda g: mg.normal(0.0, 1.0, size=(3,), generator=g),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_a_seeded_generator_repeats_its_draws_and_leaves_the_engines_alone(name):
    draw = DRAWS[name]
    first = draw(mg.Generator().manual_seed(42)).numpy()
    mg.manual_seed(0)
    expected_global = mg.randn(3).numpy()
    mg.manual_seed(0)
    again = draw(mg.Generator().manual_seed(42)).numpy()
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(mg.randn(3).numpy(), expected_global)  # the engine's stream did not move
    g = mg.Generator().manual_seed(42)
    draw(g)
    assert g.get_state()["counter"] == 1  # one key per call, drawn from g


def test_two_generators_with_other_seeds_differ_and_a_non_generator_is_refused():
    a = mg.randn(8, generator=mg.Generator().manual_seed(1)).numpy()
    b = mg.randn(8, generator=mg.Generator().manual_seed(2)).numpy()
    assert not np.array_equal(a, b)
    with pytest.raises(TypeError, match="generator must be a mg.Generator"):
        mg.randn(2, generator=np.random.default_rng(0))
