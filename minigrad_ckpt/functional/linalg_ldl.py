"""``linalg.ldl_factor``, ``ldl_factor_ex`` and ``ldl_solve``: the symmetric indefinite
factorization ``A = P L D L^T P^T`` (Bunch-Kaufman) in LAPACK's compact format, as PyTorch
returns it, and the solve that reads it.

The factorization itself is the :class:`~minigrad_ckpt.ops.ldl.LdlFactor` op (LAPACK's
``dsytf2``, transcribed to host NumPy).  The op keeps ``L`` *fully swapped*; LAPACK's ``LD``
keeps each column as it was computed, before the later row swaps.  Moving between the two is
a gather of rows per column (host index arrays from the pivots), so both functions are
differentiable: ``ldl_factor`` in ``A`` (through the op) and ``ldl_solve`` in ``LD`` and ``B``
(triangular and block-diagonal solves).  PyTorch differentiates neither.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..backend import host_numpy
from ..ops import ldl as _ldl
from ..ops.linalg_failure import LinAlgError
from ..tape import apply
from ..tensor import Tensor
from . import linalg as _la
from . import math as mf
from .arguments import as_tensor
from .errors import InputMismatch
from .indexing import take_along_axis_in_range
from .return_types import return_type


class LDLFactorResult(NamedTuple):
    LD: Tensor
    pivots: Tensor


class LDLFactorExResult(NamedTuple):
    LD: Tensor
    pivots: Tensor
    info: Tensor


# torch.return_types' classes of these answers
_linalg_ldl_factor = return_type(LDLFactorResult, "linalg_ldl_factor")
_linalg_ldl_factor_ex = return_type(LDLFactorExResult, "linalg_ldl_factor_ex")


def _check_matrices(name: str, a: Tensor, hermitian: bool, what: str = "A") -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise InputMismatch(f"linalg.{name}: {what} must be square matrices, got shape {a.shape}")
    if a.dtype.kind == "c" and hermitian:
        raise NotImplementedError(f"linalg.{name}: hermitian=True with complex matrices (LAPACK's hetrf) is not "
                                  f"supported; complex symmetric ones (hermitian=False) and real ones are")
    _la.floating_only(f"torch.linalg.{name}", a)
    _la.refuse_half(f"linalg.{name}", a)


def _constant(values: Any, like: Tensor) -> Tensor:
    """Host ``values`` (index arrays, masks) as a constant on ``like``'s device."""
    return Tensor.constant(like.device.xp.asarray(values), like.device)


def _mask(values: Any, like: Tensor) -> Tensor:
    """A host 0/1 mask as a constant of ``like``'s dtype and device."""
    return _constant(values.astype(like.dtype), like)


def _per_matrix(pivots: Any, fn: Any) -> tuple[Any, ...]:
    """``fn(ipiv)`` (a tuple of host arrays) of each matrix's pivots, each stacked to the batch shape."""
    n = pivots.shape[-1]
    flat = pivots.reshape((-1, n)) if pivots.size else pivots.reshape((0, n))
    # an empty batch still needs the results' shapes: take them from the pivots that swap nothing
    results = [fn(p) for p in flat] or [fn(host_numpy.arange(1, n + 1))]
    return tuple(host_numpy.asarray(part)[:len(flat)].reshape(pivots.shape[:-1] + part[0].shape)
                 for part in zip(*results))


def _info(pivots: Any, diagonal: Any) -> Any:
    """LAPACK's ``info``: the first 1-based ``k`` whose 1x1 block ``D[k, k]`` is exactly 0 or NaN (0 if
    none).  Bunch-Kaufman takes a zero (or NaN) 1x1 pivot only where the whole remaining column
    is zero (or the pivot NaN), which is exactly where ``dsytf2`` sets ``info``."""
    bad = (pivots > 0) & ((diagonal == 0) | host_numpy.isnan(diagonal))
    n = bad.shape[-1]
    first = host_numpy.where(bad, host_numpy.arange(1, n + 1), n + 1).min(axis=-1, initial=n + 1)
    return host_numpy.where(first > n, 0, first).astype(host_numpy.int32)


def ldl_factor_ex(A: Any, *, hermitian: bool = False, check_errors: bool = False) -> LDLFactorExResult:  # noqa: N803
    """``(LD, pivots, info)``: LAPACK's ``sytrf`` (lower, Bunch-Kaufman) of each symmetric
    matrix, read from its lower triangle.  ``LD`` holds ``L`` below the diagonal (as LAPACK
    stores it: each column before the later row swaps) and ``D`` on it (a 2x2 block's
    off-diagonal entry below the diagonal); the upper triangle is 0.  ``pivots`` (int32): a
    positive ``p`` at ``k`` is a 1x1 block after swapping rows/columns ``k`` and ``p - 1``; ``-p``
    at ``k`` and ``k + 1`` is a 2x2 block after swapping ``k + 1`` and ``p - 1``.  ``info``
    (int32) is the first 1-based ``k`` with ``D[k, k]`` exactly zero (singular ``D``), else 0;
    ``check_errors=True`` raises ``LinAlgError`` then.  A complex ``A`` is complex symmetric
    (``A^T = A``, LAPACK's ``zsytrf``; ``hermitian=True``, ``zhetrf``, is not supported); for a
    real one ``hermitian`` changes nothing.  Differentiable in ``A`` where ``D`` is non-singular."""
    a = as_tensor(A)
    _check_matrices("ldl_factor_ex", a, hermitian)
    n = a.shape[-1]
    packed = apply(_ldl.LdlFactor(), a)
    xp = packed.device.xp
    host = host_numpy.asarray(xp.to_host(packed._data))
    pivots = host[..., n + 2, :].real.astype(host_numpy.int32)
    (rows,) = _per_matrix(pivots, lambda p: (_ldl.swapped_rows(p, to_lapack=True),))
    ld = take_along_axis_in_range(packed[..., :n, :], _constant(rows, packed), axis=-2)
    info = _info(pivots, host_numpy.diagonal(host[..., :n, :], axis1=-2, axis2=-1))
    if check_errors:
        _raise_on("ldl_factor_ex", info)
    return _linalg_ldl_factor_ex(ld, _constant(pivots, packed), _constant(info, packed))


