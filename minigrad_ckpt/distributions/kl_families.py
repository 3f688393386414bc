"""KL between two different families -- the pairs PyTorch registers among the distributions here:
its closed forms (``Exponential`` against a ``Normal``, a ``Uniform`` against a ``Gamma``, ...) and
its infinite ones (a ``p`` whose support reaches outside ``q``'s: a ``Normal`` against an
``Exponential``). Registered into ``kl``'s table when the package is imported."""

from __future__ import annotations

import math

from .. import creation
from ..functional.elementwise import erf
from ..tensor import Tensor
from .continuous import EULER_GAMMA, Exponential, Gumbel, Laplace
from .continuous_bernoulli import ContinuousBernoulli
from .discrete import Binomial, Poisson
from .distributions import Bernoulli, Normal, _where
from .exponential_family import ExponentialFamily, kl_exponential_families
from .gamma import Beta, Gamma
from .kl import register_kl
from .lowrank_multivariate import LowRankMultivariateNormal, _lowrank_logdet, _lowrank_mahalanobis
from .multivariate import MultivariateNormal, _batch_mahalanobis, _solve_lower
from .transformed_families import Pareto
from .uniform import Uniform

__all__: list[str] = []


def _infinite_like(t: Tensor) -> Tensor:
    return creation.full_like(t, math.inf)


def _x_log_x(t: Tensor) -> Tensor:
    """``x log x``, 0 at 0 (PyTorch's ``xlogy(x, x)``)."""
    return t.xlogy(t)


def _infinite(p_parameter: str):  # noqa: ANN202  (a KL function)
    """KL(p || q) = inf for every pair this is registered for: ``p`` puts mass where ``q`` has none."""
    def kl(p: object, q: object) -> Tensor:
        return _infinite_like(getattr(p, p_parameter))
    return kl


_BOUNDED = (Beta, ContinuousBernoulli, Uniform)  # on an interval: infinite KL from a family on a half-line or more
for _p, _qs, _param in ((Exponential, (*_BOUNDED, Pareto), "rate"),
                        (Gamma, (*_BOUNDED, Pareto), "concentration"),
                        (Gumbel, (*_BOUNDED, Exponential, Gamma, Pareto), "loc"),
                        (Laplace, (*_BOUNDED, Exponential, Gamma, Pareto), "loc"),
                        (Normal, (*_BOUNDED, Exponential, Gamma, Pareto), "loc"),
                        (Poisson, (Bernoulli, Binomial), "rate"), (Beta, (Pareto,), "concentration1"),
                        (Pareto, _BOUNDED, "scale"), (ContinuousBernoulli, (Pareto,), "probs")):
    for _q in _qs:
        register_kl(_p, _q)(_infinite(_param))


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration1 / (p.concentration1 + p.concentration0))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Tensor:
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma())
    return -p.entropy() + t2 - t3 + q.rate * p.concentration1 / (p.concentration1 + p.concentration0)


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Tensor:
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    var_normal = q.scale.pow(2)
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (mean * (1 - mean) / (p.concentration1 + p.concentration0 + 1) + mean.pow(2)) * 0.5
    return -p.entropy() + t2 + (t3 - q.loc * mean + q.loc.pow(2) * 0.5) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return _where((q.low > 0.0) | (q.high < 1.0), math.inf, result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    ratio = q.rate / p.rate
    return (-q.concentration * ratio.log() + ratio + q.concentration.lgamma() + q.concentration * EULER_GAMMA
            - (1 + EULER_GAMMA))


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    product, loc_ratio = p.rate * q.scale, q.loc / q.scale
    return product.log() - 1 - loc_ratio + loc_ratio.exp() * product / (product + 1) + product.reciprocal()


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    var_normal, rate_sqr = q.scale.pow(2), p.rate.pow(2)
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log()
    return t1 - 1 + (rate_sqr.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / var_normal


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    product, loc_ratio = p.rate * q.scale, q.loc / q.scale
    c = p.concentration
    t1 = (c - 1) * c.digamma() - c.lgamma() - c
    t2 = product.log() + c / product
    return t1 + t2 + loc_ratio.exp() * (1 + product.reciprocal()).pow(-c) - loc_ratio


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Tensor:
    var_normal, rate_sqr, c = q.scale.pow(2), p.rate.pow(2), p.concentration
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log() - c - c.lgamma()
    t2 = 0.5 * (c.pow(2) + c) / rate_sqr
    return t1 + (c - 1) * c.digamma() + (t2 - q.loc * c / p.rate + 0.5 * q.loc.pow(2)) / var_normal


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * EULER_GAMMA - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (EULER_GAMMA + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * (2 * ratio / math.pi).log()
    return -t1 + ratio + (0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)) / var_normal - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    mean_ratio, var_ratio, loc_ratio = p.loc / q.scale, (p.scale / q.scale).pow(2), q.loc / q.scale
    t3 = (-mean_ratio + 0.5 * var_ratio + loc_ratio).exp()
    return -var_ratio.log() * 0.5 + mean_ratio - loc_ratio + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    loc_diff = p.loc - q.loc
    diff_ratio = loc_diff / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * diff_ratio.pow(2)).exp()
    t3 = loc_diff * erf(math.sqrt(0.5) * diff_ratio)
    return -(p.scale / q.scale).log() + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    width = p.high - p.low
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    return _where((p.high > 1.0) | (p.low < 0.0), math.inf, t3 + t4 - width.log() - t2)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _where(p.low < 0.0, math.inf, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    return _where(p.low < 0.0, math.inf, -width.log() + t2 + t3 + q.rate * (p.high + p.low) / 2)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    ratio = q.scale / (p.high - p.low)
    high_diff, low_diff = (p.high - q.loc) / q.scale, (p.low - q.loc) / q.scale
    return ratio.log() + 0.5 * (high_diff + low_diff) - ratio * ((-high_diff).exp() - (-low_diff).exp())


# Pareto's pairs, PyTorch's formulas (Gil's thesis); each infinite where ``p``'s support leaves ``q``'s or
# where ``p``'s moment that the formula uses diverges.
@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return _where(p.scale < q.scale, math.inf, result)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    scale_rate = p.scale * q.rate
    result = (p.alpha / scale_rate).log() - p.alpha.reciprocal() + p.alpha * scale_rate / (p.alpha - 1) - 1
    return _where(p.alpha <= 1, math.inf, result)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    common = p.scale.log() + p.alpha.reciprocal()
    result = (p.alpha.log() - common + q.concentration.lgamma() - q.concentration * q.rate.log()
              + (1 - q.concentration) * common + q.rate * p.alpha * p.scale / (p.alpha - 1) - 1)
    return _where(p.alpha <= 1, math.inf, result)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Tensor:
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / (2 * q.scale.pow(2)) - 1
    return _where(p.alpha <= 2, math.inf, result)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    return _where(p.low < q.scale, math.inf, t2 * (q.alpha + 1) - t1)


# ContinuousBernoulli's pairs, PyTorch's: against itself, a Beta, an Exponential, a Normal and a Uniform.
@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Tensor:
    return (p.mean * (p.logits - q.logits) + p._cont_bern_log_norm() + (-p.probs).log1p()
            - q._cont_bern_log_norm() - (-q.probs).log1p())


def _minus_cross_entropy_to_continuous_bernoulli(mean: Tensor, q: ContinuousBernoulli) -> Tensor:
    """``E_p[log q(x)]`` for any ``p`` on ``[0, 1]`` of that ``mean``: the density is log-linear in x."""
    return mean * q.logits + (-q.probs).log1p() + q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p: Beta, q: ContinuousBernoulli) -> Tensor:
    return -p.entropy() - _minus_cross_entropy_to_continuous_bernoulli(p.mean, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p: Uniform, q: ContinuousBernoulli) -> Tensor:
    result = -p.entropy() - _minus_cross_entropy_to_continuous_bernoulli(p.mean, q)
    return _where((p.high >= 1) | (p.low <= 0), math.inf, result)  # PyTorch's test: the support's bounds reached


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p: ContinuousBernoulli, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p: ContinuousBernoulli, q: Normal) -> Tensor:
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).pow(2)) + q.scale.log()
    t3 = (p.variance + p.mean.pow(2) - 2.0 * q.loc * p.mean) / (2.0 * q.scale.pow(2))
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p: ContinuousBernoulli, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return _where((q.low >= 0) | (q.high <= 1), math.inf, result)  # PyTorch's test, as written


