"""``ExponentialFamily``, PyTorch's base class (an AttributeError before): a program's own family states its
natural parameters, log-normalizer and mean carrier measure, and gets ``entropy`` and the KL between two of
its kind from the log-normalizer's gradient (Bregman), as PyTorch's. Checked against closed forms (the
exponential's and the normal's entropies and KLs) and with PyTorch's refusal across families (its message
quoted)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D


class MyExponential(D.ExponentialFamily):
    """``rate e^(-rate x)``: theta = -rate, F(theta) = -log(-theta), no carrier term."""

    arg_constraints = {"rate": D.constraints.positive}

    def __init__(self, rate):
        self.rate = rate
        super().__init__(tuple(rate.shape))

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, theta):
        return -(-theta).log()

    @property
    def _mean_carrier_measure(self):
        return 0


class MyNormal(D.ExponentialFamily):
    """PyTorch's Normal in natural form: (mu / s^2, -1 / (2 s^2)), F = -x^2 / (4 y) + log(-pi / y) / 2."""

    arg_constraints = {"loc": D.constraints.real, "scale": D.constraints.positive}

    def __init__(self, loc, scale):
        self.loc, self.scale = loc, scale
        super().__init__(tuple(loc.shape))

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(-2))

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()

    @property
    def _mean_carrier_measure(self):
        return 0


def test_entropy_and_kl_from_the_log_normalizer():
    rate = mg.tensor([0.5, 2.0], dtype=mg.float64, requires_grad=True)
    p, q = MyExponential(rate), MyExponential(mg.tensor([1.0, 3.0], dtype=mg.float64))
    entropy = p.entropy()
    np.testing.assert_allclose(entropy.detach().numpy(), 1 - np.log([0.5, 2.0]), rtol=1e-12)
    rp, rq = np.array([0.5, 2.0]), np.array([1.0, 3.0])
    np.testing.assert_allclose(D.kl_divergence(p, q).detach().numpy(), np.log(rp / rq) + rq / rp - 1, rtol=1e-12)
    loc, scale = mg.tensor([0.3, -1.0], dtype=mg.float64), mg.tensor([2.0, 0.5], dtype=mg.float64)
    n = MyNormal(loc, scale)
    np.testing.assert_allclose(n.entropy().detach().numpy(), D.Normal(loc, scale).entropy().numpy(), rtol=1e-12)
    m = MyNormal(loc * 0 + 1, scale * 0 + 1)
    np.testing.assert_allclose(D.kl_divergence(n, m).detach().numpy(),
                               D.kl_divergence(D.Normal(loc, scale), D.Normal(loc * 0 + 1, scale * 0 + 1)).numpy(),
                               rtol=1e-12)


def test_across_families_is_refused_as_torch():
    # torch: "The cross KL-divergence between different exponential families cannot be computed using Bregman
    # divergences" (NotImplementedError)
    with pytest.raises(NotImplementedError, match="cannot be computed using Bregman divergences"):
        D.kl_divergence(MyExponential(mg.tensor([1.0])), MyNormal(mg.tensor([0.0]), mg.tensor([1.0])))
    assert not isinstance(D.Normal(0.0, 1.0), D.ExponentialFamily)  # the built-in families keep closed forms
