"""PyTorch's ``LowRankMultivariateNormal(loc, cov_factor, cov_diag)``: a Gaussian over vectors whose
covariance is ``W W^T + D`` (``W`` of shape ``(n, m)``, ``D`` diagonal), as VAEs and Gaussian processes use
it. Its ``log_prob`` and ``entropy`` use only ``m x m`` factorizations, as PyTorch's: the capacitance
``C = I + W^T D^-1 W``, Woodbury's identity for the Mahalanobis term and the matrix determinant lemma for the
log-determinant; ``rsample`` is ``loc + W eps_W + sqrt(D) eps_D``."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..functional import linalg
from ..functional.diagonal import eye
from ..tensor import Tensor
from . import constraints
from .distributions import Distribution, _broadcast, _CenteredAtLoc, _shape
from .multivariate import _batch_mahalanobis, _solve_lower

__all__ = ["LowRankMultivariateNormal"]


def _batch_capacitance_tril(w: Tensor, d: Tensor) -> Tensor:
    """The Cholesky factor of ``I + W^T D^-1 W`` (``m x m``)."""
    m = w.shape[-1]
    k = (w.transpose(-2, -1) / d.unsqueeze(-2)) @ w
    return linalg.cholesky(k + eye(m, dtype=w.dtype, device=w.device))


def _lowrank_logdet(d: Tensor, capacitance_tril: Tensor) -> Tensor:
    """``log det(W W^T + D) = log det C + log det D`` (the matrix determinant lemma)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + d.log().sum(-1)


def _lowrank_mahalanobis(w: Tensor, d: Tensor, x: Tensor, capacitance_tril: Tensor) -> Tensor:
    """``x^T (W W^T + D)^-1 x`` by Woodbury: ``x^T D^-1 x - |C^-1/2 W^T D^-1 x|^2``."""
    wt_dinv_x = ((w.transpose(-2, -1) / d.unsqueeze(-2)) @ x.unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / d).sum(-1) - _batch_mahalanobis(capacitance_tril, wt_dinv_x)


class LowRankMultivariateNormal(_CenteredAtLoc, Distribution):
    """``N(loc, cov_factor cov_factor^T + diag(cov_diag))``, event shape ``(n,)``."""

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True
    _given = ("loc", "cov_factor", "cov_diag")

    def __init__(self, loc: Tensor, cov_factor: Tensor, cov_diag: Tensor, validate_args: Any = None) -> None:
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.ndim < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2] != n:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if tuple(cov_diag.shape[-1:]) != (n,):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {(n,)}")
        try:
            batch = _broadcast(_broadcast(tuple(loc.shape[:-1]), tuple(cov_factor.shape[:-2])),
                               tuple(cov_diag.shape[:-1]))
        except ValueError as e:
            raise ValueError(f"Incompatible batch shapes: loc {tuple(loc.shape)}, cov_factor "
                             f"{tuple(cov_factor.shape)}, cov_diag {tuple(cov_diag.shape)}") from e
        self.loc, self.cov_diag = loc.expand(*batch, n), cov_diag.expand(*batch, n)
        self.cov_factor = cov_factor.expand(*batch, *cov_factor.shape[-2:])
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        self.batch_shape, self.event_shape = batch, (n,)
        self._check_parameters(validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LowRankMultivariateNormal:
        shape = _shape(batch_shape)
        n, m = self.event_shape[0], self.cov_factor.shape[-1]
        return self._expanded(LowRankMultivariateNormal, _instance, shape, self.event_shape,
                              loc=self.loc.expand(*shape, n), cov_diag=self.cov_diag.expand(*shape, n),
                              cov_factor=self.cov_factor.expand(*shape, n, m),
                              _unbroadcasted_cov_factor=self._unbroadcasted_cov_factor,
                              _unbroadcasted_cov_diag=self._unbroadcasted_cov_diag,
                              _capacitance_tril=self._capacitance_tril)

    def _full(self, matrix: Tensor) -> Tensor:
        return matrix.expand(*self.batch_shape, *self.event_shape, *self.event_shape)

    @property
    def variance(self) -> Tensor:
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(*self.batch_shape, *self.event_shape)

    @property
    def scale_tril(self) -> Tensor:
        """``D^1/2 chol(I + D^-1/2 W W^T D^-1/2)``: a well-conditioned factorization (eigenvalues at least 1),
        PyTorch's."""
        n = self.event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled = self._unbroadcasted_cov_factor / d_sqrt
        k = scaled @ scaled.transpose(-2, -1) + eye(n, dtype=scaled.dtype, device=scaled.device)
        return self._full(d_sqrt * linalg.cholesky(k))

    @property
    def covariance_matrix(self) -> Tensor:
        w = self._unbroadcasted_cov_factor
        return self._full(w @ w.transpose(-2, -1) + self._unbroadcasted_cov_diag.diag_embed())

    @property
    def precision_matrix(self) -> Tensor:
        """Woodbury: ``D^-1 - A^T A`` with ``A = C_tril^-1 W^T D^-1``."""
        wt_dinv = self._unbroadcasted_cov_factor.transpose(-2, -1) / self._unbroadcasted_cov_diag.unsqueeze(-2)
        a = _solve_lower(self._capacitance_tril, wt_dinv)
        return self._full(self._unbroadcasted_cov_diag.reciprocal().diag_embed() - a.transpose(-2, -1) @ a)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps_w = creation.randn(*shape[:-1], self.cov_factor.shape[-1], dtype=self.loc.dtype, device=self.loc.device)
        eps_d = creation.randn(*shape, dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + (self._unbroadcasted_cov_factor @ eps_w.unsqueeze(-1)).squeeze(-1)
                + self._unbroadcasted_cov_diag.sqrt() * eps_d)

    def _log_det(self) -> Tensor:
        return _lowrank_logdet(self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        m = _lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, value - self.loc,
                                 self._capacitance_tril)
        return -0.5 * (self.event_shape[0] * math.log(2 * math.pi) + self._log_det() + m)

    def entropy(self) -> Tensor:
        h = 0.5 * (self.event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return h.expand(*self.batch_shape) if self.batch_shape else h
