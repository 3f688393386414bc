"""The LU factorization with partial pivoting, ``A = P L U``, and its derivative.

NumPy has no LU, so the forward is Doolittle's elimination written with array-namespace
functions (a loop over the columns, batched over leading axes): at step ``k`` the row with
the largest ``|a_ik|`` (``i >= k``, the first on ties, as LAPACK) is swapped up, the
column below the pivot divided by it, and the trailing block updated.  The op returns
``L`` and ``U`` packed in one square matrix (``L``'s unit diagonal implied, as LAPACK's
``getrf``) plus one more row: the permutation ``perm`` (as numbers) with
``A[perm] = L U`` -- the tape stays one output per op, and the row's cotangent is ignored.

Derivatives (square, non-singular ``A``; Walter & Lehmann): with ``M = L^-1 dA[perm] U^-1``,
``dL = L tril(M, -1)`` and ``dU = triu(M) U``; the backward is
``Abar[perm] = L^-T (tril(L^T Lbar, -1) + triu(Ubar U^T)) U^-T``.  Written with ``xp``
functions, so under ``create_graph`` the backward is a graph: second derivatives come
for free.  The permutation is piecewise constant (no derivative).
"""

from __future__ import annotations

from typing import Any

from .base import Op


def _mT(xp: Any, a: Any) -> Any:
    return xp.swapaxes(a, -1, -2)


def _factors(xp: Any, packed: Any) -> tuple[Any, Any, Any]:
    """``L`` (unit lower), ``U`` and ``perm`` (as numbers) from the op's output."""
    n = packed.shape[-1]
    lu = packed[..., :n, :]
    ident = xp.eye(n, dtype=packed.dtype)
    return xp.tril(lu, -1) + ident, xp.triu(lu), packed[..., n, :]


def _rows(xp: Any, a: Any, order: Any) -> Any:
    """``a[..., order, :]`` with a batched ``order`` of row numbers (as floats or ints)."""
    idx = order.astype(xp.int64)
    return xp.take_along_axis(a, xp.broadcast_to(idx[..., :, None], a.shape), axis=-2)


class LuFactor(Op):
    """``A = P L U`` with partial pivoting: ``(..., n + 1, n)``, rows ``:n`` the packed ``L\\U``,
    row ``n`` the permutation ``perm`` with ``A[perm] = L U``."""

    save_inputs = False
    save_output = True

    def forward(self, xp, a):
        n = a.shape[-1]
        lu = xp.asarray(a).copy()
        perm = xp.zeros(a.shape[:-2] + (n,), dtype=xp.int64) + xp.arange(n)
        with xp.errstate(divide="ignore", invalid="ignore"):
            for k in range(n):
                p = xp.argmax(xp.abs(lu[..., k:, k]), axis=-1) + k  # (batch,)
                order = xp.zeros(perm.shape, dtype=xp.int64) + xp.arange(n)
                xp.put_along_axis(order, p[..., None], k, axis=-1)
                xp.put_along_axis(order, xp.zeros(p.shape + (1,), dtype=xp.int64) + k, p[..., None], axis=-1)
                lu = xp.take_along_axis(lu, order[..., :, None] + xp.zeros(lu.shape, dtype=xp.int64), axis=-2)
                perm = xp.take_along_axis(perm, order, axis=-1)
                lu[..., k + 1:, k] = lu[..., k + 1:, k] / lu[..., k:k + 1, k]
                lu[..., k + 1:, k + 1:] = lu[..., k + 1:, k + 1:] - lu[..., k + 1:, k:k + 1] * lu[..., k:k + 1, k + 1:]
        return xp.concatenate([lu, perm[..., None, :].astype(lu.dtype)], axis=-2)

    def backward(self, xp, g, out, a):
        low, up, perm = _factors(xp, out)
        n = out.shape[-1]
        gl, gu = xp.tril(g[..., :n, :], -1), xp.triu(g[..., :n, :])
        inner = xp.tril(xp.matmul(_mT(xp, low), gl), -1) + xp.triu(xp.matmul(gu, _mT(xp, up)))
        x = xp.linalg.solve(_mT(xp, low), inner)  # L^-T inner
        x = _mT(xp, xp.linalg.solve(up, _mT(xp, x)))  # ... U^-T
        return _rows(xp, x, xp.argsort(perm, axis=-1))  # Abar[perm] = x

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        low, up, perm = _factors(xp, out)
        m = xp.linalg.solve(low, _rows(xp, t, perm))  # L^-1 dA[perm]
        m = _mT(xp, xp.linalg.solve(_mT(xp, up), _mT(xp, m)))  # ... U^-1
        d = xp.matmul(low, xp.tril(m, -1)) + xp.matmul(xp.triu(m), up)
        return xp.concatenate([d, xp.zeros(d.shape[:-2] + (1, d.shape[-1]), dtype=d.dtype)], axis=-2)

    def reference(self, np, a):
        # one matrix at a time, plainly: pick the pivot, swap, eliminate
        n = a.shape[-1]
        flat = np.asarray(a, dtype=np.float64).reshape(-1, n, n)
        outs = []
        for m in flat:
            lu, perm = m.copy(), np.arange(n)
            for k in range(n):
                p = k + int(np.argmax(np.abs(lu[k:, k])))
                lu[[k, p]], perm[[k, p]] = lu[[p, k]], perm[[p, k]]
                if lu[k, k] != 0:
                    lu[k + 1:, k] /= lu[k, k]
                lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
            outs.append(np.vstack([lu, perm[None].astype(np.float64)]))
        return np.asarray(outs).reshape(a.shape[:-2] + (n + 1, n)).astype(a.dtype)
