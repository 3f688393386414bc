"""The symmetric indefinite factorization ``P^T A P = L D L^T`` (Bunch-Kaufman), and its derivative.

``A`` is symmetric and given by its lower triangle (the upper one is not read).  ``D`` is block
diagonal with 1x1 and 2x2 blocks, ``L`` unit lower triangular with zeros inside each 2x2
block, and ``P`` a permutation chosen column by column so that the multipliers stay bounded
(LAPACK's ``sytrf``; PyTorch's ``linalg.ldl_factor``).  Neither NumPy nor CuPy has it, so
:func:`bunch_kaufman` is LAPACK's unblocked ``dsytf2`` (``uplo="L"``) transcribed into host
NumPy, one matrix at a time: the pivot choice branches on each matrix's values, so the
matrices of a batch take different paths (2x2 blocks start at different columns) and do not
share one vectorized loop.  Each step's row updates are vectorized.  A complex matrix is
complex symmetric (``A^T = A``, ``zsytf2``): the same steps, with sizes compared as
``|re| + |im|``; every step is holomorphic, so the derivative below holds as written.

LAPACK stores ``L`` unpermuted: the row swap of step ``k`` is applied to the columns not yet
factored only, ``L = P1 L1 P2 L2 ...``.  The op works with the *fully swapped* ``L``
instead (each later swap applied to the rows of the earlier columns too, as ``getrf`` does),
for which the factorization is plainly ``A[perm][:, perm] = L D L^T``; moving between the two
is a fixed gather of rows per column (``linalg.ldl_factor`` does it, differentiably).

The op's output is ``(..., n + 3, n)``: rows ``:n`` are ``L`` below the diagonal and ``D``'s lower
part (its diagonal and the subdiagonal entry of each 2x2 block) packed in one lower
triangular matrix; row ``n`` is ``perm``, row ``n + 1`` marks the 2x2 blocks (1 in column ``j``
where ``D[j + 1, j]`` is a block's entry), row ``n + 2`` is LAPACK's ``ipiv`` (1-based, negative
for a 2x2 block).  The three extra rows are piecewise constant: their cotangents are ignored.

Derivative (``D`` non-singular, the pivots fixed): write ``A' = A[perm][:, perm]`` and
``M = L^-1 dA' L^-T`` (symmetric).  From ``dA' = dL D L^T + L dD L^T + L D dL^T`` with ``dL``
strictly *block* lower (zero on ``L``'s structural zeros) and ``dD`` block diagonal:
``dD = blockdiag(M)`` and ``dL = L lower(M) D^-1``, ``lower`` keeping the entries where ``L``
has unknowns.  Transposed: ``Abar' = L^-T (lower(L^T Lbar D^-1) + Dbar) L^-1``, permuted back
and folded onto the lower triangle that was read.  Written with ``xp`` functions, so under
``create_graph`` the backward is a graph: second derivatives come for free.
"""

from __future__ import annotations

import math
from typing import Any

from ..backend import host_numpy as np
from .base import Op

#: Bunch and Kaufman's threshold (1 + sqrt(17)) / 8: it minimizes the bound on element growth.
ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


def _size(x: Any) -> Any:
    """The magnitude the pivot search compares: ``|x|``, for a complex number LAPACK's cheap
    ``cabs1 = |re| + |im|`` (``zsytf2``, ``izamax``)."""
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def _idamax(x: Any) -> int:
    """BLAS's ``idamax``: the first index of the largest size; a NaN is never larger (the
    reference BLAS compares with ``>``), so it wins only in the first place."""
    v = _size(x)
    if v.size == 0 or np.isnan(v[0]):
        return 0
    return int(np.argmax(np.where(np.isnan(v), -1.0, v)))