# The (low-rank) multivariate normal pairs, PyTorch's: 0.5 (log det ratio + trace(q_cov^-1 p_cov) + Mahalanobis
# - n), the trace expanded by Woodbury so that only the low-rank factors are solved against.
def _trace_xxt(x: Tensor) -> Tensor:
    return x.pow(2).sum((-2, -1))


def _same_events(p: object, q: object) -> None:
    if p.event_shape != q.event_shape:  # type: ignore[attr-defined]
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with different event shapes "
                         "cannot be computed")


def _woodbury_factor(q: LowRankMultivariateNormal) -> Tensor:
    """``A = C_tril^-1 W^T D^-1`` of ``q``: its precision is ``D^-1 - A^T A``."""
    wt_dinv = q._unbroadcasted_cov_factor.transpose(-2, -1) / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return _solve_lower(q._capacitance_tril, wt_dinv)


def _low_rank_q_terms(p: object, q: LowRankMultivariateNormal) -> Tensor:
    """log det q_cov + Mahalanobis of the means under q (the terms that need only ``q``'s factors)."""
    return (_lowrank_logdet(q._unbroadcasted_cov_diag, q._capacitance_tril)
            + _lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag,
                                   q.loc - p.loc, q._capacitance_tril))  # type: ignore[attr-defined]


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _same_events(p, q)
    a = _woodbury_factor(q)
    trace = ((p._unbroadcasted_cov_diag / q._unbroadcasted_cov_diag).sum(-1)
             + _trace_xxt(p._unbroadcasted_cov_factor * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
             - _trace_xxt(a * p._unbroadcasted_cov_diag.sqrt().unsqueeze(-2))
             - _trace_xxt(a @ p._unbroadcasted_cov_factor))
    log_det_p = _lowrank_logdet(p._unbroadcasted_cov_diag, p._capacitance_tril)
    return 0.5 * (_low_rank_q_terms(p, q) - log_det_p + trace - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariate_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _same_events(p, q)
    a = _woodbury_factor(q)
    tril = p._unbroadcasted_scale_tril
    trace = _trace_xxt(tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1)) - _trace_xxt(a @ tril)
    log_det_p = 2 * tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    return 0.5 * (_low_rank_q_terms(p, q) - log_det_p + trace - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_multivariate(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Tensor:
    _same_events(p, q)
    q_tril, n = q._unbroadcasted_scale_tril, p.event_shape[0]
    log_dets = (2 * q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                - _lowrank_logdet(p._unbroadcasted_cov_diag, p._capacitance_tril))
    trace = (_trace_xxt(_solve_lower(q_tril, p._unbroadcasted_cov_factor))
             + _trace_xxt(_solve_lower(q_tril, p._unbroadcasted_cov_diag.sqrt().diag_embed())))
    return 0.5 * (log_dets + trace + _batch_mahalanobis(q_tril, q.loc - p.loc) - n)


register_kl(ExponentialFamily, ExponentialFamily)(kl_exponential_families)  # PyTorch's Bregman fallback
