"""``mg.linalg``: NumPy's linear algebra, differentiable, on stacks of matrices.

Signatures follow ``numpy.linalg`` (plus SciPy's ``solve_triangular``); every
function works on the last two axes and treats leading axes as a batch.  The
ops are in :mod:`minigrad_ckpt.ops.matrix`; its docstring lists where each
gradient exists (non-singular matrices, distinct eigen- and singular values,
full rank) -- the same table is in ``docs/ops.md``.

Eigen- and singular vectors are returned with each vector's largest-magnitude
entry positive and ``qr``'s ``R`` with a non-negative diagonal (NumPy leaves the
signs to LAPACK), so results agree across devices and are smooth functions of
the input; everything else matches NumPy, but that integer and bool matrices are
refused, as PyTorch's linear algebra refuses them (``floating_only``; NumPy would
answer in float64): ``matrix_power`` (``n >= 0``), ``multi_dot``, ``cross`` and
``vander`` keep them integer.

This module is also ``xp.linalg`` of the differentiable namespace: backward
code that calls ``xp.linalg.solve`` builds a graph when ``create_graph=True``.
"""

from __future__ import annotations

import builtins
from typing import Any, NamedTuple

from ..backend import as_dtype, host_numpy, scalar_type_name
from ..grad_mode import is_grad_enabled
from ..ops import linalg_failure as _failure
from ..ops import matrix as _mx
from ..tape import apply
from ..tensor import Tensor
from . import math as mf
from .arguments import as_tensor, broadcast_shapes, int_tuple, normalize_axis, number
from .complex_numbers import conj, real
from .errors import (
    ArgumentTypeRefused,
    DtypeNotImplemented,
    InputMismatch,
    NeedsFloatingInput,
    RefusedArgument,
    dimension_out_of_range,
)
from .math import astype, eye, matmul, moveaxis, not_equal, reshape, squeeze, swapaxes, tril, triu
from .return_types import return_type


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class EigResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


class SVDFactors(NamedTuple):
    """``torch.svd``'s and ``Tensor.svd``'s answer (``torch.return_types.svd``): ``V`` itself,
    where ``linalg.svd``'s :class:`SVDResult` holds its conjugate transpose ``Vh``."""

    U: Tensor
    S: Tensor
    V: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class LstsqResult(NamedTuple):
    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


# torch.return_types' classes of linalg's answers (torch.slogdet's and torch.qr's are slogdet's and qr's)
_linalg_slogdet = return_type(SlogdetResult, "linalg_slogdet")
_linalg_eig = return_type(EigResult, "linalg_eig")
_linalg_eigh = return_type(EighResult, "linalg_eigh")
_linalg_svd = return_type(SVDResult, "linalg_svd")
_linalg_qr = return_type(QRResult, "linalg_qr")
_linalg_lstsq = return_type(LstsqResult, "linalg_lstsq")
#: torch.svd's, torch.qr's and torch.slogdet's (and the Tensor methods')
svd_answer = return_type(SVDFactors, "svd")
qr_answer = return_type(QRResult, "qr")
slogdet_answer = return_type(SlogdetResult, "slogdet")


def _real_only(name: str, a: Tensor) -> None:
    """Refuse a complex input where the gradient is written for real matrices only."""
    if a.dtype.kind == "c":
        raise NotImplementedError(
            f"linalg.{name}: complex matrices are not supported (its gradient is written for real "
            f"ones); every other linalg function accepts complex input (docs/complex.md)")


#: PyTorch's refusals of an integer or bool matrix (its linear algebra computes in floating point
#: only; NumPy's answers in float64), by the name its message gives: a kernel it has no version of
#: for that dtype (a ``NotImplementedError``), a message of its own, or else (``floating_only``)
#: "linalg.det: Expected a floating point or complex tensor as input. Got Long".
_NO_KERNEL = {"linalg.eigh": "linalg_eigh_cpu", "linalg.solve_triangular": "triangular_solve_cpu",
              "linalg.lu": "lu_cpu", "linalg.householder_product": "orgqr_cpu",
              "cholesky_inverse": "cholesky_inverse_out_cpu", "cholesky_solve": "cholesky_solve_cpu"}
_OWN_MESSAGE = {
    "linalg.eig": "Unknown Complex ScalarType for {kind}",
    "linalg.lstsq": "This function doesn't handle types other than float and double",
    "linalg.matrix_rank": "This function doesn't handle types other than float and double",
    "linalg.pinv": "linalg.pinv({kind}{{{shape}}}): expected a tensor with 2 or more dimensions of float, double, "
                   "cfloat or cdouble types",
}
#: the ``_ex`` variants and ``cond`` name the function that refuses in PyTorch
_REFUSED_AS = {"inv_ex": "inv", "solve_ex": "solve", "cholesky_ex": "cholesky"}


def floating_only(name: str, a: Tensor) -> None:
    """Refuse an integer or bool ``a`` as PyTorch's ``name`` does (its exception, its words)."""
    if a.dtype.kind not in "biu":
        return
    kind = scalar_type_name(a.dtype)
    if name in _NO_KERNEL:
        raise DtypeNotImplemented(f"\"{_NO_KERNEL[name]}\" not implemented for '{kind}'")
    message = _OWN_MESSAGE.get(name, "{name}: Expected a floating point or complex tensor as input. Got {kind}")
    raise NeedsFloatingInput(message.format(name=name, kind=kind, shape=list(a.shape)))


