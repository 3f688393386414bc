"""``vmap``'s ``randomness=`` with a generator of one's own (``mg.rand(3, generator=g)`` inside the
function) means what it means for the engine's generator, as in PyTorch:

* ``"same"``: every example draws the same numbers, and ``g`` moves on as after one unbatched
  draw (here only the engine's generator was set back for each example, so ``g``'s rows differed);
* ``"error"``: the draw is refused and ``g`` is left where it stood (it had moved on);
* ``jacfwd(randomness="error")`` likewise leaves ``g`` where it stood.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in device)

DRAWS = {
    "rand": lambda x, g: x + mg.rand(x.shape, dtype=x.dtype, device=x.device, generator=g),
    "randn_like": lambda x, g: x + mg.randn_like(x, generator=g),
    "bernoulli": lambda x, g: (x + 1) * mg.bernoulli(mg.full_like(x, 0.5), generator=g),
    "normal_": lambda x, g: x + mg.empty_like(x).normal_(generator=g),
    "engine and own": lambda x, g: x + mg.rand_like(x) + mg.rand_like(x, generator=g),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", sorted(DRAWS))
def test_same_randomness_gives_every_example_the_draws_of_one_call(name, dtype, device):
    draw = DRAWS[name]
    x = mg.zeros(4, 3, dtype=dtype, device=device)
    mg.manual_seed(0)
    g = mg.Generator().manual_seed(5)
    rows = func.vmap(lambda a: draw(a, g), randomness="same")(x).tolist()
    engine_after, own_after = mg.get_rng_state(), g.get_state()
    mg.manual_seed(0)
    h = mg.Generator().manual_seed(5)
    once = draw(x[0], h).tolist()
    assert rows == [once] * 4
    assert (engine_after, own_after) == (mg.get_rng_state(), h.get_state())  # moved on as after one call


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_different_randomness_still_draws_each_example_its_own(name):
    g = mg.Generator().manual_seed(5)
    rows = func.vmap(lambda a: DRAWS[name](a, g), randomness="different")(mg.zeros(4, 16)).tolist()
    assert len({tuple(r) for r in rows}) == 4


@pytest.mark.parametrize("transform", [
    lambda f, x: func.vmap(f)(x.reshape(1, 3)),
    lambda f, x: func.jacfwd(f, randomness="error")(x),
])
def test_a_refused_draw_leaves_the_own_generator_where_it_stood(transform):
    g = mg.Generator().manual_seed(5)
    engine = mg.get_rng_state()
    with pytest.raises(RuntimeError, match="randomness error mode"):
        transform(lambda a: DRAWS["engine and own"](a, g), mg.zeros(3, dtype=mg.float64))
    assert g.get_state() == {"seed": 5, "counter": 0}
    assert mg.get_rng_state() == engine


def test_same_randomness_inside_a_checkpoint_replays_the_examples_draws():
    g = mg.Generator().manual_seed(2)
    x = mg.linspace(0.5, 2.0, 6, dtype=mg.float64).reshape(2, 3).requires_grad_()
    per_example = func.vmap(lambda a: a * mg.rand_like(a, generator=g), randomness="same")
    y = mg.checkpoint.checkpoint(per_example, x, use_reentrant=False)
    y.sum().backward()
    drawn = mg.rand_like(x[0], generator=mg.Generator().manual_seed(2)).tolist()
    assert x.grad.tolist() == [drawn, drawn]  # the backward pass's replay drew what the forward pass drew
    assert g.get_state()["counter"] == 1
