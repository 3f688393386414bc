"""PyTorch's ``TransformedDistribution(base, transforms)`` -- a base distribution pushed through
invertible maps (``transforms.py``): ``log_prob`` by the change of variables, ``cdf``/``icdf`` through
the inverse maps (``1 - cdf`` where the composition decreases), ``sample``/``rsample`` the base's mapped
-- and ``LogNormal``, PyTorch's ``TransformedDistribution(Normal(loc, scale), ExpTransform())``."""

from __future__ import annotations

from typing import Any

from ..grad_mode import no_grad
from ..tensor import Tensor
from . import constraints
from .distributions import Distribution, Independent, Normal, _shape, _sum_rightmost
from .transforms import ComposeTransform, ExpTransform, Transform

__all__ = ["TransformedDistribution", "LogNormal"]


def _pushed_forward(base: Distribution, transform: ComposeTransform) -> tuple[Distribution, tuple, tuple]:
    """PyTorch's bookkeeping of a base pushed through ``transform``: the base expanded to the shape the maps'
    parameters broadcast it to (a scalar ``Normal`` under an ``AffineTransform`` of a (5,) ``loc`` draws five)
    and read as events of the rank the maps take; then the output's batch and event shapes."""
    base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
    base_event_dim = len(base.event_shape)
    if len(base_shape) < transform.domain.event_dim:
        raise ValueError(f"base_distribution needs to have shape with size at least {transform.domain.event_dim}, "
                         f"but got {len(base_shape)}.")
    forward_shape = tuple(transform.forward_shape(base_shape))
    expanded_base_shape = tuple(transform.inverse_shape(forward_shape))
    if expanded_base_shape != base_shape:
        base = base.expand(expanded_base_shape[:len(expanded_base_shape) - base_event_dim])
    if transform.domain.event_dim > base_event_dim:
        base = Independent(base, transform.domain.event_dim - base_event_dim)
    event_dim = max(transform.codomain.event_dim,
                    base_event_dim + transform.codomain.event_dim - transform.domain.event_dim)
    cut = len(forward_shape) - event_dim
    return base, forward_shape[:cut], forward_shape[cut:]


class TransformedDistribution(Distribution):
    """``transforms`` (one or a list) applied in order to draws of ``base_distribution``."""

    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(self, base_distribution: Distribution, transforms: Any, validate_args: Any = None) -> None:
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif not (isinstance(transforms, list) and all(isinstance(t, Transform) for t in transforms)):
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        self.transforms = transforms
        self.base_dist, self.batch_shape, self.event_shape = _pushed_forward(base_distribution,
                                                                             ComposeTransform(transforms))
        self._check_parameters(validate_args)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    @property
    def support(self) -> constraints.Constraint:
        if not self.transforms:
            return self.base_dist.support
        codomain = self.transforms[-1].codomain
        extra = len(self.event_shape) - codomain.event_dim
        return constraints.independent(codomain, extra) if extra > 0 else codomain

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        shape = _shape(batch_shape)
        base = self.base_dist.expand(shape + tuple(self.base_dist.batch_shape[len(self.batch_shape):]))
        return self._expanded(TransformedDistribution, _instance, shape, self.event_shape, base_dist=base,
                              transforms=self.transforms)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value: Any) -> Tensor:
        """The base's density at the pre-image less each map's log-Jacobian (PyTorch's order)."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim, log_prob, y = len(self.event_shape), 0.0, value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                 event_dim - transform.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value: Tensor) -> Tensor:
        """``value`` where the maps increase, ``1 - value`` where they decrease (PyTorch's)."""
        sign = ComposeTransform(self.transforms).sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Any) -> Tensor:
        for transform in self.transforms[::-1]:
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Any) -> Tensor:
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value


class _CheckedByItsBase(TransformedDistribution):
    """A family whose parameters are its base's (checked there, so printed without them, as PyTorch's), and
    whose ``expand`` is ``TransformedDistribution``'s into an instance of its own class."""

    def _parameter_names(self) -> tuple[str, ...]:
        return ()

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        new = self._get_checked_instance(type(self), _instance)
        return super().expand(batch_shape, _instance=new)


class LogNormal(TransformedDistribution):
    """``exp(x)`` for ``x ~ Normal(loc, scale)``: ``loc`` and ``scale`` are the base's (checked there,
    PyTorch's messages name ``Normal``)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive  # type: ignore[assignment]
    has_rsample = True  # type: ignore[assignment]

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args=validate_args)

    def _parameter_names(self) -> tuple[str, ...]:
        return ()  # the base checked them

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogNormal:
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self) -> Tensor:
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc

