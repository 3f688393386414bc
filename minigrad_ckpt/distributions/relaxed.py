"""PyTorch's continuous relaxations of the discrete families, reparameterized for VAEs and RL (the
Concrete / Gumbel-softmax distributions of Maddison et al. and Jang et al., 2017):
``LogitRelaxedBernoulli`` and ``RelaxedBernoulli`` (its sigmoid, on ``[0, 1]``), ``ExpRelaxedCategorical``
and ``RelaxedOneHotCategorical`` (its exp, on the simplex), each at a ``temperature``; and
``OneHotCategoricalStraightThrough``, a ``OneHotCategorical`` whose ``rsample`` is the one-hot draw with
the gradient of ``probs`` (Bengio et al.'s straight-through estimator). PyTorch's formulas throughout."""

from __future__ import annotations

from typing import Any

from .. import creation
from ..tensor import Tensor
from . import constraints
from .discrete import OneHotCategorical
from .distributions import (
    Categorical,
    Distribution,
    _as_float_tensor,
    _binary_parameters,
    _clamp_probs,
    _read_through,
    _shape,
    _TwoOutcomeParameters,
)
from .transformed import _CheckedByItsBase
from .transforms import ExpTransform, SigmoidTransform

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli", "ExpRelaxedCategorical", "RelaxedOneHotCategorical",
           "OneHotCategoricalStraightThrough"]


def _clamped_uniforms(like: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Uniform noise clamped into ``[eps, 1 - eps]`` (PyTorch's ``clamp_probs(torch.rand(...))``): its
    logistic and Gumbel transforms stay finite."""
    return _clamp_probs(creation.rand(*shape, dtype=like.dtype, device=like.device))


class LogitRelaxedBernoulli(_TwoOutcomeParameters):
    """The logit of a ``RelaxedBernoulli``: ``(logit(u) + logits) / temperature`` for ``u`` uniform."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        given = probs if probs is not None else logits
        self.probs, self.logits, self._given = _binary_parameters(probs, logits)
        self.temperature = _as_float_tensor(temperature, like=self.probs)
        self.batch_shape = () if isinstance(given, (int, float)) else tuple(self.probs.shape)
        self._check_parameters(validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogitRelaxedBernoulli:
        return self._expanded_with_parameters(LogitRelaxedBernoulli, _instance, batch_shape,
                                              temperature=self.temperature)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = _clamp_probs(self.probs.expand(*shape))
        u = _clamped_uniforms(probs, shape)
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = self.logits - value * self.temperature
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class _Relaxation(_CheckedByItsBase):
    """A relaxation over its logit-space base: ``temperature``, ``probs`` and ``logits`` are the base's
    (checked there); printed without parameters, as PyTorch's."""

    has_rsample = True  # type: ignore[assignment]

    temperature = _read_through("base_dist", "temperature")
    probs = _read_through("base_dist", "probs")
    logits = _read_through("base_dist", "logits")


class RelaxedBernoulli(_Relaxation):
    """``sigmoid`` of a ``LogitRelaxedBernoulli``: values in ``[0, 1]`` that harden to a Bernoulli's as the
    temperature falls to 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval  # type: ignore[assignment]

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        # the base is built with the default checks, as PyTorch's (its refusal names LogitRelaxedBernoulli)
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)


class ExpRelaxedCategorical(Distribution):
    """The log of a ``RelaxedOneHotCategorical``: ``log_softmax((logits + Gumbel noise) / temperature)``,
    event shape ``(K,)``; its support is a submanifold of ``real_vector`` (PyTorch's constraint)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = _as_float_tensor(temperature, like=self._categorical.probs)
        self.batch_shape = tuple(self._categorical.batch_shape)
        self.event_shape = tuple(self._categorical.param_shape[-1:])
        self._check_parameters(validate_args)

    def _parameter_names(self) -> tuple[str, ...]:
        return ()  # its Categorical checked them

    param_shape = _read_through("_categorical", "param_shape")
    probs = _read_through("_categorical", "probs")
    logits = _read_through("_categorical", "logits")

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        shape = _shape(batch_shape)
        return self._expanded(ExpRelaxedCategorical, _instance, shape, self.event_shape,
                              temperature=self.temperature, _categorical=self._categorical.expand(shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        u = _clamped_uniforms(self.logits, self._extended_shape(sample_shape))
        scores = (self.logits - (-u.log()).log()) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Any) -> Tensor:
        """The Concrete density in log space: ``lgamma(K) + (K - 1) log t + sum(score - logsumexp(score))``
        with ``score = logits - t value``."""
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        log_scale = creation.full_like(self.temperature, float(k)).lgamma() + (k - 1) * self.temperature.log()
        score = self.logits - value * self.temperature
        return (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(_Relaxation):
    """``exp`` of an ``ExpRelaxedCategorical``: points of the simplex that harden to one-hot vectors as the
    temperature falls to 0 (the Gumbel-softmax)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex  # type: ignore[assignment]

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``rsample``: the one-hot draw in value, ``probs``'s gradient in backward (``draw + probs -
    probs.detach()``)."""

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        probs = self._categorical.probs
        return self.sample(sample_shape) + (probs - probs.detach())
