"""PyTorch's ``MultivariateNormal(loc, covariance_matrix= | precision_matrix= | scale_tril=)``: a
Gaussian over vectors (event shape ``(n,)``), held as the lower Cholesky factor ``L`` of its
covariance (``Sigma = L L^T``), as PyTorch's -- ``log_prob`` by a triangular solve, ``rsample`` as
``loc + L eps`` (differentiable in ``loc`` and the matrix given), PyTorch's formulas for the rest."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..functional import linalg
from ..functional.diagonal import eye
from ..functional.linalg_derived import cholesky_inverse
from ..tensor import Tensor
from . import constraints
from .distributions import Distribution, _broadcast, _CenteredAtLoc, _shape

__all__ = ["MultivariateNormal"]

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


class _Derived:
    """A parameter computed from ``L`` unless the instance was given it (PyTorch's ``lazy_property``,
    recomputed each time: a kept result would tie the distribution to one graph)."""

    def __init__(self, fn: Any) -> None:
        self.fn, self.__doc__ = fn, fn.__doc__

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        return self if obj is None else self.fn(obj)


def _solve_lower(factor: Tensor, rhs: Tensor) -> Tensor:
    """``factor^-1 rhs`` for lower-triangular ``factor``, batch dims broadcast."""
    batch = _broadcast(tuple(factor.shape[:-2]), tuple(rhs.shape[:-2]))
    return linalg.solve_triangular(factor.expand(*batch, *factor.shape[-2:]), rhs.expand(*batch, *rhs.shape[-2:]),
                                   upper=False)


def _batch_mahalanobis(factor: Tensor, x: Tensor) -> Tensor:
    """``x^T (L L^T)^-1 x`` for each vector ``x`` (the last dim)."""
    return _solve_lower(factor, x.unsqueeze(-1)).squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(precision: Tensor) -> Tensor:
    """PyTorch's: ``L`` of ``P^-1`` from the Cholesky factor of ``P`` reversed (no inverse of ``P``)."""
    flipped = linalg.cholesky(precision.flip(-2, -1))
    inverse_factor = flipped.flip(-2, -1).transpose(-2, -1)
    identity = eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return _solve_lower(inverse_factor, identity)


class MultivariateNormal(_CenteredAtLoc, Distribution):
    """``N(loc, Sigma)`` with exactly one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None, precision_matrix: Tensor | None = None,
                 scale_tril: Tensor | None = None, validate_args: Any = None) -> None:
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {"covariance_matrix": covariance_matrix, "precision_matrix": precision_matrix,
                 "scale_tril": scale_tril}
        given = {name: m for name, m in given.items() if m is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        ((name, matrix),) = given.items()
        if matrix.ndim < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading batch dimensions")
        batch = _broadcast(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        n = matrix.shape[-1]
        setattr(self, name, matrix.expand(*batch, n, n) if tuple(matrix.shape[:-2]) != batch else matrix)
        self.loc = loc.expand(*batch, loc.shape[-1]) if tuple(loc.shape[:-1]) != batch else loc
        self.batch_shape, self.event_shape, self._given = batch, tuple(self.loc.shape[-1:]), ("loc", name)
        self._check_parameters(validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def _matrix_shape(self) -> tuple[int, ...]:
        return (*self.batch_shape, *self.event_shape, *self.event_shape)

    @_Derived
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(*self._matrix_shape())

    @_Derived
    def covariance_matrix(self) -> Tensor:
        factor = self._unbroadcasted_scale_tril
        return (factor @ factor.transpose(-2, -1)).expand(*self._matrix_shape())

    @_Derived
    def precision_matrix(self) -> Tensor:
        return cholesky_inverse(self._unbroadcasted_scale_tril).expand(*self._matrix_shape())

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(*self.batch_shape, *self.event_shape)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        shape = _shape(batch_shape)
        n = self.event_shape[0]
        fields = {name: vars(self)[name].expand(*shape, n, n) for name in _MATRICES if name in vars(self)}
        return self._expanded(MultivariateNormal, _instance, shape, self.event_shape, loc=self.loc.expand(*shape, n),
                              _unbroadcasted_scale_tril=self._unbroadcasted_scale_tril, _given=self._given, **fields)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + L eps`` with ``eps`` standard normal: differentiable in ``loc`` and the matrix."""
        eps = creation.randn(*self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        mahalanobis = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self.event_shape[0] * math.log(2 * math.pi) + mahalanobis) - self._half_log_det()

    def entropy(self) -> Tensor:
        entropy = 0.5 * self.event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return entropy.expand(*self.batch_shape) if self.batch_shape else entropy


def kl_multivariate_normal(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    """PyTorch's closed form: log-determinant ratio, ``tr(Sigma_q^-1 Sigma_p)`` and the Mahalanobis term."""
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    p_factor, q_factor = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    n = p.event_shape[0]
    batch = _broadcast(tuple(q_factor.shape[:-2]), tuple(p_factor.shape[:-2]))
    term2 = _solve_lower(q_factor.expand(*batch, n, n), p_factor.expand(*batch, n, n)).pow(2).sum((-2, -1))
    term3 = _batch_mahalanobis(q_factor, q.loc - p.loc)
    return q._half_log_det() - p._half_log_det() + 0.5 * (term2 + term3 - n)