def refuse_half(name: str, a: Tensor) -> None:
    """Refuse a float16 ``a`` as PyTorch's LAPACK-backed ``name`` does (``"lu_cpu" not implemented for
    'Half'``, or "Low precision dtypes not supported": a ``NotImplementedError`` or ``RuntimeError``),
    where NumPy's linalg raised its ``TypeError`` ("array type float16 is unsupported in linalg") or
    the engine's own LU answered in float16."""
    if a.dtype == host_numpy.float16:
        raise DtypeNotImplemented(f"{name}: not implemented for 'Half' (PyTorch's LAPACK kernels take float32, "
                                  "float64 and complex)")


def one_dtype(message: str, first: Tensor, second: Any) -> None:
    """Refuse two tensors of different dtypes (float64 with int64, float32 with float64), as
    PyTorch's solvers do, which compute in one dtype where NumPy would promote: ``message`` is
    PyTorch's, with ``{first}`` and ``{second}`` for the two dtypes' names.  Data that is not a
    tensor yet (a list, an array) is converted by the caller, as before."""
    if isinstance(second, Tensor) and second.dtype != first.dtype:
        raise InputMismatch(message.format(first=scalar_type_name(first.dtype), second=scalar_type_name(second.dtype)))


def _matrices(name: str, a: Any, square: bool = False) -> Tensor:
    a = as_tensor(a)
    if name not in _COMPLEX_OK:
        _real_only(name, a)
    if a.ndim < 2:
        raise InputMismatch(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")  # PyTorch's words
    if square and a.shape[-1] != a.shape[-2]:
        raise InputMismatch(f"linalg.{name}: A must be batches of square matrices, but they are "
                            f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if name not in ("matrix_power", "cond"):  # (their own rules: integer powers, the norm's inverse or svd)
        floating_only("linalg." + _REFUSED_AS.get(name, name), a)
    if name != "matrix_power":  # (a product of matrices, no LAPACK: PyTorch's takes float16)
        refuse_half("linalg." + name, a)
    return a


def inv(a: Any) -> Tensor:
    """The inverse of each matrix (``LinAlgError`` for an exactly singular one)."""
    a = _matrices("inv", a, square=True)
    return _factored("linalg.inv", a, _failure.getrf_failure, _failure.singular, _mx.Inv(), a)


def _factored(name: str, a: Tensor, failure: Any, what: Any, op: Any, *inputs: Tensor) -> Tensor:
    """``apply(op, *inputs)``, where NumPy's refusal of a matrix of ``a`` it cannot factor (its own
    ``LinAlgError``, a ``ValueError`` saying "Singular matrix") is raised as PyTorch's
    ``LinAlgError`` (a ``RuntimeError``) in PyTorch's words: ``name: what(info)`` of the first
    failed matrix (``failure`` finds LAPACK's ``info`` of one)."""
    try:
        return apply(op, *inputs)
    except host_numpy.linalg.LinAlgError as refusal:
        if isinstance(refusal, _failure.LinAlgError):
            raise
        host = host_numpy.asarray(a.device.xp.to_host(a._data))
        _failure.raise_first(name, _failure.per_matrix(host, failure), what)
        raise _failure.LinAlgError(f"{name}: {refusal}") from refusal


def det(a: Any) -> Tensor:
    """The determinant of each matrix; its gradient ``det * inv(a)^T`` needs a non-singular matrix."""
    return apply(_mx.Det(), _matrices("det", a, square=True))


def slogdet(a: Any) -> SlogdetResult:
    """``(sign, log|det|)`` of each matrix, ``log|det|`` real.  A complex matrix's sign ``det / |det|``
    is differentiable (PyTorch's); a real matrix's (+-1) is piecewise constant: recorded with
    gradient 0, as PyTorch's and as ``mg.sign``'s, so it requires grad where ``a`` does and
    ``sign.sum().backward()`` runs.  It is not read through ``SlogDet``'s backward, whose
    ``0 * adj(A) / det`` is NaN at a singular matrix."""
    a = _matrices("slogdet", a, square=True)
    packed = apply(_mx.SlogDet(), a)
    if a.dtype.kind == "c":
        return _linalg_slogdet(packed[..., 0], real(packed[..., 1]))
    on_the_graph = mf.sum(a, axis=(-2, -1))  # the where's unselected branch: its gradient is 0
    return _linalg_slogdet(mf.where(True, packed[..., 0].detach(), on_the_graph), packed[..., 1])


def solve(a: Any, b: Any, *, left: bool = True) -> Tensor:
    """``x`` with ``a @ x == b`` (``left=False``: ``x @ a == b``), batched, PyTorch's rule for
    which ``b`` is a vector: a 1-D ``b``, or a stack of vectors whose shape is ``a.shape[:-1]``
    (``a`` of shape ``(2, 3, 3)`` with ``b`` of shape ``(2, 3)`` solves two systems, one per
    matrix, and returns shape ``(2, 3)``).  Any other ``b`` is a stack of matrices ``(..., n, k)``
    whose batch axes broadcast against ``a``'s."""
    a = _matrices("solve", a, square=True)
    one_dtype("linalg.solve: Expected A and B to have the same dtype, but found A of type {first} and B of type "
              "{second} instead", a, b)
    b = as_tensor(b, a)
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    if left:
        return _solve(a, b, vector)
    if vector:  # PyTorch refuses this too: x @ a == b for a vector b is x = solve(a^T, b)
        raise RuntimeError(f"linalg.solve: left=False needs b to be a matrix (or a stack of them), "
                           f"got shape {b.shape} for a of shape {a.shape}")
    return swapaxes(_solve(swapaxes(a, -1, -2), swapaxes(b, -1, -2), False), -1, -2)


def _solve(a: Tensor, b: Tensor, vector: bool, name: str = "linalg.solve") -> Tensor:
    """``solve`` (or ``name``, which solves through it) once the caller has decided whether ``b`` is
    a (stack of) vector(s)."""
    n = a.shape[-1]
    if vector:
        b = mf.expand_dims(b, -1)
    if b.ndim < 2 or b.shape[-2] != n:
        raise InputMismatch(f"{name}: a of shape {a.shape} and b of shape {b.shape} do not match")
    broadcast_shapes(name, a.shape[:-2], b.shape[:-2])
    x = _factored(f"torch.{name}", a, _failure.getrf_failure, _failure.solver_singular, _mx.Solve(), a, b)
    return squeeze(x, -1) if vector else x


def cholesky(a: Any, *, upper: bool = False) -> Tensor:
    """The lower (``upper=True``: upper) Cholesky factor, from the lower (upper) triangle,
    as NumPy: the other triangle is not read (and gets no gradient).  A complex matrix is
    Hermitian: ``a = L L^H``; the imaginary parts of its diagonal are not read either."""
    a = _matrices("cholesky", a, square=True)
    lower = _mH(a) if upper else a
    factor = _factored("linalg.cholesky", lower, _failure.cholesky_failure, _failure.not_definite, _mx.Cholesky(),
                       lower)
    xp = a.device.xp
    if factor.size and bool(xp.scalar(xp.any(xp.isnan(factor._data)))):
        # NumPy's factorization goes on past a NaN pivot (a NaN in the matrix) where LAPACK's potrf,
        # and so PyTorch, stops: PyTorch's LinAlgError for the first matrix that does
        host = host_numpy.asarray(xp.to_host(lower._data))
        _failure.raise_first("linalg.cholesky", _failure.per_matrix(host, _failure.cholesky_failure),
                             _failure.not_definite)
    return _mH(factor) if upper else factor


def eigh(a: Any, UPLO: str = "L") -> EighResult:  # noqa: N803 - NumPy's name
    """Eigenvalues (ascending, real) and eigenvectors of each symmetric (Hermitian) matrix,
    from its ``UPLO`` triangle as NumPy; eigenvector gradients need distinct eigenvalues.

    Each eigenvector is returned with its largest-magnitude entry real and positive,
    which makes it a smooth function of the matrix: its derivatives are exact for
    any loss.  (PyTorch keeps LAPACK's phases and asks for a loss that does not
    depend on them; for such a loss -- ``|v|``, ``v v^H``, ``V f(w) V^H`` -- the
    gradients agree.)

    At a repeated eigenvalue (equal to rounding) the eigenvectors are not unique.
    Gradients through the eigenvalues only (``sum(f(w))``) are exact there, and so
    are gradients through the eigenspace only (a projector onto all of it).  Where
    a loss reaches a repeated eigenvalue through both -- a matrix function
    ``V @ diag(f(w)) @ V.T``, whose true gradient there the cotangents do not
    determine -- the gradient is NaN (PyTorch's is NaN/inf too), never a wrong
    finite number; forward mode gives NaN where the tangent couples an equal pair.
    """
    a = _matrices("eigh", a, square=True)
    # PyTorch and NumPy read the letter in either case ('u' is 'U')
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise RefusedArgument(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if UPLO.upper() == "U":
        a = _mH(a)
    packed = apply(_mx.Eigh(), a)
    w = packed[..., 0, :]
    return _linalg_eigh(real(w) if a.dtype.kind == "c" else w, packed[..., 1:, :])


def eig(a: Any) -> EigResult:
    """Eigenvalues and eigenvectors of each square matrix, complex even for real input
    (PyTorch's rule; NumPy returns real arrays when every eigenvalue is real), in LAPACK's
    order.  Each eigenvector has unit length and its largest-magnitude entry real and
    positive, so derivatives are exact for any loss (PyTorch's agree for losses that do
    not depend on the vectors' phases).  Eigenvector gradients need distinct eigenvalues;
    the gradient of a real matrix is the real part.  Runs on the host on every device."""
    packed = apply(_mx.Eig(), _matrices("eig", a, square=True))
    return _linalg_eig(packed[..., 0, :], packed[..., 1:, :])


def eigvals(a: Any) -> Tensor:
    """The eigenvalues of each square matrix (complex): ``eig(a).eigenvalues``; their
    gradient ``V^-H diag(g) V^H`` needs a diagonalizable matrix."""
    return eig(a).eigenvalues


def eigvalsh(a: Any, UPLO: str = "L") -> Tensor:  # noqa: N803 - NumPy's name
    """The eigenvalues (ascending) of each symmetric matrix: ``eigh(a).eigenvalues``; their
    gradient ``V diag(g) V^T`` is defined at repeated eigenvalues too."""
    return eigh(a, UPLO).eigenvalues


def svdvals(a: Any) -> Tensor:
    """The singular values (descending) of each matrix: ``svd(a, compute_uv=False)``."""
    return svd(a, compute_uv=False)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False) -> Any:
    """``U, S, Vh`` with ``a = U @ diag(S) @ Vh`` (``S`` alone for ``compute_uv=False``).

    With ``full_matrices=True`` and a non-square matrix, the extra columns of
    ``U`` (rows of ``Vh``) complete an orthonormal basis; they are not a
    function of ``a`` and carry no gradient.  ``hermitian=True`` reads ``a``'s lower
    triangle alone (NumPy's, which takes it to ``eigh``; :func:`hermitian_from_lower`).
    Gradients of ``U``/``Vh`` need distinct (and, for non-square ``a``, non-zero) singular values.
    ``S`` is real; for a complex ``a`` each column of ``U`` has its largest-magnitude
    entry real and positive (the columns of ``V`` follow), so derivatives are exact
    for any loss -- PyTorch's agree for losses that do not depend on that phase.
    """
    a = hermitian_from_lower("svd", a) if hermitian else _matrices("svd", a)
    m, n = a.shape[-2:]
    packed = _factored("linalg.svd", a, _failure.non_finite, _failure.svd_not_converged, _mx.Svd(in_shape=a.shape), a)
    s = packed[..., m, :]
    if a.dtype.kind == "c":
        s = real(s)
    if not compute_uv:
        return s
    u, vh = packed[..., :m, :], _mH(packed[..., m + 1:, :])
    if full_matrices and m != n:
        xp = a.device.xp
        uf, _, vhf = xp.linalg.svd(a._data, full_matrices=True)
        k = builtins.min(m, n)
        if m > n:
            u = _join(u, Tensor._wrap(xp.ascontiguousarray(uf[..., :, k:]), None, a.device), -1)
        else:
            vh = _join(vh, Tensor._wrap(xp.ascontiguousarray(vhf[..., k:, :]), None, a.device), -2)
    return _linalg_svd(u, s, vh)


def hermitian_from_lower(name: str, a: Any) -> Tensor:
    """The Hermitian (real: symmetric) matrices whose lower triangles are ``a``'s: what ``hermitian=True``
    means to NumPy and PyTorch (``pinv``, ``matrix_rank``, NumPy's ``svd``), which compute with ``eigh``
    and so read only that triangle, the diagonal's real part -- the general algorithm on ``a`` itself
    silently answered for another matrix when ``a`` is not Hermitian.  Only that triangle gets gradients."""
    a = _matrices(name, a, square=True)
    below = tril(a, -1)
    diagonal = triu(tril(a))
    return below + _mH(below) + (real(diagonal) if a.dtype.kind == "c" else diagonal)


def _mH(a: Tensor) -> Tensor:
    """The conjugate transpose of each matrix (the transpose of a real one)."""
    t = swapaxes(a, -1, -2)
    return conj(t) if a.dtype.kind == "c" else t


def _join(x: Tensor, extra: Tensor, axis: int) -> Tensor:
    from .math import concatenate

    return concatenate([x, extra], axis=axis)


def qr(a: Any, mode: str = "reduced") -> Any:
    """``Q, R`` with ``a = Q @ R`` and ``R``'s diagonal real and non-negative (NumPy and PyTorch
    keep LAPACK's signs, which jump: this QR is unique for full rank and smooth); ``mode`` is ``"reduced"``,
    ``"complete"`` or ``"r"``.  Gradients need full rank.  In ``"complete"`` mode the
    extra columns of a tall matrix's ``Q`` are one arbitrary basis of the complement, with no
    derivative: differentiating that QR (``Q`` or ``R``) raises ``RuntimeError``, as PyTorch's.
    ``"r"`` mode returns the pair with ``Q`` empty (shape ``(0,)``), as PyTorch's, and refuses
    gradients the same way (the derivative of ``R`` needs ``Q``)."""
    a = _matrices("qr", a)
    if mode not in ("reduced", "complete", "r"):
        raise RefusedArgument(f"linalg.qr: mode must be 'reduced', 'complete' or 'r' ('raw' is not supported), "
                              f"got {mode!r}")
    m, n = a.shape[-2:]
    packed = apply(_mx.Qr(in_shape=a.shape, complete=mode == "complete" and m > n, r_only=mode == "r"), a)
    r = packed[..., m:]
    if mode == "r":
        # an empty view of the factorization, so that differentiating it refuses as R does
        return _linalg_qr(packed.reshape(-1)[:0], r)
    return _linalg_qr(swapaxes(packed[..., :m], -1, -2), r)


_VECTOR_ORDS_NAMED = {"fro", "nuc"}
#: The functions that accept complex matrices: holomorphic ops (``g * f'(A)`` backward) and the
#: factorizations whose ops are written with conjugate transposes.
_COMPLEX_OK = frozenset({"inv", "det", "solve", "matrix_power", "slogdet", "cholesky", "eig", "eigh", "svd",
                         "qr", "inv_ex", "solve_ex", "cholesky_ex", "pinv", "solve_triangular",
                         "matrix_rank", "cond"})


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False, *,  # noqa: A002
         dtype: Any = None) -> Tensor:
    """Vector or matrix norm, as ``numpy.linalg.norm``.

    Vectors (``axis`` an int, or a 1-D ``x``): ``ord`` in None/2, 1, inf, -inf,
    0 (a count, no gradient) or any other number p: ``sum(|x|^p)^(1/p)``.
    Matrices (``axis`` a pair, or a 2-D ``x``): ``'fro'`` (None), ``'nuc'``,
    1, -1, 2, -2, inf, -inf.  ``axis=None`` with ``ord=None`` is the 2-norm of
    the flattened tensor.  Kinks take subgradients: 0 at a zero vector, ties
    of max/min split evenly.  A complex ``x`` has the norms of its moduli
    ``|x|``, but for the matrix 2, -2 and nuclear norms, which are of its
    (complex) singular value decomposition.  ``dtype`` casts ``x`` first (PyTorch's keyword).
    """
    ord = number("linalg.norm", "ord", ord)  # noqa: A001
    x = as_tensor(x)
    matrix = (ord is not None and x.ndim == 2) if axis is None else len(int_tuple(axis)) == 2
    x = norm_input("linalg.matrix_norm" if matrix else "linalg.vector_norm", x, dtype)
    if x.dtype.kind == "c" and not _spectral(x, ord, axis):
        x = mf.abs(x)
    nd = x.ndim
    if axis is None:
        if ord is None:
            return _vector(x, 2, tuple(range(nd)), keepdims)
        if nd == 1:
            axis = (0,)
        elif nd == 2:
            axis = (0, 1)
        else:
            raise RefusedArgument(f"linalg.norm: with ord={ord!r} and axis=None the input must be 1-D or 2-D, "
                             f"got shape {x.shape}")
    axes = int_tuple(axis)
    if len(axes) == 1:
        ax = normalize_axis(axes, nd)
        return _vector(x, 2 if ord is None else ord, ax, keepdims)
    if len(axes) == 2:
        row, col = (int(a) % nd if -nd <= int(a) < nd else _bad_axis(a, nd) for a in axes)
        if row == col:
            raise RefusedArgument("linalg.norm: the two matrix axes must differ")
        r = _matrix(x, "fro" if ord is None else ord, row, col)
        if keepdims:
            shape = tuple(1 if i in (row, col) else s for i, s in enumerate(x.shape))
            r = reshape(r, shape)
        return r
    raise RefusedArgument(f"linalg.norm: axis must be an int or a pair of ints, got {axis!r}")


def norm_input(name: str, x: Tensor, dtype: Any) -> Tensor:
    """``x`` cast to a norm's ``dtype=``, under PyTorch's rules: a complex ``x`` takes a complex
    dtype and a real one a real dtype (the cast to real would drop the imaginary parts: the norm of
    ``3+4j`` would be 3), and no cast narrows (float64 to float32).  The result's dtype is then
    ``dtype``'s real counterpart.  Integers and bools are refused, with a ``dtype`` too, as PyTorch's
    (NumPy reads them as float64)."""
    floating_only(name, x)
    if dtype is None:
        return x
    dt = as_dtype(dtype)
    if x.dtype.kind in "fc":
        if dt.kind not in "fc":
            raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {dt}")
        if (x.dtype.kind == "c") != (dt.kind == "c"):
            want = "complex for complex" if x.dtype.kind == "c" else "real for real"
            raise RuntimeError(f"{name}: dtype should be {want} inputs, but got {dt}")
        if host_numpy.promote_types(x.dtype, dt) != dt:
            raise RuntimeError(f"{name}: the dtype of the input ({x.dtype}) should be convertible without "
                               f"narrowing to the specified dtype ({dt})")
    return mf.astype(x, dt)


def _spectral(x: Tensor, ord: Any, axis: Any) -> bool:  # noqa: A002
    """Is this a matrix norm of the singular values (2, -2, nuclear)?  Every other norm --
    each vector norm, the Frobenius, 1 and inf matrix norms -- is a norm of the moduli ``|x|``."""
    matrix = (axis is None and ord is not None and x.ndim == 2) or (axis is not None and len(int_tuple(axis)) == 2)
    return matrix and ord in (2, -2, "nuc")


def _bad_axis(a: Any, nd: int) -> int:
    raise dimension_out_of_range(int(a), nd)


def _vector(x: Tensor, ord: Any, axes: tuple[int, ...], keepdims: bool) -> Tensor:  # noqa: A002
    if isinstance(ord, str):
        raise RefusedArgument(f"linalg.norm: invalid norm order {ord!r} for vectors")
    p = float(ord)
    if (p < 0 or p == host_numpy.inf) and any(x.shape[a] == 0 for a in axes):
        _no_identity(x, p, axes)
    if p == host_numpy.inf:
        return mf.max(mf.abs(x), axis=axes, keepdims=keepdims)
    if p == -host_numpy.inf:
        return mf.min(mf.abs(x), axis=axes, keepdims=keepdims)
    if p == 0:  # a count of the nonzeros: piecewise constant, so its gradient is 0 -- but on the tape,
        count = mf.sum(astype(not_equal(x, 0), x.dtype if x.dtype.kind == "f" else "float64"), axis=axes,
                       keepdims=keepdims)  # as PyTorch's (backward through it runs), where x is
        if not x.requires_grad:
            return count
        never = Tensor.constant(x.device.xp.zeros((), dtype=bool), x.device)
        return mf.where(never, astype(mf.sum(mf.abs(x), axis=axes, keepdims=keepdims), count.dtype), count)
    return apply(_mx.VectorNorm(ord=p, axes=axes, keepdims=bool(keepdims)), x)


def _no_identity(x: Tensor, p: float, axes: tuple[int, ...]) -> None:
    """PyTorch's error for a max (``p = inf``) or a negative power of an empty vector: neither has
    an identity to give it (``sum(|x|^p)^(1/p)`` of nothing would be inf)."""
    if len(axes) == x.ndim:
        where = "on an empty tensor because"
    else:
        where = f"on the dimension {next(a for a in axes if x.shape[a] == 0)}because this dimension is empty and"
    raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm {where} the operation does not have "
                       f"an identity")


