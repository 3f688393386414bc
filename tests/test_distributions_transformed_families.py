"""``Weibull``, ``Pareto``, ``Kumaraswamy`` and ``PowerTransform`` against torch.distributions 2.13 (they
were AttributeErrors): torch's answers for mean/variance/entropy/log_prob/cdf/icdf/expand, the transform's
maps and Jacobians, Pareto's KL pairs and the gradients of all of them (``mg.func.grad``), recorded by
tests/data/make_torch_distribution_families.py and replayed here in float64 and float32; then torch's
refusals (quoted beside them), sampling statistics with a fixed seed, the strict devices, and ``rsample``
inside ``mg.checkpoint.checkpoint`` and under ``mg.func.grad``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D
from minigrad_ckpt import func

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from distribution_family_cases import CASES  # noqa: E402
from distribution_replay import replay  # noqa: E402
from sampling_statistics import assert_same_gradients_at_the_seams, ks_statistic  # noqa: E402

TORCH = np.load(DATA / "torch_distribution_families.npz")
TOL = {"float64": 1e-11, "float32": 2e-5}
# torch's trigamma (its autograd of digamma) is off by up to 1.5e-9; its Multinomial entropy by 3e-8 of the exact
# enumeration (tests/test_distributions_counts.py checks the engine's against that sum to 1e-13)
LOOSER = {("family_gradients", "float64"): 1e-8, ("family_gradients", "float32"): 1e-4,
          ("multinomial_entropy", "float64"): 1e-7, ("von_mises_and_inverse_gamma", "float64"): 1e-8,
          ("generalized_pareto", "float64"): 2e-5}  # computed in float32 in both runs


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_the_programs_give_torchs_answers(case, dtype):
    replay(case, dtype, TORCH, LOOSER.get((case.__name__, dtype), TOL[dtype]), mg, D, func)


def test_refusals_and_reprs_as_torch():
    # torch: "Expected parameter scale (Tensor of shape ()) of distribution Weibull(scale: -1.0, concentration: 2.0)
    # to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values: -1.0"
    with pytest.raises(ValueError, match=r"parameter scale \(Tensor of shape \(\)\) of distribution Weibull\(scale: "
                                         r"-1.0, concentration: 2.0\) to satisfy the constraint GreaterThan"):
        D.Weibull(-1.0, 2.0)
    # torch: Pareto's alpha is its Exponential's rate, checked first: "... parameter rate ... Exponential(rate: -2.0)"
    with pytest.raises(ValueError, match=r"parameter rate \(Tensor of shape \(\)\) of distribution Exponential"):
        D.Pareto(1.0, -2.0)
    with pytest.raises(ValueError, match=r"parameter concentration0 .* Kumaraswamy\(concentration1: 1.0, "
                                         r"concentration0: -2.0\)"):
        D.Kumaraswamy(1.0, -2.0)
    # torch: "... within the support (GreaterThanEq(lower_bound=2.0)) of the distribution Pareto(alpha: 2.0,
    # scale: 2.0)"
    with pytest.raises(ValueError, match=r"\(GreaterThanEq\(lower_bound=2.0\)\) of the distribution Pareto\(alpha: "
                                         r"2.0, scale: 2.0\)"):
        D.Pareto(2.0, 2.0).log_prob(mg.tensor(1.0))
    with pytest.raises(ValueError, match=r"\(Interval\(lower_bound=0.0, upper_bound=1.0\)\) of the distribution "
                                         r"Kumaraswamy"):
        D.Kumaraswamy(1.0, 2.0).log_prob(mg.tensor(1.5))
    assert repr(D.Weibull(1.0, 2.0)) == "Weibull(scale: 1.0, concentration: 2.0)"
    assert repr(D.PowerTransform(mg.tensor(2.0))) == "PowerTransform()"
    assert D.PowerTransform(mg.tensor([2.0, 3.0])) == D.PowerTransform(mg.tensor([2.0, 3.0]))
    assert D.PowerTransform(mg.tensor(2.0)) != D.PowerTransform(mg.tensor(3.0)) != D.ExpTransform()
    for d in (D.Weibull(1.0, 2.0), D.Pareto(1.0, 2.0), D.Kumaraswamy(1.0, 2.0)):
        assert d.has_rsample and d.batch_shape == () and d.event_shape == ()
    e = D.Weibull(mg.tensor([1.0, 2.0]), 2.0).expand((3, 2))
    assert type(e) is D.Weibull and e.batch_shape == (3, 2) and e.scale.shape == (3, 2)


def test_kumaraswamy_mode_is_the_textbooks():
    """torch 2.13's ``Kumaraswamy(2., 3.).mode`` is NaN (its log-space formula takes ``log1p(-c0)``); the mode of
    ``a b x^(a-1) (1 - x^a)^(b-1)`` is ``((a - 1) / (a b - 1))^(1/a)``, where the density's derivative vanishes."""
    a, b = np.array([2.0, 1.5, 5.0, 0.5]), np.array([3.0, 4.0, 2.0, 2.0])
    mode = D.Kumaraswamy(mg.tensor(a), mg.tensor(b)).mode.numpy()
    np.testing.assert_allclose(mode[:3], ((a[:3] - 1) / (a[:3] * b[:3] - 1)) ** (1 / a[:3]), rtol=1e-14)
    assert np.isnan(mode[3])  # a concentration below 1: NaN, as torch's
    x = mg.tensor(mode[:3], requires_grad=True)
    D.Kumaraswamy(mg.tensor(a[:3]), mg.tensor(b[:3])).log_prob(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 0.0, atol=1e-12)


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_draws_follow_the_cdf(dtype):
    mg.manual_seed(11)
    for d in (D.Weibull(mg.tensor([1.0, 2.0], dtype=dtype), mg.tensor([0.5, 3.0], dtype=dtype)),
              D.Pareto(mg.tensor([1.0, 0.5], dtype=dtype), mg.tensor([2.5, 1.0], dtype=dtype)),
              D.Kumaraswamy(mg.tensor([0.5, 2.0], dtype=dtype), mg.tensor([3.0, 0.7], dtype=dtype))):
        x = d.rsample((20000,))
        assert x.shape == (20000, 2) and x.dtype == dtype and bool(d.support.check(x).all().item())
        cdf = d.cdf(x.detach()).numpy().astype(np.float64)
        for i in range(2):  # the draws' CDF values against the uniform (1% point of KS at n = 20000: 0.0115)
            u = np.sort(cdf[:, i])
            assert ks_statistic(u, u) < 0.015


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    dtype = mg.float32 if device == "strict-f32" else mg.float64
    a = mg.tensor([1.0, 2.0, 0.5], dtype=dtype, device=device, requires_grad=True)
    b = mg.tensor([2.5, 2.5, 3.0], dtype=dtype, device=device, requires_grad=True)
    p = D.Pareto(a, b)
    total = p.rsample((2,)).sum() + p.log_prob(p.sample()).sum() + p.entropy().sum() + p.variance.sum()
    for d in (D.Weibull(a, b), D.Kumaraswamy(a, b)):
        x = d.rsample((2,))
        total = total + x.sum() + d.log_prob(x.detach()).sum() + d.cdf(x.detach()).sum() + d.entropy().sum()
    total = total + D.kl_divergence(p, D.Pareto(a * 0.5, b)).sum()
    total.backward()
    for t in (a, b):
        assert str(t.grad.device).startswith(device) and t.grad.dtype == dtype
        assert bool(t.grad.isfinite().all().item())


def _loss(a, b):
    return (D.Weibull(a, b).rsample((5,)).pow(2).sum() + D.Pareto(a, b + 2).rsample((5,)).sum()
            + D.Kumaraswamy(a, b).rsample((5,)).sum())


def test_rsample_inside_a_checkpoint_and_under_func_grad():
    a = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([0.7, 3.0], dtype=mg.float64, requires_grad=True)
    assert_same_gradients_at_the_seams(mg, _loss, (a, b), seed=12)
