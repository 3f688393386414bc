"""``cache_size=1`` on the distributions' transforms keeps the last ``(x, y)`` pair, as PyTorch's:
``t.inv(y)`` of the very ``y`` that ``t(x)`` returned is ``x`` itself.

mg accepted ``cache_size`` and recomputed ``atanh(tanh(x))``, which is ``inf`` once ``tanh(x)`` rounds to
1 (x = 20 in float64): ``TransformedDistribution(Normal(mu, sd), [TanhTransform(cache_size=1)])``'s
``log_prob(y)`` for ``y = t(x)`` answered ``nan`` (torch 2.13: -11210.00264780133) and lost digits at
x = 3 (1.0065742... for torch's 1.0065712953909522) -- a squashed-Gaussian policy's
``log_prob(rsample())`` went NaN where PyTorch's stays finite.  Expected values: torch 2.13, same calls.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

D, T = mg.distributions, mg.distributions.transforms
MU, SD = [0.3, -1.0, 5.0], [0.5, 2.0, 0.1]


def _base(device="cpu", dtype=mg.float64):
    return D.Normal(mg.tensor(MU, dtype=dtype, device=device), mg.tensor(SD, dtype=dtype, device=device))


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_log_prob_of_a_transforms_own_output_uses_its_input(device):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    x = mg.tensor([0.1, 3.0, 20.0], dtype=mg.float64, device=device)
    t = T.TanhTransform(cache_size=1)
    np.testing.assert_allclose(D.TransformedDistribution(_base(device), [t]).log_prob(t(x)).numpy(),
                               [-0.2958079750014344, 1.0065712953909522, -11210.00264780133], rtol=1e-13)
    chain = T.ComposeTransform([T.AffineTransform(1.0, 4.0), T.TanhTransform(), T.AffineTransform(0.5, 2.0)],
                               cache_size=1)
    np.testing.assert_allclose(D.TransformedDistribution(_base(device), chain).log_prob(chain(x)).numpy(),
                               [-0.853461602868511, 18.922178383445875, -11090.08208934301], rtol=1e-13)


def test_the_cache_is_the_last_pair_both_ways_and_keeps_the_graph():
    t = T.TanhTransform(cache_size=1)
    x = mg.tensor([20.0], dtype=mg.float64)
    y = t(x)
    assert t.inv(y) is x and t(x) is y and t.inv.inv is t
    y2 = mg.tensor([0.5], dtype=mg.float64)
    assert t(t.inv(y2)) is y2  # an inverse fills the cache too
    assert np.isinf(T.TanhTransform().inv(y).item())  # without a cache: recomputed, as PyTorch's
    assert T.TanhTransform().with_cache(1)._cache_size == 1
    assert T.AffineTransform(1.0, 2.0).with_cache()._cache_size == 1
    with pytest.raises(ValueError, match="cache_size"):
        T.TanhTransform(cache_size=2)
    mu = mg.tensor(MU, dtype=mg.float64, requires_grad=True)
    t = T.TanhTransform(cache_size=1)
    d = D.TransformedDistribution(D.Normal(mu, mg.tensor(SD, dtype=mg.float64)), [t])
    d.log_prob(t(mu * 2 + 1)).sum().backward()  # through the cached x, as torch 2.13
    np.testing.assert_allclose(mu.grad.numpy(), [-1.5133257823741149, -3.0463766238230594, -596.0000000022316],
                               rtol=1e-12)


def test_a_squashed_gaussians_log_prob_of_its_own_sample_is_finite():
    mg.manual_seed(0)
    d = D.TransformedDistribution(D.Normal(mg.tensor([30.0, -25.0]), mg.tensor([0.1, 0.1])),
                                  [T.TanhTransform(cache_size=1)])
    y = d.rsample()
    assert np.all(np.abs(y.numpy()) == 1.0)  # saturated in float32
    assert np.all(np.isfinite(d.log_prob(y).numpy()))
