"""PyTorch's continuous distributions of one real beside ``Normal`` and ``Uniform``: ``Exponential``,
``Laplace``, ``Cauchy``, ``Gumbel``, ``HalfNormal`` and ``HalfCauchy`` -- PyTorch's formulas for the
moments, ``log_prob``, ``cdf``, ``icdf`` and ``entropy``, and each a reparameterized ``rsample`` (a
differentiable function of the parameters and of noise from the engine's generator), as PyTorch's
``has_rsample`` says. ``HalfNormal`` and ``HalfCauchy`` (PyTorch's are ``TransformedDistribution``
of ``|x|``) are written out here, with PyTorch's answers, its ``HalfNormal()`` printing included."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..backend import host_numpy
from ..functional.elementwise import where
from ..tensor import Tensor
from . import constraints
from .distributions import Distribution, Normal, _as_float_tensor, _CenteredAtLoc, _init_parameters, _shape

__all__ = ["Exponential", "Laplace", "Cauchy", "Gumbel", "HalfNormal", "HalfCauchy"]

EULER_GAMMA = 0.57721566490153286060


def _uniform_noise(like: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``u`` uniform on ``[0, 1)`` of ``like``'s dtype and device (no gradient: the noise)."""
    return creation.rand(*shape, dtype=like.dtype, device=like.device)


def _full(like: Tensor, value: float, shape: tuple[int, ...]) -> Tensor:
    return creation.full(shape, value, dtype=like.dtype, device=like.device)


class _Continuous(Distribution):
    """What the distributions here share: validated ``log_prob``/``cdf`` values and an ``expand`` of
    the parameters ``_given`` names."""

    has_rsample = True

    def _checked(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return value

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        shape = _shape(batch_shape)
        fields = {name: getattr(self, name).expand(*shape) for name in self._given}
        # the class of this module that defines the constructor (a program's subclass with its own
        # ``__init__`` must define its own ``expand``, as PyTorch's)
        family = next(c for c in type(self).__mro__ if c.__module__ == __name__ and "__init__" in vars(c))
        return self._expanded(family, _instance, shape, **fields)


class Exponential(_Continuous):
    """``rate * exp(-rate x)`` on ``x >= 0``."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    _given = ("rate",)

    def __init__(self, rate: Any, validate_args: Any = None) -> None:
        _init_parameters(self, (rate,), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return creation.zeros_like(self.rate.detach())  # PyTorch's zeros_like: 0 for an infinite rate too

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``-log(1 - u) / rate``: differentiable in ``rate``."""
        return -(-_uniform_noise(self.rate, self._extended_shape(sample_shape))).log1p() / self.rate

    def log_prob(self, value: Any) -> Tensor:
        value = self._checked(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Tensor:
        value = self._checked(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Any) -> Tensor:
        return -(-value).log1p() / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()


class _LocScale(_CenteredAtLoc, _Continuous):
    """A family on the real line with a location ``loc`` and a positive ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    _given = ("loc", "scale")

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        _init_parameters(self, (loc, scale), validate_args)


class Laplace(_LocScale):
    """``exp(-|x - loc| / scale) / (2 scale)``."""

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """PyTorch's: ``u`` uniform on ``(-1, 1)`` (``eps - 1`` up), ``loc - scale sign(u) log(1 - |u|)``."""
        eps = float(host_numpy.finfo(self.loc.dtype).eps)
        u = _uniform_noise(self.loc, self._extended_shape(sample_shape)) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Any) -> Tensor:
        value = self._checked(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Any) -> Tensor:
        value = self._checked(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()

    def icdf(self, value: Any) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()


class Cauchy(_LocScale):
    """``1 / (pi scale (1 + ((x - loc) / scale)^2))``: no mean (NaN) and infinite variance, as PyTorch's."""

    @property
    def mean(self) -> Tensor:
        return _full(self.loc, math.nan, self.batch_shape)

    @property
    def variance(self) -> Tensor:
        return _full(self.loc, math.inf, self.batch_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + scale tan(pi (u - 1/2))``: differentiable in ``loc`` and ``scale``."""
        u = _uniform_noise(self.loc, self._extended_shape(sample_shape))
        return self.loc + self.scale * (math.pi * (u - 0.5)).tan()

    def log_prob(self, value: Any) -> Tensor:
        value = self._checked(value)
        return -math.log(math.pi) - self.scale.log() - ((value - self.loc) / self.scale).pow(2).log1p()

    def cdf(self, value: Any) -> Tensor:
        value = self._checked(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value: Any) -> Tensor:
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()


class Gumbel(_LocScale):
    """The largest of many draws: ``exp(-(z + exp(-z))) / scale`` with ``z = (x - loc) / scale``."""

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * EULER_GAMMA

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc - scale log(-log u)``, ``u`` uniform on PyTorch's ``[tiny, 1 - eps)``."""
        finfo = host_numpy.finfo(self.loc.dtype)
        u = _uniform_noise(self.loc, self._extended_shape(sample_shape)).clamp(min=float(finfo.tiny),
                                                                             max=1 - float(finfo.eps))
        return self.loc - self.scale * (-u.log()).log()

    def log_prob(self, value: Any) -> Tensor:
        value = self._checked(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    def cdf(self, value: Any) -> Tensor:
        value = self._checked(value)
        return (-((self.loc - value) / self.scale).exp()).exp()

    def icdf(self, value: Any) -> Tensor:
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + EULER_GAMMA)


class _Folded(_Continuous):
    """``|x|`` of a distribution symmetric about 0 (``_base``): twice its density on ``x >= 0``
    (``-inf`` below), ``2 cdf - 1``, its entropy less ``log 2``; printed without parameters, as
    PyTorch's (whose ``scale`` is a property of the base)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    _given = ("scale",)

    def __init__(self, scale: Any, validate_args: Any = None) -> None:
        _init_parameters(self, (scale,), validate_args)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    @property
    def _base(self) -> Distribution:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        return creation.zeros_like(self.scale.detach())  # PyTorch's zeros_like: 0 for an infinite scale too

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self._base.rsample(sample_shape).abs()

    def log_prob(self, value: Any) -> Tensor:
        value = self._checked(value)
        value = _as_float_tensor(value, like=self.scale)
        log_prob = self._base.log_prob(value) + math.log(2)
        return where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Any) -> Tensor:
        value = self._checked(value)
        return 2 * self._base.cdf(value) - 1

    def icdf(self, value: Any) -> Tensor:
        return self._base.icdf((value + 1) / 2)

    def entropy(self) -> Tensor:
        return self._base.entropy() - math.log(2)


class HalfNormal(_Folded):
    """``|x|`` for ``x ~ Normal(0, scale)``."""

    @property
    def _base(self) -> Distribution:
        return Normal(creation.zeros_like(self.scale.detach()), self.scale, validate_args=False)

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(_Folded):
    """``|x|`` for ``x ~ Cauchy(0, scale)``: infinite mean and variance, as PyTorch's."""

    @property
    def _base(self) -> Distribution:
        return Cauchy(creation.zeros_like(self.scale.detach()), self.scale, validate_args=False)

    @property
    def mean(self) -> Tensor:
        return _full(self.scale, math.inf, self.batch_shape)

    @property
    def variance(self) -> Tensor:
        return _full(self.scale, math.inf, self.batch_shape)
