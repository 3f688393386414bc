"""Values at infinity that PyTorch answers with a constant: ``ContinuousBernoulli.cdf`` at +-inf (0 and 1),
the mode of ``Exponential``/``HalfNormal``/``HalfCauchy`` with an infinite parameter (0). Each was ``x * 0``
(NaN at an infinite ``x``); found by a boundary sweep against torch 2.13 (log_prob, cdf, icdf, moments and their
gradients at each family's support ends)."""

from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt.distributions import ContinuousBernoulli, Exponential, HalfCauchy, HalfNormal

INF = float("inf")


def test_continuous_bernoulli_cdf_is_0_and_1_at_the_infinities():
    for probs in ([0.3, 0.5], [0.2, 0.9]):  # outside and inside the Taylor region around 1/2
        dist = ContinuousBernoulli(probs=mg.tensor(probs, dtype=mg.float64), validate_args=False)
        np.testing.assert_array_equal(dist.cdf(mg.tensor([-INF, INF], dtype=mg.float64)).numpy(), [0.0, 1.0])
    dist = ContinuousBernoulli(probs=mg.tensor(0.3, dtype=mg.float32), validate_args=False)
    np.testing.assert_array_equal(dist.cdf(mg.tensor([-INF, -1.0, 2.0, INF], dtype=mg.float32)).numpy(),
                                  [0.0, 0.0, 1.0, 1.0])


def test_the_mode_at_zero_is_zero_for_an_infinite_parameter():
    rate = mg.tensor([INF, 2.0], dtype=mg.float64, requires_grad=True)
    np.testing.assert_array_equal(Exponential(rate).mode.numpy(), [0.0, 0.0])
    scale = mg.tensor([INF, 2.0], dtype=mg.float64)
    for family in (HalfNormal, HalfCauchy):
        np.testing.assert_array_equal(family(scale).mode.numpy(), [0.0, 0.0])