def _matrix(x: Tensor, ord: Any, row: int, col: int) -> Tensor:  # noqa: A002
    if ord == "fro":
        return _vector(x, 2, tuple(sorted((row, col))), False)
    if ord in ("nuc", 2, -2):
        s = svd(moveaxis(x, (row, col), (-2, -1)), compute_uv=False)
        if ord == "nuc":
            return mf.sum(s, axis=-1)
        if ord == 2 and s.shape[-1] == 0:  # an empty matrix's spectral norm is 0, as its other norms (PyTorch)
            return mf.sum(s, axis=-1)
        return mf.max(s, axis=-1) if ord == 2 else mf.min(s, axis=-1)
    if ord in (1, -1, host_numpy.inf, -host_numpy.inf):
        over, across = (row, col) if ord in (1, -1) else (col, row)  # 1: column sums; inf: row sums
        sums = mf.sum(mf.abs(x), axis=over)
        c = across - 1 if across > over else across
        if ord > 0 and sums.shape[c] == 0:  # the largest of no sums is 0, as the other norms of nothing (PyTorch)
            return mf.sum(sums, axis=c)
        return mf.max(sums, axis=c) if ord > 0 else mf.min(sums, axis=c)
    raise RefusedArgument(f"linalg.norm: invalid norm order {ord!r} for matrices "
                          f"(one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf)")


