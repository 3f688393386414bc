"""``NegativeBinomial`` and ``Multinomial``, PyTorch's (they were AttributeErrors): torch's means, modes,
variances, log_probs (both parameterizations, ``total_count = 0``, a ``-inf`` logit with a zero count),
expand and gradients (``mg.func.grad``) are replayed by tests/test_distributions_transformed_families.py
(cases ``counts``, ``counts_gradients``, ``multinomial_entropy``); here the Multinomial entropy against the
exact sum over outcomes (torch's is 3e-8 off it), the draws' moments (fixed seeds), shapes, torch's refusals
(quoted), the strict devices, and log_prob's gradients inside ``mg.checkpoint.checkpoint``."""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D

sys.path.insert(0, str(Path(__file__).parent / "data"))
from sampling_statistics import assert_same_gradients_at_the_seams  # noqa: E402


def _exact_multinomial_entropy(n, probs):
    total = 0.0
    for counts in itertools.product(range(n + 1), repeat=len(probs)):
        if sum(counts) == n:
            lp = math.lgamma(n + 1) + sum(k * math.log(p) - math.lgamma(k + 1) for k, p in zip(counts, probs))
            total -= math.exp(lp) * lp
    return total


def test_multinomial_entropy_is_the_sum_over_outcomes():
    logits = mg.tensor([0.5, -1.0, 2.0, 0.0], dtype=mg.float64)
    got = D.Multinomial(4, logits=logits).entropy().item()
    # torch 2.13: 2.2058078208548153; the sum over the 35 outcomes: 2.2058078464028648
    assert abs(got - _exact_multinomial_entropy(4, mg.softmax(logits, -1).numpy())) < 1e-13


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_draws_have_the_moments(dtype):
    mg.manual_seed(41)
    nb = D.NegativeBinomial(mg.tensor([2.0, 10.0, 0.0], dtype=dtype), probs=mg.tensor([0.3, 0.6, 0.5], dtype=dtype))
    x = nb.sample((20000,))
    assert x.shape == (20000, 3) and x.dtype == dtype and not x.requires_grad
    assert bool(nb.support.check(x).all().item()) and (x.numpy()[:, 2] == 0).all()  # total_count 0: always 0
    np.testing.assert_allclose(x.numpy()[:, :2].mean(0), nb.mean.numpy()[:2], rtol=0.04)
    np.testing.assert_allclose(x.numpy()[:, :2].var(0), nb.variance.numpy()[:2], rtol=0.08)
    m = D.Multinomial(7, probs=mg.tensor([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]], dtype=dtype))
    y = m.sample((5000, 2))
    assert y.shape == (5000, 2, 2, 3) and y.dtype == dtype and bool(m.support.check(y).all().item())
    np.testing.assert_array_equal(y.numpy().sum(-1), 7)
    np.testing.assert_allclose(y.numpy().mean((0, 1)), m.mean.numpy(), atol=0.06)
    np.testing.assert_allclose(y.numpy().var((0, 1)), m.variance.numpy(), rtol=0.08)


def test_shapes_refusals_and_reprs_as_torch():
    nb = D.NegativeBinomial(mg.tensor([1.0, 2.0]), logits=mg.tensor(0.5))
    assert nb.batch_shape == (2,) and type(nb.expand((3, 2))) is D.NegativeBinomial
    one = D.NegativeBinomial(mg.tensor(2.0), probs=mg.tensor(0.5))
    assert repr(one) == "NegativeBinomial(total_count: 2.0, probs: 0.5)"
    m = D.Multinomial(3, probs=mg.tensor([[0.5, 0.5]] * 4))
    assert m.batch_shape == (4,) and m.event_shape == (2,) and repr(m) == "Multinomial()"
    assert m.expand((2, 4)).sample().shape == (2, 4, 2) and repr(m.support) == "Multinomial()"
    # torch: "Expected parameter total_count (Tensor of shape ()) of distribution NegativeBinomial(total_count: -1.0,
    # probs: 0.5) to satisfy the constraint GreaterThanEq(lower_bound=0), but found invalid values: -1.0"
    with pytest.raises(ValueError, match=r"parameter total_count .* NegativeBinomial\(total_count: -1.0, probs: 0.5\) "
                                         r"to satisfy the constraint GreaterThanEq\(lower_bound=0\)"):
        D.NegativeBinomial(mg.tensor(-1.0), probs=mg.tensor(0.5))
    with pytest.raises(ValueError, match=r"the constraint HalfOpenInterval\(lower_bound=0.0, upper_bound=1.0\)"):
        D.NegativeBinomial(mg.tensor(1.0), probs=mg.tensor(1.0))
    with pytest.raises(ValueError, match=r"within the support \(IntegerGreaterThan\(lower_bound=0\)\)"):
        D.NegativeBinomial(mg.tensor(1.0), probs=mg.tensor(0.5)).log_prob(mg.tensor(0.5))
    # torch: "... to be within the support (Multinomial()) of the distribution Multinomial(), ..."
    with pytest.raises(ValueError, match=r"within the support \(Multinomial\(\)\) of the distribution Multinomial\(\)"):
        D.Multinomial(3, probs=mg.tensor([0.5, 0.5])).log_prob(mg.tensor([3.0, 1.0]))
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count is not supported"):
        D.Multinomial(mg.tensor(3.0), probs=mg.tensor([0.5, 0.5]))


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    dtype = mg.float32 if device == "strict-f32" else mg.float64
    logits = mg.tensor([0.5, -1.0, 2.0], dtype=dtype, device=device, requires_grad=True)
    nb = D.NegativeBinomial(mg.tensor(3.0, dtype=dtype, device=device), logits=logits)
    m = D.Multinomial(4, logits=logits)
    total = nb.log_prob(nb.sample((2,))).sum() + m.log_prob(m.sample((2,))).sum() + m.entropy() + nb.variance.sum()
    total.backward()
    assert str(logits.grad.device).startswith(device) and logits.grad.dtype == dtype
    assert bool(logits.grad.isfinite().all().item())


def _loss(total_count, logits):
    counts = mg.tensor([[0.0, 2.0, 5.0], [1.0, 1.0, 0.0]], dtype=logits.dtype)
    return (D.NegativeBinomial(total_count, logits=logits).log_prob(counts).sum()
            + D.Multinomial(5, logits=logits).log_prob(mg.tensor([1.0, 2.0, 2.0], dtype=logits.dtype)))


def test_log_prob_inside_a_checkpoint_and_under_func_grad():
    total_count = mg.tensor([2.0, 0.5, 4.0], dtype=mg.float64, requires_grad=True)
    logits = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, requires_grad=True)
    assert_same_gradients_at_the_seams(mg, _loss, (total_count, logits), seed=42)
