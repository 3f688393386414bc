"""The LU factorization ``A = P L U`` of an ``m x n`` matrix, and its derivative.

NumPy has no LU, so the forward is Doolittle's elimination written with array-namespace
functions (a loop over the ``k = min(m, n)`` columns, batched over leading axes): at step
``k`` the row with the largest ``|a_ik|`` (``i >= k``, the first on ties, as LAPACK) is
swapped up (for complex numbers the largest ``|Re| + |Im|``, LAPACK's choice), the column
below the pivot divided by it (unless it is 0: a singular ``A`` keeps LAPACK's zero column of
``L``), and the trailing block updated.
``L`` is ``m x k`` (unit lower), ``U`` is ``k x n`` (upper).  With ``pivot=False`` no row is
swapped (plain Doolittle, ``P = I``); it exists only while every pivot it divides by is
non-zero, and an exact zero one is a ``LinAlgError`` (never a silent ``inf``).

The op returns ``L`` and ``U`` packed in one ``m x n`` matrix (``L``'s unit diagonal
implied, as LAPACK's ``getrf``) plus one more column: the permutation ``perm`` (as numbers)
with ``A[perm] = L U`` -- the tape stays one output per op, and that column's cotangent is
ignored.

Derivatives (full-rank ``A`` whose leading ``k x k`` block of ``P^T A`` is non-singular;
Walter & Lehmann for the square case).  Write ``P^T A = [A1; A2]`` (tall, ``m >= n``) or
``[A1, A2]`` (wide), ``A1`` square, so ``A1 = L1 U1`` is a square LU and the rest follows
from it.  With ``M = L1^-1 dA1 U1^-1``: ``dL1 = L1 tril(M, -1)``, ``dU1 = triu(M) U1``, and
tall: ``dL2 = dA2 U^-1 - L2 triu(M)``; wide: ``dU2 = L^-1 dA2 - tril(M, -1) U2``.
Transposed (the backward, as PyTorch's ``linalg_lu_backward``):

* tall: ``Abar1 = (Lbar1 + L1^-T triu(Ubar U^T - L^T Lbar)) U^-T``, ``Abar2 = Lbar2 U^-T``;
* wide: ``Abar1 = L^-T (tril(L^T Lbar - Ubar U^T, -1) U1^-T + Ubar1)``, ``Abar2 = L^-T Ubar2``;

(the square case is both), then ``Abar[perm] = [Abar1, Abar2]``.  The factorization is
holomorphic (rational in ``A`` for a fixed pivot order), so for complex matrices the engine's
conjugation around these real formulas gives the complex adjoint (``^T`` becomes ``^H``).  Written with ``xp``
functions, so under ``create_graph`` the backward is a graph: second derivatives come for
free.  The permutation is piecewise constant (no derivative).
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from .base import Op
from .linalg_failure import LinAlgError
from .matrix import substitute_right


def _mT(xp: Any, a: Any) -> Any:
    return xp.swapaxes(a, -1, -2)


def _factors(xp: Any, packed: Any) -> tuple[Any, Any, Any]:
    """``L`` (``m x k``, unit lower), ``U`` (``k x n``) and ``perm`` (as numbers) from the op's output."""
    m, n = packed.shape[-2], packed.shape[-1] - 1
    k = min(m, n)
    lu = packed[..., :n]
    low = xp.tril(lu[..., :, :k], -1) + xp.eye(m, k, dtype=packed.dtype)
    perm = packed[..., n]
    return low, xp.triu(lu[..., :k, :]), xp.real(perm) if packed.dtype.kind == "c" else perm


def _pivot_size(xp: Any, column: Any) -> Any:
    """What partial pivoting maximizes: ``|a|``, and for complex ``a`` LAPACK's ``|Re a| + |Im a|``
    (``izamax``), so the rows swapped are PyTorch's."""
    if column.dtype.kind == "c":
        return xp.abs(xp.real(column)) + xp.abs(xp.imag(column))
    return xp.abs(column)


def _rows(xp: Any, a: Any, order: Any) -> Any:
    """``a[..., order, :]`` with a batched ``order`` of row numbers (as floats or ints)."""
    idx = order.astype(xp.int64)
    return xp.take_along_axis(a, xp.broadcast_to(idx[..., :, None], a.shape), axis=-2)


def _right_solve(xp: Any, x: Any, u: Any, lower: bool = False) -> Any:
    """``x U^-1`` for a square triangular ``U`` (upper, or ``lower``); a zero on its diagonal (a
    singular matrix's factor) gives IEEE's inf and NaN, as PyTorch's triangular solves, not the
    general solve's ``LinAlgError``."""
    try:
        return _mT(xp, xp.linalg.solve(_mT(xp, u), _mT(xp, x)))
    except host_numpy.linalg.LinAlgError:
        return substitute_right(xp, x, u, lower)


def _check_pivots(xp: Any, lu: Any) -> None:
    """Unpivoted LU divides by ``U[j, j]`` for every ``j`` with rows below it: none may be 0."""
    m, n = lu.shape[-2:]
    used = xp.diagonal(lu, axis1=-2, axis2=-1)[..., :min(m - 1, n)]
    if used.size and bool(xp.scalar(xp.any(used == 0))):
        first = int(host_numpy.argmax(host_numpy.any(xp.to_host(used) == 0, axis=tuple(range(used.ndim - 1)))))
        raise LinAlgError(
            f"linalg.lu: the LU factorization without pivoting does not exist: pivot {first} is exactly zero "
            f"(a leading principal minor is singular); use pivot=True")