def _choose_pivot(w: Any, k: int) -> tuple[int, int, bool]:
    """``(kstep, kp, zero)`` for step ``k``: a 1x1 (``kstep = 1``) or 2x2 block, the row ``kp``
    to swap in (0-based), and whether the column is exactly zero (or NaN): LAPACK's ``info``."""
    n = w.shape[0]
    absakk = _size(w[k, k])
    imax, colmax = k, 0.0
    if k < n - 1:
        imax = k + 1 + _idamax(w[k + 1:, k])
        colmax = _size(w[imax, k])
    if max(absakk, colmax) == 0 or np.isnan(absakk):
        return 1, k, True
    if absakk >= ALPHA * colmax:
        return 1, k, False
    row = w[imax, k:imax]  # the largest off-diagonal entry in row (and column) imax
    rowmax = _size(row[_idamax(row)])
    if imax < n - 1:
        below = w[imax + 1:, imax]
        rowmax = max(rowmax, _size(below[_idamax(below)]))
    if absakk >= ALPHA * colmax * (colmax / rowmax):
        return 1, k, False
    if _size(w[imax, imax]) >= ALPHA * rowmax:
        return 1, imax, False
    return 2, imax, False


def _symmetric_swap(w: Any, k: int, i: int, j: int) -> None:
    """Swap rows and columns ``i`` and ``j`` of the trailing block ``w[k:, k:]`` (in place)."""
    order = np.arange(k, w.shape[0])
    order[[i - k, j - k]] = order[[j - k, i - k]]
    w[k:, k:] = w[np.ix_(order, order)]


def _eliminate(w: Any, k: int, kstep: int) -> None:
    """Store the block's ``L`` columns and subtract its rank-1 or rank-2 update from the trailing
    block, in LAPACK's order of operations (``dsyr``; ``dsytf2``'s 2x2 loop)."""
    s = k + kstep
    if s >= w.shape[0]:
        return
    if kstep == 1:
        d11 = 1 / w[k, k]
        x = w[s:, k].copy()
        trail = w[s:, s:] - x[:, None] * (d11 * x)[None, :]
        w[s:, k] = d11 * x
    else:
        d21 = w[k + 1, k]
        d11, d22 = w[k + 1, k + 1] / d21, w[k, k] / d21
        d21 = (1 / (d11 * d22 - 1)) / d21
        ck, ck1 = w[s:, k].copy(), w[s:, k + 1].copy()
        wk, wkp1 = d21 * (d11 * ck - ck1), d21 * (d22 * ck1 - ck)
        trail = w[s:, s:] - ck[:, None] * wk[None, :] - ck1[:, None] * wkp1[None, :]
        w[s:, k], w[s:, k + 1] = wk, wkp1
    # the lower triangle is the one computed (as LAPACK's); mirror it so the next swap reads it
    w[s:, s:] = np.tril(trail) + np.tril(trail, -1).T


def bunch_kaufman(a: Any) -> tuple[Any, Any, int]:
    """``(LD, ipiv, info)`` of one matrix from its lower triangle: LAPACK's ``dsytf2`` (lower),
    ``LD`` lower triangular, ``ipiv`` 1-based (``-kp`` twice for a 2x2 block), ``info`` the first
    1-based column found exactly zero (0 if none)."""
    n = a.shape[-1]
    w = np.tril(a) + np.tril(a, -1).T
    ipiv = np.zeros(n, dtype=np.int64)
    info, k = 0, 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while k < n:
            kstep, kp, zero = _choose_pivot(w, k)
            if zero:
                info = info or k + 1
            else:
                kk = k + kstep - 1
                if kp != kk:
                    _symmetric_swap(w, k, kk, kp)
                _eliminate(w, k, kstep)
            ipiv[k:k + kstep] = kp + 1 if kstep == 1 else -(kp + 1)
            k += kstep
    return np.tril(w), ipiv, info


def steps(ipiv: Any) -> list[tuple[int, int, int]]:
    """``(k, kk, kp)`` for each block of LAPACK's ``ipiv`` (0-based): the block starts at ``k``,
    and rows ``kk`` (its last row) and ``kp`` were swapped before it was eliminated."""
    out, k, n = [], 0, len(ipiv)
    while k < n:
        if ipiv[k] > 0:
            out.append((k, k, int(ipiv[k]) - 1))
            k += 1
        else:
            out.append((k, k + 1, -int(ipiv[k]) - 1))
            k += 2
    return out


