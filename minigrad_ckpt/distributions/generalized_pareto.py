"""PyTorch's ``GeneralizedPareto(loc, scale, concentration)``, the law of threshold exceedances in
extreme-value statistics: the exponential at ``concentration = 0`` (PyTorch's ``isclose`` to 0 decides, and a
safe concentration of 1 keeps the other branch finite there), heavy-tailed above it, bounded above
(``loc - scale / concentration``) below it. Reparameterized by its inverse CDF."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..functional.elementwise import where
from ..tensor import Tensor
from . import constraints
from .distributions import Distribution, _broadcast_all, _icdf_draws, _shape

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """``(1 + c z)^(-1/c - 1) / scale`` with ``z = (x - loc) / scale`` (``exp(-z) / scale`` at ``c = 0``)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True
    _given = ("loc", "scale", "concentration")

    def __init__(self, loc: Any, scale: Any, concentration: Any, validate_args: Any = None) -> None:
        self.loc, self.scale, self.concentration = _broadcast_all(loc, scale, concentration)
        numbers = all(isinstance(v, (int, float)) for v in (loc, scale, concentration))
        self.batch_shape = () if numbers else tuple(self.loc.shape)
        self._check_parameters(validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> GeneralizedPareto:
        shape = _shape(batch_shape)
        return self._expanded(GeneralizedPareto, _instance, shape, loc=self.loc.expand(*shape),
                              scale=self.scale.expand(*shape), concentration=self.concentration.expand(*shape))

    @property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        c = self.concentration
        upper = where(c < 0, self.loc - self.scale / where(c < 0, c, c * 0 - 1), math.inf)
        return constraints.interval(self.loc, upper)

    def _safe_concentration(self) -> tuple[Tensor, Tensor]:
        """``(c is 0, c or 1 where it is 0)``: PyTorch's ``isclose(c, 0)``, within ``1e-8``."""
        eq_zero = self.concentration.abs() <= 1e-8
        return eq_zero, where(eq_zero, creation.ones_like(self.concentration), self.concentration)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return _icdf_draws(self, self.loc, sample_shape)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, c = self._safe_concentration()
        y = 1 / c + 1
        nonzero = where(y == 0, y, y * (c * z).log1p())
        return -self.scale.log() - where(eq_zero, z, nonzero)

    def log_survival_function(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, c = self._safe_concentration()
        return where(eq_zero, -z, -(c * z).log1p() / c)

    def log_cdf(self, value: Any) -> Tensor:
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value: Any) -> Tensor:
        return self.log_cdf(value).exp()

    def icdf(self, value: Any) -> Tensor:
        eq_zero, c = self._safe_concentration()
        log_u = (-value).log1p()
        return where(eq_zero, self.loc - self.scale * log_u, self.loc + self.scale / c * (-c * log_u).expm1())

    @property
    def mean(self) -> Tensor:
        valid = self.concentration < 1
        c = where(valid, self.concentration, 0.5)
        return where(valid, self.loc + self.scale / (1 - c), math.nan)

    @property
    def variance(self) -> Tensor:
        valid = self.concentration < 0.5
        c = where(valid, self.concentration, 0.25)
        return where(valid, self.scale.pow(2) / ((1 - c).pow(2) * (1 - 2 * c)), math.nan)

    @property
    def mode(self) -> Tensor:
        return self.loc

    def entropy(self) -> Tensor:
        return (self.scale.log() + self.concentration + 1).expand(*self.batch_shape)