class LuFactor(Op):
    """``A = P L U`` (``P = I`` for ``pivot=False``): ``(..., m, n + 1)``, columns ``:n`` the packed
    ``L\\U``, column ``n`` the permutation ``perm`` with ``A[perm] = L U``."""

    pivot: bool = True

    save_inputs = False
    save_output = True

    def forward(self, xp, a):
        m, n = a.shape[-2:]
        lu = xp.asarray(a).copy()
        perm = xp.zeros(a.shape[:-2] + (m,), dtype=xp.int64) + xp.arange(m)
        with xp.errstate(divide="ignore", invalid="ignore"):
            for k in range(min(m, n)):
                if self.pivot:
                    p = xp.argmax(_pivot_size(xp, lu[..., k:, k]), axis=-1) + k  # (batch,)
                    order = xp.zeros(perm.shape, dtype=xp.int64) + xp.arange(m)
                    xp.put_along_axis(order, p[..., None], k, axis=-1)
                    xp.put_along_axis(order, xp.zeros(p.shape + (1,), dtype=xp.int64) + k, p[..., None], axis=-1)
                    lu = xp.take_along_axis(lu, order[..., :, None] + xp.zeros(lu.shape, dtype=xp.int64), axis=-2)
                    perm = xp.take_along_axis(perm, order, axis=-1)
                # a zero pivot (partial pivoting: the column below it is zero too) divides nothing, as
                # LAPACK's getrf: L's column stays 0, where 0 / 0 would fill it with NaN
                piv = lu[..., k:k + 1, k]
                lu[..., k + 1:, k] = lu[..., k + 1:, k] / xp.where(piv == 0, 1, piv)
                lu[..., k + 1:, k + 1:] = lu[..., k + 1:, k + 1:] - lu[..., k + 1:, k:k + 1] * lu[..., k:k + 1, k + 1:]
        if not self.pivot:
            _check_pivots(xp, lu)
        return xp.concatenate([lu, perm[..., :, None].astype(lu.dtype)], axis=-1)

    def backward(self, xp, g, out, a):
        low, up, perm = _factors(xp, out)
        m, n = low.shape[-2], up.shape[-1]
        k = min(m, n)
        gl, gu = xp.tril(g[..., :, :k], -1), xp.triu(g[..., :k, :n])
        if m >= n:  # tall (or square): U is k x k
            inner = xp.triu(xp.matmul(gu, _mT(xp, up)) - xp.matmul(_mT(xp, low), gl))
            top = gl[..., :k, :] + xp.linalg.solve(_mT(xp, low[..., :k, :]), inner)
            x = _right_solve(xp, xp.concatenate([top, gl[..., k:, :]], axis=-2), _mT(xp, up), lower=True)
        else:  # wide: L is k x k
            inner = xp.tril(xp.matmul(_mT(xp, low), gl) - xp.matmul(gu, _mT(xp, up)), -1)
            left = _right_solve(xp, inner, _mT(xp, up[..., :, :k]), lower=True) + gu[..., :, :k]
            x = xp.linalg.solve(_mT(xp, low), xp.concatenate([left, gu[..., :, k:]], axis=-1))
        return _rows(xp, x, xp.argsort(perm, axis=-1))  # Abar[perm] = x

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        low, up, perm = _factors(xp, out)
        m, n = low.shape[-2], up.shape[-1]
        k = min(m, n)
        tp = _rows(xp, t, perm)  # P^T dA
        low1, up1 = low[..., :k, :], up[..., :, :k]
        mid = _right_solve(xp, xp.linalg.solve(low1, tp[..., :k, :k]), up1)  # L1^-1 dA1 U1^-1
        d1 = xp.matmul(low1, xp.tril(mid, -1)) + xp.matmul(xp.triu(mid), up1)  # dL1 + dU1
        if m >= n:  # dL2 = dA2 U^-1 - L2 triu(M)
            d2 = _right_solve(xp, tp[..., k:, :], up) - xp.matmul(low[..., k:, :], xp.triu(mid))
            d = xp.concatenate([d1, d2], axis=-2)
        else:  # dU2 = L^-1 dA2 - tril(M, -1) U2
            d2 = xp.linalg.solve(low, tp[..., :, k:]) - xp.matmul(xp.tril(mid, -1), up[..., :, k:])
            d = xp.concatenate([d1, d2], axis=-1)
        return xp.concatenate([d, xp.zeros(d.shape[:-1] + (1,), dtype=d.dtype)], axis=-1)

    def reference(self, np, a):
        # one matrix at a time, plainly: pick the pivot, swap, eliminate
        m, n = a.shape[-2:]
        flat = np.asarray(a, dtype=np.complex128 if a.dtype.kind == "c" else np.float64).reshape(-1, m, n)
        outs = []
        for mat in flat:
            lu, perm = mat.copy(), np.arange(m)
            for k in range(min(m, n)):
                p = k + int(np.argmax(np.abs(lu[k:, k].real) + np.abs(lu[k:, k].imag))) if self.pivot else k
                lu[[k, p]], perm[[k, p]] = lu[[p, k]], perm[[p, k]]
                if lu[k, k] == 0 and not self.pivot and k < m - 1:
                    raise np.linalg.LinAlgError(f"pivot {k} is exactly zero")
                if lu[k, k] != 0:
                    lu[k + 1:, k] /= lu[k, k]
                lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
            outs.append(np.hstack([lu, perm[:, None].astype(lu.dtype)]))
        return np.asarray(outs).reshape(a.shape[:-2] + (m, n + 1)).astype(a.dtype)
