"""PyTorch's ``ContinuousBernoulli`` (Loaiza-Ganem and Cunningham 2019), the density on ``[0, 1]``
proportional to ``p^x (1 - p)^(1 - x)`` that VAEs with pixel intensities in ``[0, 1]`` use as their
likelihood.  Its normalizer ``C(p) = 2 atanh(1 - 2p) / (1 - 2p)`` and its moments cancel catastrophically
near ``p = 1/2``: there (inside PyTorch's ``lims``, ``(0.499, 0.501)``) PyTorch's Taylor polynomials are
used, and elsewhere the closed forms at the probabilities "cut" away from the region, as PyTorch's."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..functional.elementwise import where
from ..nn import functional as F
from ..tensor import Tensor
from . import constraints
from .distributions import _as_float_tensor, _broadcast_all, _clamp_probs, _icdf_draws, _TwoOutcomeParameters

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(_TwoOutcomeParameters):
    """``C(p) p^x (1 - p)^(1 - x)`` on ``[0, 1]``, from ``probs`` (clamped into ``[eps, 1 - eps]``, as
    PyTorch's) or ``logits``; reparameterized by its inverse CDF."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs: Any = None, logits: Any = None, lims: tuple[float, float] = (0.499, 0.501),
                 validate_args: Any = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        if probs is not None:
            probs = _as_float_tensor(probs)
            # PyTorch checks the given probs only when validate_args is given: the clamped ones always pass
            if validate_args is not None and not bool(constraints.unit_interval.check(probs).all().item()):
                raise ValueError("The parameter probs has invalid values")
            self.probs, self._given = _clamp_probs(probs), ("probs",)
            self.logits = self.probs.log() - (-self.probs).log1p()
        else:
            self.logits, self._given = _as_float_tensor(logits), ("logits",)
            self.probs = _clamp_probs(self.logits.sigmoid())
        self._lims = lims
        self.batch_shape = () if isinstance(given, (int, float)) else tuple(self.probs.shape)
        self._check_parameters(validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ContinuousBernoulli:
        return self._expanded_with_parameters(ContinuousBernoulli, _instance, batch_shape, _lims=self._lims)

    def _outside_unstable_region(self) -> Tensor:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Tensor:
        """``probs`` outside the unstable region, ``lims[0]`` inside it (so the closed forms stay finite
        there, and their gradients, which ``where`` then discards)."""
        return where(self._outside_unstable_region(), self.probs, creation.full_like(self.probs, self._lims[0]))

    def _cont_bern_log_norm(self) -> Tensor:
        """``log C(p)``: ``log|log1p(-p) - log p| - log|1 - 2p|``, its Taylor polynomial near 1/2."""
        cut = self._cut_probs()
        below = where(cut <= 0.5, cut, cut * 0)
        above = where(cut >= 0.5, cut, cut * 0 + 1)
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - where(cut <= 0.5, (-2.0 * below).log1p(),
                                                                    (2.0 * above - 1.0).log())
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        variances = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / ((-cut).log1p() - cut.log()).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), variances, taylor)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return _icdf_draws(self, self.probs, sample_shape)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = _broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = where(self._outside_unstable_region(), cdfs, value)
        # constants off [0, 1], as PyTorch's zeros_like/ones_like (value * 0 is NaN at an infinite value)
        zero, one = creation.zeros_like(value.detach()), creation.ones_like(value.detach())
        return where(value <= 0.0, zero, where(value >= 1.0, one, unbounded))

    def icdf(self, value: Any) -> Tensor:
        cut = self._cut_probs()
        inverse = ((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) / (cut.log() - (-cut).log1p())
        return where(self._outside_unstable_region(), inverse, value)

    def entropy(self) -> Tensor:
        log_probs0, log_probs1 = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0
