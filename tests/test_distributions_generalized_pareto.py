"""``GeneralizedPareto``, PyTorch's (an AttributeError before): torch's log_prob, cdf, icdf, moments, entropy,
survival function, expand and gradients (``mg.func.grad``) are replayed in float32 by
tests/test_distributions_transformed_families.py (case ``generalized_pareto``; torch 2.13's raises in float64);
here float64 against those float32 numbers, the draws against the CDF (KS, fixed seed), the support, the
strict devices and ``rsample`` at the seams."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D

sys.path.insert(0, str(Path(__file__).parent / "data"))
from sampling_statistics import assert_same_gradients_at_the_seams, ks_statistic  # noqa: E402

PARAMS = ([0.0, 1.0, -1.0, 0.5], [1.0, 2.0, 0.5, 1.5], [0.0, 0.3, -0.4, 1e-9])
TORCH = np.load(Path(__file__).parent / "data" / "torch_distribution_families.npz")


def test_float64_agrees_with_torchs_float32():
    d = D.GeneralizedPareto(*(mg.tensor(p, dtype=mg.float64) for p in PARAMS))
    x = mg.tensor([[0.5, 2.0, -0.5, 3.0], [0.1, 1.5, -0.9, 0.6]], dtype=mg.float64)
    np.testing.assert_allclose(d.log_prob(x).numpy(), TORCH["generalized_pareto|float32|0"], rtol=2e-6)
    np.testing.assert_allclose(d.cdf(x).numpy(), TORCH["generalized_pareto|float32|1"], rtol=2e-6)
    assert d.log_prob(x).dtype == mg.float64


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_draws_follow_the_cdf_inside_the_support(dtype):
    mg.manual_seed(81)
    d = D.GeneralizedPareto(*(mg.tensor(p, dtype=dtype) for p in PARAMS))
    x = d.rsample((20000,))
    assert x.shape == (20000, 4) and x.dtype == dtype and d.has_rsample
    assert bool(d.support.check(x).all().item())  # below loc - scale / c where c < 0
    cdf = d.cdf(x).numpy().astype(np.float64)
    for i in range(4):
        u = np.sort(cdf[:, i])
        assert ks_statistic(u, u) < 0.015
    assert repr(D.GeneralizedPareto(0.0, 1.0, 0.5)) == "GeneralizedPareto(loc: 0.0, scale: 1.0, concentration: 0.5)"
    assert D.GeneralizedPareto(0.0, 1.0, 0.5).batch_shape == () and d.expand((3, 4)).sample().shape == (3, 4)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    dtype = mg.float32 if device == "strict-f32" else mg.float64
    c = mg.tensor([0.1, -0.3], dtype=dtype, device=device, requires_grad=True)
    d = D.GeneralizedPareto(c * 0, c * 0 + 1, c)
    x = d.rsample((3,))
    (x.sum() + d.log_prob(x.detach()).sum() + d.entropy().sum() + d.cdf(x.detach()).sum()).backward()
    assert str(c.grad.device).startswith(device) and c.grad.dtype == dtype and bool(c.grad.isfinite().all().item())


def _loss(scale, concentration):
    return D.GeneralizedPareto(0.0, scale, concentration).rsample((4,)).sum()


def test_rsample_inside_a_checkpoint_and_under_func_grad():
    scale = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    concentration = mg.tensor([0.2, -0.3], dtype=mg.float64, requires_grad=True)
    assert_same_gradients_at_the_seams(mg, _loss, (scale, concentration), seed=82)
