"""``mg.distributions.constraints``: the sets a parameter or a value must lie in -- PyTorch's
``constraints`` objects, those of the distributions here and the simple ones a program's own
distribution names (bounds, counts, vectors), and ``positive_definite`` and ``lower_cholesky`` (a
``MultivariateNormal``'s matrices); not the other matrix ones (``corr_cholesky``, ...).

A constraint answers ``check(value)`` with a bool tensor (True where ``value`` is inside), and
prints as PyTorch's (``GreaterThan(lower_bound=0.0)``), since the refusals of ``validate_args``
name it. ``Distribution.support`` and ``arg_constraints`` are made of these.
"""

from __future__ import annotations

from ..backend import host_numpy
from ..functional.linalg_ex import cholesky_ex
from ..functional.shape import stack as stack_tensors
from ..functional.torch_idioms import cat as cat_tensors
from ..tensor import Tensor

__all__ = ["Constraint", "real", "positive", "unit_interval", "boolean", "simplex", "integer_interval",
           "independent", "greater_than", "greater_than_eq", "less_than", "interval", "half_open_interval",
           "nonnegative", "nonnegative_integer", "positive_integer", "real_vector", "one_hot",
           "positive_definite", "lower_cholesky", "MixtureSameFamilyConstraint", "multinomial", "corr_cholesky", "cat",
           "stack"]


class Constraint:
    """A set of values; ``event_dim`` is how many rightmost dims one element of the set spans;
    ``is_discrete`` whether its values are countable (PyTorch's flag, which enumeration and
    programs' own code ask)."""

    event_dim = 0
    is_discrete = False

    def check(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Real(Constraint):
    """Every real number, infinities included: only NaN is outside (``value == value``)."""

    def check(self, value: Tensor) -> Tensor:
        return value == value


class _LowerBound(Constraint):
    """A set bounded below by ``lower_bound`` (a number or a tensor); printed as PyTorch's."""

    def __init__(self, lower_bound: float | Tensor) -> None:
        self.lower_bound = lower_bound

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lower_bound={self.lower_bound})"


class GreaterThan(_LowerBound):
    """``value > lower_bound`` (strictly: a zero scale is outside; the bound may be a tensor)."""

    def check(self, value: Tensor) -> Tensor:
        return value > self.lower_bound


class GreaterThanEq(_LowerBound):
    """``value >= lower_bound`` (``nonnegative``: 0 is inside)."""

    def check(self, value: Tensor) -> Tensor:
        return value >= self.lower_bound


class IntegerGreaterThan(_LowerBound):
    """The whole numbers from ``lower_bound`` up (``nonnegative_integer``: counts)."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound)


class LessThan(Constraint):
    """``value < upper_bound`` (strictly; the bound may be a tensor: a ``Uniform``'s ``low`` below its ``high``)."""

    def __init__(self, upper_bound: float | Tensor) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"LessThan(upper_bound={self.upper_bound})"


class Interval(Constraint):
    """``lower_bound <= value <= upper_bound`` (NaN is outside; the bounds may be tensors)."""

    def __init__(self, lower_bound: float | Tensor, upper_bound: float | Tensor) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class HalfOpenInterval(Constraint):
    """``lower_bound <= value < upper_bound``."""

    def __init__(self, lower_bound: float | Tensor, upper_bound: float | Tensor) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= self.lower_bound) & (value < self.upper_bound)

    def __repr__(self) -> str:
        return f"HalfOpenInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class Boolean(Constraint):
    """The two values 0 and 1 (a Bernoulli's outcomes)."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class IntegerInterval(Constraint):
    """The whole numbers ``lower_bound..upper_bound`` (a Categorical's labels; 0.5 is outside)."""

    is_discrete = True

    def __init__(self, lower_bound: int, upper_bound: int) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class Simplex(Constraint):
    """Vectors (the last dim) of non-negative entries summing to 1 within ``1e-6``, PyTorch's tolerance."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class OneHot(Constraint):
    """Vectors (the last dim) of zeros and ones with exactly one 1 (a ``OneHotCategorical``'s outcomes)."""

    event_dim = 1
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class Multinomial(Constraint):
    """Count vectors (the last dim) of non-negative entries summing to at most ``upper_bound``
    (PyTorch's ``constraints.multinomial``: a ``Multinomial``'s outcomes)."""

    event_dim = 1
    is_discrete = True

    def __init__(self, upper_bound: int) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


class Cat(Constraint):
    """``cseq[i]`` on the ``i``-th of consecutive slices (``lengths``, ones by default) along ``dim``
    (PyTorch's ``constraints.cat``: a ``CatTransform``'s domain and codomain)."""

    def __init__(self, cseq: list[Constraint], dim: int = 0, lengths: list[int] | None = None) -> None:
        self.cseq, self.dim = list(cseq), dim
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        self.event_dim = max(c.event_dim for c in self.cseq)
        self.is_discrete = any(c.is_discrete for c in self.cseq)

    def check(self, value: Tensor) -> Tensor:
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return cat_tensors(checks, self.dim)


class Stack(Constraint):
    """``cseq[i]`` on the ``i``-th entry along ``dim`` (PyTorch's ``constraints.stack``)."""

    def __init__(self, cseq: list[Constraint], dim: int = 0) -> None:
        self.cseq, self.dim = list(cseq), dim
        self.event_dim = max(c.event_dim for c in self.cseq)
        self.is_discrete = any(c.is_discrete for c in self.cseq)

    def check(self, value: Tensor) -> Tensor:
        checks = [c.check(value.select(self.dim, i)) for i, c in enumerate(self.cseq)]
        return stack_tensors(checks, self.dim)


class PositiveDefinite(Constraint):
    """Symmetric matrices (within ``1e-6``, PyTorch's tolerance) that a Cholesky factorization takes."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        # PyTorch's isclose(value, value.mT, atol=1e-6) with its default rtol
        symmetric = ((value - value.transpose(-2, -1)).abs() <= 1e-6 + 1e-5 * value.transpose(-2, -1).abs())
        symmetric = symmetric.all(-1).all(-1)
        if not bool(symmetric.all().item()):
            return symmetric
        return cholesky_ex(value).info == 0


class LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal (a ``scale_tril``)."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        lower = (value.tril() == value).reshape(*value.shape[:-2], -1).all(-1)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: ``LowerCholesky`` with rows of unit norm (within
    ``10 n eps``, PyTorch's tolerance)."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        tol = float(host_numpy.finfo(value.dtype).eps) * value.shape[-1] * 10
        unit_rows = ((value.detach().pow(2).sum(-1).sqrt() - 1.0).abs() <= tol).all(-1)
        return LowerCholesky().check(value) & unit_rows


class IndependentConstraint(Constraint):
    """``base`` holding for every entry of the last ``reinterpreted_batch_ndims`` dims at once."""

    def __init__(self, base: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint, self.reinterpreted_batch_ndims = base, reinterpreted_batch_ndims
        self.event_dim, self.is_discrete = base.event_dim + reinterpreted_batch_ndims, base.is_discrete

    def check(self, value: Tensor) -> Tensor:
        inside = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            inside = inside.all(-1)
        return inside

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(Constraint):
    """A ``MixtureSameFamily``'s support: a value is inside where it is inside every component's
    ``base`` (PyTorch's): the component dim added back before ``base``'s check, then reduced."""

    def __init__(self, base: Constraint) -> None:
        self.base_constraint, self.event_dim, self.is_discrete = base, base.event_dim, base.is_discrete

    def check(self, value: Tensor) -> Tensor:
        if value.ndim < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.ndim}")
        inside = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        return inside.reshape(*inside.shape[:value.ndim - self.event_dim], -1).all(-1)

    def __repr__(self) -> str:
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


real = Real()
positive = GreaterThan(0.0)
unit_interval = Interval(0.0, 1.0)
boolean = Boolean()
simplex = Simplex()
positive_definite = PositiveDefinite()
lower_cholesky = LowerCholesky()
corr_cholesky = CorrCholesky()
one_hot = OneHot()
integer_interval = IntegerInterval
independent = IndependentConstraint
# PyTorch's names for the constraints made with bounds (a program's own distribution uses them too)
greater_than = GreaterThan
greater_than_eq = GreaterThanEq
less_than = LessThan
interval = Interval
half_open_interval = HalfOpenInterval
multinomial = Multinomial
cat = Cat
stack = Stack
nonnegative = GreaterThanEq(0.0)
nonnegative_integer = IntegerGreaterThan(0)
positive_integer = IntegerGreaterThan(1)
real_vector = IndependentConstraint(real, 1)
