"""``LowRankMultivariateNormal`` and its KL pairs, PyTorch's (an AttributeError before): torch's log_prob,
entropy, variance, scale_tril, covariance and precision matrices, expand, the KL against itself and a
``MultivariateNormal`` both ways, and their gradients (``mg.func.grad``) are replayed by
tests/test_distributions_transformed_families.py (case ``low_rank_normal``); here the agreement with the
full ``MultivariateNormal`` of the same covariance, the draws' covariance (fixed seed), torch's refusals
(quoted), the strict devices and ``rsample`` at the seams."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D

sys.path.insert(0, str(Path(__file__).parent / "data"))
from sampling_statistics import assert_same_gradients_at_the_seams  # noqa: E402

RNG = np.random.default_rng(7)
LOC, W, DIAG = RNG.normal(size=(2, 5)), RNG.normal(size=(2, 5, 2)), np.exp(RNG.normal(size=5))


def test_it_is_the_full_normal_of_its_covariance():
    d = D.LowRankMultivariateNormal(mg.tensor(LOC), mg.tensor(W), mg.tensor(DIAG))
    full = D.MultivariateNormal(mg.tensor(LOC), covariance_matrix=mg.tensor(W @ W.transpose(0, 2, 1) + np.diag(DIAG)))
    x = mg.tensor(RNG.normal(size=(3, 2, 5)))
    np.testing.assert_allclose(d.log_prob(x).numpy(), full.log_prob(x).numpy(), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), full.entropy().numpy(), rtol=1e-12)
    np.testing.assert_allclose(d.precision_matrix.numpy(), full.precision_matrix.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose((d.scale_tril @ d.scale_tril.mT).numpy(), full.covariance_matrix.numpy(), rtol=1e-12)
    np.testing.assert_allclose(D.kl_divergence(d, full).numpy(), 0.0, atol=1e-12)


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_draws_have_its_covariance(dtype):
    mg.manual_seed(71)
    d = D.LowRankMultivariateNormal(mg.tensor(LOC[0], dtype=dtype), mg.tensor(W[0], dtype=dtype),
                                    mg.tensor(DIAG, dtype=dtype))
    x = d.rsample((40000,))
    assert x.shape == (40000, 5) and x.dtype == dtype and d.has_rsample
    np.testing.assert_allclose(x.detach().numpy().mean(0), LOC[0], atol=0.04)
    np.testing.assert_allclose(np.cov(x.detach().numpy().T), d.covariance_matrix.numpy(), atol=0.08)


def test_shapes_and_refusals_as_torch():
    d = D.LowRankMultivariateNormal(mg.tensor(LOC), mg.tensor(W[0]), mg.tensor(DIAG))
    assert d.batch_shape == (2,) and d.event_shape == (5,) and d.cov_factor.shape == (2, 5, 2)
    assert d.expand((3, 2)).rsample((4,)).shape == (4, 3, 2, 5)
    assert repr(D.LowRankMultivariateNormal(mg.tensor([0.0]), mg.tensor([[1.0]]), mg.tensor([1.0]))) == (
        "LowRankMultivariateNormal(loc: tensor([0.]), cov_factor: tensor([[1.]]), cov_diag: tensor([1.]))")
    with pytest.raises(ValueError, match="loc must be at least one-dimensional."):
        D.LowRankMultivariateNormal(mg.tensor(0.0), mg.tensor(W[0]), mg.tensor(DIAG))
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices with shape 5 x m"):
        D.LowRankMultivariateNormal(mg.tensor(LOC), mg.tensor(W[0].T), mg.tensor(DIAG))
    with pytest.raises(ValueError, match=r"cov_diag must be a batch of vectors with shape \(5,\)"):
        D.LowRankMultivariateNormal(mg.tensor(LOC), mg.tensor(W[0]), mg.tensor(DIAG[:4]))
    # torch: "Incompatible batch shapes: loc torch.Size([2, 5]), cov_factor torch.Size([3, 5, 2]), ..."
    with pytest.raises(ValueError, match="Incompatible batch shapes"):
        D.LowRankMultivariateNormal(mg.tensor(LOC), mg.tensor(np.ones((3, 5, 2))), mg.tensor(DIAG))
    # torch factors the capacitance before its checks: a negative cov_diag is its Cholesky's LinAlgError, unless
    # the factor is 0 (then "Expected parameter cov_diag (Tensor of shape (2, 5)) of distribution ...": the
    # broadcast parameter, as torch checks it)
    with pytest.raises(mg.linalg.LinAlgError, match="linalg.cholesky: The factorization could not be completed"):
        D.LowRankMultivariateNormal(mg.tensor(LOC), mg.ones(5, 2), -mg.ones(5))
    with pytest.raises(ValueError, match=r"parameter cov_diag \(Tensor of shape \(2, 5\)\) .* to satisfy the "
                                         r"constraint IndependentConstraint"):
        D.LowRankMultivariateNormal(mg.tensor(LOC), mg.zeros(5, 2), -mg.ones(5))
    with pytest.raises(ValueError, match="different event shapes cannot be computed"):
        D.kl_divergence(d, D.LowRankMultivariateNormal(mg.zeros(3), mg.ones(3, 1), mg.ones(3)))


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    dtype = mg.float32 if device == "strict-f32" else mg.float64
    w = mg.tensor(W[0], dtype=dtype, device=device, requires_grad=True)
    loc, diag = mg.tensor(LOC[0], dtype=dtype, device=device), mg.tensor(DIAG, dtype=dtype, device=device)
    d = D.LowRankMultivariateNormal(loc, w, diag)
    q = D.MultivariateNormal(loc, scale_tril=mg.eye(5, dtype=dtype, device=device))
    x = d.rsample((3,))
    total = (x.sum() + d.log_prob(x.detach()).sum() + d.entropy() + d.precision_matrix.sum()
             + D.kl_divergence(d, q) + D.kl_divergence(q, d) + D.kl_divergence(d, d))
    total.backward()
    assert str(w.grad.device).startswith(device) and w.grad.dtype == dtype and bool(w.grad.isfinite().all().item())


def _loss(loc, w, diag):
    return D.LowRankMultivariateNormal(loc, w, diag).rsample((3,)).pow(2).sum()


def test_rsample_inside_a_checkpoint_and_under_func_grad():
    params = [mg.tensor(v, dtype=mg.float64, requires_grad=True) for v in (LOC[0], W[0], DIAG)]
    assert_same_gradients_at_the_seams(mg, _loss, tuple(params), seed=72)
