"""PyTorch's ``Uniform(low, high)``: the continuous uniform distribution on ``[low, high)``."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..tensor import Tensor
from . import constraints
from .distributions import Distribution, _broadcast_all, _shape

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform on the half-open interval ``[low, high)``; ``low`` and ``high`` broadcast (numbers
    become tensors of the other's dtype, or the default dtype). ``rsample`` is ``low + u (high - low)``
    with ``u`` uniform on ``[0, 1)``: differentiable in both bounds (noise for exploration, a
    flow's base). Its formulas are PyTorch's: ``log_prob`` is ``-log(high - low)`` inside and
    ``-inf`` outside (``high`` itself included), ``cdf`` clamped to ``[0, 1]``, ``mode`` NaN."""

    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: Any = None) -> None:
        self.low, self.high = _broadcast_all(low, high)
        self.batch_shape = tuple(self.low.shape)
        self._check_parameters(validate_args)

    _given = ("low", "high")

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        """Each bound against the other (PyTorch's: ``low < high`` checked from both sides)."""
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @property
    def support(self) -> constraints.Constraint:
        """``[low, high]`` (closed, as PyTorch's: ``log_prob(high)`` is ``-inf``, not refused)."""
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        """NaN: every point of the interval is as likely (PyTorch's ``nan * high``)."""
        return math.nan * self.high

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        shape = _shape(batch_shape)
        return self._expanded(Uniform, _instance, shape, low=self.low.expand(*shape), high=self.high.expand(*shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``low + u (high - low)``, ``u`` from ``mg.rand``: differentiable in ``low`` and ``high``."""
        u = creation.rand(*self._extended_shape(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        # 1 inside [low, high), 0 outside: its log is 0 or -inf, with no gradient (a step)
        inside = (self.low <= value).to(self.low.dtype) * (self.high > value).to(self.low.dtype)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Any) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()
