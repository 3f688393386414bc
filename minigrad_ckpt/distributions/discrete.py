"""PyTorch's counting distributions beside ``Bernoulli`` and ``Categorical``: ``OneHotCategorical``,
``Geometric``, ``Poisson`` and ``Binomial`` -- PyTorch's formulas for the moments, ``log_prob``,
``entropy`` (``Poisson`` has none, as PyTorch's) and ``enumerate_support``; ``sample`` (no ``rsample``:
PyTorch's ``has_rsample`` is False for all four) draws from the engine's generator: ``Geometric`` by
inversion, ``Poisson`` by inversion below rate 10 and by Hormann's transformed rejection (PTRS, NumPy's
method) above, ``Binomial`` as PyTorch's (geometric waiting times where ``total_count * p < 10``,
Hormann's BTRS above)."""

from __future__ import annotations

from typing import Any

from .. import creation
from ..backend import host_numpy, scalar_type_name
from ..functional.elementwise import where
from ..functional.poisson import poisson_draws, stirling_tail
from ..grad_mode import no_grad
from ..nn import functional as F
from ..tensor import Tensor
from . import constraints
from .distributions import (
    Categorical,
    Distribution,
    _as_float_tensor,
    _broadcast_all,
    _clamp_probs,
    _init_parameters,
    _read_through,
    _shape,
)

__all__ = ["OneHotCategorical", "Geometric", "Poisson", "Binomial"]


class OneHotCategorical(Distribution):
    """A ``Categorical`` whose outcomes are one-hot vectors (event shape ``(K,)``); printed without
    parameters and checked by its ``Categorical``, as PyTorch's."""

    has_enumerate_support = True
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        self.batch_shape = tuple(self._categorical.batch_shape)
        self.event_shape = tuple(self._categorical.param_shape[-1:])
        self._check_parameters(validate_args)

    def _parameter_names(self) -> tuple[str, ...]:
        return ()  # its Categorical checked them

    support = constraints.one_hot

    probs = _read_through("_categorical", "probs")
    logits = _read_through("_categorical", "logits")
    param_shape = _read_through("_categorical", "param_shape")

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        return F.one_hot(self.probs.argmax(-1), self.event_shape[0]).to(self.probs.dtype)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        shape = _shape(batch_shape)
        return self._expanded(OneHotCategorical, _instance, shape, self.event_shape,
                              _categorical=self._categorical.expand(shape))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return F.one_hot(self._categorical.sample(sample_shape), self.event_shape[0]).to(self.probs.dtype)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])  # (PyTorch's: a bool one-hot too)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.event_shape[0]
        values = F.one_hot(creation.arange(n, device=self.probs.device), n).to(self.probs.dtype)
        values = values.reshape(n, *(1,) * len(self.batch_shape), n)
        return values.expand(n, *self.batch_shape, n) if expand else values