def swapped_rows(ipiv: Any, to_lapack: bool) -> Any:
    """``rows`` (n, n) with ``swapped[:, j] = lapack[rows[:, j], j]`` (``to_lapack=False``), or the
    inverse: each step's swap applied to the rows of the columns before it."""
    n = len(ipiv)
    rows = np.broadcast_to(np.arange(n)[:, None], (n, n)).copy()
    order = steps(ipiv)
    for k, kk, kp in (reversed(order) if to_lapack else order):
        rows[[kk, kp], :k] = rows[[kp, kk], :k]
    return rows


def permutation(ipiv: Any) -> tuple[Any, Any]:
    """``(perm, marks)`` of one factorization: ``A[perm][:, perm] = L D L^T`` with the fully
    swapped ``L``, and 1 at each column ``j`` where ``D[j + 1, j]`` is a 2x2 block's entry."""
    n = len(ipiv)
    perm, marks = np.arange(n), np.zeros(n)
    for k, kk, kp in steps(ipiv):
        perm[[kk, kp]] = perm[[kp, kk]]
        if kk != k:
            marks[k] = 1
    return perm, marks


def _mT(xp: Any, a: Any) -> Any:
    return xp.swapaxes(a, -1, -2)


def _permute(xp: Any, a: Any, order: Any) -> Any:
    """``a[..., order, :][..., :, order]`` with a batched ``order`` (as numbers)."""
    idx = xp.real(order).astype(xp.int64)
    rows = xp.take_along_axis(a, xp.broadcast_to(idx[..., :, None], a.shape), axis=-2)
    return xp.take_along_axis(rows, xp.broadcast_to(idx[..., None, :], a.shape), axis=-1)


def _parts(xp: Any, out: Any) -> tuple[Any, Any, Any, Any, Any]:
    """``L`` (unit), ``D`` (symmetric), the masks of ``L``'s unknowns and of ``D``'s stored
    entries, and ``perm``, from the op's output."""
    n = out.shape[-1]
    packed, perm, marks = out[..., :n, :], out[..., n, :], out[..., n + 1, :]
    ones, eye = xp.ones((n, n), dtype=out.dtype), xp.eye(n, dtype=out.dtype)
    block = xp.tril(xp.triu(marks[..., None, :] * ones, -1), -1)  # (j + 1, j) inside a 2x2 block
    unknown = xp.tril(ones, -1) - block
    low = packed * unknown + eye
    d = packed * (eye + block) + _mT(xp, packed * block)
    return low, d, unknown, eye + block, perm


def _right_solve(xp: Any, x: Any, d: Any) -> Any:
    """``x D^-1`` for a symmetric ``D``."""
    return _mT(xp, xp.linalg.solve(d, _mT(xp, x)))


