"""HIPS autograd's complex linear-algebra tests (from tests/test_linalg.py of
https://github.com/HIPS/autograd, MIT licence, by the autograd authors), run against
minigrad_ckpt through the adapter in tests/hips_autograd.py.

Ported unchanged: the complex norm tests (``*_complex`` of the vector 2-norm, the
Frobenius norm, vector norms of order 2-4, norms along an axis).  Not ported, because
minigrad_ckpt does not support them for complex input (docs/complex.md, "What is not
there yet"): the nuclear norms, ``eigh``, ``eig`` and ``svd`` of complex matrices.
Upstream: HIPS/autograd@bff107b.
"""

from functools import partial

import pytest
from hips_autograd import check_grads, np, npr

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