def _default_rtol(a: Tensor) -> float:
    eps = host_numpy.finfo(a.dtype if a.dtype.kind in "fc" else host_numpy.float64).eps  # complex64: float32's
    return float(builtins.max(a.shape[-2:]) * eps)


def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, atol: Any = None, rtol: Any = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse: singular values at or below ``max(atol, rtol * max(s))``
    count as 0 -- PyTorch's rule: ``rtol`` (``rcond``, its older name) is ``max(M, N) * eps``
    unless given, and 0 when ``atol`` alone is given.  The gradient holds where the rank
    is locally constant.  ``hermitian=True`` reads ``a``'s lower triangle alone, as PyTorch's
    (:func:`hermitian_from_lower`); its gradient is then PyTorch's too, the general formula in the
    whole ``a`` (not one folded into the lower triangle).  A tolerance
    may be a tensor that broadcasts against ``a``'s batch: one tolerance per matrix."""
    a = _matrices("pinv", a, square=bool(hermitian))
    if rcond is not None and rtol is not None:
        raise ArgumentTypeRefused("linalg.pinv: give rcond or rtol, not both")
    tol = rcond if rcond is not None else rtol
    if isinstance(atol, Tensor) or isinstance(tol, Tensor):
        _refuse_differentiable_tolerance(atol, tol)
    if per_matrix(atol) or per_matrix(tol):
        return _pinv_per_matrix(a, atol, tol, bool(hermitian))
    tol = (_default_rtol(a) if atol is None else 0.0) if tol is None else float(tol)
    op = _mx.Pinv(rcond=tol, atol=0.0 if atol is None else float(atol), hermitian=bool(hermitian))
    return _factored("linalg.svd", a, _failure.non_finite, _failure.svd_not_converged, op, a)


