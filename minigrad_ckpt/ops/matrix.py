"""Matrix functions: inverse, determinants, linear solves, factorizations.

Every op works on stacks of matrices (the last two axes; leading axes are a
batch) through ``xp.linalg`` -- NumPy's or CuPy's, whitelisted in
:mod:`minigrad_ckpt.backend` -- so the same code runs on a GPU.  Under
``create_graph`` the backward runs on the differentiable namespace, whose
``linalg`` is :mod:`minigrad_ckpt.functional.linalg`: second derivatives
need no second implementation.

Ops with several results (``eigh``, ``svd``, ``qr``, ``slogdet``) return them
*packed* in one array that the public function slices apart; the tape stays
one-output-per-op, and a gradient that reaches only some of the results
arrives as zeros for the others.

The gradients are the standard results (Giles 2008 for inv/det/solve, Murray
2016 for Cholesky, Townsend 2016 for the SVD, the eigenvector formula for
``eigh``, Walter & Lehmann / TensorFlow for QR).  Their singular points:

* ``inv``, ``det``, ``slogdet``, ``solve`` need a non-singular matrix (NumPy
  raises ``LinAlgError`` for an exactly singular one);
* ``cholesky`` and ``eigh`` read only the lower triangle, as NumPy (the
  upper one gets no gradient);
* ``eigh``: where two eigenvalues coincide the eigenvectors are not unique and
  the eigenvector gradient does not exist; the term ``1 / (w_j - w_i)`` is
  taken as 0 for eigenvalues equal to rounding, which is right for gradients
  through the eigenvalues only and through the eigenspace only (a projector),
  and NaN where the loss reaches that eigenvalue through both (a matrix function
  ``V f(W) V^T``: its gradient there is not a function of the cotangents);
* ``svd``: likewise for equal singular values (but the part of the derivative
  over ``s_i + s_j``, which the polar factor ``U V^H`` needs, is kept), and the
  ``1 / s`` terms of a non-square matrix need non-zero singular values;
* ``qr`` needs full rank (the leading square block for wide matrices);
* ``pinv``: the formula holds where the rank is locally constant.

Eigen- and singular vectors are defined up to sign (a phase, for complex
ones); ``eigh``, ``eig`` and ``svd`` return each with its largest-magnitude
entry real and positive, and ``qr`` makes ``R``'s diagonal real and
non-negative, so the results are the same on every device and continuous
(LAPACK's own signs jump, e.g. where a column is already zero below the
diagonal), which gradients need.  The factorizations are written with
conjugate transposes (``holomorphic = False``): the same code serves real and
complex matrices (docs/complex.md).
"""

from __future__ import annotations

import math
from typing import Any

from ..backend import host_numpy
from . import linalg_failure
from .base import Op
from .elementwise import abs_slope


def _mT(xp: Any, a: Any) -> Any:
    return xp.swapaxes(a, -1, -2)


def _mH(xp: Any, a: Any) -> Any:
    """The conjugate transpose (the plain transpose of a real matrix)."""
    t = xp.swapaxes(a, -1, -2)
    return xp.conj(t) if a.dtype.kind == "c" else t


def _solve_right(xp: Any, x: Any, r: Any) -> Any:
    """``x @ inv(r)`` without forming the inverse."""
    return _mT(xp, xp.linalg.solve(_mT(xp, r), _mT(xp, x)))


def _solve_right_h(xp: Any, x: Any, r: Any) -> Any:
    """``x @ inv(r)^H`` without forming the inverse."""
    return _mH(xp, xp.linalg.solve(r, _mH(xp, x)))


def _upper_solve_right(xp: Any, x: Any, r: Any, conjugate: bool) -> Any:
    """``x @ inv(r)`` (``x @ inv(r)^H`` when ``conjugate``) for an upper-triangular ``r``, as PyTorch's
    triangular solve answers it: where ``r`` has a zero on its diagonal (QR of a rank-deficient
    matrix) the quotients by it are IEEE's inf and NaN, not the general solve's ``LinAlgError``."""
    solve = _solve_right_h if conjugate else _solve_right
    try:
        return solve(xp, x, r)
    except host_numpy.linalg.LinAlgError:
        return substitute_right(xp, x, xp.conj(_mT(xp, r)) if conjugate else r, lower=conjugate)


def substitute_right(xp: Any, x: Any, t: Any, lower: bool) -> Any:
    """``x @ inv(t)`` for a triangular ``t`` by substitution, a column of the answer at a time
    (left to right for an upper ``t``, right to left for a lower one): a zero on ``t``'s diagonal
    gives IEEE's inf and NaN, silently, as PyTorch's ``trsm`` -- the fallback where the general
    solve refuses a singular triangle."""
    n = t.shape[-1]
    y = xp.zeros(x.shape, dtype=xp.result_type(x, t))
    done: list[int] = []
    with xp.errstate(**_QUIET):
        for j in range(n - 1, -1, -1) if lower else range(n):
            rest = x[..., j] - sum((y[..., k] * t[..., k, j][..., None] for k in done), xp.zeros_like(y[..., j]))
            y[..., j] = rest / t[..., j, j][..., None]
            done.append(j)
    return y


def _safe_reciprocal_gaps(xp: Any, d: Any) -> Any:
    """``1 / d`` off the coincidences, 0 where ``d == 0``."""
    zero = d == 0
    return xp.where(zero, 0, 1 / xp.where(zero, 1, d))


_QUIET = {"over": "ignore", "invalid": "ignore", "divide": "ignore"}
_EPS = {2: 9.77e-4, 4: 1.1920929e-07, 8: 2.220446049250313e-16}  # machine epsilon by itemsize


