"""PyTorch's families built as a ``TransformedDistribution`` of a simpler one, with their closed-form
moments and entropies: ``Weibull`` (an ``Exponential(1)`` raised to ``1/concentration`` and scaled),
``Pareto`` (``scale * exp(Exponential(alpha))``), ``Kumaraswamy`` (``(1 - u^(1/c0))^(1/c1)`` for a uniform
``u``), ``InverseGamma`` (``1 / Gamma``) and ``LogisticNormal`` (a ``Normal`` vector stick-broken onto the
simplex). ``log_prob``, ``cdf``, ``icdf`` and ``rsample`` come from the transforms, as PyTorch's do; the
parameters are checked by the family (PyTorch's messages name it and its parameters) after the base
(Pareto's ``alpha`` is its ``Exponential``'s rate, so a bad one is refused as that rate)."""

from __future__ import annotations

from typing import Any

from .. import creation
from ..tensor import Tensor
from . import constraints
from .continuous import EULER_GAMMA, Exponential
from .distributions import Distribution, Normal, _broadcast_all, _read_through, _shape, _where
from .gamma import Gamma
from .transformed import TransformedDistribution, _CheckedByItsBase
from .transforms import AffineTransform, ExpTransform, PowerTransform, StickBreakingTransform
from .uniform import Uniform

__all__ = ["Weibull", "Pareto", "Kumaraswamy", "LogisticNormal", "InverseGamma"]


class _Family(TransformedDistribution):
    """What the three share: printed and checked by their own parameters (``_given``, in PyTorch's
    order), and an ``expand`` that expands those parameters beside the base."""

    __repr__ = Distribution.__repr__

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        new = self._get_checked_instance(type(self), _instance)
        for name in self._given:
            setattr(new, name, getattr(self, name).expand(*_shape(batch_shape)))
        return super().expand(batch_shape, _instance=new)


class Weibull(_Family):
    """``scale * E^(1/concentration)`` for ``E ~ Exponential(1)``."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive  # type: ignore[assignment]
    _given = ("scale", "concentration")

    def __init__(self, scale: Any, concentration: Any, validate_args: Any = None) -> None:
        self.scale, self.concentration = _broadcast_all(scale, concentration)
        # PyTorch's ones_like: scale * 0 + 1 is NaN at an infinite scale, which the base would refuse
        base = Exponential(creation.ones_like(self.scale.detach()), validate_args=validate_args)
        transforms = [PowerTransform(self.concentration.reciprocal()), AffineTransform(0, self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.scale * (1 + self.concentration.reciprocal()).lgamma().exp()

    @property
    def mode(self) -> Tensor:
        k = self.concentration
        return self.scale * ((k - 1) / k).pow(k.reciprocal())

    @property
    def variance(self) -> Tensor:
        inv = self.concentration.reciprocal()
        return self.scale.pow(2) * ((1 + 2 * inv).lgamma().exp() - (2 * (1 + inv).lgamma()).exp())

    def entropy(self) -> Tensor:
        inv = self.concentration.reciprocal()
        return EULER_GAMMA * (1 - inv) + (self.scale * inv).log() + 1


class Pareto(_Family):
    """Pareto type I, ``scale * exp(E)`` for ``E ~ Exponential(alpha)``: support ``[scale, inf)``."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    _given = ("alpha", "scale")

    def __init__(self, scale: Any, alpha: Any, validate_args: Any = None) -> None:
        self.scale, self.alpha = _broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(0, self.scale)], validate_args=validate_args)

    @property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self) -> Tensor:
        """Infinite for ``alpha <= 1`` (PyTorch's: ``alpha`` clamped to 1 makes the division ``x / 0``)."""
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


def _kumaraswamy_moment(a: Tensor, b: Tensor, n: int) -> Tensor:
    """``E[x^n] = b B(1 + n/a, b)``, by log-gammas."""
    arg = 1 + n / a
    return b * (arg.lgamma() + b.lgamma() - (arg + b).lgamma()).exp()


class Kumaraswamy(_Family):
    """``(1 - u^(1/concentration0))^(1/concentration1)`` for ``u`` uniform on ``(0, 1)``."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]
    _given = ("concentration1", "concentration0")

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Any = None) -> None:
        self.concentration1, self.concentration0 = _broadcast_all(concentration1, concentration0)
        zero = creation.zeros_like(self.concentration0.detach())  # not c0 * 0: NaN at an infinite c0
        base = Uniform(zero, zero + 1, validate_args=validate_args)
        transforms = [PowerTransform(self.concentration0.reciprocal()), AffineTransform(1.0, -1.0),
                      PowerTransform(self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        """``((c1 - 1) / (c1 c0 - 1))^(1/c1)``, NaN where either concentration is below 1 (as PyTorch's).
        PyTorch 2.13's log-space formula, ``log1p(-c0) / c0 - log1p(-c0 c1)``, is NaN for every ``c0 > 1``
        too: that is not the mode, so the engine's is the textbook's (docs/from-pytorch.md)."""
        c1, c0 = self.concentration1, self.concentration0
        log_mode = ((c1 - 1) / (c1 * c0 - 1)).log() / c1
        return _where((c0 < 1) | (c1 < 1), float("nan"), log_mode).exp()

    @property
    def variance(self) -> Tensor:
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self) -> Tensor:
        c1, c0 = self.concentration1, self.concentration0
        h0 = (c0 + 1).digamma() + EULER_GAMMA
        return (1 - c0.reciprocal()) + (1 - c1.reciprocal()) * h0 - c1.log() - c0.log()


class LogisticNormal(_CheckedByItsBase):
    """``StickBreakingTransform`` of ``Normal(loc, scale)`` read as a vector: points of the ``K``-simplex from
    ``K - 1`` normals (a scalar ``loc`` and ``scale`` make one of two); ``loc``, ``scale`` are the base's
    (checked there); printed without parameters, as PyTorch's."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand((1,))
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    loc = _read_through("base_dist.base_dist", "loc")
    scale = _read_through("base_dist.base_dist", "scale")


class InverseGamma(_CheckedByItsBase):
    """``1 / x`` for ``x ~ Gamma(concentration, rate)``; the parameters are the base's (checked there),
    printed without them, as PyTorch's."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(self, concentration: Any, rate: Any, validate_args: Any = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        minus_one = base.rate.new_ones(()) * -1
        super().__init__(base, PowerTransform(minus_one), validate_args=validate_args)

    concentration = _read_through("base_dist", "concentration")
    rate = _read_through("base_dist", "rate")

    @property
    def mean(self) -> Tensor:
        return _where(self.concentration <= 1, float("inf"), self.rate / (self.concentration - 1))

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        return _where(c <= 2, float("inf"), self.rate.pow(2) / ((c - 1).pow(2) * (c - 2)))

    def entropy(self) -> Tensor:
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * c.digamma()
