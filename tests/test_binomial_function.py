"""``mg.binomial(count, prob)``: torch 2.13's top-level binomial draw -- ``distributions.Binomial``'s
sampler (PyTorch's split: inversion for few successes, BTRS for many), broadcast, clamped as
PyTorch reads its arguments, with its refusals."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg


def test_draws_have_the_binomial_moments():
    mg.manual_seed(0)
    for n, p in ((30.0, 0.3), (5.0, 0.7), (200.0, 0.9)):
        x = mg.binomial(mg.full((20000,), n, dtype=mg.float64), mg.full((20000,), p, dtype=mg.float64))
        assert x.dtype == mg.float64 and bool(((x >= 0) & (x <= n) & (x == x.round())).all())
        assert x.mean().item() == pytest.approx(n * p, rel=0.02)
        assert x.var().item() == pytest.approx(n * p * (1 - p), rel=0.06)


def test_edges_broadcasting_and_generator_as_pytorchs():
    assert mg.binomial(mg.tensor([10.0, 0.0, 5.0]), mg.tensor([0.0, 0.5, 1.0])).tolist() == [0.0, 0.0, 5.0]
    assert mg.binomial(mg.tensor([10.0]), mg.tensor([1.5])).tolist() == [10.0]            # torch: read as 1
    assert mg.binomial(mg.tensor([-1.0]), mg.tensor([0.5])).tolist() == [0.0]             # torch: no trials
    assert mg.binomial(mg.tensor([10.0, 3.0]), mg.tensor([0.5])).shape == (2,)
    g = mg.Generator().manual_seed(3)
    a = mg.binomial(mg.full((6,), 20.0), mg.full((6,), 0.5), generator=g)
    g.manual_seed(3)
    assert mg.binomial(mg.full((6,), 20.0), mg.full((6,), 0.5), generator=g).tolist() == a.tolist()


def test_refusals_are_pytorchs():
    with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for count, got: Long"):
        mg.binomial(mg.tensor([10]), mg.tensor([0.5]))
    with pytest.raises(RuntimeError, match="Found dtype Float but expected Double"):
        mg.binomial(mg.tensor([10.0], dtype=mg.float64), mg.tensor([0.5]))