class LdlFactor(Op):
    """``A[perm][:, perm] = L D L^T`` (Bunch-Kaufman) from ``A``'s lower triangle:
    ``(..., n + 3, n)``, rows ``:n`` the packed ``L\\D``, then ``perm``, the 2x2-block marks and
    LAPACK's ``ipiv``."""

    save_inputs = False
    save_output = True

    def forward(self, xp, a):
        n = a.shape[-1]
        host = xp.to_host(a)
        flat = host.reshape((-1, n, n)) if host.size else host.reshape((0, n, n))
        out = np.zeros((flat.shape[0], n + 3, n), dtype=host.dtype)
        for b, mat in enumerate(flat):
            ld, ipiv, _ = bunch_kaufman(mat)
            out[b, :n] = np.take_along_axis(ld, swapped_rows(ipiv, to_lapack=False), axis=0)
            out[b, n], out[b, n + 1] = permutation(ipiv)
            out[b, n + 2] = ipiv
        return xp.asarray(out.reshape(a.shape[:-2] + (n + 3, n)))

    def backward(self, xp, g, out, a):
        low, d, unknown, stored, perm = _parts(xp, out)
        n = out.shape[-1]
        g = g[..., :n, :]
        psi = unknown * _right_solve(xp, xp.matmul(_mT(xp, low), g * unknown), d) + g * stored
        z = xp.linalg.solve(_mT(xp, low), psi)  # L^-T psi
        z = _mT(xp, xp.linalg.solve(_mT(xp, low), _mT(xp, z)))  # ... L^-1
        y = _permute(xp, z, xp.argsort(xp.real(perm), axis=-1))  # back to A's order
        return xp.tril(y) + xp.tril(_mT(xp, y), -1)  # A's lower triangle stands for both

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        low, d, unknown, stored, perm = _parts(xp, out)
        n = out.shape[-1]
        m = _permute(xp, xp.tril(t) + _mT(xp, xp.tril(t, -1)), perm)  # dA'
        m = xp.linalg.solve(low, m)
        m = _mT(xp, xp.linalg.solve(low, _mT(xp, m)))  # L^-1 dA' L^-T
        dl = xp.matmul(low, _right_solve(xp, m * unknown, d))
        dout = dl * unknown + m * stored
        return xp.concatenate([dout, xp.zeros(dout.shape[:-2] + (3, n), dtype=dout.dtype)], axis=-2)

    def reference(self, np, a):
        n = a.shape[-1]
        flat = np.asarray(a).reshape((-1, n, n)) if a.size else np.zeros((0, n, n), a.dtype)
        outs = [_reference_one(np, m) for m in flat]
        return np.asarray(outs, dtype=a.dtype).reshape(a.shape[:-2] + (n + 3, n))


def _reference_one(np: Any, a: Any) -> Any:
    """The same factorization with LAPACK's index loops written out, element by element, and
    every swap applied to whole rows (so ``L`` comes out fully swapped directly)."""
    n = a.shape[0]
    w = [[a[max(i, j), min(i, j)] for j in range(n)] for i in range(n)]
    perm, marks, ipiv, k = list(range(n)), [0.0] * n, [0.0] * n, 0
    while k < n:
        kstep, kp, zero = _choose_pivot(np.asarray(w), k)
        kk = k + kstep - 1
        if not zero and kp != kk:
            w[kk], w[kp] = w[kp], w[kk]
            for row in w[k:]:
                row[kk], row[kp] = row[kp], row[kk]
            perm[kk], perm[kp] = perm[kp], perm[kk]
        if not zero and kstep == 1:
            for j in range(k + 1, n):
                for i in range(j, n):
                    w[i][j] = w[i][j] - w[i][k] * (w[j][k] / w[k][k])
                    w[j][i] = w[i][j]
            for i in range(k + 1, n):
                w[i][k] = w[i][k] / w[k][k]
        elif not zero:
            d = [[w[k][k], w[k + 1][k]], [w[k + 1][k], w[k + 1][k + 1]]]
            det = d[0][0] * d[1][1] - d[0][1] * d[1][0]
            for j in range(k + 2, n):  # row j of L's block: [w_jk, w_jk1] D^-1
                wk = (w[j][k] * d[1][1] - w[j][k + 1] * d[1][0]) / det
                wk1 = (w[j][k + 1] * d[0][0] - w[j][k] * d[0][1]) / det
                for i in range(j, n):
                    w[i][j] = w[i][j] - w[i][k] * wk - w[i][k + 1] * wk1
                    w[j][i] = w[i][j]
                w[j][k], w[j][k + 1] = wk, wk1
            marks[k] = 1.0
        ipiv[k:k + kstep] = [float(kp + 1 if kstep == 1 else -(kp + 1))] * kstep
        k += kstep
    packed = [[w[i][j] if j <= i else 0.0 for j in range(n)] for i in range(n)]
    return packed + [[float(p) for p in perm], marks, ipiv]
