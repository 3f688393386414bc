"""PyTorch's ``MixtureSameFamily(mixture_distribution, component_distribution)``: a Gaussian (or any
one-family) mixture, the density of mixture density networks and GMM fitting."""

from __future__ import annotations

from typing import Any

from ..grad_mode import no_grad
from ..nn import functional as F
from ..tensor import Tensor
from . import constraints
from .distributions import Categorical, Distribution, _shape

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """``sum_k pi_k p_k(x)``: ``mixture_distribution`` a :class:`Categorical` over ``K`` components
    (its batch shape ``()`` or the components' without their last dim), ``component_distribution``
    any distribution whose rightmost batch dim (of size ``K``) indexes the component --
    ``MixtureSameFamily(Categorical(logits=w), Independent(Normal(mu, sigma), 1))`` is a diagonal
    Gaussian mixture. ``log_prob`` is ``logsumexp_k(log pi_k + log p_k(x))``, differentiable in the
    weights and every component's parameters; ``sample`` picks a component, then draws from it (no
    ``rsample``: the pick is discrete). PyTorch's formulas for ``mean``, ``variance`` (total
    variance: the mean of the variances plus the variance of the means) and ``cdf``."""

    arg_constraints: dict[str, constraints.Constraint] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: Any = None) -> None:
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of torch.distributions.Distribution")
        mdbs, cdbs = tuple(mixture_distribution.batch_shape), tuple(component_distribution.batch_shape)[:-1]
        if any(i != 1 and j != 1 and i != j for i, j in zip(reversed(mdbs), reversed(cdbs))):
            raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                             f"`component_distribution.batch_shape`({cdbs})")
        km, kc = mixture_distribution.logits.shape[-1], component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._mixture_distribution, self._component_distribution = mixture_distribution, component_distribution
        self._num_component, self._event_ndims = km, len(component_distribution.event_shape)
        super().__init__(cdbs, component_distribution.event_shape, validate_args)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    @property
    def support(self) -> constraints.Constraint:
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    def __repr__(self) -> str:
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"

    def expand(self, batch_shape: Any, _instance: Any = None) -> MixtureSameFamily:
        shape = _shape(batch_shape)
        components = self._component_distribution.expand(shape + (self._num_component,))
        return self._expanded(MixtureSameFamily, _instance, shape, components.event_shape,
                              _component_distribution=components,
                              _mixture_distribution=self._mixture_distribution.expand(shape),
                              _num_component=self._num_component, _event_ndims=self._event_ndims)

    def _pad(self, x: Tensor) -> Tensor:
        """``x`` with a component dim of one, left of the event dims (it broadcasts over ``K``)."""
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Tensor) -> Tensor:
        """The mixture's ``(..., K)`` weights shaped to multiply the components' ``(batch, K, event)``."""
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else len(self.batch_shape) - cat_batch_ndims
        return x.reshape(*x.shape[:-1], *(1,) * pad_ndims, x.shape[-1], *(1,) * self._event_ndims)

    @property
    def mean(self) -> Tensor:
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        mean_cond_var = (probs * self.component_distribution.variance).sum(-1 - self._event_ndims)
        var_cond_mean = (probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)).sum(
            -1 - self._event_ndims)
        return mean_cond_var + var_cond_mean

    def cdf(self, value: Any) -> Tensor:
        return (self.component_distribution.cdf(self._pad(value)) * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_prob_x = self.component_distribution.log_prob(self._pad(value))  # (sample, batch, K)
        log_mix_prob = F.log_softmax(self.mixture_distribution.logits, dim=-1)  # (batch, K)
        return (log_prob_x + log_mix_prob).logsumexp(dim=-1)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A component index per draw, then that component's draw (every component drawn, one kept)."""
        shape, event = _shape(sample_shape), tuple(self.event_shape)
        gather_dim = len(shape) + len(self.batch_shape)
        with no_grad():
            mix_sample = self.mixture_distribution.sample(shape)
            comp_samples = self.component_distribution.sample(shape)
            index = mix_sample.reshape(*mix_sample.shape, *(1,) * (len(event) + 1))
            index = index.repeat(*(1,) * mix_sample.ndim, 1, *event)
            return comp_samples.gather(gather_dim, index).squeeze(gather_dim)
