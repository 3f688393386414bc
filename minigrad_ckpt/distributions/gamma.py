"""PyTorch's gamma family: ``Gamma``, ``Chi2``, ``Beta``, ``Dirichlet`` and ``StudentT`` -- PyTorch's
formulas for the moments, ``log_prob``, ``entropy`` (and ``Gamma.cdf``), differentiable in every
parameter; samples from the engine's generator (Marsaglia and Tsang's gamma sampler; Beta and
Dirichlet as normalized gammas; StudentT as a normal over a chi-square).

Reparameterized as PyTorch's: ``rsample`` differentiates the gamma draw implicitly in its concentration
(``implicit_gradients``: PyTorch's approximation of ``-(dP/dalpha) / density``); ``Chi2`` and ``StudentT``
through it, ``Beta`` and ``Dirichlet`` through PyTorch's Dirichlet gradient (``implicit_gradients``)."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..backend import host_numpy
from ..functional.elementwise import where
from ..functional.shape import stack
from ..functional.special_extended import gammainc
from ..grad_mode import no_grad
from ..nn import functional as F
from ..tensor import Tensor
from . import constraints
from .distributions import Distribution, _as_float_tensor, _broadcast_all, _init_parameters, _shape
from .implicit_gradients import (
    dirichlet_grad,
    reparameterized,
    reparameterized_on_simplex,
    standard_gamma_grad,
    widened,
)

__all__ = ["Gamma", "Chi2", "Beta", "Dirichlet", "StudentT", "FisherSnedecor"]


def _standard_gamma(concentration: Tensor) -> Tensor:
    """Gamma(concentration, 1) draws of ``concentration``'s shape (Marsaglia & Tsang 2000; below 1,
    a draw at ``concentration + 1`` times ``u^(1/concentration)``), clamped up to ``tiny`` as PyTorch's."""
    with no_grad():
        alpha = concentration.detach()
        boosted = where(alpha < 1, alpha + 1, alpha)
        d = boosted - 1.0 / 3
        c = (9 * d).rsqrt()
        result, pending = alpha * 0, alpha == alpha
        while bool(pending.any().item()):
            x = creation.randn(*alpha.shape, dtype=alpha.dtype, device=alpha.device)
            u = creation.rand(*alpha.shape, dtype=alpha.dtype, device=alpha.device)
            v = (1 + c * x).pow(3)
            accepted = pending & (v > 0) & (u.log() < 0.5 * x * x + d - d * v + d * v.clamp(min=1e-300).log())
            result, pending = where(accepted, d * v, result), pending & ~accepted
        u = creation.rand(*alpha.shape, dtype=alpha.dtype, device=alpha.device)
        result = where(alpha < 1, result * u.pow(1 / alpha), result)
        return result.clamp(min=float(host_numpy.finfo(alpha.dtype).tiny))


def _rsample_standard_gamma(concentration: Tensor) -> Tensor:
    """A ``_standard_gamma`` draw differentiable in ``concentration`` (PyTorch's ``_standard_gamma``
    and its backward, ``_standard_gamma_grad``)."""
    draw = _standard_gamma(concentration)
    return reparameterized(draw, concentration, standard_gamma_grad(concentration, draw))


def _clamped_up(value: Tensor, least: float) -> Tensor:
    """``value`` clamped up to ``least`` in value only, its gradient untouched (PyTorch clamps the
    detached draw in place)."""
    with no_grad():
        lift = value.clamp(min=least) - value
    return value + lift


class Gamma(Distribution):
    """``rate^c x^(c-1) exp(-rate x) / Gamma(c)`` on ``x >= 0`` (``c`` the concentration)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    _given = ("concentration", "rate")
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: Any = None) -> None:
        _init_parameters(self, (concentration, rate), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        shape = _shape(batch_shape)
        return self._expanded(Gamma, _instance, shape, concentration=self.concentration.expand(*shape),
                              rate=self.rate.expand(*shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """PyTorch's: a standard gamma draw over ``rate``, differentiable in both."""
        return self._draw(sample_shape, _rsample_standard_gamma)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        # the same draw without its implicit gradient (which costs more than the draw)
        with no_grad():
            return self._draw(sample_shape, _standard_gamma)

    def _draw(self, sample_shape: Any, standard_gamma: Any) -> Tensor:
        shape = self._extended_shape(sample_shape)
        draw = standard_gamma(self.concentration.expand(*shape)) / self.rate.expand(*shape)
        return _clamped_up(draw, float(host_numpy.finfo(draw.dtype).tiny))

    def log_prob(self, value: Any) -> Tensor:
        # a number is a tensor before the check, as PyTorch's Gamma (and so Chi2) reads it: Gamma(1, 1).log_prob(0)
        value = _as_float_tensor(value, like=self.rate)
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return c.xlogy(self.rate) + (c - 1).xlogy(value) - self.rate * value - c.lgamma()

    def entropy(self) -> Tensor:
        c = self.concentration
        return c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)


