"""PyTorch's ``torch.linalg`` functions that report a failed factorization instead of raising:
``inv_ex``, ``solve_ex``, ``cholesky_ex`` and ``lu_factor_ex`` return the result beside
``info``, LAPACK's code for each matrix (int32, the batch's shape): 0 where the matrix
factored, else the 1-based ``k`` of the first zero pivot of its LU factorization (``U[k, k]
== 0``; ``inv_ex``, ``solve_ex``, ``lu_factor_ex``) or the order ``k`` of the first leading
minor that is not positive definite (``cholesky_ex``).  ``check_errors=True`` raises
``mg.linalg.LinAlgError`` for the first failed matrix instead, with PyTorch's message.

A batch's failed matrices do not spoil the others: those are factored on their own (a
failed one is replaced by the identity, then its result by NaN -- PyTorch leaves LAPACK's
partial result there, which its documentation calls undefined), so values and gradients of
the good matrices are what :func:`~.linalg.inv`, :func:`~.linalg.solve` and
:func:`~.linalg.cholesky` give.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..backend import host_numpy
from ..ops import linalg_failure as _failure
from ..tensor import Tensor
from . import linalg as _la
from . import linalg_derived as _lad
from .arguments import as_tensor
from .return_types import return_type


class InvExResult(NamedTuple):
    inverse: Tensor
    info: Tensor


class SolveExResult(NamedTuple):
    result: Tensor
    info: Tensor


class CholeskyExResult(NamedTuple):
    L: Tensor
    info: Tensor


class LUFactorExResult(NamedTuple):
    LU: Tensor
    pivots: Tensor
    info: Tensor


# torch.return_types' classes of these answers
_linalg_inv_ex = return_type(InvExResult, "linalg_inv_ex")
_linalg_solve_ex = return_type(SolveExResult, "linalg_solve_ex")
_linalg_cholesky_ex = return_type(CholeskyExResult, "linalg_cholesky_ex")
_linalg_lu_factor_ex = return_type(LUFactorExResult, "linalg_lu_factor_ex")


def _host(t: Tensor) -> Any:
    return host_numpy.asarray(t.device.xp.to_host(t._data))


def _cholesky_info(a: Tensor) -> Any:
    def failure(m: Any) -> int:
        try:
            factored = bool(host_numpy.isfinite(host_numpy.linalg.cholesky(m)).all())
        except host_numpy.linalg.LinAlgError:  # (NumPy's own, raised by its cholesky)
            factored = False
        return 0 if factored else _failure.cholesky_failure(m)  # (LAPACK's potrf stops at a NaN pivot too)

    return _failure.per_matrix(_host(a), failure)


def _info_tensor(info: Any, like: Tensor) -> Tensor:
    return Tensor.constant(like.device.xp.asarray(info), like.device)


def inv_ex(A: Any, *, check_errors: bool = False) -> InvExResult:  # noqa: N803
    """``(inverse, info)``: the inverse of each square matrix, and ``info`` its LU
    factorization's first zero pivot (0: invertible; the inverse is NaN where it is not)."""
    a = _la._matrices("inv_ex", A, square=True)
    info = _lad.lu_info(a)
    if check_errors:
        _failure.raise_first("linalg.inv_ex", info, _failure.singular)
    return _linalg_inv_ex(_lad.around_failures(a, info, _la.inv), _info_tensor(info, a))


def solve_ex(A: Any, B: Any, *, left: bool = True, check_errors: bool = False) -> SolveExResult:  # noqa: N803
    """``(result, info)``: :func:`~.linalg.solve` of each system, and ``info`` as
    :func:`inv_ex`'s (the result is NaN for a singular ``A``)."""
    a = _la._matrices("solve_ex", A, square=True)
    info = _lad.lu_info(a)
    if check_errors:
        _failure.raise_first("linalg.solve_ex", info, _failure.singular)
    return _linalg_solve_ex(_lad.around_failures(a, info, lambda m: _la.solve(m, B, left=left)), _info_tensor(info, a))


def cholesky_ex(A: Any, *, upper: bool = False, check_errors: bool = False) -> CholeskyExResult:  # noqa: N803
    """``(L, info)``: :func:`~.linalg.cholesky` of each matrix (from its lower triangle, or
    its upper one with ``upper=True``), and ``info`` the order of the first leading minor that
    is not positive definite (0: it factored; ``L`` is NaN where it did not)."""
    a = _la._matrices("cholesky_ex", A, square=True)
    info = _cholesky_info(_la._mH(a) if upper else a)
    if check_errors:
        _failure.raise_first("linalg.cholesky_ex", info, _failure.not_definite)
    factor = _lad.around_failures(a, info, lambda m: _la.cholesky(m, upper=upper))
    return _linalg_cholesky_ex(factor, _info_tensor(info, a))


def lu_factor_ex(A: Any, *, pivot: bool = True, check_errors: bool = False) -> LUFactorExResult:  # noqa: N803
    """``(LU, pivots, info)``: :func:`~.linalg_derived.lu_factor`'s factorization, which
    completes for a singular matrix too, and ``info`` its first zero pivot ``U[k, k]``
    (1-based; 0 if none).  ``pivot=False`` with an exactly zero pivot is still a
    ``LinAlgError`` (the factorization cannot go on without a swap)."""
    a = as_tensor(A)
    packed, pivots = _lad.lu_factor_ex_parts(a, pivot, "lu_factor_ex")
    info = _lad.first_zero_pivot(packed)
    if check_errors:
        _failure.raise_first("linalg.lu_factor_ex", info, lambda k: f"U[{k},{k}] is zero")
    return _linalg_lu_factor_ex(packed, pivots, _info_tensor(info, packed))