def _raise_on(name: str, info: Any) -> None:
    if info.any():
        k = int(info[info > 0].reshape(-1)[0])
        raise LinAlgError(
            f"linalg.{name}: D is singular: its {k}-th diagonal entry is exactly zero (the factorization is "
            f"complete, but nothing can be solved with it; ldl_factor_ex returns it with info)")


def ldl_factor(A: Any, *, hermitian: bool = False) -> LDLFactorResult:  # noqa: N803
    """``(LD, pivots)`` as :func:`ldl_factor_ex`; a singular ``D`` is a ``LinAlgError``."""
    ld, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    _raise_on("ldl_factor", host_numpy.asarray(info.device.xp.to_host(info._data)))
    return _linalg_ldl_factor(ld, pivots)


def _check_pivots(pivots: Any) -> None:
    """Pivots LAPACK could have written: ``k < p <= n`` for 1x1 blocks (a swap looks down), equal
    negative pairs for 2x2 blocks."""
    n = pivots.shape[-1]
    flat = pivots.reshape((-1, n)) if pivots.size else pivots.reshape((0, n))
    for p in flat:
        k = 0
        while k < n:
            last = k + (p[k] < 0)
            if not (k < abs(int(p[k])) <= n) or (p[k] < 0 and (last >= n or p[last] != p[k] or -p[k] < last + 1)):
                raise ValueError(f"linalg.ldl_solve: pivots {p.tolist()} are not LAPACK sytrf's (at {k})")
            k = last + 1


def ldl_solve(LD: Any, pivots: Any, B: Any, *, hermitian: bool = False) -> Tensor:  # noqa: N803
    """``X`` with ``A X = B`` from :func:`ldl_factor`'s ``(LD, pivots)``: ``A = P L D L^T P^T``, so
    ``X = P L^-T D^-1 L^-1 P^T B`` (two unit triangular solves and a block-diagonal one), each
    differentiable in ``LD`` and ``B``.  ``B`` is ``(*, n, k)``; batch axes broadcast.  As in
    :func:`ldl_factor_ex`, a complex ``LD`` is complex symmetric (``hermitian=False``)."""
    ld = as_tensor(LD)
    _check_matrices("ldl_solve", ld, hermitian, "LD")
    b = as_tensor(B, ld)
    piv = host_numpy.asarray(as_tensor(pivots).device.xp.to_host(as_tensor(pivots)._data))
    n = ld.shape[-1]
    if piv.shape != ld.shape[:-1] or piv.dtype.kind not in "iu":
        raise InputMismatch(f"linalg.ldl_solve: LD {ld.shape} and pivots {piv.shape} ({piv.dtype}) do not fit")
    if b.ndim < 2 or b.shape[-2] != n:
        raise InputMismatch(f"linalg.ldl_solve: B must be (*, {n}, k), got shape {b.shape}")
    _check_pivots(piv)
    rows, perm, marks = _per_matrix(piv, lambda p: (_ldl.swapped_rows(p, to_lapack=False),) + _ldl.permutation(p))
    packed = take_along_axis_in_range(ld, _constant(rows, ld), axis=-2)  # L fully swapped, and D
    ones, eye = host_numpy.ones((n, n)), host_numpy.eye(n)
    block = host_numpy.tril(host_numpy.triu(marks[..., None, :] * ones, -1), -1)  # D's 2x2 entries below
    low = packed * _mask(host_numpy.tril(ones, -1) - block, ld) + _mask(eye, ld)
    d = packed * _mask(eye + block, ld) + mf.swapaxes(packed * _mask(block, ld), -1, -2)
    batch = host_numpy.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    low, d = mf.broadcast_to(low, batch + (n, n)), mf.broadcast_to(d, batch + (n, n))
    y = _la.solve(low, _take_rows(mf.broadcast_to(b, batch + b.shape[-2:]), perm))  # L^-1 P^T B (L is unit lower)
    y = _la.solve(mf.swapaxes(low, -1, -2), _la.solve(d, y))  # L^-T D^-1 ... (a transpose, not conjugate)
    return _take_rows(y, host_numpy.argsort(perm, axis=-1))


def _take_rows(x: Tensor, order: Any) -> Tensor:
    """``x[..., order, :]`` with a host ``order`` per matrix (its batch broadcast to ``x``'s)."""
    idx = host_numpy.broadcast_to(order[..., None], x.shape[:-2] + (order.shape[-1], x.shape[-1]))
    return take_along_axis_in_range(x, _constant(idx, x), axis=-2)