class Geometric(Distribution):
    """The number of failures before the first success of probability ``probs`` (or ``sigmoid(logits)``)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,), self._given = _broadcast_all(probs), ("probs",)
            clamped = _clamp_probs(self.probs)
            self.logits = clamped.log() - (-clamped).log1p()
        else:
            (self.logits,), self._given = _broadcast_all(logits), ("logits",)
            self.probs = self.logits.sigmoid()
        self.batch_shape = tuple(self.probs.shape)
        self._check_parameters(validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all().item()):
            # PyTorch's extra check beyond the unit interval: a success must be possible
            raise ValueError(f"Expected parameter probs (Tensor of shape {tuple(self.probs.shape)}) of distribution "
                             f"{self!r} to be positive but found invalid values:\n{self.probs[~(self.probs > 0)]}")

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return self.probs * 0

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def expand(self, batch_shape: Any, _instance: Any = None) -> Geometric:
        shape = _shape(batch_shape)
        return self._expanded(Geometric, _instance, shape, probs=self.probs.expand(*shape),
                              logits=self.logits.expand(*shape), _given=self._given)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """``floor(log u / log(1 - probs))``, ``u`` uniform on ``[tiny, 1)`` (PyTorch's inversion)."""
        tiny = float(host_numpy.finfo(self.probs.dtype).tiny)
        with no_grad():
            u = creation.rand(*self._extended_shape(sample_shape), dtype=self.probs.dtype,
                              device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = _as_float_tensor(value, like=self.probs)
        probs = self.probs.expand(*host_numpy.broadcast_shapes(tuple(value.shape), tuple(self.probs.shape)))
        # PyTorch's: a certain success (probs 1) at value 0 has log-probability 0, not 0 * -inf
        probs = where((probs == 1) & (value == 0), probs * 0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class Poisson(Distribution):
    """Counts of events at ``rate`` per interval."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer
    _given = ("rate",)

    def __init__(self, rate: Any, validate_args: Any = None) -> None:
        _init_parameters(self, (rate,), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        shape = _shape(batch_shape)
        return self._expanded(Poisson, _instance, shape, rate=self.rate.expand(*shape))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return poisson_draws(self.rate, self._extended_shape(sample_shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = _as_float_tensor(value, like=self.rate)
        return value.xlogy(self.rate) - self.rate - (value + 1).lgamma()


def _binomial_inversion(count: Tensor, q: Tensor, generator: Any = None) -> Tensor:
    """Successes as the number of geometric waiting times that fit in ``count`` trials (PyTorch's
    sampler where ``count * q < 10``: a few steps)."""
    pending = q > 0
    log_fail = (-where(pending, q, q * 0 + 0.5)).log1p()  # a stand-in where q = 0 (never any success)
    total, successes = q * 0, q * 0
    while bool(pending.any().item()):
        u = creation.rand(*q.shape, dtype=q.dtype, device=q.device, generator=generator)
        total = total + where(pending, (u.log() / log_fail).ceil(), 0.0)
        pending = pending & (total <= count)
        successes = successes + pending.to(q.dtype)
    return successes


def _binomial_btrs(count: Tensor, q: Tensor, generator: Any = None) -> Tensor:
    """Hormann's BTRS (PyTorch's sampler where ``count * q >= 10``): uniform pairs until accepted."""
    stddev = (count * q * (1 - q)).sqrt()
    b = 1.15 + 2.53 * stddev
    a, c, v_r = -0.0873 + 0.0248 * b + 0.01 * q, count * q + 0.5, 0.92 - 4.2 / b
    r, alpha, m = q / (1 - q), (2.83 + 5.1 / b) * stddev, ((count + 1) * q).floor()
    result, pending = q * 0, q == q
    while bool(pending.any().item()):
        u = creation.rand(*q.shape, dtype=q.dtype, device=q.device, generator=generator) - 0.5
        v = creation.rand(*q.shape, dtype=q.dtype, device=q.device, generator=generator)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + c).floor()
        inside = (k >= 0) & (k <= count)
        kk = k.clamp(min=0).minimum(count)
        # PyTorch's bound, its logs of ratios near 1 rewritten as log1p of small numbers (float32's digits)
        d = kk - m
        bound = (d * (r.log() + (count - kk + 1).log() - (kk + 1).log()) - (m + 0.5) * (d / (m + 1)).log1p()
                 + (m + 0.5) * (-d / (count - m + 1)).log1p() + (count + 1) * (d / (count - kk + 1)).log1p()
                 + stirling_tail(m) + stirling_tail(count - m) - stirling_tail(kk) - stirling_tail(count - kk))
        quick = (us >= 0.07) & (v <= v_r)
        slow = (v * alpha / (a / (us * us) + b)).log() <= bound
        accepted = pending & inside & (quick | slow)
        result, pending = where(accepted, k, result), pending & ~accepted
    return result


def binomial_draws(count: Tensor, probs: Tensor, generator: Any = None) -> Tensor:
    """Successes in ``count`` trials of probability ``probs`` (same shape), without gradient:
    PyTorch's split -- the rarer outcome (q <= 1/2) drawn, by inversion where ``count * q < 10``,
    by BTRS where it is frequent."""
    with no_grad():
        count, probs = count.detach(), probs.detach()
        flipped = probs > 0.5
        q = where(flipped, 1 - probs, probs)
        frequent = count * q >= 10
        k = _binomial_inversion(count, where(frequent, 0.0, q.clamp(min=0)), generator)  # q = 0: nothing to draw
        if bool(frequent.any().item()):
            k = where(frequent, _binomial_btrs(where(frequent, count, count * 0 + 10),
                                               where(frequent, q, q * 0 + 0.5), generator), k)
        return where(flipped, count - k, k)


def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """``torch.binomial``: one draw of successes in ``count`` trials (a float tensor) of
    probability ``prob`` each, broadcast together, from the engine's generator or ``generator``.
    As PyTorch's: a count below 0 draws 0, a probability outside [0, 1] is read clamped, and the
    two must share one floating dtype.  No gradient (PyTorch has none for it either)."""
    for name, t in (("count", count), ("prob", prob)):
        if not isinstance(t, Tensor):
            raise TypeError(f"binomial(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if count.dtype.kind != "f":
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{scalar_type_name(count.dtype)}")
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {scalar_type_name(prob.dtype)} but expected {scalar_type_name(count.dtype)}")
    shape = host_numpy.broadcast_shapes(tuple(count.shape), tuple(prob.shape))
    n = count.detach().clamp(min=0).expand(*shape)
    return binomial_draws(n, prob.detach().clamp(0, 1).expand(*shape), generator)


def _clamp_by_zero(x: Tensor) -> Tensor:
    """``max(x, 0)`` with PyTorch's gradient of 1/2 at 0."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """Successes in ``total_count`` trials of probability ``probs`` (or ``sigmoid(logits)``)."""

    has_enumerate_support = True
    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: Any = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = _broadcast_all(total_count, probs)
            self.total_count, self._given = self.total_count.to(self.probs.dtype), ("total_count", "probs")
            clamped = _clamp_probs(self.probs)
            self.logits = clamped.log() - (-clamped).log1p()
        else:
            self.total_count, self.logits = _broadcast_all(total_count, logits)
            self.total_count, self._given = self.total_count.to(self.logits.dtype), ("total_count", "logits")
            self.probs = self.logits.sigmoid()
        self.batch_shape = tuple(self.probs.shape)
        self._check_parameters(validate_args)

    @property
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @property
    def param_shape(self) -> tuple[int, ...]:
        return tuple(self.probs.shape)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Binomial:
        shape = _shape(batch_shape)
        return self._expanded(Binomial, _instance, shape, total_count=self.total_count.expand(*shape),
                              probs=self.probs.expand(*shape), logits=self.logits.expand(*shape), _given=self._given)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return binomial_draws(self.total_count.expand(*shape), self.probs.detach().expand(*shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = _as_float_tensor(value, like=self.probs)
        n = self.total_count
        normalize = n * _clamp_by_zero(self.logits) + n * (-self.logits.abs()).exp().log1p() - (n + 1).lgamma()
        return value * self.logits - (value + 1).lgamma() - (n - value + 1).lgamma() - normalize

    def _homogeneous_count(self, what: str) -> int:
        count = int(self.total_count.max().item())
        if not float(self.total_count.min().item()) == count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def entropy(self) -> Tensor:
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        count = self._homogeneous_count("enumerate_support")
        return self._enumerate(creation.arange(1 + count, dtype=self.probs.dtype, device=self.probs.device), expand)

