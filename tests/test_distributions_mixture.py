"""``mg.distributions.MixtureSameFamily`` against ``torch.distributions.MixtureSameFamily`` 2.13 (it was
an AttributeError): Gaussian mixtures (batched, with per-batch or shared weights, over vectors and
scalars), mixtures of Uniforms and of Bernoulli vectors, mean/variance/cdf/log_prob/expand, gradients
(``mg.func.grad``) and forward mode (``mg.func.jvp``) in every parameter, float64 and float32: torch's
values for those are replayed by tests/test_distributions_torch_programs.py; here, shapes, sampling,
the refusals (torch's messages, quoted beside them) and the seams."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import distributions as D
from minigrad_ckpt.checkpoint import checkpoint

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from distribution_cases import MEANS, SCALES, WEIGHTS  # noqa: E402


@pytest.fixture(autouse=True)
def _default_validation():
    D.Distribution.set_default_validate_args(True)
    yield
    D.Distribution.set_default_validate_args(True)


def _gmm(dtype=mg.float64):
    weights, means, scales = (mg.tensor(t, dtype=dtype) for t in (WEIGHTS, MEANS, SCALES))
    return D.MixtureSameFamily(D.Categorical(logits=weights), D.Independent(D.Normal(means, scales), 1))


def test_shapes_support_and_refusals_as_torch():
    d = _gmm()
    assert d.batch_shape == (3,) and d.event_shape == (2,) and not d.has_rsample
    for sample_shape, shape in [((), (3, 2)), ((7,), (7, 3, 2)), ((2, 5), (2, 5, 3, 2))]:
        drawn = d.sample(sample_shape)
        assert drawn.shape == shape and drawn.dtype == mg.float64 and not drawn.requires_grad
    assert repr(d.support) == "MixtureSameFamilyConstraint(IndependentConstraint(Real(), 1))"
    assert repr(d).startswith("MixtureSameFamily(\n  Categorical(logits: (3, 4)),\n  Independent(Normal(")
    with pytest.raises(ValueError, match="support"):  # torch: a NaN coordinate is outside
        d.log_prob(mg.tensor([[float("nan"), 0.0]] * 3, dtype=mg.float64))
    # torch: a Categorical of 3 over 4 components -> "`mixture_distribution component` (3) does not equal ..."
    with pytest.raises(ValueError, match=r"`mixture_distribution component` \(3\) does not equal "
                                         r"`component_distribution.batch_shape\[-1\]` \(4\)"):
        D.MixtureSameFamily(D.Categorical(logits=mg.zeros(3)), D.Normal(mg.zeros(4), 1.0))
    with pytest.raises(ValueError, match=r"`mixture_distribution.batch_shape` \(\(2,\)\) is not compatible"):
        D.MixtureSameFamily(D.Categorical(logits=mg.zeros(2, 4)), D.Normal(mg.zeros(3, 4), 1.0))
    with pytest.raises(ValueError, match="needs to be an  instance of torch.distributions.Categorical"):
        D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(mg.zeros(4), 1.0))
    with pytest.raises(ValueError, match="Component distribution needs to be an instance"):
        D.MixtureSameFamily(D.Categorical(logits=mg.zeros(4)), 3)
    with pytest.raises(NotImplementedError):  # torch: no entropy, no rsample
        d.entropy()
    with pytest.raises(NotImplementedError):
        d.rsample()


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_samples_follow_the_weights_and_the_components(dtype):
    mg.manual_seed(0)
    weights = mg.tensor([[0.3, 0.7], [0.9, 0.1]], dtype=dtype)
    means = mg.tensor([[[-10.0, 0.0], [10.0, 5.0]]] * 2, dtype=dtype)
    d = D.MixtureSameFamily(D.Categorical(probs=weights), D.Independent(D.Normal(means, 1.0), 1))
    drawn = d.sample((20000,)).numpy()
    assert drawn.dtype == np.dtype(str(dtype).split(".")[-1])
    np.testing.assert_allclose((drawn[..., 0] < 0).mean(0), [0.3, 0.9], atol=0.015)
    np.testing.assert_allclose(drawn.mean(0), d.mean.numpy(), atol=0.1)
    np.testing.assert_allclose(drawn.var(0), d.variance.numpy(), rtol=0.05)


def test_fitting_a_mixture_inside_a_checkpoint_and_on_the_strict_device():
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    points = mg.tensor([[0.5, -1.0], [0.0, 0.0], [2.0, 1.5]], dtype=mg.float64)
    weights, means = mg.tensor(WEIGHTS, dtype=mg.float64), mg.tensor(MEANS, dtype=mg.float64)
    scales = mg.tensor(SCALES, dtype=mg.float64)

    def nll(w, m, s):
        return -D.MixtureSameFamily(D.Categorical(logits=w), D.Independent(D.Normal(m, s), 1)).log_prob(points).sum()

    args = [t.requires_grad_() for t in (weights, means, scales)]
    expected = mg.autograd.grad(nll(*args), args)
    for got, want in zip(mg.autograd.grad(checkpoint(nll, *args, use_reentrant=False), args), expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    on_device = [mg.tensor(t.detach().numpy(), dtype=mg.float32, device="strict-f32", requires_grad=True)
                 for t in (weights, means, scales)]
    d = D.MixtureSameFamily(D.Categorical(logits=on_device[0]), D.Independent(D.Normal(*on_device[1:]), 1))
    (d.log_prob(d.sample((2,))).sum() + d.mean.sum() + d.variance.sum()).backward()
    for t, want in zip(on_device, expected):
        assert str(t.grad.device).startswith("strict-f32") and t.grad.shape == want.shape