def _refuse_differentiable_tolerance(atol: Any, rtol: Any) -> None:
    """PyTorch's refusal of a tolerance tensor that requires grad, where gradients are recorded: ``pinv``
    is not differentiable in it (read as a number, its gradient was lost silently)."""
    for name, t in (("atol", atol), ("rtol", rtol)):
        if isinstance(t, Tensor) and t.requires_grad and is_grad_enabled():
            raise RuntimeError(f"The function 'linalg_pinv' is not differentiable with respect to argument "
                               f"'{name}'. This input cannot have requires_grad True.")


def per_matrix(tolerance: Any) -> bool:
    """Is ``tolerance`` one value per matrix of a stack (a tensor of at least one dim)?"""
    return isinstance(tolerance, Tensor) and tolerance.ndim > 0


def _pinv_per_matrix(a: Tensor, atol: Any, rtol: Any, hermitian: bool) -> Tensor:
    """``pinv`` of each matrix with its own ``atol`` and ``rtol`` (tensors broadcast against the batch)."""
    atol, rtol = (None if t is None else as_tensor(t) for t in (atol, rtol))
    batch = host_numpy.broadcast_shapes(a.shape[:-2], *(t.shape for t in (atol, rtol) if t is not None))
    flat = reshape(mf.broadcast_to(a, batch + a.shape[-2:]), (-1,) + a.shape[-2:])
    atols, rtols = (None if t is None else mf.broadcast_to(t, batch).numpy().reshape(-1).tolist()
                    for t in (atol, rtol))
    pieces = [pinv(flat[i], atol=None if atols is None else atols[i], rtol=None if rtols is None else rtols[i],
                   hermitian=hermitian) for i in range(flat.shape[0])]
    out = mf.stack(pieces) if pieces else pinv(flat, hermitian=hermitian)
    return reshape(out, batch + out.shape[-2:])


