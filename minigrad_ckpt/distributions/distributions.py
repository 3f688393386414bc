"""The distributions themselves (see the package docstring)."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..backend import host_numpy
from ..functional.elementwise import where
from ..grad_mode import no_grad
from ..nn import functional as F
from ..tensor import Tensor

__all__ = ["Distribution", "Categorical", "Normal", "Bernoulli", "kl_divergence"]


def _as_float_tensor(value: Any, like: Tensor | None = None) -> Tensor:
    if isinstance(value, Tensor):
        return value
    dtype = like.dtype if like is not None else None
    return creation.tensor(float(value), dtype=dtype) if dtype is not None else creation.tensor(float(value))


def _clamp_probs(probs: Tensor) -> Tensor:
    """PyTorch's ``clamp_probs``: into ``[eps, 1 - eps]`` of the dtype, so their logs are finite."""
    eps = float(host_numpy.finfo(probs.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def _broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(host_numpy.broadcast_shapes(tuple(a), tuple(b)))


def _where(mask: Tensor, value: float, t: Tensor) -> Tensor:
    """``t`` with ``value`` where ``mask`` (PyTorch's formulas write ``t[mask] = value``)."""
    return where(mask.expand(*t.shape), creation.full_like(t, value), t)


def _shape(sample_shape: Any) -> tuple[int, ...]:
    return tuple(sample_shape) if not isinstance(sample_shape, int) else (sample_shape,)


class Distribution:
    """The shared surface: ``batch_shape``, ``sample``, ``log_prob``, ``entropy``."""

    batch_shape: tuple[int, ...] = ()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return self.rsample(sample_shape) if self.has_rsample else self._draw(_shape(sample_shape))

    has_rsample = False

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sample")

    def _draw(self, shape: tuple[int, ...]) -> Tensor:
        raise NotImplementedError


class Categorical(Distribution):
    """Categories ``0..K-1`` with probabilities ``probs`` (normalized along the last dim) or
    ``logits`` (unnormalized log-probabilities); exactly one of the two."""

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None, validate_args: Any = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("Categorical: probs must have at least one dimension")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self.logits = _clamp_probs(self.probs).log()
        else:
            if logits.ndim < 1:
                raise ValueError("Categorical: logits must have at least one dimension")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self.probs = F.softmax(self.logits, dim=-1)
        self._num_events = self.probs.shape[-1]
        self.batch_shape = tuple(self.probs.shape[:-1])

    def _draw(self, shape: tuple[int, ...]) -> Tensor:
        n = 1
        for s in shape:
            n *= s
        rows = self.probs.reshape(-1, self._num_events)
        # (batch, n), drawn as PyTorch's sample draws them: one torch.multinomial call
        drawn = creation.multinomial(rows, n, replacement=True)
        return drawn.T.reshape(*shape, *self.batch_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        """``log p(value)``, ``value`` broadcast against the batch shape (PyTorch's gather)."""
        value = value.long().unsqueeze(-1)
        shape = (*_broadcast(value.shape[:-1], self.batch_shape), 1)
        log_pmf = self.logits.expand(*shape[:-1], self._num_events)
        return log_pmf.gather(-1, value.expand(*shape)).squeeze(-1)

    def entropy(self) -> Tensor:
        min_real = float(host_numpy.finfo(self.logits.dtype).min)
        return -(self.logits.clamp(min=min_real) * self.probs).sum(-1)


class Normal(Distribution):
    """The Gaussian ``N(loc, scale**2)``; ``loc`` and ``scale`` broadcast (numbers become tensors
    of the other's dtype, or the default dtype)."""

    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        like = loc if isinstance(loc, Tensor) else scale if isinstance(scale, Tensor) else None
        loc, scale = _as_float_tensor(loc, like), _as_float_tensor(scale, like)
        if bool((scale <= 0).any().item()) or bool((scale != scale).any().item()):
            raise ValueError("Normal: scale must be positive (PyTorch's constraint GreaterThan(0.0))")
        shape = _broadcast(loc.shape, scale.shape)
        self.loc, self.scale = loc.expand(*shape), scale.expand(*shape)
        self.batch_shape = shape

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + eps * scale`` with ``eps`` standard normal: differentiable in ``loc`` and ``scale``."""
        eps = creation.randn(*_shape(sample_shape), *self.batch_shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Tensor:
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()


class Bernoulli(Distribution):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0; exactly one of the two."""

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.probs = _as_float_tensor(probs)
            if bool(((self.probs < 0) | (self.probs > 1)).any().item()):
                raise ValueError("Bernoulli: probs must be in [0, 1]")
            clamped = _clamp_probs(self.probs)
            self.logits = clamped.log() - (-clamped).log1p()
        else:
            self.logits = _as_float_tensor(logits)
            self.probs = self.logits.sigmoid()
        self.batch_shape = tuple(self.probs.shape)

    @property
    def mean(self) -> Tensor:
        return self.probs

    def _draw(self, shape: tuple[int, ...]) -> Tensor:
        return creation.bernoulli(self.probs.expand(*shape, *self.batch_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        logits = self.logits.expand(*_broadcast(self.logits.shape, value.shape))
        return -F.binary_cross_entropy_with_logits(logits, value.expand(*logits.shape), reduction="none")

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)`` for two distributions of the same kind (Normal, Categorical, Bernoulli), by
    PyTorch's closed forms."""
    if isinstance(p, Normal) and isinstance(q, Normal):
        var_ratio = (p.scale / q.scale).pow(2)
        t1 = ((p.loc - q.loc) / q.scale).pow(2)
        return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())
    if isinstance(p, Categorical) and isinstance(q, Categorical):
        t = p.probs * (p.logits - q.logits)
        t = _where(p.probs == 0, 0.0, _where(q.probs == 0, math.inf, t))
        return t.sum(-1)
    if isinstance(p, Bernoulli) and isinstance(q, Bernoulli):
        t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
        t1 = _where(p.probs == 0, 0.0, _where(q.probs == 0, math.inf, t1))
        t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
        t2 = _where(p.probs == 1, 0.0, _where(q.probs == 1, math.inf, t2))
        return t1 + t2
    raise NotImplementedError(f"kl_divergence: no formula for {type(p).__name__} and {type(q).__name__}")
