"""``mg.distributions``: PyTorch's ``Categorical``, ``Normal``, ``Bernoulli``, ``Uniform`` (and
``Independent``, which reads batch dims of one as an event, and ``MixtureSameFamily``, a mixture of
one family's components; ``Exponential``, ``Laplace``, ``Cauchy``, ``Gumbel``, ``HalfNormal``,
``HalfCauchy`` in ``continuous``; ``TransformedDistribution`` and ``LogNormal`` in ``transformed``, over
the ``transforms`` module's maps (and ``biject_to``/``transform_to`` onto constraints, ``constraint_registry``);
``Weibull``, ``Pareto``, ``Kumaraswamy``, ``LogisticNormal``, ``InverseGamma`` in ``transformed_families``;
``OneHotCategorical``, ``Geometric``, ``Poisson``, ``Binomial`` in ``discrete``; ``RelaxedBernoulli``,
``RelaxedOneHotCategorical`` (their bases there), ``OneHotCategoricalStraightThrough`` in ``relaxed``;
``ContinuousBernoulli`` in ``continuous_bernoulli``; ``NegativeBinomial``, ``Multinomial`` in ``counts``;
``VonMises`` in ``von_mises``; ``GeneralizedPareto`` in ``generalized_pareto``;
``LKJCholesky`` in ``lkj_cholesky``; ``ExponentialFamily``, the base of a program's own;
``MultivariateNormal`` in ``multivariate``;
``LowRankMultivariateNormal`` in ``lowrank_multivariate``; ``Gamma``, ``Chi2``, ``Beta``, ``Dirichlet``, ``StudentT``,
``FisherSnedecor`` in ``gamma``, reparameterized implicitly by ``implicit_gradients``) with their formulas
(``log_prob``, ``entropy``, ``cdf``/``icdf``, ``sample``, and ``rsample`` where PyTorch's is reparameterized)
and ``kl_divergence`` between two of a kind and the cross-family pairs PyTorch registers (``kl``:
PyTorch's module, with ``register_kl``) -- what REINFORCE, actor-critic, SAC and VAE programs use.
Each is at PyTorch's address too (``mg.distributions.categorical.Categorical``: ``_paths``).

Each is a composition of the engine's differentiable ops, so ``log_prob`` and ``entropy``
carry gradients to the parameters (and ``rsample`` to the parameters it is drawn from); samples are drawn
from the engine's generator, so PyTorch's numbers for a seed are not reproduced, its
distributions are.  ``validate_args`` (on by default, as PyTorch's) checks parameters against
``arg_constraints`` and values against ``support`` (the ``constraints`` module's objects).
Other distributions and transforms are not offered.
"""

from __future__ import annotations

from . import constraints, kl, kl_families, transforms  # noqa: F401  (kl_families registers the cross-family pairs)
from .constraint_registry import biject_to, transform_to
from .continuous import Cauchy, Exponential, Gumbel, HalfCauchy, HalfNormal, Laplace
from .continuous_bernoulli import ContinuousBernoulli
from .counts import Multinomial, NegativeBinomial
from .discrete import Binomial, Geometric, OneHotCategorical, Poisson
from .distributions import Bernoulli, Categorical, Distribution, Independent, Normal
from .exponential_family import ExponentialFamily
from .gamma import Beta, Chi2, Dirichlet, FisherSnedecor, Gamma, StudentT
from .generalized_pareto import GeneralizedPareto
from .kl import kl_divergence, register_kl
from .lkj_cholesky import LKJCholesky
from .lowrank_multivariate import LowRankMultivariateNormal
from .mixture import MixtureSameFamily
from .multivariate import MultivariateNormal
from .relaxed import OneHotCategoricalStraightThrough, RelaxedBernoulli, RelaxedOneHotCategorical
from .transformed import LogNormal, TransformedDistribution
from .transformed_families import InverseGamma, Kumaraswamy, LogisticNormal, Pareto, Weibull
from .transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from .uniform import Uniform
from .von_mises import VonMises

__all__ = ["Distribution", "constraints", "Categorical", "Normal", "Bernoulli", "Uniform", "Independent",
           "MixtureSameFamily", "Exponential", "Laplace", "Cauchy", "Gumbel", "HalfNormal", "HalfCauchy",
           "LogNormal", "TransformedDistribution", "OneHotCategorical", "Geometric", "Poisson", "Binomial",
           "MultivariateNormal", "Gamma", "Chi2", "Beta", "Dirichlet", "StudentT", "Weibull", "Pareto", "Kumaraswamy",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "OneHotCategoricalStraightThrough", "ContinuousBernoulli",
           "NegativeBinomial", "Multinomial", "FisherSnedecor", "LogisticNormal", "VonMises", "InverseGamma",
           "LowRankMultivariateNormal", "GeneralizedPareto", "LKJCholesky", "ExponentialFamily",
           "transforms", "Transform", "ExpTransform", "AffineTransform", "PowerTransform", "SoftplusTransform",
           "AbsTransform", "SoftmaxTransform", "StickBreakingTransform", "LowerCholeskyTransform", "ReshapeTransform",
           "IndependentTransform", "identity_transform", "biject_to", "transform_to", "CatTransform",
           "StackTransform", "PositiveDefiniteTransform", "CumulativeDistributionTransform",
           "CorrCholeskyTransform",
           "SigmoidTransform", "TanhTransform", "ComposeTransform", "kl", "kl_divergence", "register_kl"]

from . import _paths  # noqa: E402  (PyTorch's per-distribution submodules; needs the names above)

_paths.install(globals())
