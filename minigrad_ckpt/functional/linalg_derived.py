"""PyTorch's ``torch.linalg`` functions built on the others: ``vector_norm``, ``matrix_norm``,
``multi_dot``, ``vecdot``, ``cond``, ``matrix_rank``, ``cholesky_solve``,
``cholesky_inverse``, ``tensorsolve``, ``tensorinv``, ``householder_product`` -- and
``matrix_exp``, an op of its own (:mod:`minigrad_ckpt.ops.matrix_exp`).

Each is a composition of :mod:`.linalg`'s differentiable functions and the math, so
its derivatives (forward and reverse, any order) are theirs; ``mg.linalg`` is their
public address beside NumPy's names.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from ..backend import cpp_type_name, host_numpy
from ..grad_mode import no_grad
from ..ops import lu as _lu
from ..ops import matrix_exp as _expm
from ..ops.linalg_failure import LinAlgError, getrf_failure, per_matrix, raise_first, singular
from ..tape import apply
from ..tensor import Tensor
from . import linalg as _la
from . import math as mf
from . import products as _products
from . import torch_idioms as ti
from .arguments import as_tensor, normalize_axis, number, reduction_dims
from .complex_numbers import conj
from .errors import ArgumentTypeRefused, DtypeNotImplemented, InputMismatch, NeedsFloatingInput, RefusedArgument
from .indexing import take_along_axis_in_range
from .return_types import return_type


def vector_norm(x: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,  # noqa: A002
                dtype: Any = None) -> Tensor:
    """The ``ord``-norm of ``x`` over ``dim`` (all axes for None) as a vector: ``inf``, ``-inf``, 0 (a
    count) or any number ``p``, ``sum(|x|^p)^(1/p)``; ``dtype`` casts first (PyTorch's signature)."""
    ord = number("linalg.vector_norm", "ord", ord)  # noqa: A001
    x = _la.norm_input("linalg.vector_norm", as_tensor(x), dtype)
    if x.dtype.kind == "c":
        x = mf.abs(x)
    if isinstance(ord, str):
        raise ArgumentTypeRefused(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    # a 0-d x answers to dim 0 or -1 (PyTorch's wrapping), as if it had one dim; other dims are errors
    axes = normalize_axis(reduction_dims(dim), max(x.ndim, 1))
    if x.ndim == 0:
        x, axes = mf.reshape(x, (1,)), (0,)
        out = _la._vector(x, ord, axes, False)
        return mf.reshape(out, ()) if not keepdim else out
    return _la._vector(x, ord, axes, bool(keepdim))


def matrix_norm(a: Any, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,  # noqa: A002
                dtype: Any = None) -> Tensor:
    """The ``ord`` norm of each matrix over the axis pair ``dim``: ``'fro'``, ``'nuc'``, 1, -1, 2, -2,
    ``inf``, ``-inf`` (``linalg.norm``'s matrix norms, PyTorch's signature)."""
    ord = number("linalg.matrix_norm", "ord", ord)  # noqa: A001
    a = _la.norm_input("linalg.matrix_norm", as_tensor(a), dtype)
    if a.ndim < 2:
        raise InputMismatch(f"linalg.matrix_norm: expected a matrix or a stack of them, got shape {a.shape}")
    return _la.norm(a, ord, axis=tuple(dim), keepdims=keepdim)


def _chain_order(shapes: list[tuple[int, int]]) -> Any:
    """The cheapest parenthesization of a matrix chain (the textbook dynamic program)."""
    n = len(shapes)
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(tensors: Any) -> Tensor:
    """The product of a chain of matrices in the order of fewest multiplications; the first may
    be a 1-D row vector and the last a 1-D column vector (NumPy's and PyTorch's rule)."""
    ts = [as_tensor(t) for t in tensors]
    if len(ts) < 2:
        raise RefusedArgument(f"linalg.multi_dot: needs at least 2 tensors, got {len(ts)}")
    if ts[0].dtype.kind == "b":  # PyTorch has no bool matrix product (NumPy's would answer)
        raise DtypeNotImplemented("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    other = next((i for i, t in enumerate(ts) if t.dtype != ts[0].dtype), None)
    if other is not None:  # PyTorch's products compute in one dtype (NumPy's multi_dot promotes)
        raise InputMismatch(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                            f"{cpp_type_name(ts[0].dtype)} and tensor {other} {cpp_type_name(ts[other].dtype)}")
    first_vector, last_vector = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_vector:
        ts[0] = mf.reshape(ts[0], (1, -1))
    if last_vector:
        ts[-1] = mf.reshape(ts[-1], (-1, 1))
    if any(t.ndim != 2 for t in ts):
        raise InputMismatch(f"linalg.multi_dot: the inner tensors must be 2-D, got shapes {[t.shape for t in ts]}")
    for a, b in zip(ts, ts[1:]):
        if a.shape[1] != b.shape[0]:
            raise InputMismatch(f"linalg.multi_dot: shapes {a.shape} and {b.shape} do not chain")
    split = _chain_order([t.shape for t in ts])

    def product(i: int, j: int) -> Tensor:
        if i == j:
            return ts[i]
        k = split[i][j]
        return mf.matmul(product(i, k), product(k + 1, j))

    out = product(0, len(ts) - 1)
    if first_vector:
        out = mf.squeeze(out, 0)
    if last_vector:
        out = mf.squeeze(out, -1)
    return out


def vecdot(x: Any, y: Any, *, dim: int = -1) -> Tensor:
    """``sum(conj(x) * y)`` over ``dim``, the two broadcast together (two 0-d tensors: their product,
    ``dim`` 0 or -1 naming its one element, as PyTorch's)."""
    x = as_tensor(x)
    _la.floating_only("linalg.vecdot", x)
    _la.one_dtype("linalg.vecdot: Expected x and y to have the same dtype, but found x of type {first} and y of "
                  "type {second} instead", x, y)
    y = as_tensor(y, x)
    if x.dtype.kind == "c":
        x = conj(x)
    return ti.sum(x * y, dim=dim)


def cond(a: Any, p: Any = None) -> Tensor:
    """The condition number ``||A||_p ||A^-1||_p``: for ``p`` None/2 (-2) the ratio of the largest
    to the smallest singular value (its inverse); for ``'fro'``, ``'nuc'``, ``inf``, ``-inf``, 1, -1
    through the inverse (square ``A``; inf where it is singular).  0 for an empty matrix, as PyTorch."""
    p = number("linalg.cond", "p", p)
    a = as_tensor(a)
    if a.ndim < 2:
        raise InputMismatch(f"linalg.cond: expected a matrix or a stack of them, got shape {a.shape}")
    if p not in (None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1):
        raise RefusedArgument(f"linalg.cond: p must be None, 2, -2, 'fro', 'nuc', inf, -inf, 1 or -1, got {p!r}")
    _la.floating_only("linalg.svd" if p in (None, 2, -2, "nuc") else "linalg.inv", a)  # what PyTorch's computes
    if isinstance(p, str):  # PyTorch checks these for squareness first, the numbers after the empty case
        a = _la._matrices("cond", a, square=True)
    if a.size == 0:  # 0 for an empty stack, a 3 x 0 matrix's too (PyTorch's)
        real = mf.abs(a).dtype if a.dtype.kind == "c" else a.dtype
        return Tensor.constant(a.device.xp.zeros(a.shape[:-2], dtype=real), a.device)
    if p in (None, 2, -2, "nuc"):
        s = _la.svdvals(a)
        if p == "nuc":  # sum(s) * sum(1 / s): PyTorch's, defined where the inverse's norm is not
            return mf.sum(s, axis=-1) * mf.sum(1 / s, axis=-1)
        ratio = s[..., 0] / s[..., -1]
        return ratio if p != -2 else 1 / ratio
    a = _la._matrices("cond", a, square=True)
    # PyTorch's: a singular matrix's inverse is all inf (so its cond is inf, not an error), and a
    # NaN product (0 * inf, or of a NaN matrix) is inf
    r = matrix_norm(a, p) * matrix_norm(around_failures(a, lu_info(a), _la.inv, math.inf), p)
    return mf.where(mf.isnan(r), math.inf, r)


def matrix_rank(a: Any, tol: Any = None, hermitian: bool = False, *, atol: Any = None, rtol: Any = None) -> Tensor:
    """The number of singular values above ``max(atol, rtol * largest)`` per matrix (int64, no
    gradient).  Without either tolerance ``rtol = max(M, N) * eps``; with ``atol`` alone ``rtol`` is
    0 (PyTorch's rule); ``tol`` is the older name of ``atol``.  ``hermitian=True`` reads ``a``'s lower
    triangle alone, as PyTorch's (:func:`~.linalg.hermitian_from_lower`).  Positionally
    ``(a, tol, hermitian)``, as both NumPy's ``matrix_rank`` and PyTorch's older signature; ``atol`` and
    ``rtol`` by keyword, as PyTorch's."""
    a = as_tensor(a)
    if hermitian and a.ndim >= 2:
        a = _la.hermitian_from_lower("matrix_rank", a)
    if a.ndim < 2:
        raise InputMismatch(f"linalg.matrix_rank: expected a matrix or a stack of them, got shape {a.shape}")
    _la.floating_only("linalg.matrix_rank", a)
    _la.refuse_half("linalg.matrix_rank", a)
    if tol is not None:
        atol, rtol = tol, 0.0
    if rtol is None:
        rtol = _la._default_rtol(a) if atol is None else 0.0
    s = _la.svdvals(a).detach()
    largest = mf.max(s, axis=-1, keepdims=True) if s.shape[-1] else s
    # a tensor tolerance is one per matrix: a trailing axis lines it up with ``largest`` (..., 1)
    rtol, atol = (mf.expand_dims(t, -1) if _la.per_matrix(t) else t for t in (rtol, 0.0 if atol is None else atol))
    bound = mf.maximum(largest * (rtol if _la.per_matrix(rtol) else float(rtol)), atol)
    return mf.astype(mf.sum(mf.astype(s > bound, "int64"), axis=-1), "int64")


def cholesky_solve(b: Any, factor: Any, upper: bool = False) -> Tensor:
    """``X`` with ``A X = B`` for ``A = L L^H`` given its Cholesky factor ``L`` (``U^H U`` with
    ``upper=True``; ``^H`` the conjugate transpose, ``^T`` for real matrices): two triangular
    solves; only that triangle of ``factor`` is read."""
    f = as_tensor(factor)
    # PyTorch checks the dtypes before either's kind
    _la.one_dtype("Expected b and A to have the same dtype, but found b of type {second} and A of type {first} "
                  "instead.", f, b)
    b = as_tensor(b, f)
    _la.floating_only("cholesky_solve", f)
    _la.floating_only("cholesky_solve", b)
    y = _la.solve_triangular(f, b, trans="C" if upper else "N", lower=not upper)
    return _la.solve_triangular(f, y, trans="N" if upper else "C", lower=not upper)


def cholesky_inverse(factor: Any, upper: bool = False) -> Tensor:
    """``A^-1`` for ``A = L L^H`` (``U^H U`` with ``upper=True``) from the Cholesky factor."""
    f = as_tensor(factor)
    if f.ndim < 2 or f.shape[-1] != f.shape[-2]:
        raise InputMismatch(f"cholesky_inverse: expected square matrices, got shape {f.shape}")
    _la.floating_only("cholesky_inverse", f)
    _refuse_a_zero_pivot("cholesky_inverse", f)
    ident = mf.eye(f.shape[-1], dtype=f.dtype, device=f.device)
    return cholesky_solve(mf.broadcast_to(ident, f.shape), f, upper)


def _refuse_a_zero_pivot(name: str, factor: Tensor) -> None:
    """PyTorch's ``LinAlgError`` (LAPACK's ``potri``) for a triangular factor with a zero on its
    diagonal: the inverse it stands for does not exist.  (A triangular solve by it answers
    IEEE's inf and NaN instead, as PyTorch's.)"""
    if not factor.size:
        return
    zero = host_numpy.diagonal(factor.detach().cpu().numpy(), axis1=-2, axis2=-1) == 0
    info = host_numpy.where(zero.any(axis=-1), zero.argmax(axis=-1) + 1, 0)
    raise_first(name, info, singular)


def tensorsolve(a: Any, b: Any, dims: Any = None) -> Tensor:
    """``x`` with ``tensordot(a, x, x.ndim) == b`` (NumPy's ``tensorsolve``): ``a``'s leading axes
    match ``b``, the rest are ``x``'s; ``dims`` moves those axes of ``a`` to the end first."""
    a = as_tensor(a)
    b = as_tensor(b, a)
    if dims is not None:
        src = normalize_axis(dims, a.ndim)
        a = mf.moveaxis(a, src, tuple(range(a.ndim - len(src), a.ndim)))
    x_shape = a.shape[b.ndim:]
    n = int(host_numpy.prod(x_shape))
    # only the sizes must agree, as PyTorch's and NumPy's: a's leading axes are read as b's elements in
    # order, whatever their shape (a (3, 2, 6) with a b of (2, 3))
    rows = int(host_numpy.prod(a.shape[:b.ndim]))
    if rows != n:
        raise InputMismatch(f"linalg.tensorsolve: Expected self to satisfy the requirement "
                            f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got {n} != {rows}")
    if int(host_numpy.prod(b.shape)) != n:
        raise InputMismatch(f"linalg.tensorsolve: a of shape {a.shape} does not fit b of shape {b.shape} "
                            f"({n} equations, {int(host_numpy.prod(b.shape))} right-hand values)")
    x = _la.solve(mf.reshape(a, (n, n)), mf.reshape(b, (n,)))
    return mf.reshape(x, x_shape)


def tensorinv(a: Any, ind: int = 2) -> Tensor:
    """The inverse of ``a`` as a map from its last axes to its first ``ind`` (NumPy's ``tensorinv``):
    ``tensordot(tensorinv(a), a, ind)`` is the identity of shape ``a.shape[ind:] * 2``."""
    a = as_tensor(a)
    if ind < 1:
        raise RefusedArgument(f"linalg.tensorinv: ind must be a positive int, got {ind}")
    front, back = a.shape[:ind], a.shape[ind:]
    n = int(host_numpy.prod(front))
    if n != int(host_numpy.prod(back)):
        raise RefusedArgument(f"linalg.tensorinv: the first {ind} axes of shape {a.shape} and the rest differ in size")
    return mf.reshape(_la.inv(mf.reshape(a, (n, n))), back + front)


def householder_product(a: Any, tau: Any) -> Tensor:
    """The first ``n`` columns of ``H_1 H_2 ... H_k`` for ``a`` (*, m, n) and ``tau`` (*, k):
    ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` the ``i``-th column of ``a`` below the diagonal and
    1 on it (LAPACK's ``orgqr``/``ungqr``; PyTorch's ``householder_product``)."""
    a = as_tensor(a)
    _la.one_dtype("torch.linalg.householder_product: tau dtype {second} does not match input dtype {first}", a, tau)
    tau = as_tensor(tau, a)
    _la.refuse_half("linalg.householder_product", a)  # (LAPACK's orgqr)
    if a.ndim < 2 or tau.ndim < 1:
        raise InputMismatch(f"linalg.householder_product: expected a (*, m, n) and tau (*, k), got {a.shape}, "
                         f"{tau.shape}")
    _la.floating_only("linalg.householder_product", a)
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    if not k <= n <= m or a.shape[:-2] != tau.shape[:-1]:
        raise InputMismatch(f"linalg.householder_product: need k <= n <= m and equal batches, got a {a.shape}, "
                         f"tau {tau.shape}")
    unit = mf.eye(m, dtype=a.dtype, device=a.device)
    rows = Tensor.constant(a.device.xp.asarray(host_numpy.arange(m)[:, None]), a.device)
    x = mf.broadcast_to(unit[:, :n], a.shape)
    if k == 0:  # no reflector: the identity's columns, still on a's and tau's graphs (gradient 0), as PyTorch's
        return mf.where(True, mf.where(True, x, a), mf.sum(tau))
    for i in reversed(range(k)):
        below = mf.where(rows > i, a[..., :, i:i + 1], 0.0)
        v = below + unit[:, i:i + 1]  # (*, m, 1): 1 at i, a's column below it, 0 above
        v_h = mf.swapaxes(v, -1, -2)
        if v_h.dtype.kind == "c":  # a complex reflector is I - tau v v^H (unitary for LAPACK's tau)
            v_h = conj(v_h)
        x = x - tau[..., i:i + 1, None] * mf.matmul(v, mf.matmul(v_h, x))
    return x


def matrix_exp(a: Any) -> Tensor:
    """``expm(A) = sum_k A^k / k!`` of each square matrix (real or complex), by scaling and
    squaring; exact derivatives of every order (the Fréchet derivative, computed alongside)."""
    a = as_tensor(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise InputMismatch(f"linalg.matrix_exp: expected square matrices, got shape {a.shape}")
    _la.floating_only("linalg.matrix_exp", a)
    xp = a.device.xp
    one_norm = float(xp.scalar(xp.max(xp.sum(xp.abs(a._data), axis=-2)))) if a.size else 0.0
    return apply(_expm.MatrixExp(squarings=_expm.squarings(one_norm)), a)


class LUFactorResult(NamedTuple):
    LU: Tensor
    pivots: Tensor


class LUResult(NamedTuple):
    P: Tensor
    L: Tensor
    U: Tensor


# torch.return_types' classes of these answers
_linalg_lu_factor = return_type(LUFactorResult, "linalg_lu_factor")
_linalg_lu = return_type(LUResult, "linalg_lu")
_lu_unpack = return_type(LUResult, "lu_unpack")


def _lu_packed(name: str, a: Any, pivot: bool) -> Tensor:
    a = as_tensor(a)
    if a.ndim < 2:
        raise InputMismatch(f"linalg.{name}: expected a matrix or a stack of them, got shape {a.shape}")
    _la.floating_only("linalg.lu", a)  # lu, lu_factor and lu_factor_ex: PyTorch's "lu_cpu" kernel
    _la.refuse_half("linalg." + name, a)
    return apply(_lu.LuFactor(pivot=bool(pivot)), a)


def _perm_of(packed: Tensor) -> Any:
    """The permutation column of the packed factorization as host integers (..., m)."""
    xp = packed.device.xp
    return host_numpy.asarray(xp.to_host(packed._data[..., -1])).real.astype(host_numpy.int64)


def _pivots_of(perm: Any, k: int) -> Any:
    """LAPACK's 1-based row swaps (int32, ``(..., k)``) that turn ``arange(m)`` into ``perm``:
    at step ``i`` row ``i`` is swapped with row ``pivots[i] - 1``."""
    m = perm.shape[-1]
    flat = perm.reshape(int(host_numpy.prod(perm.shape[:-1])), m)
    pivots = host_numpy.zeros((flat.shape[0], k), dtype=host_numpy.int32)
    for b, target in enumerate(flat):  # replay the swaps
        order = list(range(m))
        for i in range(k):
            j = order.index(int(target[i]))
            order[i], order[j] = order[j], order[i]
            pivots[b, i] = j + 1
    return pivots.reshape(perm.shape[:-1] + (k,))


def lu_factor_ex_parts(a: Any, pivot: bool = True, name: str = "lu_factor") -> tuple[Tensor, Tensor]:
    """The packed ``LU`` and LAPACK's pivots of :func:`lu_factor`, whether or not a pivot is zero."""
    packed = _lu_packed(name, a, pivot)
    m, n = packed.shape[-2], packed.shape[-1] - 1
    pivots = _pivots_of(_perm_of(packed), min(m, n))
    return packed[..., :n], Tensor.constant(packed.device.xp.asarray(pivots), packed.device)


def first_zero_pivot(lu_packed: Tensor) -> Any:
    """``getrf``'s info for each packed ``(..., m, n)`` LU: the first 1-based ``k`` with ``U[k, k]
    == 0``, else 0 (host int32, the batch's shape)."""
    diag = host_numpy.diagonal(host_numpy.asarray(lu_packed.device.xp.to_host(lu_packed._data)), axis1=-2, axis2=-1)
    k = diag.shape[-1]
    first = host_numpy.where(diag == 0, host_numpy.arange(1, k + 1), k + 1).min(axis=-1, initial=k + 1)
    return host_numpy.where(first > k, 0, first).astype(host_numpy.int32)


def lu_info(a: Tensor) -> Any:
    """``getrf``'s info for each square matrix of ``a`` (host int32, the batch's shape): 0 where it is
    invertible, else the 1-based ``k`` of its LU's first zero pivot."""
    if a.dtype.kind == "c":  # (the LU op is real only)
        return per_matrix(host_numpy.asarray(a.device.xp.to_host(a._data)), getrf_failure)
    with no_grad():  # the factorization only reads the pivots here: nothing to record
        return first_zero_pivot(lu_factor_ex_parts(a)[0])


def around_failures(a: Tensor, info: Any, fn: Any, fill: float = math.nan) -> Tensor:
    """``fn(a)`` where every matrix factored; else ``fn`` of ``a`` with each failed matrix
    replaced by the identity, and ``fill`` in the failed matrices' places of the result."""
    if not info.any():
        return fn(a)
    xp = a.device.xp
    ok = Tensor.constant(xp.asarray(info == 0).reshape(info.shape + (1, 1)), a.device)
    eye = Tensor.constant(xp.eye(a.shape[-1], dtype=a.dtype), a.device)
    out = fn(mf.where(ok, a, eye))
    ok = mf.reshape(ok, info.shape + (1,) * (out.ndim - info.ndim))  # a stack of vectors: one axis
    return mf.where(ok, out, fill)


def lu_factor(a: Any, *, pivot: bool = True) -> LUFactorResult:
    """``(LU, pivots)`` of an ``m x n`` matrix: ``L`` (unit diagonal implied) and ``U`` packed in one
    ``m x n`` matrix, and LAPACK's 1-based row swaps (int32, ``(..., min(m, n))``: row ``i`` was
    swapped with row ``pivots[i] - 1``, in order) -- PyTorch's ``linalg.lu_factor``.  Partial
    pivoting; ``pivot=False`` swaps nothing (``pivots = 1, 2, ...``).  A zero pivot ``U[k, k]``
    is a ``LinAlgError``, as PyTorch's (``lu_factor_ex`` returns the factorization with
    ``info``).  The derivative needs a full-rank ``a``."""
    packed, pivots = lu_factor_ex_parts(a, pivot)
    info = first_zero_pivot(packed)
    if info.any():
        b = int(host_numpy.flatnonzero(info)[0])  # the first failed matrix
        k = int(info.reshape(-1)[b])
        where = f"(Batch element {b}): " if info.ndim else ""
        raise LinAlgError(
            f"linalg.lu_factor: {where}U[{k},{k}] is zero and using it on lu_solve would result in a division by "
            f"zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
            f"linalg.lu_factor_ex(A, pivot)")
    return _linalg_lu_factor(packed, pivots)


def lu(a: Any, *, pivot: bool = True) -> LUResult:
    """``(P, L, U)`` with ``a = P @ L @ U`` for an ``m x n`` ``a``: a permutation matrix ``P``
    (``m x m``), unit lower ``L`` (``m x k``) and upper ``U`` (``k x n``), ``k = min(m, n)``
    (PyTorch's ``linalg.lu``).  With ``pivot=False``, ``a = L @ U`` and ``P`` is empty, shape
    ``(0,)``, as PyTorch returns it."""
    packed = _lu_packed("lu", a, pivot)
    m, n = packed.shape[-2], packed.shape[-1] - 1
    k = min(m, n)
    lu_ = packed[..., :n]
    xp = packed.device.xp
    low = mf.tril(lu_[..., :, :k], -1) + mf.eye(m, k, dtype=packed.dtype, device=packed.device)
    up = mf.triu(lu_[..., :k, :])
    if not pivot:
        return _linalg_lu(Tensor.constant(xp.zeros((0,), dtype=packed.dtype), packed.device), low, up)
    perm = _perm_of(packed)
    p = (host_numpy.arange(m)[:, None] == perm[..., None, :]).astype(packed.dtype)  # P[perm[i], i] = 1
    return _linalg_lu(Tensor.constant(xp.asarray(p), packed.device), low, up)


def lu_unpack(LU_data: Any, LU_pivots: Any, unpack_data: bool = True,  # noqa: N803 -- PyTorch's names
              unpack_pivots: bool = True) -> LUResult:
    """``(P, L, U)`` of ``lu_factor``'s packed ``(LU, pivots)`` (PyTorch's ``torch.lu_unpack``), so that
    ``P @ L @ U`` is the factored matrix: ``L`` unit lower ``m x k`` and ``U`` upper ``k x n`` read from
    ``LU`` (differentiable in it), ``P`` the ``m x m`` permutation the row swaps ``pivots`` make.  What
    ``unpack_data=False`` (``L``, ``U``) or ``unpack_pivots=False`` (``P``) leaves out is empty, ``(0,)``."""
    lu_ = as_tensor(LU_data)
    piv = as_tensor(LU_pivots, lu_)
    if lu_.ndim < 2:
        raise InputMismatch(f"lu_unpack: LU_data must be a matrix or a batch of them, got shape {lu_.shape}")
    m, n = lu_.shape[-2], lu_.shape[-1]
    k = min(m, n)
    if piv.dtype.kind not in "iu" or piv.shape != lu_.shape[:-2] + (k,):
        raise InputMismatch(f"lu_unpack: LU_pivots must be integers of shape {lu_.shape[:-2] + (k,)} for LU_data "
                            f"of shape {lu_.shape}, got {piv.dtype} {piv.shape}")
    xp = lu_.device.xp
    empty = Tensor.constant(xp.zeros((0,), dtype=lu_.dtype), lu_.device)
    low = up = empty
    if unpack_data:
        low = mf.tril(lu_[..., :, :k], -1) + mf.eye(m, k, dtype=lu_.dtype, device=lu_.device)
        up = mf.triu(lu_[..., :k, :])
    p = empty
    if unpack_pivots:
        perm = _rows_after_swaps(piv, m)
        p = Tensor.constant(xp.asarray((host_numpy.arange(m)[:, None] == perm[..., None, :]).astype(lu_.dtype)),
                            lu_.device)  # P[perm[i], i] = 1: row i of P^T A is row perm[i] of A
    return _lu_unpack(p, low, up)


def _rows_after_swaps(pivots: Tensor, m: int) -> Any:
    """The order of ``m`` rows after LAPACK's 1-based swaps ``pivots`` (host int64, ``(..., m)``): at step
    ``i`` row ``i`` is swapped with row ``pivots[i] - 1`` (which may lie beyond the first ``k`` rows)."""
    piv = host_numpy.asarray(pivots.device.xp.to_host(pivots._data)).astype(host_numpy.int64)
    flat = piv.reshape(math.prod(piv.shape[:-1]), piv.shape[-1])
    order = host_numpy.tile(host_numpy.arange(m), (flat.shape[0], 1))
    for b, swaps in enumerate(flat):
        for i, j in enumerate(swaps):
            if not 1 <= j <= m:
                raise RefusedArgument(f"lu_unpack: pivots must be in [1, {m}], got {int(j)}")
            order[b, [i, j - 1]] = order[b, [j - 1, i]]
    return order.reshape(piv.shape[:-1] + (m,))


def _perm_from_pivots(pivots: Tensor) -> Any:
    piv = host_numpy.asarray(pivots.device.xp.to_host(pivots._data)).astype(host_numpy.int64)
    n = piv.shape[-1]
    flat = piv.reshape(math.prod(piv.shape[:-1]), n)  # (not -1: 0x0 factorizations have n == 0)
    perm = host_numpy.zeros(flat.shape, dtype=host_numpy.int64)
    for b, swaps in enumerate(flat):
        order = list(range(n))
        for k, j in enumerate(swaps):
            if not 1 <= j <= n:
                raise RefusedArgument(f"linalg.lu_solve: pivots must be in [1, {n}], got {int(j)}")
            order[k], order[j - 1] = order[j - 1], order[k]
        perm[b] = order
    return perm.reshape(piv.shape)


def lu_solve(LU: Any, pivots: Any, b: Any, *, left: bool = True, adjoint: bool = False) -> Tensor:  # noqa: N803
    """``X`` with ``A X = B`` (``X A = B`` for ``left=False``; ``A^H``, the conjugate transpose, for
    ``adjoint=True``) from ``lu_factor``'s ``(LU, pivots)``: two triangular solves and the row
    permutation, each differentiable (in ``LU`` and ``B``)."""
    lu_ = as_tensor(LU)
    piv = as_tensor(pivots, lu_)
    if lu_.ndim < 2 or lu_.shape[-1] != lu_.shape[-2] or piv.shape != lu_.shape[:-1]:
        raise InputMismatch(f"linalg.lu_solve: LU {lu_.shape} and pivots {piv.shape} do not fit")
    _la.floating_only("torch.linalg.lu_solve", lu_)
    _la.refuse_half("linalg.lu_solve", lu_)
    _la.one_dtype("linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type {first} and B "
                  "of type {second} instead", lu_, b)
    b = as_tensor(b, lu_)
    if b.ndim < 2:  # (PyTorch's words: a vector B would be read as a matrix of one row)
        raise InputMismatch("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if not left:  # X A = B  <=>  A^H conj(X)^T = conj(B)^T (and X A^H = B  <=>  A conj(X)^T = conj(B)^T)
        flipped = lu_solve(lu_, piv, conj(mf.swapaxes(b, -1, -2)), adjoint=not adjoint)
        return conj(mf.swapaxes(flipped, -1, -2))
    perm = _perm_from_pivots(piv)
    # the factorizations' batch and B's broadcast against each other, as PyTorch's
    batch = host_numpy.broadcast_shapes(lu_.shape[:-2], b.shape[:-2])
    lu_ = mf.broadcast_to(lu_, batch + lu_.shape[-2:])
    perm = host_numpy.broadcast_to(perm, batch + perm.shape[-1:])
    b = mf.broadcast_to(b, batch + b.shape[-2:])
    xp = lu_.device.xp
    if not adjoint:  # A = P L U: X = U^-1 L^-1 P^T B, and P^T B = B[perm]
        rows = Tensor.constant(xp.asarray(host_numpy.broadcast_to(perm[..., None], perm.shape + (b.shape[-1],))),
                               lu_.device)
        y = _la.solve_triangular(lu_, take_along_axis_in_range(b, rows, axis=-2), lower=True, unit_diagonal=True)
        return _la.solve_triangular(lu_, y, lower=False)
    # A^H = U^H L^H P^T: X = P L^-H U^-H B, and (P Y)[perm] = Y
    y = _la.solve_triangular(lu_, b, trans="C", lower=False)
    y = _la.solve_triangular(lu_, y, trans="C", lower=True, unit_diagonal=True)
    inverse = host_numpy.argsort(perm, axis=-1)
    rows = Tensor.constant(xp.asarray(host_numpy.broadcast_to(inverse[..., None], inverse.shape + (y.shape[-1],))),
                           lu_.device)
    return take_along_axis_in_range(y, rows, axis=-2)


def cross(input: Any, other: Any, *, dim: int = -1) -> Tensor:  # noqa: A002
    """The cross product of the 3-vectors along ``dim`` (``torch.linalg.cross``): both inputs
    have the same number of dimensions, the others broadcast."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim != b.ndim:
        raise InputMismatch(f"linalg.cross: inputs must have the same number of dimensions, got {a.ndim} and {b.ndim}")
    if a.dtype.kind == "b":  # PyTorch has no bool kernel
        raise DtypeNotImplemented("\"cross\" not implemented for 'Bool'")
    ti.one_cross_dtype(a, b)
    return _products.cross(a, b, axis=dim)


def vander(x: Any, *, N: int | None = None) -> Tensor:  # noqa: N803
    """The Vandermonde matrices of ``x`` (``(..., n)`` to ``(..., n, N)``): column ``j`` is ``x ** j``
    (increasing powers, ``torch.linalg.vander``; ``N`` defaults to ``n`` and must be above 1), by
    a cumulative product of copies of ``x`` as PyTorch's, so the gradient at 0 is finite; integer
    input gives int64, bool is refused."""
    x = as_tensor(x)
    if x.ndim == 0:  # one point, as PyTorch's: a (1, N) matrix (a (N,) row here once)
        x = mf.reshape(x, (1,))
    n = x.shape[-1] if N is None else int(N)
    if n <= 1:
        raise RefusedArgument(f"linalg.vander: N must be greater than 1, got {n}")
    if x.dtype.kind == "b":
        raise NeedsFloatingInput("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    if x.dtype.kind in "iu":
        x = mf.astype(x, "int64")
    column = mf.reshape(x, x.shape + (1,))
    powers = mf.cumprod(mf.broadcast_to(column, x.shape + (n - 1,)), axis=-1)
    ones = Tensor.constant(x.device.xp.ones(column.shape, dtype=x.dtype), x.device)
    return mf.concatenate([ones, powers], axis=-1)


def diagonal(A: Any, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: N803
    """The diagonals of the matrices (``torch.linalg.diagonal``): ``mg.diagonal`` with the last
    two dims as the default plane."""
    offset = number("linalg.diagonal", "offset", offset, "int")
    return mf.diagonal(A, offset, dim1, dim2)
