"""``mg.distributions.kl``: ``kl_divergence(p, q)`` and ``register_kl`` -- PyTorch's module.

KL formulas are kept in a table keyed by the pair of distribution classes; ``kl_divergence``
looks up the most specific registered pair that ``(type(p), type(q))`` are subclasses of, so a
program can add a formula for its own distributions (or override one) with ``@register_kl``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..nn import functional as F
from ..tensor import Tensor
from .continuous import EULER_GAMMA, Cauchy, Exponential, Gumbel, HalfCauchy, HalfNormal, Laplace
from .discrete import Binomial, Geometric, OneHotCategorical, Poisson
from .distributions import Bernoulli, Categorical, Distribution, Independent, Normal, _sum_rightmost, _where
from .gamma import Beta, Dirichlet, Gamma
from .multivariate import MultivariateNormal, kl_multivariate_normal
from .transformed import TransformedDistribution
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

KLFunction = Callable[[Distribution, Distribution], Tensor]

#: (type of p, type of q) -> the function computing KL(p || q)
_KL_REGISTRY: dict[tuple[type, type], KLFunction] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[KLFunction], KLFunction]:
    """Decorator: ``@register_kl(Normal, Normal) def kl(p, q): ...`` makes ``kl_divergence`` use
    it for those classes (and their subclasses, unless a more specific pair is registered)."""
    if not (isinstance(type_p, type) and issubclass(type_p, Distribution)):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not (isinstance(type_q, type) and issubclass(type_q, Distribution)):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: KLFunction) -> KLFunction:
        _KL_REGISTRY[type_p, type_q] = fun
        return fun

    return decorator


def _dispatch(type_p: type, type_q: type) -> KLFunction | None:
    """The registered function for the nearest ancestors of the pair (nearest by position in each
    class's MRO, ``p``'s first), or None."""
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    matches = [(mro_p.index(sp), mro_q.index(sq), fun) for (sp, sq), fun in _KL_REGISTRY.items()
               if issubclass(type_p, sp) and issubclass(type_q, sq)]
    return min(matches, key=lambda m: m[:2])[2] if matches else None


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q) = E_p[log p(x) - log q(x)]``, per batch element, by the closed form registered
    for the pair (every family here against its own kind, and the cross-family pairs PyTorch
    registers, ``kl_families``: PyTorch's formulas); differentiable in both distributions' parameters.
    ``NotImplementedError`` for a pair with none, as PyTorch's."""
    fun = _dispatch(type(p), type(q))
    if fun is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} "
                                  f"and q type {type(q).__name__}")
    return fun(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t = _where(p.probs == 0, 0.0, _where(q.probs == 0, math.inf, t))
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = _where(p.probs == 0, 0.0, _where(q.probs == 0, math.inf, t1))
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = _where(p.probs == 1, 0.0, _where(q.probs == 1, math.inf, t2))
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    """``log(q's width / p's width)``, infinite where ``p`` reaches outside ``q``."""
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    """The bases' KL summed over the reinterpreted dims (the event): both must read the same number."""
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL between Independents with different event dims is not implemented")
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return -scale_ratio.log() + loc_abs_diff / q.scale + scale_ratio * (-loc_abs_diff / p.scale).exp() - 1


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ct1, ct2, ct3 = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t3 = (ct2 + (1 + ct1).lgamma() - ct3).exp()
    return t1 + ct1 * EULER_GAMMA + t3 - (1 + EULER_GAMMA)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log()


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    """The two Normals' KL (the fold keeps it): both centred at 0."""
    return _kl_normal_normal(p._base, q._base)


@register_kl(HalfCauchy, HalfCauchy)
def _kl_halfcauchy_halfcauchy(p: HalfCauchy, q: HalfCauchy) -> Tensor:
    """The two Cauchys' KL (the fold keeps it), PyTorch's answer through its HalfCauchy being a
    TransformedDistribution (``|x|`` of ``Cauchy(0, scale)``)."""
    return _kl_cauchy_cauchy(p._base, q._base)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    """The bases' KL (an invertible map keeps it), where both use equal maps, as PyTorch's."""
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    """Infinite where ``p`` has more trials than ``q``; fewer is not implemented (PyTorch's)."""
    if bool((p.total_count < q.total_count).any().item()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return _where(p.total_count > q.total_count, math.inf, kl)


register_kl(MultivariateNormal, MultivariateNormal)(kl_multivariate_normal)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    return t1 + t2 + t3 + (q.rate - p.rate) * (p.concentration / p.rate)


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    sum_p, sum_q = p.concentration1 + p.concentration0, q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    return t1 - t2 + t3 + t4 + (sum_q - sum_p) * sum_p.digamma()


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    sum_p, sum_q = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + ((p.concentration - q.concentration) * t4).sum(-1)
