"""PyTorch's ``biject_to`` and ``transform_to``: for a constraint, a transform from unconstrained reals onto
it -- a bijection (``biject_to``: ``StickBreakingTransform`` for the simplex, for HMC-style reparameterized
inference) or any map onto it (``transform_to``: ``SoftmaxTransform`` for the simplex,
``LowerCholeskyTransform`` for ``lower_cholesky``, for optimizing constrained parameters). Registries
keyed by the constraint's class, as PyTorch's: ``positive`` is a ``greater_than`` and gets its map,
``exp`` then a shift by the bound; ``register`` extends them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import constraints
from . import transforms as maps
from .transforms import Transform

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Constraint classes to factories ``constraint -> Transform``; called with a constraint object."""

    def __init__(self) -> None:
        self._registry: dict[type, Callable[[Any], Transform]] = {}

    def register(self, constraint: Any, factory: Callable[[Any], Transform] | None = None) -> Any:
        """``register(constraint_class_or_object, factory)``, or as a decorator ``@register(constraint)``."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: constraints.Constraint) -> Transform:
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            # PyTorch's message names its private class (``_LowerCholesky``)
            raise NotImplementedError(f"Cannot transform _{type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _identity(constraint: Any) -> Transform:
    return maps.ComposeTransform([])


def _exp(constraint: Any) -> Transform:
    return maps.ExpTransform()


def _above(constraint: Any) -> Transform:
    return maps.ComposeTransform([maps.ExpTransform(), maps.AffineTransform(constraint.lower_bound, 1)])


def _below(constraint: Any) -> Transform:
    return maps.ComposeTransform([maps.ExpTransform(), maps.AffineTransform(constraint.upper_bound, -1)])


def _between(constraint: Any) -> Transform:
    """A sigmoid, scaled and shifted onto the interval unless it is ``[0, 1]`` (numbers) itself."""
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, (int, float)) and low == 0 and isinstance(high, (int, float)) and high == 1:
        return maps.SigmoidTransform()
    return maps.ComposeTransform([maps.SigmoidTransform(), maps.AffineTransform(low, high - low)])


def _independent(registry: ConstraintRegistry) -> Callable[[Any], Transform]:
    def factory(constraint: Any) -> Transform:
        return maps.IndependentTransform(registry(constraint.base_constraint), constraint.reinterpreted_batch_ndims)
    return factory


# PyTorch's registration order: positive's ExpTransform is registered for GreaterThan, then overwritten by
# greater_than's map (so biject_to(positive) is exp followed by a shift of 0, as PyTorch's)
for _registry in (biject_to, transform_to):
    _registry.register(constraints.real, _identity)
    _registry.register(constraints.independent, _independent(_registry))
    _registry.register(constraints.positive, _exp)
    _registry.register(constraints.nonnegative, _exp)
    _registry.register(constraints.greater_than, _above)
    _registry.register(constraints.greater_than_eq, _above)
    _registry.register(constraints.less_than, _below)
    _registry.register(constraints.interval, _between)
    _registry.register(constraints.half_open_interval, _between)
biject_to.register(constraints.simplex, lambda constraint: maps.StickBreakingTransform())
transform_to.register(constraints.simplex, lambda constraint: maps.SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda constraint: maps.LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda constraint: maps.PositiveDefiniteTransform())
biject_to.register(constraints.corr_cholesky, lambda constraint: maps.CorrCholeskyTransform())
transform_to.register(constraints.corr_cholesky, lambda constraint: maps.CorrCholeskyTransform())
for _registry in (biject_to, transform_to):  # each piece by its own constraint's map
    _registry.register(constraints.cat, lambda constraint, registry=_registry: maps.CatTransform(
        [registry(c) for c in constraint.cseq], constraint.dim, constraint.lengths))
    _registry.register(constraints.stack, lambda constraint, registry=_registry: maps.StackTransform(
        [registry(c) for c in constraint.cseq], constraint.dim))