def matrix_power(a: Any, n: int) -> Tensor:
    """``a`` multiplied by itself ``n`` times (the identity for 0, powers of the inverse below 0)."""
    n = number("matrix_power", "n", n, "int")
    a = _matrices("matrix_power", a, square=True)
    if not isinstance(n, (int, host_numpy.integer)) or isinstance(n, bool):
        raise TypeError(f"linalg.matrix_power: the exponent must be an int, got {n!r}")
    n = int(n)
    if a.dtype.kind in "biu" and n < 0:  # an integer matrix's inverse: PyTorch's refusal
        floating_only("linalg.inv", a)
    if a.dtype.kind == "b" and n > 1:  # PyTorch has no bool matrix product
        raise DtypeNotImplemented("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if n == 0 and a.dtype.kind in "biu":  # the identity in a's dtype (no NaN to keep, no gradient), as PyTorch's
        return mf.clone(mf.broadcast_to(eye(a.shape[-1], dtype=a.dtype, device=a.device), a.shape))
    if n == 0:  # the identity (PyTorch's, whatever a holds: a * 0 is NaN at a NaN or an infinity), gradient 0
        return mf.where(mf.isfinite(a), a * 0, 0.0) + eye(a.shape[-1], dtype=a.dtype, device=a.device)
    if n < 0:
        a, n = inv(a), -n
    result = None
    base = a
    while n:  # binary powering: O(log n) products
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return mf.clone(a) if result is a else result  # n = 1: a new tensor, as PyTorch's (not a itself)


#: The fields each of PyTorch's ``lstsq`` drivers fills (the others come back empty).
_LSTSQ_DRIVER_FIELDS = {"gels": {"residuals"}, "gelsy": {"rank"},
                        "gelsd": {"residuals", "rank", "singular_values"},
                        "gelss": {"residuals", "rank", "singular_values"}}


def lstsq(a: Any, b: Any, rcond: Any = None, *, driver: str | None = None) -> LstsqResult:
    """The least-squares solution of ``a @ x ~= b``, from the pseudo-inverse.

    Returns ``(x, residuals, rank, s)`` like NumPy: residuals (squared
    2-norms of ``b - a @ x`` per column) only when ``rank == N < M``, else an
    empty tensor; ``rank`` an int64 0-d tensor; ``s`` the singular values.
    A stack of matrices ``a`` (..., M, N) is PyTorch's batched ``lstsq``:
    ``b`` (..., M, K) (or (..., M)), broadcast, and ``rank`` and ``s`` per matrix.
    PyTorch's ``driver=`` (``'gels'``, ``'gelsy'``, ``'gelsd'``, ``'gelss'``) picks which of
    ``residuals``, ``rank`` and ``singular_values`` are filled, as PyTorch's: the others are
    empty; the solution is the same minimum-norm one (LAPACK's drivers differ in method).
    ``'gels'`` (QR without pivoting, for full-rank matrices) refuses a matrix whose triangular
    factor has an exact zero on its diagonal -- a zero column, or a zero row of a wide matrix --
    with PyTorch's ``LinAlgError`` ("... does not have full rank (error code: k)"); it fills the
    residuals of every tall matrix it takes, whatever its rank (an all-zero one's: 0), as PyTorch's.
    """
    rcond = number("linalg_lstsq", "rcond", rcond, "float")
    if driver is not None and driver not in _LSTSQ_DRIVER_FIELDS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    a = as_tensor(a)
    one_dtype("torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype {first} "
              "and other's dtype {second}", a, b)
    floating_only("linalg.lstsq", a)
    refuse_half("linalg.lstsq", a)
    if driver == "gels":  # QR without pivoting: an exactly rank-deficient triangle is refused, as LAPACK's
        info = _failure.per_matrix(host_numpy.asarray(a.device.xp.to_host(a._data)), _failure.gels_failure)
        # PyTorch's lstsq names a batch element only in a stack of two or more (inv's names it in any stack)
        _failure.raise_first("torch.linalg.lstsq", info.reshape(()) if info.size == 1 else info,
                             _failure.not_full_rank)
    result = _lstsq(a, b, rcond)
    if driver is None:
        return result
    if driver == "gels" and a.shape[-2] > a.shape[-1] and result.residuals.numel() == 0:
        result = result._replace(residuals=_gels_residuals(a, as_tensor(b, a), result.solution))
    filled = _LSTSQ_DRIVER_FIELDS[driver]
    return _linalg_lstsq(result.solution, *(
        field if name in filled else _no_residuals(result.solution) if name == "residuals" else
        Tensor._wrap(field.device.xp.zeros((0,), dtype=field.dtype), None, field.device)
        for name, field in zip(LstsqResult._fields[1:], result[1:])))


def _gels_residuals(a: Tensor, b: Tensor, x: Tensor) -> Tensor:
    """``gels``'s residuals of a tall ``a`` where the rank test left none: LAPACK's ``gels`` assumes full
    rank, so PyTorch fills them for every tall matrix it did not refuse -- one below the tolerance's rank
    too, and an all-zero one as 0 (``gels`` zeroes the whole right side before it factors)."""
    vector = b.ndim == a.ndim - 1
    ax, bx = (mf.expand_dims(x, -1), mf.expand_dims(b, -1)) if vector else (x, b)
    res = _squared_norms(matmul(a, ax) - bx, -2)
    xp = a.device.xp
    nonzero = Tensor._wrap(xp.any(a._data != 0, axis=(-2, -1))[..., None], None, a.device)
    return mf.where(nonzero, res, 0)


def _no_residuals(x: Tensor) -> Tensor:
    """Residuals not computed: an empty tensor on the solution's graph, as PyTorch's (an output of its
    differentiable lstsq, it requires grad where ``a`` or ``b`` does, even empty)."""
    empty = reshape(x, (-1,))[:0]
    return real(empty) if empty.dtype.kind == "c" else empty


def _lstsq(a: Tensor, b: Any, rcond: Any) -> LstsqResult:
    if a.ndim > 2:
        return _lstsq_batched(a, as_tensor(b, a), rcond)
    if a.ndim != 2:
        raise InputMismatch(f"linalg.lstsq: a must be a matrix or a stack of them, got shape {a.shape}")
    b = as_tensor(b, a)
    m, n = a.shape
    if b.ndim not in (1, 2) or b.shape[0] != m:
        raise InputMismatch(f"linalg.lstsq: b of shape {b.shape} does not match a of shape {a.shape}")
    tol = float(host_numpy.finfo(a.dtype if a.dtype.kind in "fc" else "float64").eps * builtins.max(m, n)) \
        if rcond is None else float(rcond)
    x = matmul(_factored("linalg.svd", a, _failure.non_finite, _failure.svd_not_converged, _mx.Pinv(rcond=tol), a), b)
    s = svd(a, compute_uv=False)
    xp = a.device.xp
    sd = s._data
    rank = int(xp.scalar(xp.sum(sd > tol * xp.max(sd)))) if sd.size else 0
    if rank == n and m > n:
        res = _squared_norms(matmul(a, x) - b, 0)
        if b.ndim == 1:
            res = reshape(res, (1,))
    else:
        res = _no_residuals(x)
    return _linalg_lstsq(x, res, Tensor._wrap(xp.asarray(host_numpy.int64(rank)), None, a.device), s)


def _squared_norms(diff: Tensor, axis: int) -> Tensor:
    """The squared 2-norms of ``diff``'s columns: ``sum |d|^2``, real for complex ``diff`` too."""
    squares = diff * diff if diff.dtype.kind != "c" else real(diff * conj(diff))
    return mf.sum(squares, axis=axis)


def _lstsq_batched(a: Tensor, b: Tensor, rcond: Any) -> LstsqResult:
    """``lstsq`` of a stack: each matrix's pseudo-inverse times its columns; residuals when every
    matrix has full column rank ``N < M``."""
    m, n = a.shape[-2:]
    vector = b.ndim == a.ndim - 1
    if vector:
        b = mf.expand_dims(b, -1)
    if b.ndim != a.ndim or b.shape[-2] != m:
        raise InputMismatch(f"linalg.lstsq: b of shape {b.shape} does not match a of shape {a.shape}")
    tol = _default_rtol(a) if rcond is None else float(rcond)
    x = matmul(_factored("linalg.svd", a, _failure.non_finite, _failure.svd_not_converged, _mx.Pinv(rcond=tol), a), b)
    s = svd(a, compute_uv=False)
    xp = a.device.xp
    sd = s._data
    largest = xp.max(sd, axis=-1, keepdims=True) if n and m else sd
    rank = xp.sum(sd > tol * largest, axis=-1).astype(host_numpy.int64)
    if m > n and bool(xp.scalar(xp.all(rank == n))):
        res = _squared_norms(matmul(a, x) - b, -2)
    else:
        res = _no_residuals(x)
    return _linalg_lstsq(squeeze(x, -1) if vector else x, res, Tensor._wrap(rank, None, a.device), s)


def solve_triangular(a: Any, b: Any, trans: Any = 0, lower: bool = False, unit_diagonal: bool = False, *,
                     upper: bool | None = None, left: bool = True, unitriangular: bool | None = None) -> Tensor:
    """``x`` with ``T @ x == b`` for the triangle ``T`` of ``a`` (SciPy's signature).

    Only the lower (``lower=True``) or upper triangle of ``a`` is read (and
    gets gradients); ``unit_diagonal`` takes the diagonal as ones; ``trans``
    0/'N', 1/'T' or 2/'C' solves with ``T``, ``T^T`` or ``T^H`` (the conjugate
    transpose; ``T^T`` for real matrices).  Solved by the general LU solve
    through the array namespace (no SciPy needed), complex matrices too.
    PyTorch's spelling: ``upper=`` for the triangle, and ``left=False`` solves
    ``x @ T == b`` instead, and ``unitriangular=`` is ``unit_diagonal``
    (``torch.linalg.solve_triangular``).
    """
    if upper is not None:
        lower = not upper
    if unitriangular is not None:
        unit_diagonal = unitriangular
    if trans not in (0, 1, 2, "N", "T", "C"):
        raise ValueError(f"linalg.solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    if not left:  # x T = b  <=>  T^T x^T = b^T (and x T^H = b  <=>  conj(T) x^T = b^T)
        a = as_tensor(a)
        conjugated = trans in (2, "C")
        flipped = solve_triangular(conj(a) if conjugated else a, swapaxes(as_tensor(b), -1, -2),
                                   1 if trans in (0, "N") else 0, lower, unit_diagonal)
        return swapaxes(flipped, -1, -2)
    a = _matrices("solve_triangular", a, square=True)
    transpose_ = trans not in (0, "N")
    if unit_diagonal:
        strict = tril(a, -1) if lower else triu(a, 1)
        t = strict + eye(a.shape[-1], dtype=a.dtype, device=a.device)
    else:
        t = tril(a) if lower else triu(a)
    if transpose_:
        t = swapaxes(t, -1, -2)
        t = conj(t) if trans in (2, "C") else t
    b = as_tensor(b, a)
    try:
        return _solve(t, b, b.ndim == 1, "linalg.solve_triangular")  # (SciPy's vectors: PyTorch's takes none)
    except _failure.LinAlgError:
        # a zero on the diagonal: PyTorch's triangular solve (LAPACK's trsm) divides by it, IEEE's
        # inf and NaN, where the general solve refuses
        return _substituted(t, b, lower != transpose_)


def _substituted(t: Tensor, b: Tensor, lower: bool) -> Tensor:
    """``x`` with ``t @ x == b`` for a triangular ``t`` (lower or upper), by forward or back
    substitution, one row at a time: the quotients by a zero diagonal entry are IEEE's, as
    PyTorch's ``trsm``.  A composition (``n^2`` small ops: only for a singular triangle), so its
    derivatives are the substitution's own, inf and NaN where the solution is."""
    vector = b.ndim == 1
    if vector:
        b = mf.expand_dims(b, -1)
    n = t.shape[-1]
    rows: dict[int, Tensor] = {}
    with host_numpy.errstate(divide="ignore", invalid="ignore"):
        for i in range(n) if lower else range(n - 1, -1, -1):
            rest = b[..., i, :]
            for j, row in rows.items():
                rest = rest - t[..., i, j:j + 1] * row
            rows[i] = rest / t[..., i, i:i + 1]
    x = mf.stack([rows[i] for i in range(n)], axis=-2)
    return squeeze(x, -1) if vector else x
