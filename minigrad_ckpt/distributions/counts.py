"""PyTorch's count families beyond ``Binomial`` and ``Poisson``: ``NegativeBinomial`` (failures before
``total_count`` successes; sampled as PyTorch's, a Poisson of a gamma-distributed rate) and ``Multinomial``
(counts of ``total_count`` categorical draws over the last dim; its entropy by PyTorch's sum over the
binomial marginals). PyTorch's formulas; ``log_prob`` differentiable in the parameters."""

from __future__ import annotations

import math
from typing import Any

from ..functional.poisson import poisson_draws
from ..grad_mode import no_grad
from ..nn import functional as F
from ..tensor import Tensor
from . import constraints
from .discrete import Binomial
from .distributions import (
    Categorical,
    Distribution,
    _as_float_tensor,
    _binary_parameters,
    _broadcast_all,
    _read_through,
    _shape,
    _TwoOutcomeParameters,
    _where,
)
from .gamma import Gamma

__all__ = ["NegativeBinomial", "Multinomial"]


class NegativeBinomial(_TwoOutcomeParameters):
    """The number of failures before ``total_count`` successes, each trial failing with probability
    ``probs`` (PyTorch's meaning: ``probs`` is that of the counted outcome)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        total_count, param = _broadcast_all(total_count, probs if probs is not None else logits)
        self.probs, self.logits, given = _binary_parameters(*((param, None) if probs is not None else (None, param)))
        self.total_count, self._given = total_count.to(param.dtype), ("total_count", *given)
        self.batch_shape = tuple(param.shape)
        self._check_parameters(validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> NegativeBinomial:
        return self._expanded_with_parameters(NegativeBinomial, _instance, batch_shape,
                                              total_count=self.total_count.expand(*_shape(batch_shape)))

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / (-self.logits).sigmoid()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            # unchecked, as PyTorch's: a total_count of 0 is a gamma of concentration 0 (every draw 0)
            rate = Gamma(self.total_count, (-self.logits).exp(), validate_args=False).sample(sample_shape)
            return poisson_draws(rate, tuple(rate.shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = _as_float_tensor(value, like=self.logits)
        unnormalized = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        normalization = -(self.total_count + value).lgamma() + (1.0 + value).lgamma() + self.total_count.lgamma()
        # total_count = value = 0 has probability 1, where lgamma(0) is infinite
        normalization = _where(self.total_count + value == 0.0, 0.0, normalization)
        return unnormalized - normalization


class Multinomial(Distribution):
    """Counts (event shape ``(K,)``) of ``total_count`` draws of ``Categorical(probs, logits)``; printed
    without parameters and checked by its ``Categorical``, as PyTorch's."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        self.batch_shape = tuple(self._categorical.batch_shape)
        self.event_shape = tuple(self._categorical.param_shape[-1:])
        self._check_parameters(validate_args)

    def _parameter_names(self) -> tuple[str, ...]:
        return ()  # its Categorical checked them

    @property
    def support(self) -> constraints.Constraint:
        return constraints.multinomial(self.total_count)

    probs = _read_through("_categorical", "probs")
    logits = _read_through("_categorical", "logits")
    param_shape = _read_through("_categorical", "param_shape")

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        shape = _shape(batch_shape)
        categorical = self._categorical.expand(shape)
        return self._expanded(Multinomial, _instance, shape, self.event_shape, total_count=self.total_count,
                              _categorical=categorical, _binomial=Binomial(self.total_count, probs=categorical.probs))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """``total_count`` categorical draws, counted per category (PyTorch's scatter-add of ones)."""
        with no_grad():
            drawn = self._categorical.sample((self.total_count, *_shape(sample_shape)))
            counts = F.one_hot(drawn, self.event_shape[0]).sum(0)
            return counts.to(self.probs.dtype)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = _broadcast_all(self.logits, value)
        logits = _where((value == 0) & (logits == -math.inf), 0.0, logits)  # 0 * log 0 counts 0
        return (value.sum(-1) + 1).lgamma() - (value + 1).lgamma().sum(-1) + (logits * value).sum(-1)

    def entropy(self) -> Tensor:
        """``n H(categorical) - lgamma(n + 1) + sum_k E[lgamma(x_k + 1)]``, the expectations over each
        category's binomial marginal (PyTorch's)."""
        n = self.total_count
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(support).exp()
        expected = (binomial_probs * (support + 1).lgamma()).sum((0, -1))
        return n * self._categorical.entropy() - math.lgamma(n + 1) + expected
