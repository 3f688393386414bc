"""The distributions added beside Normal/Uniform (each an AttributeError before): torch 2.13's values
(tests/data/make_torch_distributions_more.py, replayed in float64 and float32: moments, log_prob, cdf,
icdf, entropy, KL and their gradients under ``mg.func.grad``), torch's refusals (quoted beside them),
sampling checked by its moments for a fixed seed, ``rsample``'s gradient against central differences
of the same draws, and the strict devices."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.func as func
from minigrad_ckpt import distributions as D

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from distribution_more_cases import CASES  # noqa: E402
from distribution_replay import replay  # noqa: E402

TORCH = np.load(DATA / "torch_distributions_more.npz")
TOL = {"float64": 1e-11, "float32": 2e-5}
# torch's derivative of digamma (its autograd trigamma) is off by up to 1.5e-9 against SciPy's polygamma(1, x) at
# x in [0.25, 2]; the engine's is within 4e-15: gradients through a digamma are compared to 1e-8 in float64
LOOSER = {("gamma_family_gradients", "float64"): 1e-8, ("kl_cross_families_gradients", "float64"): 1e-8}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_the_programs_give_torchs_answers(case, dtype):
    replay(case, dtype, TORCH, LOOSER.get((case.__name__, dtype), TOL[dtype]), mg, D, func)

def _drawn(make, dtype, n):
    """A fixed-seed draw of ``n`` from ``make(dtype)``: the distribution and its samples (float64 numpy),
    checked for shape, dtype, no gradient, finiteness and the support."""
    mg.manual_seed(0)
    d = make(dtype)
    drawn = d.sample((n,))
    assert drawn.shape == (n, *d.batch_shape, *d.event_shape) and drawn.dtype == dtype and not drawn.requires_grad
    x = drawn.numpy().astype(np.float64)
    assert np.isfinite(x).all() and bool(d.support.check(drawn).all().item())
    return d, x


def _has_moments(x, mean, var, var_rtol=0.08):
    """The sample mean within 5 standard errors of ``mean``, the sample variance within ``var_rtol``."""
    assert (np.abs(x.mean(0) - mean) <= 5 * np.sqrt(np.array(var) / len(x))).all(), x.mean(0)
    np.testing.assert_allclose(x.var(0), var, rtol=var_rtol)


def test_refusals_are_torchs():
    # torch: D.Exponential(torch.tensor(-1.)) -> "Expected parameter rate (Tensor of shape ()) of distribution
    # Exponential(rate: -1.0) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:"
    with pytest.raises(ValueError, match=r"parameter rate \(Tensor of shape \(\)\) of distribution Exponential\(rate: "
                                         r"-1.0\) to satisfy the constraint GreaterThan\(lower_bound=0.0\)"):
        D.Exponential(mg.tensor(-1.0))
    # torch: "... of distribution HalfNormal() to satisfy the constraint GreaterThan(lower_bound=0.0) ..."
    with pytest.raises(ValueError, match=r"parameter scale \(Tensor of shape \(\)\) of distribution HalfNormal\(\) "):
        D.HalfNormal(mg.tensor(-1.0))
    with pytest.raises(ValueError, match=r"distribution Gumbel\(loc: 0.0, scale: -1.0\)"):
        D.Gumbel(0.0, -1.0)
    # torch: D.Exponential(1.).log_prob(torch.tensor(-1.)) -> "Expected value argument (Tensor of shape ()) to be
    # within the support (GreaterThanEq(lower_bound=0.0)) of the distribution Exponential(rate: 1.0), ..."
    with pytest.raises(ValueError, match=r"within the support \(GreaterThanEq\(lower_bound=0.0\)\) of the "
                                         r"distribution Exponential\(rate: 1.0\)"):
        D.Exponential(1.0).log_prob(mg.tensor(-1.0))
    with pytest.raises(ValueError, match=r"of the distribution HalfCauchy\(\), but"):
        D.HalfCauchy(1.0).cdf(mg.tensor(-1.0))
    assert repr(D.Laplace(0.0, 2.0)) == "Laplace(loc: 0.0, scale: 2.0)" and repr(D.HalfNormal(1.0)) == "HalfNormal()"
    for cls in (D.Exponential, D.Laplace, D.Cauchy, D.Gumbel, D.HalfNormal, D.HalfCauchy):
        assert cls.has_rsample is True


SAMPLED = [  # (distribution, its mean, its variance; None where infinite: the median and quartiles then)
    (lambda dt: D.Exponential(mg.tensor([0.5, 4.0], dtype=dt)), [2.0, 0.25], [4.0, 1 / 16]),
    (lambda dt: D.Laplace(mg.tensor([0.0, 3.0], dtype=dt), mg.tensor([1.0, 0.5], dtype=dt)), [0.0, 3.0], [2.0, 0.5]),
    (lambda dt: D.Gumbel(mg.tensor([0.0, 3.0], dtype=dt), mg.tensor([1.0, 0.5], dtype=dt)),
     [0.5772156649, 3.2886078], [math.pi ** 2 / 6, math.pi ** 2 / 24]),
    (lambda dt: D.HalfNormal(mg.tensor([1.0, 3.0], dtype=dt)), [math.sqrt(2 / math.pi), 3 * math.sqrt(2 / math.pi)],
     [1 - 2 / math.pi, 9 * (1 - 2 / math.pi)]),
    (lambda dt: D.Cauchy(mg.tensor([0.0, 3.0], dtype=dt), mg.tensor([1.0, 0.5], dtype=dt)), None, None),
    (lambda dt: D.HalfCauchy(mg.tensor([1.0, 3.0], dtype=dt)), None, None),
]


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
@pytest.mark.parametrize("index", range(len(SAMPLED)))
def test_samples_have_the_distributions_moments(index, dtype):
    make, mean, var = SAMPLED[index]
    d, x = _drawn(make, dtype, 40000)
    if mean is not None:
        _has_moments(x, mean, var)
    else:  # quartiles through the icdf (the cdf at the drawn quartiles is 1/4, 1/2, 3/4)
        q = mg.tensor(np.quantile(x, [0.25, 0.5, 0.75], axis=0), dtype=dtype)
        np.testing.assert_allclose(d.cdf(q).numpy(), [[0.25] * 2, [0.5] * 2, [0.75] * 2], atol=0.01)


@pytest.mark.parametrize("make", [lambda a, b: D.Laplace(a, b), lambda a, b: D.Gumbel(a, b),
                                  lambda a, b: D.Cauchy(a, b), lambda a, b: D.Exponential(b),
                                  lambda a, b: D.HalfNormal(b), lambda a, b: D.HalfCauchy(b)])
def test_rsample_gradient_is_central_differences_of_the_same_draws(make):
    loc = mg.tensor([0.5, -1.0], dtype=mg.float64, requires_grad=True)
    scale = mg.tensor([1.5, 0.25], dtype=mg.float64, requires_grad=True)

    def drawn(a, b):
        mg.manual_seed(7)
        return make(a, b).rsample((3,))

    z = drawn(loc, scale)
    assert z.requires_grad
    got = mg.autograd.grad(z.pow(3).sum(), (loc, scale), allow_unused=True)
    h = 1e-6
    for i in range(2):
        for j in range(2):
            step = np.zeros(2)
            step[j] = h
            shifted = [p.detach() + mg.tensor(step) * (k == i) for k, p in enumerate((loc, scale))]
            down = [p.detach() - mg.tensor(step) * (k == i) for k, p in enumerate((loc, scale))]
            fd = (drawn(*shifted).pow(3).sum().item() - drawn(*down).pow(3).sum().item()) / (2 * h)
            analytic = 0.0 if got[i] is None else got[i][j].item()
            assert analytic == pytest.approx(fd, rel=1e-5, abs=1e-6), (i, j)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    loc = mg.zeros(3, device=device, requires_grad=True)
    scale = mg.ones(3, device=device, requires_grad=True)
    total = 0
    for d, q in [(D.Laplace(loc, scale), D.Laplace(1.0, scale)), (D.Gumbel(loc, scale), D.Gumbel(1.0, scale)),
                 (D.Cauchy(loc, scale), D.Cauchy(1.0, scale)), (D.Exponential(scale), D.Exponential(scale * 2)),
                 (D.HalfNormal(scale), D.HalfNormal(scale * 2)), (D.HalfCauchy(scale), None)]:
        z = d.rsample((2,))
        total = total + z.sum() + d.log_prob(z.detach().abs()).sum() + d.cdf(z.detach().abs()).sum()
        total = total + d.entropy().sum() + d.icdf(scale * 0.3).sum() + d.expand((2, 3)).mode.sum()
        if q is not None:
            total = total + D.kl_divergence(d, q).sum()
    total.backward()
    assert str(loc.grad.device).startswith(device) and str(scale.grad.device).startswith(device)


def test_transformed_distributions_refusals_and_flags():
    # torch: D.LogNormal(0., -1.) -> "Expected parameter scale (Tensor of shape ()) of distribution
    # Normal(loc: 0.0, scale: -1.0) to satisfy the constraint GreaterThan(lower_bound=0.0), ..."
    with pytest.raises(ValueError, match=r"parameter scale \(Tensor of shape \(\)\) of distribution Normal\(loc: 0.0, "
                                         r"scale: -1.0\)"):
        D.LogNormal(0.0, -1.0)
    # torch: "... within the support (GreaterThan(lower_bound=0.0)) of the distribution LogNormal(), ..."
    with pytest.raises(ValueError, match=r"\(GreaterThan\(lower_bound=0.0\)\) of the distribution LogNormal\(\)"):
        D.LogNormal(0.0, 1.0).log_prob(mg.tensor(0.0))
    # torch: "transforms must be a Transform or list, but was exp"
    with pytest.raises(ValueError, match="transforms must be a Transform or list, but was exp"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), "exp")
    sq = D.TransformedDistribution(D.Normal(mg.zeros(3), 1.0), [D.AffineTransform(0.0, 2.0), D.TanhTransform()])
    assert sq.has_rsample and sq.batch_shape == (3,) and sq.event_shape == ()
    assert repr(sq.support) == "Interval(lower_bound=-1.0, upper_bound=1.0)" and repr(sq) == "TransformedDistribution()"
    ev = D.TransformedDistribution(D.Normal(mg.zeros(2, 3), 1.0), D.AffineTransform(0.0, 2.0, event_dim=1))
    assert ev.batch_shape == (2,) and ev.event_shape == (3,) and ev.log_prob(mg.zeros(2, 3)).shape == (2,)
    assert D.ExpTransform() == D.ExpTransform() and D.ExpTransform().inv.inv == D.ExpTransform()
    assert D.AffineTransform(1.0, 2.0) != D.AffineTransform(1.0, 3.0)
    assert repr(D.ExpTransform().inv) == "_InverseTransform(ExpTransform())"  # torch's printing
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.LogNormal(0.0, 1.0), D.TransformedDistribution(D.Normal(0.0, 1.0), D.TanhTransform()))


def test_log_normal_and_squashed_samples_and_rsample_gradient():
    mg.manual_seed(0)
    drawn = D.LogNormal(mg.tensor([0.0, 1.0], dtype=mg.float64), 0.5).sample((40000,)).numpy()
    np.testing.assert_allclose(drawn.mean(0), np.exp([0.125, 1.125]), rtol=0.03)
    np.testing.assert_allclose(drawn.var(0), np.expm1(0.25) * np.exp([0.25, 2.25]), rtol=0.08)
    loc = mg.tensor([0.5, -1.0], dtype=mg.float64, requires_grad=True)
    scale = mg.tensor([1.5, 0.25], dtype=mg.float64, requires_grad=True)

    def drawn_at(a, b):
        mg.manual_seed(7)
        return D.TransformedDistribution(D.LogNormal(a, b), [D.AffineTransform(-1.0, 0.5), D.TanhTransform()]
                                         ).rsample((3,)).pow(3).sum()

    got = mg.autograd.grad(drawn_at(loc, scale), (loc, scale))
    h = 1e-6
    for i in range(2):
        for j in range(2):
            step = mg.tensor(np.eye(2)[j] * h)
            up = [p.detach() + step * (k == i) for k, p in enumerate((loc, scale))]
            down = [p.detach() - step * (k == i) for k, p in enumerate((loc, scale))]
            fd = (drawn_at(*up).item() - drawn_at(*down).item()) / (2 * h)
            assert got[i][j].item() == pytest.approx(fd, rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_transformed_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    loc = mg.zeros(3, device=device, requires_grad=True)
    scale = mg.ones(3, device=device, requires_grad=True)
    d = D.LogNormal(loc, scale)
    sq = D.TransformedDistribution(D.Normal(loc, scale), [D.AffineTransform(0.5, 2.0), D.TanhTransform()])
    z, y = d.rsample((2,)), sq.rsample((2,))
    total = (z.sum() + y.sum() + d.log_prob(z.detach()).sum() + d.cdf(z.detach()).sum() + d.entropy().sum()
             + sq.log_prob(y.detach().clamp(-0.9, 0.9)).sum() + d.mean.sum() + d.variance.sum()
             + D.kl_divergence(d, D.LogNormal(1.0, scale)).sum() + d.expand((2, 3)).log_prob(z.detach()).sum())
    total.backward()
    assert str(loc.grad.device).startswith(device) and str(scale.grad.device).startswith(device)


def test_discrete_refusals_and_flags():
    # torch: D.Geometric(torch.tensor([0., 0.5])) -> "Expected parameter probs (Tensor of shape (2,)) of
    # distribution Geometric(probs: torch.Size([2])) to be positive but found invalid values:\ntensor([0.])"
    with pytest.raises(ValueError, match=r"parameter probs \(Tensor of shape \(2,\)\) of distribution Geometric\("
                                         r"probs: \(2,\)\) to be positive but found invalid values"):
        D.Geometric(mg.tensor([0.0, 0.5]))
    # torch: "... of distribution Poisson(rate: -1.0) to satisfy the constraint GreaterThanEq(lower_bound=0.0), ..."
    with pytest.raises(ValueError, match=r"Poisson\(rate: -1.0\) to satisfy the constraint GreaterThanEq\(lower_bo"):
        D.Poisson(mg.tensor(-1.0))
    # torch: "... within the support (IntegerGreaterThan(lower_bound=0)) of the distribution Poisson(rate: 1.0), ..."
    with pytest.raises(ValueError, match=r"support \(IntegerGreaterThan\(lower_bound=0\)\) of the distribution"):
        D.Poisson(mg.tensor(1.0)).log_prob(mg.tensor(0.5))
    # torch: "... of distribution Binomial(total_count: 2.5, probs: 0.5) to satisfy the constraint IntegerGreaterThan"
    with pytest.raises(ValueError, match=r"Binomial\(total_count: 2.5, probs: 0.5\) to satisfy the constraint Integer"):
        D.Binomial(mg.tensor(2.5), mg.tensor(0.5))
    # torch: "... within the support (IntegerInterval(lower_bound=0, upper_bound=3.0)) of the distribution Binomial(..."
    with pytest.raises(ValueError, match=r"support \(IntegerInterval\(lower_bound=0, upper_bound=3.0\)\) of the dis"):
        D.Binomial(3, mg.tensor(0.5)).log_prob(mg.tensor(4.0))
    # torch: "... within the support (OneHot()) of the distribution OneHotCategorical(), ..."
    with pytest.raises(ValueError, match=r"support \(OneHot\(\)\) of the distribution OneHotCategorical\(\), but"):
        D.OneHotCategorical(mg.tensor([0.5, 0.5])).log_prob(mg.tensor([0.5, 0.5]))
    with pytest.raises(NotImplementedError):  # torch's Poisson has no entropy
        D.Poisson(1.0).entropy()
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count not supported by `entropy`"):
        D.Binomial(mg.tensor([2.0, 3.0]), mg.tensor(0.5)).entropy()
    with pytest.raises(NotImplementedError, match="where q.total_count > p.total_count is not implemented"):
        D.kl_divergence(D.Binomial(2, mg.tensor(0.5)), D.Binomial(3, mg.tensor(0.5)))
    for cls in (D.OneHotCategorical, D.Geometric, D.Poisson, D.Binomial):
        assert cls.has_rsample is False
    assert D.OneHotCategorical.has_enumerate_support and D.Binomial.has_enumerate_support
    assert D.OneHotCategorical(mg.tensor([[0.5, 0.5]])).event_shape == (2,)


DISCRETE = [
    (lambda dt: D.Poisson(mg.tensor([0.5, 3.0, 12.0, 250.0], dtype=dt)), [0.5, 3.0, 12.0, 250.0],
     [0.5, 3.0, 12.0, 250.0]),
    (lambda dt: D.Binomial(mg.tensor([5.0, 20.0], dtype=dt), mg.tensor([0.3, 0.9], dtype=dt)), [1.5, 18.0],
     [1.05, 1.8]),
    # counts of a million (PyTorch's rejection sampler, not a million Bernoulli draws), and the edges
    (lambda dt: D.Binomial(mg.tensor([1e3, 1e6, 0.0, 7.0, 40.0], dtype=dt),
                           mg.tensor([0.5, 0.01, 0.5, 1.0, 0.0], dtype=dt)),
     [500.0, 1e4, 0.0, 7.0, 0.0], [250.0, 9900.0, 0.0, 0.0, 0.0]),
    (lambda dt: D.Geometric(mg.tensor([0.3, 0.9], dtype=dt)), [7 / 3, 1 / 9], [70 / 9, 10 / 81]),
    (lambda dt: D.OneHotCategorical(mg.tensor([0.2, 0.3, 0.5], dtype=dt)), [0.2, 0.3, 0.5], [0.16, 0.21, 0.25]),
]


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
@pytest.mark.parametrize("index", range(len(DISCRETE)))
def test_discrete_samples_have_the_distributions_moments(index, dtype):
    make, mean, var = DISCRETE[index]
    _, x = _drawn(make, dtype, 20000)
    assert (x == np.floor(x)).all() and (x >= 0).all()
    _has_moments(x, mean, var)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_discrete_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    logits = mg.zeros(2, 3, device=device, requires_grad=True)
    rate = mg.ones(3, device=device, requires_grad=True) * 4
    oh, g = D.OneHotCategorical(logits=logits), D.Geometric(logits=logits)
    po, b = D.Poisson(rate), D.Binomial(4, logits=logits)
    total = (oh.log_prob(oh.sample((2,))).sum() + oh.entropy().sum() + g.log_prob(g.sample()).sum()
             + g.entropy().sum() + po.log_prob(po.sample((2,))).sum() + b.log_prob(b.sample()).sum()
             + b.entropy().sum() + D.kl_divergence(po, D.Poisson(1.0)).sum()
             + D.kl_divergence(b, D.Binomial(4, logits=logits.flip(-1))).sum()
             + D.kl_divergence(g, D.Geometric(logits=logits.flip(-1))).sum()
             + D.kl_divergence(oh, D.OneHotCategorical(logits=logits.flip(-1))).sum())
    total.backward()
    assert str(logits.grad.device).startswith(device) and str(b.enumerate_support().device).startswith(device)


def test_multivariate_normal_refusals():
    eye = mg.eye(2, dtype=mg.float64)
    # torch: "Expected parameter covariance_matrix (Tensor of shape (2, 2)) of distribution MultivariateNormal(loc:
    # torch.Size([2]), covariance_matrix: torch.Size([2, 2])) to satisfy the constraint PositiveDefinite(), ..."
    with pytest.raises(ValueError, match=r"parameter covariance_matrix \(Tensor of shape \(2, 2\)\) of distribution "
                                         r"MultivariateNormal\(loc: \(2,\), covariance_matrix: \(2, 2\)\) to satisfy "
                                         r"the constraint PositiveDefinite\(\)"):
        D.MultivariateNormal(mg.zeros(2, dtype=mg.float64), -eye)
    with pytest.raises(ValueError, match=r"constraint PositiveDefinite\(\)"):  # not symmetric
        D.MultivariateNormal(mg.zeros(2, dtype=mg.float64), precision_matrix=mg.tensor([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match=r"constraint LowerCholesky\(\)"):
        D.MultivariateNormal(mg.zeros(2, dtype=mg.float64), scale_tril=mg.tensor([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        D.MultivariateNormal(mg.zeros(2), eye, scale_tril=eye)
    with pytest.raises(ValueError, match="loc must be at least one-dimensional."):
        D.MultivariateNormal(mg.tensor(0.0), eye)
    with pytest.raises(ValueError, match="scale_tril matrix must be at least two-dimensional"):
        D.MultivariateNormal(mg.zeros(2), scale_tril=mg.ones(2))
    with pytest.raises(ValueError, match=r"within the support \(IndependentConstraint\(Real\(\), 1\)\)"):
        D.MultivariateNormal(mg.zeros(2), eye).log_prob(mg.tensor([0.0, math.nan]))
    with pytest.raises(ValueError, match="different event shapes cannot be computed"):
        D.kl_divergence(D.MultivariateNormal(mg.zeros(2), eye), D.MultivariateNormal(mg.zeros(3), mg.eye(3)))
    d = D.MultivariateNormal(mg.zeros(4, 2, dtype=mg.float64), scale_tril=eye)  # (torch: one dtype)
    assert d.batch_shape == (4,) and d.event_shape == (2,) and d.has_rsample and d.sample((3,)).shape == (3, 4, 2)


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_multivariate_normal_samples_have_its_covariance(dtype):
    mg.manual_seed(0)
    cov = np.array([[2.0, 0.5, 0.25], [0.5, 1.0, -0.3], [0.25, -0.3, 1.5]])
    for d in (D.MultivariateNormal(mg.tensor([1.0, -2.0, 0.0], dtype=dtype), mg.tensor(cov, dtype=dtype)),
              D.MultivariateNormal(mg.tensor([1.0, -2.0, 0.0], dtype=dtype),
                                   precision_matrix=mg.tensor(np.linalg.inv(cov), dtype=dtype))):
        x = d.sample((40000,))
        assert x.dtype == dtype and not x.requires_grad
        x = x.numpy().astype(np.float64)
        np.testing.assert_allclose(x.mean(0), [1.0, -2.0, 0.0], atol=0.03)
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.05)


def test_multivariate_normal_rsample_gradient_is_central_differences():
    loc = mg.tensor([0.5, -1.0], dtype=mg.float64, requires_grad=True)
    cov = mg.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=mg.float64, requires_grad=True)

    def drawn(m, c):
        mg.manual_seed(3)
        return D.MultivariateNormal(m, c).rsample((4,)).pow(3).sum()

    g_loc, g_cov = mg.autograd.grad(drawn(loc, cov), (loc, cov))
    h = 1e-6
    for j in range(2):
        step = mg.tensor(np.eye(2)[j] * h)
        fd = drawn(loc.detach() + step, cov.detach()).item() - drawn(loc.detach() - step, cov.detach()).item()
        assert g_loc[j].item() == pytest.approx(fd / (2 * h), rel=1e-6)
    for direction in ([[1.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]]):  # symmetric
        e = mg.tensor(direction, dtype=mg.float64)
        fd = (drawn(loc.detach(), cov.detach() + h * e).item() - drawn(loc.detach(), cov.detach() - h * e).item())
        assert (g_cov * e).sum().item() == pytest.approx(fd / (2 * h), rel=1e-5)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_multivariate_normal_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    loc = mg.zeros(2, 3, device=device, requires_grad=True)
    tril = mg.eye(3, device=device).requires_grad_()
    d = D.MultivariateNormal(loc, scale_tril=tril * 2)
    p = D.MultivariateNormal(loc[0], precision_matrix=tril * 0.5 + 1)
    z = d.rsample((2,))
    total = (z.sum() + d.log_prob(z.detach()).sum() + d.entropy().sum() + p.log_prob(z.detach()).sum()
             + D.kl_divergence(d, p).sum() + d.expand((4, 2)).variance.sum() + p.covariance_matrix.sum())
    total.backward()
    assert str(loc.grad.device).startswith(device) and str(tril.grad.device).startswith(device)


def test_gamma_family_refusals_and_rsample():
    # torch: D.Chi2(torch.tensor(-1.)) -> "Expected parameter df (Tensor of shape ()) of distribution Chi2() to
    # satisfy the constraint GreaterThan(lower_bound=0.0), ..." -- and StudentT(-1.) says the same (its Chi2 first)
    for make in (lambda: D.Chi2(mg.tensor(-1.0)), lambda: D.StudentT(mg.tensor(-1.0))):
        with pytest.raises(ValueError, match=r"parameter df \(Tensor of shape \(\)\) of distribution Chi2\(\) to "
                                             r"satisfy the constraint GreaterThan\(lower_bound=0.0\)"):
            make()
    # torch: D.Beta(1., -1.) -> "Expected parameter concentration (Tensor of shape (2,)) of distribution
    # Dirichlet(concentration: torch.Size([2])) to satisfy the constraint IndependentConstraint(GreaterThan(...), 1)"
    with pytest.raises(ValueError, match=r"parameter concentration \(Tensor of shape \(2,\)\) of distribution "
                                         r"Dirichlet\(concentration: \(2,\)\) to satisfy the constraint Independent"):
        D.Beta(1.0, -1.0)
    with pytest.raises(ValueError, match=r"distribution Gamma\(concentration: 1.0, rate: -1.0\) to satisfy"):
        D.Gamma(mg.tensor(1.0), mg.tensor(-1.0))
    with pytest.raises(ValueError, match="`concentration` parameter must be at least one-dimensional."):
        D.Dirichlet(mg.tensor(1.0))
    # torch: "... within the support (Interval(lower_bound=0.0, upper_bound=1.0)) of the distribution Beta(), ..."
    with pytest.raises(ValueError, match=r"\(Interval\(lower_bound=0.0, upper_bound=1.0\)\) of the distribution Beta"):
        D.Beta(1.0, 1.0).log_prob(mg.tensor(1.5))
    assert repr(D.StudentT(3.0)) == "StudentT(df: 3.0, loc: 0.0, scale: 1.0)" and repr(D.Chi2(2.0)) == "Chi2()"
    for d in (D.Gamma(1.0, 1.0), D.Chi2(2.0), D.Beta(1.0, 2.0), D.Dirichlet(mg.ones(3)), D.StudentT(3.0)):
        assert d.has_rsample is True  # torch's implicit reparameterization (tests/test_distributions_rsample_gamma.py)


GAMMA_FAMILY = [  # (distribution, its mean, its variance)
    (lambda dt: D.Gamma(mg.tensor([0.3, 1.0, 4.5], dtype=dt), mg.tensor([1.0, 2.0, 0.5], dtype=dt)),
     [0.3, 0.5, 9.0], [0.3, 0.25, 18.0]),
    (lambda dt: D.Chi2(mg.tensor([1.0, 3.0, 10.0], dtype=dt)), [1.0, 3.0, 10.0], [2.0, 6.0, 20.0]),
    (lambda dt: D.Beta(mg.tensor([0.5, 2.0, 5.0], dtype=dt), mg.tensor([0.5, 3.0, 1.0], dtype=dt)),
     [0.5, 0.4, 5 / 6], [0.125, 0.04, 5 / 252]),
    (lambda dt: D.Dirichlet(mg.tensor([0.5, 2.0, 1.5], dtype=dt)), [0.125, 0.5, 0.375],
     [0.125 * 0.875 / 5, 0.25 / 5, 0.375 * 0.625 / 5]),
    (lambda dt: D.StudentT(mg.tensor([5.0, 10.0, 30.0], dtype=dt), mg.tensor([0.0, 1.0, -2.0], dtype=dt), 2.0),
     [0.0, 1.0, -2.0], [20 / 3, 5.0, 4 * 30 / 28]),
]


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
@pytest.mark.parametrize("index", range(len(GAMMA_FAMILY)))
def test_gamma_family_samples_have_the_distributions_moments(index, dtype):
    make, mean, var = GAMMA_FAMILY[index]
    _, x = _drawn(make, dtype, 40000)
    _has_moments(x, mean, var)


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_gamma_family_on_the_strict_devices(device):
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    conc = mg.ones(2, 3, device=device, requires_grad=True)
    g, b, d = D.Gamma(conc, 2.0), D.Beta(conc, conc * 2), D.Dirichlet(conc)
    t = D.StudentT(conc * 3, 0.0, conc)
    total = (g.log_prob(g.sample()).sum() + g.entropy().sum() + b.log_prob(b.sample()).sum() + b.entropy().sum()
             + d.log_prob(d.sample()).sum() + d.entropy().sum() + t.log_prob(t.sample()).sum() + t.entropy().sum()
             + D.kl_divergence(g, D.Gamma(2.0, conc)).sum() + D.kl_divergence(b, D.Beta(2.0, conc)).sum()
             + D.kl_divergence(d, D.Dirichlet(conc.flip(-1))).sum() + d.mode.sum() + t.variance.sum())
    total.backward()
    assert str(conc.grad.device).startswith(device) and str(D.Chi2(conc).sample().device).startswith(device)


def test_rsample_inside_a_checkpoint_and_log_prob_under_vmap():
    from minigrad_ckpt.checkpoint import checkpoint

    loc = mg.tensor([0.5, -1.0], dtype=mg.float64, requires_grad=True)
    scale = mg.tensor([1.5, 0.25], dtype=mg.float64, requires_grad=True)

    def program(a, b):
        tril = mg.stack([mg.stack([b[0], b[0] * 0]), mg.stack([a[1], b[1]])])
        return (D.Laplace(a, b).rsample((3,)).pow(2).sum() + D.LogNormal(a, b).rsample((2,)).sum()
                + D.MultivariateNormal(a, scale_tril=tril).rsample((4,)).pow(2).sum() + D.Gumbel(a, b).rsample().sum())

    mg.manual_seed(5)
    expected = mg.autograd.grad(program(loc, scale), (loc, scale))
    mg.manual_seed(5)  # the replayed draws are the same numbers, so the gradient is the plain one's
    kept = checkpoint(program, loc, scale, use_reentrant=False)
    for got, want in zip(mg.autograd.grad(kept, (loc, scale)), expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    x = mg.tensor([[0.5, 1.0], [2.0, 0.25], [1.0, 1.0]], dtype=mg.float64)
    batched = func.vmap(lambda v: D.Gamma(scale, 2.0).log_prob(v) + D.Laplace(loc, scale).log_prob(v))(x)
    np.testing.assert_allclose(batched.numpy(), (D.Gamma(scale, 2.0).log_prob(x) + D.Laplace(loc, scale).log_prob(x))
                               .detach().numpy(), rtol=1e-12)


def test_samplers_acceptance_terms_keep_float32_digits_at_large_counts():
    # the rejection samplers (Poisson's PTRS, Binomial's BTRS) compare against log k! - Stirling's formula: as
    # a difference of lgamma and k log k that is ~1e6 in float32 at k = 1e5, it was off by ~0.1 (the whole
    # tail is ~1e-6), which bent the accepted counts' spread at large rates
    from minigrad_ckpt.functional.poisson import stirling_tail as _stirling_tail  # (shared with mg.poisson)

    def reference(v):  # in float64: lgamma's difference while it is small, Stirling's series (4 terms) beyond
        if v < 10:
            return math.lgamma(v + 1) - ((v + 0.5) * math.log(v + 1) - (v + 1) + 0.5 * math.log(2 * math.pi))
        n = v + 1
        return 1 / (12 * n) - 1 / (360 * n ** 3) + 1 / (1260 * n ** 5) - 1 / (1680 * n ** 7)

    k = np.array([0.0, 3.0, 9.0, 10.0, 50.0, 1e5, 5e6])
    exact = np.array([reference(v) for v in k])
    # float32: a millionth where it was a tenth.  1.5e-6, not 1e-6: at k = 9 the difference of two float32
    # numbers near 12.8 (ulp 9.5e-7) is 1.17e-6 off even from a correctly rounded lgamma(10); it passed at
    # 1e-6 only while lgamma(10) itself was 9e-7 high the other way
    for dtype, atol in ((mg.float64, 1e-9), (mg.float32, 1.5e-6)):
        got = _stirling_tail(mg.tensor(k, dtype=dtype)).numpy().astype(np.float64)
        np.testing.assert_allclose(got, exact, rtol=1e-6, atol=atol)