def _near_equal(xp: Any, values: Any) -> Any:
    """``T_ij``: do ``values_i`` and ``values_j`` agree to rounding (``|gap| <= 10 n eps
    max|values|``)?  True on the diagonal."""
    d = values[..., None, :] - values[..., :, None]
    n = values.shape[-1]
    scale = xp.max(xp.abs(values), axis=-1, keepdims=True)[..., None] if n else 0
    eps = _EPS[values.dtype.itemsize // 2 if values.dtype.kind == "c" else values.dtype.itemsize]
    return xp.abs(d) <= (10 * n * eps) * scale


def _gap_reciprocals(xp: Any, values: Any, undefined: Any = None) -> Any:
    """``F_ij = 1 / (values_j - values_i)``, with 0 on the diagonal and wherever the two
    values agree to rounding, and NaN where ``undefined`` says so.

    A matrix built with a repeated eigenvalue comes out of LAPACK with the copies
    apart by an ulp or so; ``1 / gap`` would then be ~1e16 and multiply rounding
    noise into the gradient.  Treating such pairs as equal is right for every
    loss that depends on the eigenspace only (the documented caveat).
    """
    with xp.errstate(**_QUIET):  # values near overflow or underflow: see _times_gaps
        d = values[..., None, :] - values[..., :, None]
        tiny = _near_equal(xp, values)
        f = xp.where(tiny, 0, 1 / xp.where(tiny, 1, d))
    return f if undefined is None else xp.where(undefined, xp.nan, f)


def _times_gaps(xp: Any, f: Any, x: Any) -> Any:
    """``f * x``, 0 where ``x`` is: a pair that no cotangent reaches adds nothing, also where its
    ``f`` is not finite (the gaps of a subnormal matrix's values overflow ``1 / gap``, the squares
    of a huge one's singular values overflow to ``inf - inf``), as where PyTorch skips the terms
    of an unused output (``svdvals``' gradient is ``U diag(gS) V^H`` for every finite matrix)."""
    # f is replaced where it is not finite and x is 0, not the product where x is 0: under
    # create_graph the product's derivative in x (the cotangent) must stay f where f is finite
    with xp.errstate(**_QUIET):
        return xp.where(xp.logical_or(xp.isfinite(f), x != 0), f, 0) * x


def _undetermined_pairs(xp: Any, values: Any, m: Any, gw: Any = None) -> Any:
    """The pairs ``i != j`` of equal eigenvalues whose eigenvector term ``F_ij m_ij`` has no
    value: ``m`` (the eigenvector cotangent or tangent in the eigenbasis) is non-zero
    there and -- in reverse mode -- the eigenvalue cotangent ``gw`` is non-zero somewhere
    on that repeated eigenvalue.

    Why ``gw`` decides: within a repeated eigenvalue's eigenspace, the gradient of a loss
    that does not depend on the basis chosen there is a symmetric matrix ``G`` of which the
    cotangents show only the diagonal (``gw`` in this basis).  A loss through eigenvectors
    alone there (a projector onto the whole eigenspace) has ``G = 0``, and 0 for
    ``F_ij m_ij`` is right; a matrix function ``V f(W) V^T`` has ``G = f'(w) S`` with
    ``S = V^T sym(C) V`` and ``m = 2 f(w) S``, of which ``gw = f'(w) diag(S)`` shows only the
    diagonal -- no finite value would be right in general.  ``gw = 0`` says ``G = 0`` only
    where ``m``'s diagonal is not 0 there too: ``<C, V V^T>`` (``G = 0``) and ``<C, V e^(W-2)
    V^T>`` (``G = S``) with ``C``'s diagonal 0 in the eigenbasis have the same cotangents.
    """
    n = values.shape[-1]
    tiny = _near_equal(xp, values)
    off = xp.logical_and(tiny, xp.logical_not(xp.eye(n, dtype=bool)))
    used = xp.logical_or(m != 0, _mT(xp, m) != 0)
    pairs = xp.logical_and(off, used)
    if gw is None:
        return pairs
    # on each repeated eigenvalue: a non-zero eigenvalue cotangent, or no evidence that G is 0
    shown = xp.diagonal(m, axis1=-2, axis2=-1) != 0
    eigenvalue_used = xp.logical_or(xp.any(xp.logical_and(tiny, (gw != 0)[..., None, :]), axis=-1),
                                    xp.logical_not(xp.any(xp.logical_and(tiny, shown[..., None, :]), axis=-1)))
    # A loss that depends on which basis of the eigenspace was chosen (one eigenvector of a
    # repeated eigenvalue) has no gradient there: it changes under a rotation of the basis,
    # whose generator is skew, so m's skew part within the eigenspace is not 0 (it is, to
    # rounding, for every loss of the eigenspace alone)
    skew = xp.abs(m - _mH(xp, m))
    scale = xp.max(xp.abs(m), axis=(-2, -1), keepdims=True) if n else 0
    basis_dependent = skew > (1e3 * _EPS[skew.dtype.itemsize]) * scale
    return xp.logical_and(pairs, xp.logical_or(eigenvalue_used[..., :, None], basis_dependent))


def _positive_largest(xp: Any, v: Any) -> Any:
    """The factor per column that makes each column's largest-magnitude entry real and positive:
    a sign (+-1) for real vectors, a unit phase ``conj(v_p) / |v_p|`` for complex ones."""
    if v.shape[-2] == 0:  # columns of no entries (an empty matrix): nothing to flip
        return xp.ones(v.shape[:-2] + (1, v.shape[-1]), dtype=v.dtype)
    idx = xp.argmax(xp.abs(v), axis=-2, keepdims=True)
    largest = xp.take_along_axis(v, idx, axis=-2)
    if v.dtype.kind == "c":
        mag = xp.abs(largest)
        return xp.where(mag == 0, 1, xp.conj(largest) / xp.where(mag == 0, 1, mag))
    s = xp.sign(largest)
    return xp.where(s == 0, 1, s)


# Complex eigen- and singular vectors are unique up to a phase per vector (a sign for real
# ones).  The factorizations fix it (:func:`_positive_largest`), so their outputs are smooth
# functions of the input and their derivatives exact: a tangent computed in any phase is
# projected onto the fixed one by removing the rotation that would take each vector's
# largest entry off the positive real axis; the backward applies the adjoint of that
# projection to the cotangent.  For real vectors both are zero.

def _largest_entry_mask(xp: Any, v: Any) -> Any:
    """True at each column's largest-magnitude entry (the first of a tie), as the phase fix chose."""
    if v.shape[-2] == 0:  # columns of no entries (an empty matrix): no entry to mark
        return xp.zeros(v.shape, dtype=bool)
    mag = xp.abs(v)
    rows = xp.cumsum(xp.ones_like(mag), axis=-2) - 1  # each entry's row number
    return xp.equal(rows, xp.argmax(mag, axis=-2, keepdims=True))


def _at_largest(xp: Any, mask: Any, x: Any) -> Any:
    """``x``'s entry at each column's mask position, as a row ``(..., 1, k)``."""
    return xp.sum(xp.where(mask, x, 0), axis=-2, keepdims=True)


def _phase_rotation(xp: Any, v: Any, dv: Any) -> Any:
    """``i Im(dv_p) / v_p`` per column: ``v`` times it is the part of a tangent ``dv`` that turns
    the (real, positive) largest entry ``v_p`` of each column of ``v`` off the real axis."""
    mask = _largest_entry_mask(xp, v)
    return 1j * xp.imag(_at_largest(xp, mask, dv)) / xp.real(_at_largest(xp, mask, v))


def _phase_cotangent(xp: Any, v: Any, c: Any) -> Any:
    """The adjoint of removing ``v * _phase_rotation(v, dv)`` from ``dv``, for the row ``c`` of
    the cotangent's components along ``i v`` (``c = Im diag(g^H v)``): ``i c / v_p`` at each
    column's largest entry, 0 elsewhere."""
    mask = _largest_entry_mask(xp, v)
    return xp.where(mask, 1j * c / xp.real(_at_largest(xp, mask, v)), 0)


def _diag_h(xp: Any, x: Any, y: Any) -> Any:
    """``diag(x^H y)`` as a row ``(..., 1, k)``: each column of ``x`` with the same column of ``y``."""
    return xp.sum(xp.conj(x) * y, axis=-2, keepdims=True)


class Inv(Op):
    """``inv(A)``; ``dA^-1 = -A^-1 dA A^-1``."""

    save_inputs = False
    save_output = True

    def forward(self, xp, a):
        return _nan_where_a_has_nan(xp, a, xp.linalg.inv)

    def backward(self, xp, g, out, a):
        t = _mT(xp, out)
        return -xp.matmul(xp.matmul(t, g), t)

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        return None if t is None else -xp.matmul(xp.matmul(out, t), out)

    def reference(self, np, a):
        return _nan_where_a_has_nan(np, a, np.linalg.inv)


class Det(Op):
    """``det(A)``; ``d det = tr(adj(A) dA)``: the derivative is the cofactor matrix
    ``adj(A)^T``, which is ``det * A^-T`` for a non-singular ``A`` and exists for a singular
    one too (:func:`_cofactors`)."""

    save_output = True

    def forward(self, xp, a):
        return _det(xp, a)

    def backward(self, xp, g, out, a):
        return g[..., None, None] * _cofactors(xp, a, out)

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        return xp.sum(_cofactors(xp, a, out) * t, axis=(-2, -1))

    def reference(self, np, a):
        return _det(np, a)


def _det(xp: Any, a: Any) -> Any:
    """``det(A)``, NaN for a matrix holding a NaN, as PyTorch's (OpenBLAS's LU answered 0 for
    ``[[nan, 1], [1, 1]]``: :func:`_finite_stand_in`)."""
    has_nan = _nan_matrices(xp, a)
    return xp.where(has_nan[..., 0, 0], xp.nan, xp.linalg.det(_finite_stand_in(xp, a, has_nan)))


def _cofactors(xp: Any, a: Any, det: Any) -> Any:
    """The cofactor matrix ``adj(A)^T`` of each matrix, given its determinant.

    ``det * inv(A)^T`` where ``det != 0``.  Where LU met an exact zero pivot (``det == 0``,
    and ``inv`` would fail) the definition gives it: entry ``(i, j)`` is ``(-1)^(i+j)``
    times the determinant of ``A`` without row ``i`` and column ``j`` -- not zero for rank
    ``n - 1`` (``[[1, 2], [2, 4]]`` has cofactors ``[[4, -2], [-2, 1]]``).  Those minors go
    through ``det`` again, so every derivative is the polynomial's own, at any order.  Only
    when some matrix is singular (one explicit device read) are the ``n^2`` minors taken."""
    singular = det == 0
    found = xp.any(singular)
    if not (bool(xp.scalar(found)) if hasattr(xp, "scalar") else bool(found)):
        return det[..., None, None] * _mT(xp, _nan_where_a_has_nan(xp, a, xp.linalg.inv))
    n = a.shape[-1]
    mask = singular[..., None, None]
    stand_in = xp.where(mask, xp.eye(n, dtype=a.dtype), a)  # invertible where a is not
    regular = det[..., None, None] * _mT(xp, xp.linalg.inv(stand_in))
    others = host_numpy.array([[k for k in range(n) if k != i] for i in range(n)], dtype=host_numpy.int64)
    rows = xp.asarray(others[:, None, :, None])  # (n, 1, n-1, 1): minor (i, j) drops row i ...
    cols = xp.asarray(others[None, :, None, :])  # (1, n, 1, n-1): ... and column j
    signs = xp.asarray(((-1.0) ** host_numpy.add.outer(host_numpy.arange(n), host_numpy.arange(n))).astype(a.dtype))
    by_minors = xp.linalg.det(a[..., rows, cols]) * signs
    return xp.where(mask, by_minors, regular)


class SlogDet(Op):
    """``slogdet(A)`` packed as ``(..., 2)``: ``[sign, log|det|]``.

    ``d log|det| = Re t`` with ``t = tr(A^-1 dA)``.  The sign of a real matrix is
    piecewise constant (gradient 0); a complex matrix's sign ``det / |det|`` is
    on the unit circle and turns with ``d sign = i sign Im t``, so its gradient
    is ``(g_logabsdet - i Im(conj(g_sign) sign)) A^-H`` (PyTorch's).

    At an exactly singular matrix (sign 0, ``log|det| = -inf``) no derivative exists;
    ``A^-1 = adj(A) / det`` is then IEEE's division by zero, as PyTorch's: +-inf where
    a cofactor is not 0 and NaN where it is, in that matrix's gradient only -- the
    other matrices of a batch keep theirs (``inv`` would fail for the whole batch).
    """

    save_output = True
    holomorphic = False  # the complex sign and the real log|det| are written out below

    def forward(self, xp, a):
        return _slogdet(xp, a)

    def backward(self, xp, g, out, a):
        coefficient = g[..., 1]
        if a.dtype.kind == "c":
            coefficient = xp.real(coefficient) - 1j * xp.imag(xp.conj(g[..., 0]) * out[..., 0])
        cofactors, det = _cofactors_over_det(xp, a, out[..., 0])
        with xp.errstate(divide="ignore", invalid="ignore"):  # det == 0: +-inf or NaN, PyTorch's
            return coefficient[..., None, None] * xp.conj(cofactors) / det[..., None, None]

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        cofactors, det = _cofactors_over_det(xp, a, out[..., 0])
        with xp.errstate(divide="ignore", invalid="ignore"):
            d = xp.sum(cofactors * t, axis=(-2, -1)) / det
        if a.dtype.kind == "c":
            return xp.stack([1j * out[..., 0] * xp.imag(d), xp.real(d) + 0j], axis=-1)
        return xp.stack([xp.zeros_like(d), d], axis=-1)  # a real sign is constant (0 * inf is NaN)

    def reference(self, np, a):
        return _slogdet(np, a)


def _slogdet(xp: Any, a: Any) -> Any:
    """``[sign, log|det|]``; for a real matrix the sign is 0 where ``log|det|`` is NaN (a NaN matrix,
    as PyTorch's: the product of the signs of ``U``'s diagonal, where ``sign(NaN) = 0``; NumPy
    says 1).  A complex NaN's sign is NaN in both."""
    has_nan = _nan_matrices(xp, a)
    sign, logdet = xp.linalg.slogdet(_finite_stand_in(xp, a, has_nan))  # (OpenBLAS: -inf for [[nan, 1], [1, 1]])
    logdet = xp.where(has_nan[..., 0, 0], xp.nan, logdet)
    sign = xp.where(xp.isnan(logdet), 0 if a.dtype.kind != "c" else complex(math.nan, math.nan), sign)
    return xp.stack([sign, logdet], axis=-1)


def _cofactors_over_det(xp: Any, a: Any, sign: Any) -> tuple[Any, Any]:
    """``(C, d)`` with ``A^-T = C / d`` for each matrix: ``(A^-T, 1)`` where ``A`` is regular,
    ``(adj(A)^T, 0)`` where slogdet's ``sign`` is 0 (``inv`` would fail there).  Scaling by
    ``|sign|`` rather than by ``det`` keeps a regular matrix whose ``det`` under- or overflows
    exact."""
    magnitude = xp.abs(sign)
    return _cofactors(xp, a, magnitude), magnitude


class Solve(Op):
    """``X = solve(A, B)`` for ``B`` of shape ``(..., M, K)`` (``functional`` makes a
    vector a column); batch axes broadcast.  ``gB = solve(A^T, g)``, ``gA = -gB X^T``: neither
    reads ``B``, so it is not kept."""

    save_inputs = (0,)
    save_output = True
    uses_needs_input_grad = True

    def forward(self, xp, a, b):
        return _nan_where_a_has_nan(xp, a, lambda m: xp.linalg.solve(m, b))

    def backward(self, xp, g, out, a, b, needs_input_grad=(True, True)):
        gb = _nan_where_a_has_nan(xp, a, lambda m: xp.linalg.solve(_mT(xp, m), g))
        ga = -xp.matmul(gb, _mT(xp, out)) if needs_input_grad[0] else None
        return ga, (gb if needs_input_grad[1] else None)

    def jvp(self, xp, tangents, out, a, b):
        ta, tb = tangents
        rhs = tb if tb is not None else 0
        if ta is not None:
            rhs = rhs - xp.matmul(ta, out)
        return _nan_where_a_has_nan(xp, a, lambda m: xp.linalg.solve(m, rhs + out * 0))

    def reference(self, np, a, b):
        return _nan_where_a_has_nan(np, a, lambda m: np.linalg.solve(m, b))


def _nan_matrices(xp: Any, a: Any) -> Any:
    """True for each matrix of ``a`` (shape ``(..., 1, 1)``) that holds a NaN."""
    return xp.any(xp.isnan(a), axis=(-2, -1), keepdims=True)


def _finite_stand_in(xp: Any, a: Any, has_nan: Any) -> Any:
    """``a`` with each matrix that holds a NaN replaced by the identity, for LAPACK: OpenBLAS (under
    NumPy) passes over a NaN pivot, so such a matrix can look singular to it (``inv([[nan, 1], [1, 1]])``
    raised "Singular matrix", its ``det`` was 0), where PyTorch's answer is NaN."""
    return xp.where(has_nan, xp.eye(a.shape[-1], dtype=a.dtype), a)


def _nan_where_a_has_nan(xp: Any, a: Any, solve: Any) -> Any:
    """``solve(A)`` (``inv(A)``, ``solve(A, B)`` or its ``A^T`` twin), NaN in every entry that belongs to a
    matrix ``A`` holding a NaN: each entry depends on ``det(A)``, NaN then.  LAPACK's pivoting can step
    around a NaN (OpenBLAS left two of three rows of ``inv([[nan, 1, .5], [2, 3, 1], [0, 1, 4]])`` finite:
    ``[-2, 1, 0]``, ...) or stop at it (:func:`_finite_stand_in`); PyTorch's answer is NaN throughout."""
    has_nan = _nan_matrices(xp, a)
    return xp.where(has_nan, xp.nan, solve(_finite_stand_in(xp, a, has_nan)))


def _phi(xp: Any, x: Any) -> Any:
    """The lower triangle with the diagonal halved (Murray 2016's Phi)."""
    return 0.5 * (xp.tril(x) + xp.tril(x, -1))


def _from_lower(xp: Any, a: Any) -> Any:
    """The symmetric (Hermitian) matrix whose lower triangle is ``a``'s, as LAPACK reads it:
    for a complex ``a`` the imaginary parts of the diagonal are not read."""
    if a.dtype.kind == "c":
        low = _phi(xp, a)
        return low + _mH(xp, low)
    return xp.tril(a) + _mT(xp, xp.tril(a, -1))


def _to_lower(xp: Any, s: Any) -> Any:
    """The adjoint of :func:`_from_lower`: a gradient ``s`` with respect to the Hermitian
    matrix, as a gradient of the lower triangle (off-diagonal entries appear twice)."""
    return _phi(xp, s + _mH(xp, s))


class Cholesky(Op):
    """The lower Cholesky factor ``L`` (real positive diagonal) of a symmetric (Hermitian)
    positive-definite matrix.

    Only the lower triangle is read, as NumPy (the upper one gets no
    gradient).  Murray (2016): with ``S = L^-H Phi(L^H gL) L^-1`` the gradient
    of the Hermitian matrix is ``S``, folded onto the lower triangle.
    """

    save_inputs = False
    save_output = True
    holomorphic = False  # written with conjugate transposes

    def forward(self, xp, a):
        lower = _from_lower(xp, a)
        try:
            return xp.linalg.cholesky(lower)
        except host_numpy.linalg.LinAlgError:
            # (rare) positive definite to a few ulps: LAPACK builds decide such a matrix either way
            return xp.asarray(linalg_failure.cholesky_at_the_edge(host_numpy.asarray(xp.to_host(lower))))

    def backward(self, xp, g, out, a):
        p = _phi(xp, xp.matmul(_mH(xp, out), g))
        s = _solve_right(xp, xp.linalg.solve(_mH(xp, out), p), out)
        return _to_lower(xp, s)

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        inner = _solve_right_h(xp, xp.linalg.solve(out, _from_lower(xp, t)), out)  # L^-1 dA L^-H
        return xp.matmul(out, _phi(xp, inner))

    def reference(self, np, a):
        return np.linalg.cholesky(a)


class Eigh(Op):
    """Eigenvalues (ascending) and eigenvectors of the symmetric (Hermitian) matrix given
    by ``A``'s lower triangle (as NumPy's ``UPLO='L'``), packed as ``(..., n + 1, n)``:
    row 0 holds ``w``, rows 1.. the columns of ``V`` (each with its largest entry real
    and positive).

    The Hermitian matrix's gradient is ``V (diag(gw) + F o (V^H gV)) V^H`` with
    ``F_ij = 1 / (w_j - w_i)``, folded onto the lower triangle; for complex ``V`` the
    cotangent first gets the adjoint of the phase fix.  At a repeated
    eigenvalue (equal to rounding) ``F_ij`` is 0 -- exact when only eigenvalue
    cotangents reach the repeated eigenvalue (no gap is divided by) and when only
    eigenvector cotangents do (a projector onto the whole eigenspace) -- and NaN
    where both do and the eigenvector cotangent couples the equal pair, as in a
    matrix function ``V f(W) V^H``: there the gradient is not a function of the
    cotangents -- and NaN where the loss depends on the basis chosen within the
    eigenspace (one eigenvector of a repeated eigenvalue: see :func:`_undetermined_pairs`).
    Forward mode: the eigenvector tangent is NaN where the tangent couples an equal pair
    (the eigenvectors have no derivative there); the eigenvalue tangents are the diagonal of ``V^H dA V``.
    """

    save_inputs = False
    save_output = True
    holomorphic = False  # written with conjugate transposes

    def forward(self, xp, a):
        w, v = xp.linalg.eigh(_from_lower(xp, a))
        v = v * _positive_largest(xp, v)
        return xp.concatenate([w[..., None, :].astype(v.dtype), v], axis=-2)

    def backward(self, xp, g, out, a):
        w, v = out[..., 0, :], out[..., 1:, :]
        gw, gv = g[..., 0, :], g[..., 1:, :]
        if v.dtype.kind == "c":
            w, gw = xp.real(w), xp.real(gw)
            gv = gv - _phase_cotangent(xp, v, xp.imag(_diag_h(xp, v, gv)))
        m = xp.matmul(_mH(xp, v), gv)
        inner = _times_gaps(xp, _gap_reciprocals(xp, w, _undetermined_pairs(xp, w, m, gw)), m)
        ga = xp.matmul(xp.matmul(v, inner) + v * gw[..., None, :], _mH(xp, v))
        return _to_lower(xp, ga)

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        w, v = out[..., 0, :], out[..., 1:, :]
        complex_ = v.dtype.kind == "c"
        sv = xp.matmul(_from_lower(xp, t), v)
        m = xp.matmul(_mH(xp, v), sv)
        dw = xp.sum(xp.conj(v) * sv if complex_ else v * sv, axis=-2)
        if complex_:
            w = xp.real(w)
        dv = xp.matmul(v, _gap_reciprocals(xp, w, _undetermined_pairs(xp, w, m)) * m)
        if complex_:
            dw = xp.real(dw) + 0j
            dv = dv - v * _phase_rotation(xp, v, dv)
        return xp.concatenate([dw[..., None, :], dv], axis=-2)

    def reference(self, np, a):
        w, v = np.linalg.eigh(a)
        return np.concatenate([w[..., None, :].astype(v.dtype), v * _positive_largest(np, v)], axis=-2)


class Eig(Op):
    """Eigenvalues and eigenvectors of a general square matrix (LAPACK's ``geev``, in its
    order), complex for real input too, packed as ``(..., n + 1, n)``: row 0 holds ``w``,
    rows 1.. the columns of ``V``, each of unit length with its largest entry real and
    positive.  Computed on the host (CuPy has no general eigensolver).

    With ``M = V^-1 dA V``: ``dw = diag(M)``, ``dV = V (F o M)`` (``F_ij = 1 / (w_j - w_i)``)
    projected back to unit, phase-fixed vectors; the gradient is
    ``V^-H (diag(gw) + conj(F) o (V^H gV')) V^H`` with ``gV'`` the cotangent after the
    adjoint of that projection (PyTorch's formula, plus the normalization's terms, which
    vanish for losses that do not depend on the vectors' scale and phase).  Needs
    distinct eigenvalues for the eigenvector gradient; a real input gets the real part.
    """

    save_inputs = False
    save_output = True
    holomorphic = False  # written with conjugate transposes

    def forward(self, xp, a):
        complex_dtype = host_numpy.result_type(a.dtype, host_numpy.complex64)
        w, v = host_numpy.linalg.eig(xp.to_host(a))
        v = v.astype(complex_dtype)
        v = v * _positive_largest(host_numpy, v)
        return xp.asarray(host_numpy.concatenate([w[..., None, :].astype(complex_dtype), v], axis=-2))

    def backward(self, xp, g, out, a):
        w, v = out[..., 0, :], out[..., 1:, :]
        gw, gv = g[..., 0, :], g[..., 1:, :]
        d = _diag_h(xp, v, gv)
        gv = gv - v * xp.real(d) - _phase_cotangent(xp, v, xp.imag(d))
        inner = xp.conj(_gap_reciprocals(xp, w)) * xp.matmul(_mH(xp, v), gv)
        vh = _mH(xp, v)
        return xp.linalg.solve(vh, xp.matmul(inner, vh) + gw[..., :, None] * vh)

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        w, v = out[..., 0, :], out[..., 1:, :]
        m = xp.linalg.solve(v, xp.matmul(t, v))
        dw = xp.diagonal(m, axis1=-2, axis2=-1)
        dv = xp.matmul(v, _gap_reciprocals(xp, w) * m)
        dv = dv - v * (xp.real(_diag_h(xp, v, dv)) + _phase_rotation(xp, v, dv))
        return xp.concatenate([dw[..., None, :], dv], axis=-2)

    def reference(self, np, a):
        w, v = np.linalg.eig(a)
        v = v.astype(np.result_type(a.dtype, np.complex64))
        return np.concatenate([w[..., None, :].astype(v.dtype), v * _positive_largest(np, v)], axis=-2)


def _equal_pair_terms(xp: Any, s: Any, skew: Any) -> Any:
    """The SVD's terms for pairs of singular values equal to rounding, which
    :func:`_gap_reciprocals` leaves out.

    Off the diagonal the SVD's derivative pairs ``x_ij s_j + s_i y_ij`` with
    ``1 / (s_j^2 - s_i^2)``, which is ``(x + y)_ij / (2 (s_j - s_i)) + (x - y)_ij /
    (2 (s_j + s_i))``: only the first part -- a rotation within the pair's subspaces,
    taken as 0 there as for ``eigh`` -- divides by the gap.  At ``s_i = s_j > 0`` the
    second part is finite, and ``U V^H`` (the polar factor, smooth wherever ``A`` has
    full rank) needs it.  ``skew`` is ``x - y`` (the cotangents' ``U^H gU - V^H gV`` less
    its conjugate transpose; ``dP - dP^H`` in forward mode); this returns
    ``skew_ij / (2 (s_i + s_j))`` on the equal pairs, 0 elsewhere and where both values are 0.
    """
    n = s.shape[-1]
    with xp.errstate(**_QUIET):  # s * s and s_i + s_j of huge values overflow: inf, never an equal pair
        off = xp.logical_and(_near_equal(xp, s * s), xp.logical_not(xp.eye(n, dtype=bool)))
        total = s[..., :, None] + s[..., None, :]
    keep = xp.logical_and(off, total > 0)
    return xp.where(keep, skew / (2 * xp.where(keep, total, 1)), 0)


def _svd(xp: Any, a: Any) -> Any:
    """``xp.linalg.svd(a, full_matrices=False)``; on the host, a stack holding an infinity or a NaN
    is refused before LAPACK sees it (NumPy's ``LinAlgError``, which the linalg functions word as
    PyTorch's): OpenBLAS's ``gesdd`` may never return on an infinite entry -- ``[[inf, inf, inf],
    [0, 3, 0], [0, 0, 3]]`` loops forever -- where a NaN is refused.  (cuSOLVER returns; there the
    check would cost a device read per call, so it is the host's, the strict stand-in's included.)"""
    if getattr(xp, "library", xp) is host_numpy:
        finite = xp.all(xp.isfinite(a))
        if not (xp.scalar(finite) if hasattr(xp, "scalar") else finite):
            raise host_numpy.linalg.LinAlgError("SVD did not converge: the matrix holds an infinity or a NaN")
    return xp.linalg.svd(a, full_matrices=False)


class Svd(Op):
    """The reduced SVD ``A = U diag(S) V^H`` (``k = min(m, n)``), packed as
    ``(..., m + 1 + n, k)``: rows ``:m`` hold ``U`` (each column's largest entry real
    and positive), row ``m`` holds ``S`` (descending), rows ``m + 1:`` hold ``V`` (not ``Vh``).

    Townsend (2016): ``gA = U [J S + diag(gS) + S K] V^H + (I - U U^H) gU S^-1 V^H
    + U S^-1 gV^H (I - V V^H)`` with ``J = F o (U^H gU - gU^H U)``,
    ``K = F o (V^H gV - gV^H V)``, ``F_ij = 1 / (s_j^2 - s_i^2)``.  Complex
    matrices add ``-i Im(diag(V^H gV)) / S`` to the diagonal (the relative phase
    of ``u_j`` and ``v_j`` is fixed by ``A``) and the adjoint of the phase fix.
    """

    save_inputs = False
    save_output = True
    holomorphic = False  # written with conjugate transposes
    in_shape: tuple

    def forward(self, xp, a):
        u, s, vh = _svd(xp, a)
        phase = _positive_largest(xp, u)
        v = _mH(xp, vh) * phase
        return xp.concatenate([u * phase, s[..., None, :].astype(u.dtype), v], axis=-2)

    def _parts(self, x: Any) -> tuple[Any, Any, Any]:
        m = self.in_shape[-2]
        return x[..., :m, :], x[..., m, :], x[..., m + 1:, :]

    def backward(self, xp, g, out, a):
        u, s, v = self._parts(out)
        gu, gs, gv = self._parts(g)
        m, n = self.in_shape[-2:]
        k = min(m, n)
        complex_ = u.dtype.kind == "c"
        if complex_:
            s, gs = xp.real(s), xp.real(gs)
            gu = gu - _phase_cotangent(xp, u, xp.imag(_diag_h(xp, u, gu) + _diag_h(xp, v, gv)))
        with xp.errstate(**_QUIET):
            s2 = s * s
        f = _gap_reciprocals(xp, s2)
        utgu = xp.matmul(_mH(xp, u), gu)
        vtgv = xp.matmul(_mH(xp, v), gv)
        j = _times_gaps(xp, f, utgu - _mH(xp, utgu))
        kk = _times_gaps(xp, f, vtgv - _mH(xp, vtgv))
        core = j * s[..., None, :] + s[..., :, None] * kk
        core = core + _equal_pair_terms(xp, s, utgu - vtgv - _mH(xp, utgu - vtgv))
        with xp.errstate(divide="ignore", invalid="ignore"):
            inv_s = _safe_reciprocal_gaps(xp, s)
        if complex_:
            gs = gs - 1j * xp.imag(xp.diagonal(vtgv, axis1=-2, axis2=-1)) * inv_s
        ga = xp.matmul(xp.matmul(u, core) + u * gs[..., None, :], _mH(xp, v))
        if m > k:
            ga = ga + xp.matmul((gu - xp.matmul(u, utgu)) * inv_s[..., None, :], _mH(xp, v))
        if n > k:
            ga = ga + xp.matmul(u * inv_s[..., None, :], _mH(xp, gv - xp.matmul(v, vtgv)))
        return ga

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        u, s, v = self._parts(out)
        m, n = self.in_shape[-2:]
        k = min(m, n)
        complex_ = u.dtype.kind == "c"
        if complex_:
            s = xp.real(s)
        f = _gap_reciprocals(xp, s * s)
        tv = xp.matmul(t, v)
        dp = xp.matmul(_mH(xp, u), tv)
        dph = _mH(xp, dp)
        equal = _equal_pair_terms(xp, s, dp - dph)
        du = xp.matmul(u, f * (dp * s[..., None, :] + s[..., :, None] * dph) + equal)
        dv = xp.matmul(v, f * (s[..., :, None] * dp + dph * s[..., None, :]) - equal)
        inv_s = _safe_reciprocal_gaps(xp, s)
        dp_diag = xp.diagonal(dp, axis1=-2, axis2=-1)
        ds = xp.real(dp_diag) + 0j if complex_ else dp_diag
        if complex_:  # the phase of v_j relative to u_j, from Im(u_j^H dA v_j)
            dv = dv - v * (1j * xp.imag(dp_diag) * inv_s)[..., None, :]
        if m > k:
            du = du + (tv - xp.matmul(u, dp)) * inv_s[..., None, :]
        if n > k:
            tu = xp.matmul(_mH(xp, t), u)
            dv = dv + (tu - xp.matmul(v, xp.matmul(_mH(xp, v), tu))) * inv_s[..., None, :]
        if complex_:
            rotation = _phase_rotation(xp, u, du)
            du, dv = du - u * rotation, dv - v * rotation
        return xp.concatenate([du, ds[..., None, :], dv], axis=-2)

    def reference(self, np, a):
        u, s, vh = _svd(np, a)
        phase = _positive_largest(np, u)
        v = np.swapaxes(vh, -1, -2)
        v = (np.conj(v) if v.dtype.kind == "c" else v) * phase
        return np.concatenate([u * phase, s[..., None, :].astype(u.dtype), v], axis=-2)


def _real_positive_diagonal(xp: Any, r: Any) -> Any:
    """The unit factor per row of ``R`` that makes its diagonal real and non-negative
    (LAPACK's diagonal is real but of either sign)."""
    d = xp.diagonal(r, axis1=-2, axis2=-1)
    mag = xp.abs(d)
    return xp.where(mag == 0, 1, d / xp.where(mag == 0, 1, mag))


class Qr(Op):
    """The reduced QR ``A = Q R`` with ``R``'s diagonal real and non-negative, packed as
    ``(..., k, m + n)``: columns ``:m`` hold ``Q^T``, columns ``m:`` hold ``R``.

    The gradient (TensorFlow's, after Walter & Lehmann, with conjugate transposes)
    needs ``R`` invertible: full rank for tall ``A``; for wide ``A = [X | Y]`` the
    square part ``X``.

    ``complete=True`` packs the complete QR (``k = m``) of a tall ``A``: the last
    ``m - n`` columns of ``Q`` are LAPACK's basis of the orthogonal complement of
    ``A``'s columns -- any other orthonormal basis is as good, so they are not a
    function of ``A`` and have no derivative.  Both modes then refuse, as PyTorch's.

    ``r_only=True`` is ``mode="r"``: the caller keeps only ``R``, and PyTorch refuses its
    derivative too, since the formula is written with ``Q``.  Refusing here keeps the two
    engines' programs interchangeable (one that differentiates ``R`` alone fails in both).
    """

    save_output = True
    holomorphic = False  # written with conjugate transposes
    in_shape: tuple
    complete: bool = False
    r_only: bool = False

    @property
    def save_inputs(self) -> bool:  # type: ignore[override]
        """A tall or square ``A``'s gradient is written with ``Q`` and ``R`` alone, so ``A`` may change
        between forward and backward (as PyTorch's); a wide one's reads ``A``'s right block ``Y``."""
        m, n = self.in_shape[-2:]
        return m < n

    def forward(self, xp, a):
        q, r = xp.linalg.qr(a, mode="complete" if self.complete else "reduced")
        # LAPACK's signs jump where a Householder reflector is the identity (a zero
        # below the diagonal); a non-negative diagonal of R makes QR unique and smooth
        s = _real_positive_diagonal(xp, r)
        extra = q.shape[-1] - s.shape[-1]  # complete mode's complement columns keep LAPACK's signs
        if extra:
            s = xp.concatenate([s, xp.ones(s.shape[:-1] + (extra,), dtype=s.dtype)], axis=-1)
        return xp.concatenate([_mT(xp, q * s[..., None, :]), r * xp.conj(s)[..., :, None]], axis=-1)

    def _refuse_undifferentiable(self) -> None:
        if self.r_only:
            raise RuntimeError(
                "linalg.qr: the derivative of linalg.qr depends on Q, which is not computed when mode='r' "
                "(PyTorch refuses too). Use linalg.qr(A, mode='reduced') to differentiate through linalg.qr")
        m, n = self.in_shape[-2:]
        if self.complete and m > n:
            raise RuntimeError(
                "linalg.qr: the QR decomposition is not differentiable when mode='complete' and nrows > "
                f"ncols ({m} > {n}; PyTorch refuses too): the last {m - n} columns of Q are one arbitrary "
                "orthonormal basis of the complement. Differentiate mode='reduced' instead; the projector "
                "onto the complement is I - Q @ Q.mH of the reduced Q")

    def _parts(self, xp: Any, x: Any) -> tuple[Any, Any]:
        m = self.in_shape[-2]
        return _mT(xp, x[..., :m]), x[..., m:]

    def backward(self, xp, g, out, a):
        self._refuse_undifferentiable()
        q, r = self._parts(xp, out)
        gq, gr = self._parts(xp, g)
        m, n = self.in_shape[-2:]
        if m >= n:
            return _qr_grad_tall(xp, q, r, gq, gr)
        y, u = a[..., :, m:], r[..., :, :m]
        gu, gv = gr[..., :, :m], gr[..., :, m:]
        gx = _qr_grad_tall(xp, q, u, gq + xp.matmul(y, _mH(xp, gv)), gu)
        return xp.concatenate([gx, xp.matmul(q, gv)], axis=-1)

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        self._refuse_undifferentiable()
        q, r = self._parts(xp, out)
        m, n = self.in_shape[-2:]
        if m >= n:
            dq, dr = _qr_jvp_tall(xp, q, r, t)
        else:
            y, u = a[..., :, m:], r[..., :, :m]
            dq, du = _qr_jvp_tall(xp, q, u, t[..., :, :m])
            dv = xp.matmul(_mH(xp, dq), y) + xp.matmul(_mH(xp, q), t[..., :, m:])
            dr = xp.concatenate([du, dv], axis=-1)
        return xp.concatenate([_mT(xp, dq), dr], axis=-1)

    def reference(self, np, a):
        q, r = np.linalg.qr(a, mode="complete" if self.complete else "reduced")
        d = np.diagonal(r, axis1=-2, axis2=-1)
        s, k = np.where(d == 0, 1, d / np.where(d == 0, 1, np.abs(d))), d.shape[-1]
        q = np.concatenate([q[..., :k] * s[..., None, :], q[..., k:]], axis=-1)
        r = np.concatenate([r[..., :k, :] * np.conj(s)[..., :, None], r[..., k:, :]], axis=-2)
        return np.concatenate([np.swapaxes(q, -1, -2), r], axis=-1)


def _qr_grad_tall(xp: Any, q: Any, r: Any, gq: Any, gr: Any) -> Any:
    """``gA`` for ``A = Q R`` with ``m >= n`` and square invertible ``R`` (the diagonal of
    ``low`` is ``i Im`` of the diagonal, 0 for real matrices: ``R``'s diagonal stays real).
    A singular ``R`` gives NaN, silently (PyTorch's)."""
    qdq = xp.matmul(_mH(xp, q), gq)
    rdr = xp.matmul(r, _mH(xp, gr))
    low = _phi(xp, qdq - _mH(xp, qdq) + rdr - _mH(xp, rdr))
    with xp.errstate(**_QUIET):
        grad_a = xp.matmul(q, gr + _upper_solve_right(xp, low, r, conjugate=True))
        grad_b = _upper_solve_right(xp, gq - xp.matmul(q, qdq), r, conjugate=True)
        return grad_a + grad_b


def _qr_jvp_tall(xp: Any, q: Any, r: Any, t: Any) -> tuple[Any, Any]:
    """``(dQ, dR)`` for ``A = Q R`` (``m >= n``): with ``C = Q^H dA R^-1``,
    ``Q^H dQ = Omega`` (skew-Hermitian, from C's strict lower triangle and the
    imaginary part of its diagonal, so that ``dR``'s diagonal is real) and
    ``dR = (C - Omega) R``."""
    with xp.errstate(**_QUIET):  # a singular R: NaN, silently (PyTorch's)
        tr = _upper_solve_right(xp, t, r, conjugate=False)  # dA R^-1
        c = xp.matmul(_mH(xp, q), tr)
        low = _phi(xp, c)
        omega = low - _mH(xp, low)
        dr = xp.matmul(c - omega, r)
        dq = tr - xp.matmul(q, c - omega)
    return dq, dr


class Pinv(Op):
    """The Moore-Penrose pseudo-inverse, from the SVD with singular values at or
    below ``max(atol, rcond * max(s))`` treated as 0.

    Golub & Pereyra: ``dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P``
    where the rank is locally constant (``^H``: the conjugate transpose, the plain
    one for real matrices).  Reverse mode is that map's adjoint under the real inner
    product ``Re tr(X^H Y)`` (docs/complex.md), each term's factors swapped and
    conjugate-transposed.

    ``hermitian``: the value is the pseudo-inverse of the Hermitian matrix ``a``'s lower triangle
    stands for (as LAPACK's ``eigh`` reads it); the derivatives stay the formula's in ``a`` itself and
    the result, as PyTorch's (its ``pinv_backward(grad, result, self)`` whatever ``hermitian`` is).
    """

    save_output = True
    holomorphic = False  # written with conjugate transposes
    rcond: float
    atol: float = 0.0
    hermitian: bool = False

    def forward(self, xp, a):
        u, s, vh = _svd(xp, _from_lower(xp, a) if self.hermitian else a)
        cutoff = self.rcond * xp.max(s, axis=-1, keepdims=True) if s.shape[-1] else s
        if self.atol:
            cutoff = xp.maximum(cutoff, self.atol)
        keep = s > cutoff
        inv_s = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(s.dtype)
        return xp.matmul(_mH(xp, vh) * inv_s[..., None, :], _mH(xp, u))

    def backward(self, xp, g, out, a):
        p, ph, gh = out, _mH(xp, out), _mH(xp, g)
        term1 = -xp.matmul(xp.matmul(ph, g), ph)
        gpp = xp.matmul(gh, xp.matmul(p, ph))                     # G^H P P^H
        term2 = gpp - xp.matmul(a, xp.matmul(p, gpp))              # (I - A P) G^H P P^H
        ppg = xp.matmul(xp.matmul(ph, p), gh)                      # P^H P G^H
        term3 = ppg - xp.matmul(xp.matmul(ppg, p), a)              # P^H P G^H (I - P A)
        return term1 + term2 + term3

    def jvp(self, xp, tangents, out, a):
        (t,) = tangents
        if t is None:
            return None
        p, ph, th = out, _mH(xp, out), _mH(xp, t)
        term1 = -xp.matmul(xp.matmul(p, t), p)
        thq = th - xp.matmul(xp.matmul(th, a), p)                  # dA^H (I - A P)
        term2 = xp.matmul(xp.matmul(p, ph), thq)
        thpp = xp.matmul(th, xp.matmul(ph, p))                     # dA^H P^H P
        term3 = thpp - xp.matmul(xp.matmul(p, a), thpp)            # (I - P A) dA^H P^H P
        return term1 + term2 + term3

    def reference(self, np, a):
        u, s, vh = _svd(np, _from_lower(np, a) if self.hermitian else a)
        cutoff = self.rcond * np.max(s, axis=-1, keepdims=True) if s.shape[-1] else s
        cutoff = np.maximum(cutoff, self.atol)
        inv_s = np.where(s > cutoff, 1 / np.where(s > cutoff, s, 1), 0)
        return np.matmul(np.swapaxes(vh, -1, -2).conj() * inv_s[..., None, :], np.swapaxes(u, -1, -2).conj())


class VectorNorm(Op):
    """``(sum |x|^p)^(1/p)`` over ``axes`` for a finite ``p`` other than 0.

    ``d/dx = sign(x) |x|^(p-1) / norm^(p-1)``; at a zero norm the subgradient 0
    is taken (for ``p = 2``: the gradient of ``|x|`` at the origin).
    """

    save_output = True
    ord: float
    axes: tuple
    keepdims: bool

    def forward(self, xp, x):
        if x.dtype == xp.float16:  # accumulated in float32, as PyTorch's half norms: the squares of
            # entries from 256 on overflow float16 (norm([300] * 4) was inf, not 600)
            return self.forward(xp, x.astype(xp.float32)).astype(xp.float16)
        p = self.ord
        # |x| only where it is read: p = 2 squares x itself, and a temporary of x's size costs its
        # time and, once glibc's heap has shrunk, fresh pages (clip_grad_norm_ over a transformer's
        # 44M gradients spent half its norm time forming an |x| nothing read)
        if math.prod(x.shape[i] for i in self.axes) == 1:
            # a one-element slice's norm is |x|, as PyTorch's: its square is never formed, so
            # neither overflows (norm([2e19]) in float32 was inf) nor underflows ([1e-30]: 0)
            return xp.sum(xp.abs(x), axis=self.axes, keepdims=self.keepdims)
        with xp.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if p == 2:
                return xp.sqrt(xp.sum(x * x, axis=self.axes, keepdims=self.keepdims))
            a = xp.abs(x)
            if p == 1:
                return xp.sum(a, axis=self.axes, keepdims=self.keepdims)
            # xp.power, not **: NumPy's ** takes shortcuts for some exponents on arrays but
            # not on scalars, so 0-d results would depend on the array type by an ulp
            return xp.power(xp.sum(xp.power(a, p), axis=self.axes, keepdims=self.keepdims), 1.0 / p)

    def _local(self, xp: Any, out: Any, x: Any) -> Any:
        """``d norm / d x`` (``out`` with the reduced axes kept)."""
        p = self.ord
        if p == 1:
            return abs_slope(xp, x)
        zero = out == 0
        safe = xp.where(zero, 1, out)
        if p == 2:
            return xp.where(zero, 0, x / safe)
        with xp.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):
            a = xp.abs(x)
            ratio = a / safe
            local = xp.sign(x) * xp.power(ratio, p - 1)
            # beside a norm ~1e200 an entry ~1e-200 has a ratio that underflows: its power came out
            # inf (p < 1) or 0 (p > 1) where the true one, 2e200 for p = 1/2, is representable
            # (PyTorch's); there the same power by logarithms
            lost = ratio < host_numpy.finfo(x.dtype).tiny
            by_logs = xp.exp((p - 1) * (xp.log(xp.where(lost, a, 1)) - xp.log(xp.where(lost, safe, 1))))
            local = xp.where(lost, xp.sign(x) * by_logs, local)
            return xp.where(zero, 0, xp.where(x == 0, 0, local))

    def _kept(self, v: Any, x: Any) -> Any:
        if self.keepdims:
            return v
        return v.reshape(tuple(1 if i in self.axes else n for i, n in enumerate(x.shape)))

    def backward(self, xp, g, out, x):
        return self._kept(g, x) * self._local(xp, self._kept(out, x), x)

    def jvp(self, xp, tangents, out, x):
        (t,) = tangents
        if t is None:
            return None
        return xp.sum(t * self._local(xp, self._kept(out, x), x), axis=self.axes, keepdims=self.keepdims)

    def reference(self, np, x):
        if math.prod(x.shape[i] for i in self.axes) == 1:  # PyTorch's |x| (see forward)
            return np.sum(np.abs(x), axis=self.axes, keepdims=self.keepdims)
        if self.ord == 2:
            return np.sqrt(np.sum(x * x, axis=self.axes, keepdims=self.keepdims))
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            return np.sum(np.abs(x) ** self.ord, axis=self.axes, keepdims=self.keepdims) ** (1.0 / self.ord)
