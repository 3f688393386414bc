"""A matrix a factorization cannot take: PyTorch's error for it, LAPACK's ``info`` per matrix
and PyTorch's message.

``LinAlgError`` is PyTorch's ``torch.linalg.LinAlgError`` -- a ``RuntimeError`` -- and NumPy's
``numpy.linalg.LinAlgError`` (a ``ValueError``) at once, so code written against either catches
it.  ``inv``, ``solve`` and ``cholesky`` of a singular or not positive-definite matrix raise it
with PyTorch's words (``svd``, ``pinv`` and what is built on them, of a matrix with a NaN or an
infinity), the ``_ex`` functions with ``check_errors=True`` too::

    linalg.inv: (Batch element 1): The diagonal element 2 is zero, the inversion could not be
    completed because the input matrix is singular.

The ``info`` of a matrix is LAPACK's: the 1-based column of the first exactly-zero pivot of LU
with partial pivoting (``getrf``), or the order of the first leading minor that is not positive
definite (``potrf``), or 1 for a matrix with a non-finite entry, which no SVD takes; 0 where the
factorization succeeds.
"""

from __future__ import annotations

import math
from typing import Any

from ..backend import host_numpy


class LinAlgError(host_numpy.linalg.LinAlgError, RuntimeError):
    """PyTorch's ``torch.linalg.LinAlgError`` (a ``RuntimeError``), also NumPy's ``LinAlgError``."""


def per_matrix(host: Any, failure: Any) -> Any:
    """``failure(m)`` of each matrix of a host stack, as int32 of the batch's shape."""
    # the count, not -1: a stack of 0 x 0 matrices has size 0, from which -1 cannot be inferred
    flat = host.reshape((math.prod(host.shape[:-2]),) + host.shape[-2:])
    return host_numpy.array([failure(m) for m in flat], dtype=host_numpy.int32).reshape(host.shape[:-2])


def getrf_failure(m: Any) -> int:
    """``getrf``'s info for one matrix: Gaussian elimination with partial pivoting (the largest
    modulus in the column), the first 1-based column whose pivot is exactly 0, else 0."""
    u = m.copy()
    n = u.shape[-1]
    first = 0
    for j in range(n):
        p = j + int(host_numpy.argmax(host_numpy.abs(u[j:, j])))
        if u[p, j] == 0:
            first = first or j + 1  # LAPACK goes on (the column is already eliminated)
            continue
        u[[j, p]] = u[[p, j]]
        u[j + 1:, j:] -= host_numpy.outer(u[j + 1:, j] / u[j, j], u[j, j:])
    return first


def cholesky_failure(m: Any) -> int:
    """``potrf``'s info for one Hermitian matrix (its lower triangle): the order of the first
    leading minor whose pivot ``a[j, j] - |L[j, :j]|^2`` is not positive (NaN included)."""
    return potrf(m)[1]


def potrf(m: Any) -> tuple[Any, int]:
    """``(L, info)`` for one Hermitian host matrix (its lower triangle), by the column recurrence
    of LAPACK's unblocked ``potf2``: ``L`` complete where ``info`` is 0."""
    n = m.shape[-1]
    low = host_numpy.zeros_like(m)
    for j in range(n):
        pivot = (m[j, j] - host_numpy.vdot(low[j, :j], low[j, :j])).real
        if not pivot > 0:
            return low, j + 1
        low[j, j] = math.sqrt(pivot)
        low[j + 1:, j] = (m[j + 1:, j] - low[j + 1:, :j] @ low[j, :j].conj()) / low[j, j]
    return low, 0


def cholesky_at_the_edge(lower: Any) -> Any:
    """The lower Cholesky factors of a host stack that NumPy's ``cholesky`` refused: each matrix
    that ``potrf`` factors (a last pivot a few ulps above 0, which LAPACK builds round to either
    side -- PyTorch's MKL factors it where NumPy's OpenBLAS may not), NumPy's ``LinAlgError`` if
    any matrix is not positive definite by that recurrence either."""
    flat = lower.reshape((math.prod(lower.shape[:-2]),) + lower.shape[-2:])
    factors = []
    for m in flat:
        try:
            factors.append(host_numpy.linalg.cholesky(m))
        except host_numpy.linalg.LinAlgError:
            low, info = potrf(m)
            if info:
                raise
            factors.append(low)
    return host_numpy.stack(factors).reshape(lower.shape)  # (an empty batch never reaches here: NumPy took it)


def non_finite(m: Any) -> int:
    """1 where a matrix holds an infinity or a NaN (no SVD of it converges), else 0."""
    return int(not host_numpy.isfinite(m).all())


def gels_failure(m: Any) -> int:
    """``gels``'s info for one matrix: the 1-based index of the first exactly-zero diagonal entry of
    the triangle of its QR factorization (LQ where it is wide, the QR of its conjugate transpose),
    else 0.  A zero column (a zero row of a wide matrix) stays zero under Householder reflections,
    so it gives that exact 0; LAPACK's ``gels`` then refuses instead of dividing by it.  An
    all-zero matrix is 0: ``gels`` returns the zero solution for it before factoring."""
    if not m.any():
        return 0
    r = host_numpy.linalg.qr(m if m.shape[-2] >= m.shape[-1] else m.conj().T, mode="r")
    zeros = host_numpy.flatnonzero(host_numpy.diagonal(r) == 0)
    return int(zeros[0]) + 1 if zeros.size else 0


def raise_first(name: str, info: Any, what: Any) -> None:
    """Raise ``LinAlgError`` for the first matrix whose ``info`` is not 0, in PyTorch's words:
    ``name: (Batch element b): what(info)`` (no batch element for a single matrix)."""
    if info.any():
        flat = info.reshape(-1)
        b = int(host_numpy.flatnonzero(flat)[0])
        where = f"(Batch element {b}): " if info.ndim else ""
        raise LinAlgError(f"{name}: {where}{what(int(flat[b]))}")


def singular(k: int) -> str:
    return (f"The diagonal element {k} is zero, the inversion could not be completed because the input "
            f"matrix is singular.")


def solver_singular(k: int) -> str:
    return "The solver failed because the input matrix is singular."


def not_full_rank(k: int) -> str:
    return (f"The least squares solution could not be computed because the input matrix does not have full "
            f"rank (error code: {k}).")


def svd_not_converged(k: int) -> str:
    return "The algorithm failed to converge because the input matrix contained non-finite values."


def not_definite(k: int) -> str:
    return (f"The factorization could not be completed because the input is not positive-definite (the "
            f"leading minor of order {k} is not positive-definite).")
