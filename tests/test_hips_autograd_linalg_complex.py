"""HIPS autograd's complex linear-algebra tests (from tests/test_linalg.py of
https://github.com/HIPS/autograd, MIT licence, by the autograd authors), run against
minigrad_ckpt through the adapter in tests/hips_autograd.py.

Ported unchanged: every ``*_complex`` test there (the vector 2-norm, the Frobenius norm,
vector norms of order 2-4, norms along an axis, the nuclear norms, ``eigh`` of the lower
and upper triangle, ``svd`` of wide, square and tall matrices and stacks of them, with
and without ``U``/``V``) and the ``eig`` tests (of real, complex and stacked matrices,
whose results are complex).  Like autograd's, they take ``abs`` of the eigen- and
singular vectors, whose phases are arbitrary in autograd (minigrad_ckpt fixes them, so
``tests/test_complex_linalg.py`` also checks the vectors themselves).
Upstream: HIPS/autograd@bff107b.
"""

from functools import partial

import pytest
from hips_autograd import check_grads, np, npr, tuple  # noqa: A004  (autograd's import, as upstream)

npr.seed(1)

# Fwd mode not yet implemented
check_grads = partial(check_grads, modes=["rev"])


def test_vector_2norm_complex():
    def fun(x):
        return np.linalg.norm(x)

    D = 6
    vec = npr.randn(D) + 1j * npr.randn(D)
    check_grads(fun)(vec)


def test_frobenius_norm_complex():
    def fun(x):
        return np.linalg.norm(x)

    D = 6
    mat = npr.randn(D, D - 1) + 1j * npr.randn(D, D - 1)
    check_grads(fun)(mat)


def test_frobenius_norm_axis_complex():
    def fun(x):
        return np.linalg.norm(x, axis=(0, 1))

    D = 6
    mat = npr.randn(D, D - 1, D - 2) + 1j * npr.randn(D, D - 1, D - 2)
    check_grads(fun)(mat)


@pytest.mark.parametrize("ord", range(2, 5))
@pytest.mark.parametrize("size", [6])
def test_vector_norm_ord_complex(size, ord):
    def fun(x):
        return np.linalg.norm(x, ord=ord)

    vec = npr.randn(size) + 1j * npr.randn(size)
    check_grads(fun)(vec)


@pytest.mark.parametrize("axis", range(3))
@pytest.mark.parametrize("shape", [(6, 5, 4)])
def test_norm_axis_complex(shape, axis):
    def fun(x):
        return np.linalg.norm(x, axis=axis)

    arr = npr.randn(*shape) + 1j * npr.randn(*shape)
    check_grads(fun)(arr)


def test_norm_nuclear_complex():
    def fun(x):
        return np.linalg.norm(x, ord="nuc")

    D = 6
    mat = npr.randn(D, D - 1) + 1j * npr.randn(D, D - 1)
    check_grads(fun)(mat)


def test_norm_nuclear_axis_complex():
    def fun(x):
        return np.linalg.norm(x, ord="nuc", axis=(0, 1))

    D = 6
    mat = npr.randn(D, D - 1, D - 2) + 1j * npr.randn(D, D - 1, D - 2)
    check_grads(fun)(mat)


# For complex-valued matrices, the eigenvectors could have arbitrary phases (gauge)
# which makes it impossible to compare to numerical derivatives. So we take the
# absolute value to get rid of that phase.
def test_eigvalh_lower_complex():
    def fun(x):
        w, v = np.linalg.eigh(x)
        return tuple((w, np.abs(v)))

    D = 6
    mat = npr.randn(D, D) + 1j * npr.randn(D, D)
    check_grads(fun)(mat)


def test_eigvalh_upper_complex():
    def fun(x):
        w, v = np.linalg.eigh(x, "U")
        return tuple((w, np.abs(v)))

    D = 6
    mat = npr.randn(D, D) + 1j * npr.randn(D, D)
    check_grads(fun)(mat)


# Note eigenvalues and eigenvectors for real matrix can still be complex
def test_eig_real():
    def fun(x):
        w, v = np.linalg.eig(x)
        return tuple((np.abs(w), np.abs(v)))

    D = 8
    mat = npr.randn(D, D)
    check_grads(fun)(mat)


def test_eig_complex():
    def fun(x):
        w, v = np.linalg.eig(x)
        return tuple((w, np.abs(v)))

    D = 8
    mat = npr.randn(D, D) + 1.0j * npr.randn(D, D)
    check_grads(fun)(mat)


def test_eig_batched():
    def fun(x):
        w, v = np.linalg.eig(x)
        return tuple((w, np.abs(v)))

    D = 8
    b = 5
    mat = npr.randn(b, D, D) + 1.0j * npr.randn(b, D, D)
    check_grads(fun)(mat)


def test_svd_wide_2d_complex():
    def fun(x):
        u, s, v = np.linalg.svd(x, full_matrices=False)
        return tuple((np.abs(u), s, np.abs(v)))

    m = 3
    n = 5
    mat = npr.randn(m, n) + 1j * npr.randn(m, n)
    check_grads(fun)(mat)


def test_svd_wide_3d_complex():
    def fun(x):
        u, s, v = np.linalg.svd(x, full_matrices=False)
        return tuple((np.abs(u), s, np.abs(v)))

    k = 4
    m = 3
    n = 5
    mat = npr.randn(k, m, n) + 1j * npr.randn(k, m, n)
    check_grads(fun)(mat)


def test_svd_square_2d_complex():
    def fun(x):
        u, s, v = np.linalg.svd(x, full_matrices=False)
        return tuple((np.abs(u), s, np.abs(v)))

    m = 4
    n = 4
    mat = npr.randn(m, n) + 1j * npr.randn(m, n)
    check_grads(fun)(mat)


def test_svd_square_3d_complex():
    def fun(x):
        u, s, v = np.linalg.svd(x, full_matrices=False)
        return tuple((np.abs(u), s, np.abs(v)))

    k = 3
    m = 4
    n = 4
    mat = npr.randn(k, m, n) + 1j * npr.randn(k, m, n)
    check_grads(fun)(mat)


def test_svd_tall_2d_complex():
    def fun(x):
        u, s, v = np.linalg.svd(x, full_matrices=False)
        return tuple((np.abs(u), s, np.abs(v)))

    m = 5
    n = 3
    mat = npr.randn(m, n) + 1j * npr.randn(m, n)
    check_grads(fun)(mat)


def test_svd_tall_3d_complex():
    def fun(x):
        u, s, v = np.linalg.svd(x, full_matrices=False)
        return tuple((np.abs(u), s, np.abs(v)))

    k = 4
    m = 5
    n = 3
    mat = npr.randn(k, m, n) + 1j * npr.randn(k, m, n)
    check_grads(fun)(mat)


def test_svd_only_s_2d_complex():
    def fun(x):
        s = np.linalg.svd(x, full_matrices=False, compute_uv=False)
        return s

    m = 5
    n = 3
    mat = npr.randn(m, n) + 1j * npr.randn(m, n)
    check_grads(fun)(mat)


def test_svd_only_s_3d_complex():
    def fun(x):
        s = np.linalg.svd(x, full_matrices=False, compute_uv=False)
        return s

    k = 4
    m = 5
    n = 3
    mat = npr.randn(k, m, n) + 1j * npr.randn(k, m, n)
    check_grads(fun)(mat)
