"""``ContinuousBernoulli``, PyTorch's (it was an AttributeError): torch's mean/variance/entropy/log_prob/
cdf/icdf/expand, both parameterizations, in and out of the Taylor region around ``probs = 1/2``, its KL
pairs and their gradients (``mg.func.grad``) are replayed by tests/test_distributions_transformed_families.py
(cases ``continuous_bernoulli``, ``continuous_bernoulli_gradients``); here PyTorch's checks (quoted), the
draws against the CDF (KS, fixed seed), shapes, the strict devices and ``rsample`` at the seams."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D

sys.path.insert(0, str(Path(__file__).parent / "data"))
from sampling_statistics import assert_same_gradients_at_the_seams, ks_statistic  # noqa: E402


def test_checks_as_torch():
    # torch clamps the given probs into [eps, 1 - eps] and checks them only when validate_args is given:
    # ContinuousBernoulli(1.5) is built; ContinuousBernoulli(1.5, validate_args=True) -> "The parameter probs has
    # invalid values"
    assert D.ContinuousBernoulli(mg.tensor(1.5)).probs.item() == 1 - np.finfo(np.float32).eps
    with pytest.raises(ValueError, match="The parameter probs has invalid values"):
        D.ContinuousBernoulli(mg.tensor(1.5), validate_args=True)
    with pytest.raises(ValueError, match=r"within the support \(Interval\(lower_bound=0.0, upper_bound=1.0\)\) of the "
                                         r"distribution ContinuousBernoulli\(probs: 0.30000001192092896\)"):
        D.ContinuousBernoulli(mg.tensor(0.3)).log_prob(mg.tensor(1.5))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        D.ContinuousBernoulli()
    d = D.ContinuousBernoulli(probs=0.3)
    assert d.batch_shape == () and d.has_rsample and d.rsample((4,)).shape == (4,)
    e = D.ContinuousBernoulli(logits=mg.tensor([0.1, 2.0])).expand((3, 2))
    assert type(e) is D.ContinuousBernoulli and e.batch_shape == (3, 2) and e.rsample((5,)).shape == (5, 3, 2)


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_draws_follow_the_cdf(dtype):
    mg.manual_seed(31)
    probs = mg.tensor([0.05, 0.4999, 0.8], dtype=dtype, requires_grad=True)
    d = D.ContinuousBernoulli(probs)
    x = d.rsample((20000,))
    assert x.dtype == dtype and bool(d.support.check(x).all().item())
    cdf = d.cdf(x.detach()).detach().numpy().astype(np.float64)
    for i in range(3):
        u = np.sort(cdf[:, i])
        assert ks_statistic(u, u) < 0.015
    np.testing.assert_allclose(x.detach().numpy().mean(0), d.mean.detach().numpy(), atol=0.01)
    x.mean(0).sum().backward()  # d E[x] / d probs, by the draws' gradients, against the mean's
    (want,) = mg.autograd.grad(D.ContinuousBernoulli(probs).mean.sum(), [probs])
    np.testing.assert_allclose(probs.grad.numpy()[[0, 2]], want.numpy()[[0, 2]], rtol=0.05)
    # inside (0.499, 0.501) the draw is the uniform itself, with no gradient: torch's too (its rsample of
    # probs [0.05, 0.4999, 0.8] has gradient [9.7, 0., 2.3] in probs)
    assert probs.grad.numpy()[1] == 0


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    dtype = mg.float32 if device == "strict-f32" else mg.float64
    logits = mg.tensor([-2.0, 0.0, 0.5], dtype=dtype, device=device, requires_grad=True)
    d, q = D.ContinuousBernoulli(logits=logits), D.ContinuousBernoulli(mg.tensor([0.3, 0.5, 0.9], dtype=dtype,
                                                                                 device=device))
    x = d.rsample((2,))
    total = (x.sum() + d.log_prob(x.detach()).sum() + d.entropy().sum() + d.variance.sum()
             + d.cdf(x.detach()).sum() + D.kl_divergence(d, q).sum())
    total.backward()
    assert str(logits.grad.device).startswith(device) and logits.grad.dtype == dtype
    assert bool(logits.grad.isfinite().all().item())


def _loss(probs):
    return D.ContinuousBernoulli(probs).rsample((4,)).pow(2).sum()


def test_rsample_inside_a_checkpoint_and_under_func_grad():
    probs = mg.tensor([0.1, 0.5, 0.8], dtype=mg.float64, requires_grad=True)
    assert_same_gradients_at_the_seams(mg, _loss, (probs,), seed=32)
