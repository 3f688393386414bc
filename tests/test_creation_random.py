"""Creation functions and the engine's random generator."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.fixture(autouse=True)
def _restore_rng():
    state = mg.get_rng_state()
    yield
    mg.set_rng_state(state)


# ------------------------------------------------------------------ creation
@pytest.mark.parametrize("fn, fill", [(mg.zeros, 0.0), (mg.ones, 1.0)])
def test_zeros_ones(fn, fill):
    for args in ((2, 3), ((2, 3),), ([2, 3],)):
        t = fn(*args)
        assert t.shape == (2, 3) and t.dtype == np.float32
        np.testing.assert_array_equal(t.numpy(), np.full((2, 3), fill))
    assert fn(()).shape == ()
    assert fn(0, 4).shape == (0, 4)
    assert fn(3, dtype="int32").dtype == np.int32
    assert fn(3, dtype=mg.float64).dtype == np.float64
    t = fn(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf


def test_full():
    t = mg.full((2, 2), 1.5)
    assert t.dtype == np.float32
    np.testing.assert_array_equal(t.numpy(), np.full((2, 2), 1.5))
    assert mg.full((3,), 7).dtype == np.int64
    assert mg.full(3, 7).shape == (3,)
    assert mg.full((2,), True).dtype == np.bool_
    assert mg.full((2,), 2, dtype="float64").dtype == np.float64


def test_arange():
    t = mg.arange(5)
    assert t.dtype == np.int64
    np.testing.assert_array_equal(t.numpy(), np.arange(5))
    np.testing.assert_array_equal(mg.arange(2, 10, 3).numpy(), [2, 5, 8])
    f = mg.arange(0.0, 1.0, 0.25)
    assert f.dtype == np.float32
    np.testing.assert_array_equal(f.numpy(), [0.0, 0.25, 0.5, 0.75])
    assert mg.arange(3, dtype="float64").dtype == np.float64


def test_zeros_like_ones_like():
    x = mg.tensor(np.ones((2, 3), dtype=np.float64), requires_grad=True)
    z = mg.zeros_like(x)
    o = mg.ones_like(x)
    for t, fill in ((z, 0.0), (o, 1.0)):
        assert t.shape == (2, 3) and t.dtype == np.float64
        assert not t.requires_grad  # a new constant, no history
        np.testing.assert_array_equal(t.numpy(), np.full((2, 3), fill))
    assert mg.ones_like(mg.tensor([1, 2])).dtype == np.int64
    assert mg.zeros_like(x, dtype="float32").dtype == np.float32
    assert mg.zeros_like(np.ones((4,), dtype=np.int32)).shape == (4,)


def test_creation_results_own_their_memory():
    a, b = mg.zeros(3), mg.zeros(3)
    assert not np.shares_memory(a.numpy(), b.numpy())
    a.data[0] = 1.0
    assert b.data[0] == 0.0


# -------------------------------------------------------------------- random
def test_rand_randn_shapes_and_dtypes():
    assert mg.rand(3, 4).shape == (3, 4)
    assert mg.rand((3, 4)).shape == (3, 4)
    assert mg.rand(5).dtype == np.float32
    assert mg.randn(2, 2).dtype == np.float32
    assert mg.randn(2, dtype="float64").dtype == np.float64
    assert mg.rand(0).shape == (0,)
    assert mg.randn(()).shape == ()
    assert mg.rand(2, requires_grad=True).requires_grad
    with pytest.raises(TypeError, match="float dtype"):
        mg.rand(2, dtype="int64")
    with pytest.raises(TypeError, match="float dtype"):
        mg.randn(2, dtype="int32")


@pytest.mark.parametrize("fn", [mg.rand, mg.randn])
def test_manual_seed_reproducible(fn):
    mg.manual_seed(123)
    a = fn(50).numpy().copy()
    b = fn(50).numpy().copy()
    mg.manual_seed(123)
    a2 = fn(50).numpy().copy()
    b2 = fn(50).numpy().copy()
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)
    assert not np.array_equal(a, b)  # successive draws differ


@pytest.mark.parametrize("fn", [mg.rand, mg.randn])
def test_different_seeds_differ(fn):
    mg.manual_seed(1)
    a = fn(50).numpy().copy()
    mg.manual_seed(2)
    b = fn(50).numpy().copy()
    assert not np.array_equal(a, b)


def test_rng_state_round_trip():
    mg.manual_seed(7)
    mg.rand(3)
    state = mg.get_rng_state()
    assert state == {"seed": 7, "counter": 1}
    a = mg.randn(10).numpy().copy()
    r = mg.rand(4).numpy().copy()
    mg.set_rng_state(state)
    np.testing.assert_array_equal(mg.randn(10).numpy(), a)
    np.testing.assert_array_equal(mg.rand(4).numpy(), r)
    assert mg.get_rng_state() == {"seed": 7, "counter": 3}


def test_rng_state_is_plain_data_and_validated():
    state = mg.get_rng_state()
    assert set(state) == {"seed", "counter"}
    assert all(type(v) is int for v in state.values())
    with pytest.raises(ValueError, match="not an RNG state"):
        mg.set_rng_state({"seed": 1})
    with pytest.raises(ValueError, match="out of range"):
        mg.set_rng_state({"seed": 1, "counter": -1})


def test_manual_seed_converts_as_torch_manual_seed_and_refuses_non_numbers():
    assert mg.manual_seed(1.5).initial_seed() == 1  # torch.manual_seed calls int() first
    with pytest.raises(TypeError, match="manual_seed"):
        mg.manual_seed(None)


def test_randn_roughly_standard_normal():
    mg.manual_seed(0)
    z = mg.randn(100_000, dtype="float64").numpy()
    assert np.isfinite(z).all()
    assert abs(z.mean()) < 0.02
    assert abs(z.std() - 1.0) < 0.02
    assert abs(np.mean(np.abs(z) < 1.0) - 0.6827) < 0.01  # one-sigma mass
    assert abs(np.mean(z**3)) < 0.05  # symmetric


def test_rand_roughly_uniform():
    mg.manual_seed(0)
    u = mg.rand(100_000).numpy()
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.01
    hist, _ = np.histogram(u, bins=10, range=(0.0, 1.0))
    assert (np.abs(hist / 10_000 - 1.0) < 0.05).all()


def test_randint():
    mg.manual_seed(0)
    r = mg.randint(3, 7, size=(1000,))
    assert r.dtype == np.int64 and r.shape == (1000,)
    assert set(np.unique(r.numpy())) == {3, 4, 5, 6}
    with pytest.raises(ValueError, match="low < high"):
        mg.randint(5, 5)


@pytest.mark.parametrize("mean, std", [("t", 1.0), (0.0, "t"), ("t", "t")])
@pytest.mark.parametrize("keyword", [{"dtype": mg.float64}, {"device": "cpu"}, {"requires_grad": True},
                                     {"size": (2,)}])
def test_normal_of_a_tensor_refuses_factory_keywords(mean, std, keyword):
    """``torch.normal``'s tensor forms take ``generator=`` and ``out=`` only: the result has the
    operands' dtype and device.  A ``dtype=float64`` beside a float32 mean was taken and ignored
    (a float32 draw where float64 was asked); it is PyTorch's TypeError."""
    t = mg.ones(2)
    args = [t if v == "t" else v for v in (mean, std)]
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        mg.normal(*args, **keyword)
    assert mg.normal(*args, generator=mg.Generator().manual_seed(0)).dtype == mg.float32
    assert mg.normal(*args, requires_grad=False).shape == (2,)