class Chi2(Gamma):
    """``Gamma(df / 2, 1/2)``; printed without parameters, as PyTorch's."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: Any = None) -> None:
        (df,) = _broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def _parameter_names(self) -> tuple[str, ...]:
        return ("df",)  # checked and named as PyTorch's (its concentration and rate are Gamma's)

    def __repr__(self) -> str:
        return "Chi2()"

    @property
    def df(self) -> Tensor:
        return self.concentration * 2

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)  # type: ignore[return-value]


class Dirichlet(Distribution):
    """Vectors on the simplex (event shape ``(K,)``) with density ``prod x_i^(c_i - 1) / B(c)``."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    _given = ("concentration",)
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: Any = None) -> None:
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        self.batch_shape, self.event_shape = tuple(concentration.shape[:-1]), tuple(concentration.shape[-1:])
        self._check_parameters(validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        """PyTorch's: ``(c - 1)^+`` normalized; where every ``c < 1``, the one-hot of its first largest."""
        shifted = (self.concentration - 1).clamp(min=0)
        mode = shifted / shifted.sum(-1, keepdim=True)
        corner = F.one_hot(mode.argmax(-1), self.event_shape[0]).to(mode.dtype)
        return where((self.concentration < 1).all(-1, keepdim=True), corner, mode)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        total = c.sum(-1, keepdim=True)
        return c * (total - c) / (total.pow(2) * (total + 1))

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        shape = _shape(batch_shape)
        return self._expanded(Dirichlet, _instance, shape, self.event_shape,
                              concentration=self.concentration.expand(*shape, *self.event_shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """PyTorch's: normalized gamma draws (clamped into ``[tiny, 1 - eps]``), differentiable in the
        concentration by PyTorch's Dirichlet gradient (``_Dirichlet``'s backward)."""
        concentration = self.concentration.expand(*self._extended_shape(sample_shape))
        with no_grad():
            draw = self.sample(sample_shape)
            total = concentration.sum(-1, keepdim=True).expand(*concentration.shape)
            derivative = dirichlet_grad(draw, concentration, total)
        return reparameterized_on_simplex(draw, concentration, derivative)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Normalized gamma draws clamped into ``[tiny, 1 - eps]`` (without rsample's implicit gradient)."""
        with no_grad():
            concentration = self.concentration.expand(*self._extended_shape(sample_shape))
            # the gammas in double on the host, as PyTorch's _sample_dirichlet: in float32 a Beta(0.01, 0.01)
            # draw's two gammas both underflowed to tiny, a spurious mode at 0.5 (a sixth of the draws)
            draw = _standard_gamma(widened(concentration))
            draw = (draw / draw.sum(-1, keepdim=True)).to(concentration.dtype)
            finfo = host_numpy.finfo(draw.dtype)
            return draw.clamp(min=float(finfo.tiny), max=1 - float(finfo.eps))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (c - 1).xlogy(value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    def entropy(self) -> Tensor:
        c = self.concentration
        k, total = c.shape[-1], c.sum(-1)
        return c.lgamma().sum(-1) - total.lgamma() - (k - total) * total.digamma() - ((c - 1) * c.digamma()).sum(-1)


class Beta(Distribution):
    """The two-category ``Dirichlet([concentration1, concentration0])`` read at its first entry;
    printed without parameters and checked by its Dirichlet, as PyTorch's."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Any = None) -> None:
        c1, c0 = _broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(stack([c1, c0], -1), validate_args=validate_args)
        self.batch_shape = tuple(self._dirichlet.batch_shape)
        self._check_parameters(validate_args)

    def _parameter_names(self) -> tuple[str, ...]:
        return ()  # its Dirichlet checked them

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def expand(self, batch_shape: Any, _instance: Any = None) -> Beta:
        shape = _shape(batch_shape)
        return self._expanded(Beta, _instance, shape, _dirichlet=self._dirichlet.expand(shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self._dirichlet.sample(sample_shape).select(-1, 0)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = _as_float_tensor(value, like=self._dirichlet.concentration)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, shifted by ``loc`` and scaled by ``scale``."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    _given = ("df", "loc", "scale")
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: Any = None) -> None:
        self.df, self.loc, self.scale = _broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df, validate_args=validate_args)  # first, as PyTorch's: its refusal names Chi2()
        self.batch_shape = tuple(self.df.shape)
        self._check_parameters(validate_args)

    @property
    def mean(self) -> Tensor:
        return where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        """``scale^2 df / (df - 2)`` above 2, infinite in ``(1, 2]``, NaN at or below 1 (PyTorch's)."""
        df = self.df
        finite = self.scale.pow(2) * df / where(df > 2, df - 2, df * 0 + 1)
        return where(df > 2, finite, where(df > 1, math.inf, math.nan))

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        shape = _shape(batch_shape)
        return self._expanded(StudentT, _instance, shape, df=self.df.expand(*shape), loc=self.loc.expand(*shape),
                              scale=self.scale.expand(*shape), _chi2=self._chi2.expand(shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """PyTorch's: a standard normal over ``sqrt(chi2 / df)``, the chi-square draw reparameterized
        (differentiable in ``df`` through it), then shifted and scaled."""
        return self._draw(sample_shape, self._chi2.rsample)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return self._draw(sample_shape, self._chi2.sample)

    def _draw(self, sample_shape: Any, chi2_draw: Any) -> Tensor:
        shape = self._extended_shape(sample_shape)
        x = creation.randn(*shape, dtype=self.df.dtype, device=self.df.device)
        return self.loc + self.scale * (x * (chi2_draw(sample_shape) / self.df).rsqrt())

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + (0.5 * self.df).lgamma()
             - (0.5 * (self.df + 1.0)).lgamma())
        return -0.5 * (self.df + 1.0) * (y.pow(2) / self.df).log1p() - z

    def entropy(self) -> Tensor:
        half_df, half_next = 0.5 * self.df, 0.5 * (self.df + 1)
        lbeta = half_df.lgamma() + math.lgamma(0.5) - half_next.lgamma()
        return (self.scale.log() + half_next * (half_next.digamma() - half_df.digamma()) + 0.5 * self.df.log()
                + lbeta)


class FisherSnedecor(Distribution):
    """Snedecor's F with ``df1`` and ``df2`` degrees of freedom: a ratio of chi-squares over their degrees,
    drawn as PyTorch's, ``Gamma(df1/2, df1) / Gamma(df2/2, df2)``, reparameterized through both."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True
    _given = ("df1", "df2")

    def __init__(self, df1: Any, df2: Any, validate_args: Any = None) -> None:
        self.df1, self.df2 = _broadcast_all(df1, df2)
        self._gamma1, self._gamma2 = Gamma(self.df1 * 0.5, self.df1), Gamma(self.df2 * 0.5, self.df2)
        numbers = isinstance(df1, (int, float)) and isinstance(df2, (int, float))
        self.batch_shape = () if numbers else tuple(self.df1.shape)
        self._check_parameters(validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> FisherSnedecor:
        shape = _shape(batch_shape)
        return self._expanded(FisherSnedecor, _instance, shape, df1=self.df1.expand(*shape),
                              df2=self.df2.expand(*shape), _gamma1=self._gamma1.expand(shape),
                              _gamma2=self._gamma2.expand(shape))

    @property
    def mean(self) -> Tensor:
        df2 = where(self.df2 <= 2, math.nan, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Tensor:
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return where(self.df1 <= 2, math.nan, mode)

    @property
    def variance(self) -> Tensor:
        df2 = where(self.df2 <= 4, math.nan, self.df2)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self._ratio(self._gamma1.rsample(sample_shape), self._gamma2.rsample(sample_shape))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return self._ratio(self._gamma1.sample(sample_shape), self._gamma2.sample(sample_shape))

    @staticmethod
    def _ratio(x1: Tensor, x2: Tensor) -> Tensor:
        tiny = float(host_numpy.finfo(x2.dtype).tiny)
        return _clamped_up(x1 / _clamped_up(x2, tiny), tiny)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2, ct3 = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        return t1 + ct1 * ct3.log() + (ct1 - 1) * value.log() - (ct1 + ct2) * (ct3 * value).log1p()
