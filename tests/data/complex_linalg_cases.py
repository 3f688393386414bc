"""Complex linear-algebra functions of the PyTorch fixture, written once for both engines.

Each function takes the namespace first (``torch`` when
``make_torch_complex_reference.py`` makes ``torch_complex_reference.npz``,
``minigrad_ckpt`` when ``tests/test_complex_vs_torch.py`` replays it) and uses
names both spell alike (``F.linalg.eigh``, ``F.exp``, ``.mT``, ``.conj()``).

Eigen- and singular vectors are unique only up to a phase per vector.
minigrad_ckpt fixes it (each vector's largest entry real and positive),
PyTorch keeps LAPACK's; so the functions compared here are the ones that do
not depend on the phases -- eigenvalues, moduli ``|v|``, projectors ``v v^H``,
matrix functions ``V f(w) V^-1``, the polar factor ``U Vh`` -- and for those
the two engines must agree to rounding, derivatives included.  QR is unique
once ``R``'s diagonal is real and non-negative: PyTorch's diagonal is real but
of either sign, so its side flips those signs (a locally constant factor).
"""

from __future__ import annotations


def hermitian(x):
    """The Hermitian part: both engines read the same matrix whatever triangle they read."""
    return (x + x.mT.conj()) / 2


def eigh_values(F, x):
    return F.linalg.eigh(hermitian(x)).eigenvalues


def eigh_moduli(F, x):
    return F.abs(F.linalg.eigh(hermitian(x)).eigenvectors)


def eigh_projector(F, x):
    """The projector onto the eigenspace of the two smallest eigenvalues."""
    v = F.linalg.eigh(hermitian(x)).eigenvectors[..., :2]
    return v @ v.mT.conj()


def eigh_exp(F, x):
    """``V exp(w) V^H``: the matrix exponential of the Hermitian part."""
    w, v = F.linalg.eigh(hermitian(x))
    return (v * F.exp(w)[..., None, :]) @ v.mT.conj()


def svd_values(F, x):
    return F.linalg.svd(x, full_matrices=False).S


def svd_polar(F, x):
    """The unitary polar factor ``U Vh``."""
    u, _, vh = F.linalg.svd(x, full_matrices=False)
    return u @ vh


def svd_left_projector(F, x):
    u = F.linalg.svd(x, full_matrices=False).U[..., :2]
    return u @ u.mT.conj()


def svd_right_moduli(F, x):
    return F.abs(F.linalg.svd(x, full_matrices=False).Vh)


def _qr(F, x):
    q, r = F.linalg.qr(x)
    if F.__name__ == "torch":  # PyTorch keeps LAPACK's signs: make R's (real) diagonal non-negative
        s = F.sgn(F.diagonal(r, dim1=-2, dim2=-1).real).detach()
        q, r = q * s[..., None, :], r * s[..., :, None]
    return q, r


def qr_q(F, x):
    return _qr(F, x)[0]


def qr_r(F, x):
    return _qr(F, x)[1]


def cholesky(F, x):
    """The Cholesky factor of the Hermitian part (the inputs are Hermitian positive definite)."""
    return F.linalg.cholesky(hermitian(x))


def slogdet_sign(F, x):
    return F.linalg.slogdet(x).sign


def slogdet_logabsdet(F, x):
    return F.linalg.slogdet(x).logabsdet


def eig_exp(F, x):
    """``V exp(w) V^-1``: the matrix exponential, whatever the order, scale and phase of ``V``."""
    w, v = F.linalg.eig(x)
    return (v * F.exp(w)[..., None, :]) @ F.linalg.inv(v)


def eig_power_sum(F, x):
    """``sum(w^3)`` (``tr(A^3)``): does not depend on the order of the eigenvalues."""
    return (F.linalg.eig(x).eigenvalues ** 3).sum()


def eigvals_exp_sum(F, x):
    return F.exp(F.linalg.eigvals(x)).sum()


def eig_moduli_sum(F, x):
    """The sum of the eigenvectors' moduli: independent of order and phase, not of scale
    (both engines return unit vectors)."""
    return F.abs(F.linalg.eig(x).eigenvectors).sum()


def lstsq_solution(F, x, y):
    """The least-squares solution (through the pseudo-inverse in both engines' gradients)."""
    return F.linalg.lstsq(x, y).solution


def pinv_hermitian(F, x):
    """``pinv(hermitian=True)`` of a Hermitian matrix (PyTorch reads the lower triangle; both read the same matrix)."""
    return F.linalg.pinv(hermitian(x) @ hermitian(x), hermitian=True)


def solve_upper(F, x, y):
    """``T x = y`` for the upper triangle ``T`` of ``x``."""
    return F.linalg.solve_triangular(x, y, upper=True)


def solve_lower_unit_right(F, x, y):
    """``x T = y`` for the lower triangle of ``x`` with ones on its diagonal."""
    return F.linalg.solve_triangular(x, y, upper=False, left=False, unitriangular=True)


def _cholesky_solve(F):
    return F.cholesky_solve if hasattr(F, "cholesky_solve") else F.linalg.cholesky_solve  # torch's home, ours


def cholesky_solve(F, x, y):
    """``A z = y`` for ``A`` the Hermitian positive definite matrix of ``x``, from its Cholesky factor."""
    return _cholesky_solve(F)(y, F.linalg.cholesky(hermitian(x)))


def cholesky_solve_upper(F, x, y):
    return _cholesky_solve(F)(y, F.linalg.cholesky(hermitian(x), upper=True), upper=True)


def cholesky_inverse(F, x):
    inverse = F.cholesky_inverse if hasattr(F, "cholesky_inverse") else F.linalg.cholesky_inverse
    return inverse(F.linalg.cholesky(hermitian(x)))


def lu_lower(F, x):
    """``L`` of ``P L U`` (partial pivoting; complex pivots chosen by ``|Re| + |Im|``, LAPACK's rule)."""
    return F.linalg.lu(x).L


def lu_upper(F, x):
    return F.linalg.lu(x).U


def lu_factor_packed(F, x):
    return F.linalg.lu_factor(x).LU


def lu_solve_adjoint(F, x, y):
    """``A^H z = y`` from ``A``'s LU factors."""
    return F.linalg.lu_solve(*F.linalg.lu_factor(x), y, adjoint=True)


def lu_solve_right(F, x, y):
    """``z A = y`` from ``A``'s LU factors."""
    return F.linalg.lu_solve(*F.linalg.lu_factor(x), y, left=False)
