"""PyTorch's ``torch.distributions.<submodule>`` addresses (``from torch.distributions.categorical
import Categorical``, ``torch.distributions.normal.Normal``): each holds the engine's class of that
name.  Before, only the submodules that are files here under PyTorch's name (``gamma``, ``uniform``,
``kl``, ...) answered; ``mg.distributions.normal`` was an AttributeError and ``from
minigrad_ckpt.distributions.categorical import Categorical`` a ModuleNotFoundError, in programs that
ran under torch after the rename (the sparsely-gated mixture of experts' ``Normal``, RL code's
``Categorical``)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.distributions import constraint_registry, relaxed

# torch 2.13's ``torch.distributions`` submodules and their ``__all__``; left out: ``constraints``
# (the engine's module, tested with the constraints), ``utils`` and ``wishart`` (not offered).
TORCH_LAYOUT = {
    'bernoulli': ('Bernoulli',),
    'beta': ('Beta',),
    'binomial': ('Binomial',),
    'categorical': ('Categorical',),
    'cauchy': ('Cauchy',),
    'chi2': ('Chi2',),
    'constraint_registry': ('ConstraintRegistry', 'biject_to', 'transform_to'),
    'continuous_bernoulli': ('ContinuousBernoulli',),
    'dirichlet': ('Dirichlet',),
    'distribution': ('Distribution',),
    'exp_family': ('ExponentialFamily',),
    'exponential': ('Exponential',),
    'fishersnedecor': ('FisherSnedecor',),
    'gamma': ('Gamma',),
    'generalized_pareto': ('GeneralizedPareto',),
    'geometric': ('Geometric',),
    'gumbel': ('Gumbel',),
    'half_cauchy': ('HalfCauchy',),
    'half_normal': ('HalfNormal',),
    'independent': ('Independent',),
    'inverse_gamma': ('InverseGamma',),
    'kl': ('register_kl', 'kl_divergence'),
    'kumaraswamy': ('Kumaraswamy',),
    'laplace': ('Laplace',),
    'lkj_cholesky': ('LKJCholesky',),
    'log_normal': ('LogNormal',),
    'logistic_normal': ('LogisticNormal',),
    'lowrank_multivariate_normal': ('LowRankMultivariateNormal',),
    'mixture_same_family': ('MixtureSameFamily',),
    'multinomial': ('Multinomial',),
    'multivariate_normal': ('MultivariateNormal',),
    'negative_binomial': ('NegativeBinomial',),
    'normal': ('Normal',),
    'one_hot_categorical': ('OneHotCategorical', 'OneHotCategoricalStraightThrough'),
    'pareto': ('Pareto',),
    'poisson': ('Poisson',),
    'relaxed_bernoulli': ('LogitRelaxedBernoulli', 'RelaxedBernoulli'),
    'relaxed_categorical': ('ExpRelaxedCategorical', 'RelaxedOneHotCategorical'),
    'studentT': ('StudentT',),
    'transformed_distribution': ('TransformedDistribution',),
    'transforms': (
        'AbsTransform', 'AffineTransform', 'CatTransform', 'ComposeTransform', 'CorrCholeskyTransform',
        'CumulativeDistributionTransform', 'ExpTransform', 'IndependentTransform', 'LowerCholeskyTransform',
        'PositiveDefiniteTransform', 'PowerTransform', 'ReshapeTransform', 'SigmoidTransform',
        'SoftplusTransform', 'TanhTransform', 'SoftmaxTransform', 'StackTransform', 'StickBreakingTransform',
        'Transform', 'identity_transform',
    ),
    'uniform': ('Uniform',),
    'von_mises': ('VonMises',),
    'weibull': ('Weibull',),
}
# names PyTorch does not export at the package's top either, and where the engine keeps them
PRIVATE_HOMES = {"LogitRelaxedBernoulli": relaxed, "ExpRelaxedCategorical": relaxed,
                 "ConstraintRegistry": constraint_registry}


@pytest.mark.parametrize("submodule", sorted(TORCH_LAYOUT))
def test_each_torch_submodule_holds_the_engines_classes(submodule: str) -> None:
    imported = importlib.import_module(f"minigrad_ckpt.distributions.{submodule}")
    assert getattr(mg.distributions, submodule) is imported
    for name in TORCH_LAYOUT[submodule]:
        home = PRIVATE_HOMES.get(name, mg.distributions)
        assert getattr(imported, name) is getattr(home, name), (submodule, name)


def test_a_program_importing_from_the_submodule_runs_as_from_the_package() -> None:
    from minigrad_ckpt.distributions.categorical import Categorical
    from minigrad_ckpt.distributions.normal import Normal

    logits = mg.tensor([[0.5, -1.0, 2.0]], dtype=mg.float64, requires_grad=True)
    dist = Categorical(logits=logits)
    (dist.log_prob(mg.tensor([2])).sum() + dist.entropy().sum()).backward()
    assert isinstance(dist, mg.distributions.Categorical)
    assert logits.grad is not None and np.isfinite(logits.grad.numpy()).all()
    cdf = mg.distributions.normal.Normal(mg.tensor([0.0]), mg.tensor([1.0])).cdf(mg.tensor([0.0]))
    assert Normal is mg.distributions.Normal and float(cdf) == 0.5
