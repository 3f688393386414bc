"""``vmap``'s random fills in place (``t.normal_()``, ``t.bernoulli_(p)``, ``nn.init.trunc_normal_(t)``,
``F.dropout(t, inplace=True)``) under each ``randomness`` mode, into a batched and an unbatched tensor.

Found porting functorch's test_vmap.py: a fill into a tensor passed with ``in_dims=None`` (or closed
over) was refused in every mode with the refusal of a batched value written into an unbatched tensor,
naming the fill's internal ``copy_`` -- the write guard counted the drawn sample, made in the call, as
a value of the example.  torch 2.13 (checked on these programs):

* ``randomness="same"``: one draw for the batch, written once -- every example sees the same values;
* ``randomness="different"``: "vmap: Cannot ask for different inplace randomness on an unbatched
  tensor. This will appear like same randomness. ..." (and for ``bernoulli_(p)`` with ``p`` batched,
  or dropout's mask times the tensor, its refusal of a batched value written into an unbatched tensor);
* ``randomness="error"``: its refusal of the random draw, which comes first.

Into a batched tensor each example gets its own draw (``"different"``) or the same one (``"same"``).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

V = mg.func.vmap
F = mg.nn.functional
B = 4

SAME_FOR_EVERY_EXAMPLE = "Cannot ask for different inplace randomness on an unbatched tensor"
DRAW_REFUSED = "called random operation while in randomness error mode"
BATCHED_VALUE = r"\(self, \*extra_args\) is not possible because there exists a Tensor `other`"

FILLS = {
    "normal_": lambda t: t.normal_(),
    "uniform_": lambda t: t.uniform_(-2, 3),
    "bernoulli_": lambda t: t.bernoulli_(),
    "bernoulli_(p tensor)": lambda t: t.bernoulli_(mg.full((3, 3), 0.3)),  # p made in the call: counted
    "random_": lambda t: t.random_(100),
    "exponential_": lambda t: t.exponential_(),
    "cauchy_": lambda t: t.cauchy_(),
    "geometric_": lambda t: t.geometric_(0.5),
    "log_normal_": lambda t: t.log_normal_(),
    "init.normal_": lambda t: mg.nn.init.normal_(t),
    "init.kaiming_uniform_": lambda t: mg.nn.init.kaiming_uniform_(t),
    "init.trunc_normal_": lambda t: mg.nn.init.trunc_normal_(t),
    "init.orthogonal_": lambda t: mg.nn.init.orthogonal_(t),
}
UNBATCHED = FILLS.copy()
del UNBATCHED["bernoulli_(p tensor)"]  # its p, made in the call, is a batched operand (below)


def _passed_whole(fill, randomness):
    """``fill`` of ``u`` passed with in_dims=None; the stacked results and ``u`` after."""
    u = mg.zeros(3, 3)
    out = V(lambda x, u: fill(u) + 0 * x, in_dims=(0, None), randomness=randomness)(mg.ones(B), u)
    return out, u


def _closed_over(fill, randomness):
    u = mg.zeros(3, 3)

    def f(x):
        fill(u)
        return x

    V(f, randomness=randomness)(mg.ones(B))
    return u


@pytest.mark.parametrize("name", sorted(UNBATCHED))
def test_same_randomness_fills_an_unbatched_tensor_with_one_draw(name):
    fill = FILLS[name]
    mg.manual_seed(7)
    want = fill(mg.zeros(3, 3)).numpy().copy()
    after_one_draw = mg.rand(2).numpy()
    mg.manual_seed(7)
    out, u = _passed_whole(fill, "same")
    np.testing.assert_array_equal(u.numpy(), want)  # the one draw, as outside vmap
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(want, (B, 3, 3)))  # seen by every example
    np.testing.assert_array_equal(mg.rand(2).numpy(), after_one_draw)  # and only one was taken
    mg.manual_seed(7)
    np.testing.assert_array_equal(_closed_over(fill, "same").numpy(), want)


@pytest.mark.parametrize("name", sorted(UNBATCHED))
@pytest.mark.parametrize("where", [_passed_whole, _closed_over])
def test_different_randomness_into_an_unbatched_tensor_is_refused_with_torchs_words(name, where):
    with pytest.raises(RuntimeError, match=SAME_FOR_EVERY_EXAMPLE) as refusal:
        where(FILLS[name], "different")
    assert "copy_" not in str(refusal.value)


@pytest.mark.parametrize("name", sorted(UNBATCHED))
@pytest.mark.parametrize("where", [_passed_whole, _closed_over])
def test_error_randomness_refuses_the_draw_and_takes_nothing_from_the_generator(name, where):
    mg.manual_seed(3)
    want = mg.rand(2).numpy()
    mg.manual_seed(3)
    with pytest.raises(RuntimeError, match=DRAW_REFUSED):
        where(FILLS[name], "error")
    np.testing.assert_array_equal(mg.rand(2).numpy(), want)


@pytest.mark.parametrize("name", sorted(FILLS))
@pytest.mark.parametrize("randomness", ["same", "different"])
def test_a_batched_tensor_gets_one_draw_per_example_or_the_same_one(name, randomness):
    b = mg.zeros(B, 3, 3)
    out = V(FILLS[name], randomness=randomness)(b)
    np.testing.assert_array_equal(out.numpy(), b.numpy())  # written into the mapped argument's slices
    rows = [out[i].numpy() for i in range(B)]
    if randomness == "same":
        for r in rows[1:]:
            np.testing.assert_array_equal(r, rows[0])
    elif name not in ("bernoulli_", "bernoulli_(p tensor)", "geometric_"):  # (9 coin flips may repeat)
        assert all((rows[i] != rows[j]).any() for i in range(B) for j in range(i))


@pytest.mark.parametrize("randomness", ["same", "different"])
def test_bernoulli_of_a_batched_p_into_an_unbatched_tensor_is_refused(randomness):
    u = mg.zeros(3)
    with pytest.raises(RuntimeError, match=BATCHED_VALUE) as refusal:
        V(lambda p, u: u.bernoulli_(p), in_dims=(0, None), randomness=randomness)(mg.rand(B, 3), u)
    assert "bernoulli_" in str(refusal.value)
    np.testing.assert_array_equal(u.numpy(), np.zeros(3))


DROPOUTS = {
    "dropout": lambda t: F.dropout(t, 0.5, training=True, inplace=True),
    "dropout1d": lambda t: F.dropout1d(t, 0.5, training=True, inplace=True),
    "alpha_dropout": lambda t: F.alpha_dropout(t, 0.5, training=True, inplace=True),
    "feature_alpha_dropout": lambda t: F.feature_alpha_dropout(t, 0.5, training=True, inplace=True),
}


@pytest.mark.parametrize("name", sorted(DROPOUTS))
def test_inplace_dropout_of_an_unbatched_tensor(name):
    """torch: the draw refused in "error" mode; in "different" the mask is the example's own, a batched
    value written into an unbatched tensor; in "same" written once -- which the loop would make once
    per example (a mask applied B times, the scale compounded): refused, not a wrong value."""
    drop = DROPOUTS[name]
    cases = {"error": DRAW_REFUSED, "different": BATCHED_VALUE, "same": "once per example"}
    for randomness, words in cases.items():
        u = mg.ones(2, 3, 4)
        with pytest.raises(RuntimeError, match=words):
            V(lambda x, u: drop(u) + 0 * x, in_dims=(0, None), randomness=randomness)(mg.ones(B), u)
        np.testing.assert_array_equal(u.numpy(), np.ones((2, 3, 4)))


@pytest.mark.parametrize("name", sorted(DROPOUTS))
@pytest.mark.parametrize("randomness", ["same", "different"])
def test_inplace_dropout_of_a_batched_tensor(name, randomness):
    b = mg.ones(B, 2, 3, 4)
    out = V(DROPOUTS[name], randomness=randomness)(b)
    np.testing.assert_array_equal(out.numpy(), b.numpy())
    same = all(np.array_equal(out[i].numpy(), out[0].numpy()) for i in range(B))
    assert same == (randomness == "same")


def test_error_randomness_refuses_a_draw_before_whatever_fails_after_it():
    """torch refuses the draw when it is made: a later failure (here a broadcast) is never reached."""
    mg.manual_seed(5)
    want = mg.rand(2).numpy()
    mg.manual_seed(5)
    with pytest.raises(RuntimeError, match=DRAW_REFUSED):
        V(lambda x: x + mg.randn(5))(mg.ones(B, 3))
    np.testing.assert_array_equal(mg.rand(2).numpy(), want)  # the draw left no trace


def test_nested_vmap_judges_an_unbatched_fill_at_each_level():
    """Inner "same", outer "different": a tensor unbatched at both levels would see one draw per outer
    example -- torch's refusal at the outer level; batched at the outer level, each outer example's
    slice gets its own draw, shared by the inner examples."""
    u = mg.zeros(3)
    inner = V(lambda y, u: u.normal_() + 0 * y, in_dims=(0, None), randomness="same")
    with pytest.raises(RuntimeError, match=SAME_FOR_EVERY_EXAMPLE):
        V(lambda x, u: inner(x, u), in_dims=(0, None), randomness="different")(mg.ones(2, 5), u)
    out = V(lambda x, u: inner(x, u), randomness="different")(mg.ones(2, 5), mg.zeros(2, 3))
    assert out.shape == (2, 5, 3)
    np.testing.assert_array_equal(out.numpy()[:, 1:], np.broadcast_to(out.numpy()[:, :1], (2, 4, 3)))
    assert (out.numpy()[0, 0] != out.numpy()[1, 0]).all()
