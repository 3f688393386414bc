"""HIPS autograd's systematic tests on complex numbers (tests/test_systematic.py of
https://github.com/HIPS/autograd, MIT licence, by the autograd authors), run against
minigrad_ckpt through the adapter in tests/hips_autograd.py.  Upstream: HIPS/autograd@bff107b.

Ported: every test there that runs complex inputs -- the statistics (``stat_check``),
the unary ufuncs that keep ``test_complex=True``, the binary ones (``add`` and the
operators), and the products with complex operands (``kron``, ``dot``, ``outer``,
``matmul``, ``tensordot``, ``einsum``).  The bodies are autograd's, unchanged, but for
``max`` and ``min``: minigrad_ckpt refuses complex input to orderings (as PyTorch; NumPy's
lexicographic order is not offered), so those two run autograd's real checks
(``test_complex=False``) and check the refusal.
"""
# ruff: noqa: E731  (autograd's lambdas, kept as written upstream)

import operator as op

import pytest
from hips_autograd import binary_ufunc_check, combo_check, np, npr, stat_check, unary_ufunc_check

npr.seed(0)


# Array statistics functions
@pytest.mark.parametrize("fun", [np.max, np.min], ids=["max", "min"])
def test_max_min_real_and_refusing_complex(fun):
    stat_check(fun, test_complex=False)
    with pytest.raises(TypeError, match="complex"):
        combo_check(fun, (0,))([npr.randn(2, 3) + 0.1j * npr.randn(2, 3)])


def test_mean():
    stat_check(np.mean)


def test_sum():
    stat_check(np.sum)


def test_prod():
    stat_check(np.prod)


def test_var():
    stat_check(np.var)


def test_std():
    stat_check(np.std)


# Unary ufunc tests


def test_sin():
    unary_ufunc_check(np.sin)


def test_abs():
    unary_ufunc_check(np.abs, lims=[0.1, 4.0])


def test_absolute():
    unary_ufunc_check(np.absolute, lims=[0.1, 4.0])


def test_arccosh():
    unary_ufunc_check(np.arccosh, lims=[1.1, 4.0])


def test_arcsinh():
    unary_ufunc_check(np.arcsinh, lims=[-0.9, 0.9])


def test_arctanh():
    unary_ufunc_check(np.arctanh, lims=[-0.9, 0.9])


def test_cos():
    unary_ufunc_check(np.cos)


def test_cosh():
    unary_ufunc_check(np.cosh)


def test_exp():
    unary_ufunc_check(np.exp)


def test_exp2():
    unary_ufunc_check(np.exp2)


def test_expm1():
    unary_ufunc_check(np.expm1)


def test_log():
    unary_ufunc_check(np.log, lims=[0.2, 2.0])


def test_log10():
    unary_ufunc_check(np.log10, lims=[0.2, 2.0])


def test_log1p():
    unary_ufunc_check(np.log1p, lims=[0.2, 2.0])


def test_log2():
    unary_ufunc_check(np.log2, lims=[0.2, 2.0])


def test_sinh():
    unary_ufunc_check(np.sinh)


def test_sqrt():
    unary_ufunc_check(np.sqrt, lims=[1.0, 3.0])


def test_tan():
    unary_ufunc_check(np.tan, lims=[-1.1, 1.1])


def test_tanh():
    unary_ufunc_check(np.tanh)


def test_real():
    unary_ufunc_check(np.real)


def test_real_ic():
    unary_ufunc_check(np.real_if_close)


def test_imag():
    unary_ufunc_check(np.imag)


def test_conj():
    unary_ufunc_check(np.conj)


def test_conjugate():
    unary_ufunc_check(np.conjugate)


def test_angle():
    unary_ufunc_check(np.angle)


# Binary ufunc tests


def test_add():
    binary_ufunc_check(np.add)


def test_op_mul():
    binary_ufunc_check(op.mul)


def test_op_add():
    binary_ufunc_check(op.add)


def test_op_sub():
    binary_ufunc_check(op.sub)


# Misc tests

R = npr.randn
C = lambda *shape: npr.randn(*shape) + 1j * npr.randn(*shape)


def test_kron():
    combo_check(np.kron, [0, 1])(
        [R(5, 5), R(4, 4), R(5), R(5, 1), R(1, 5), R(), C(5, 5)],
        [R(3, 3), R(2, 2), R(3), R(1, 3), R(3, 1), R(), C(3, 3)],
    )


def test_dot():
    combo_check(np.dot, [0, 1], order=3)(
        [1.5, R(3), R(2, 3), R(2, 2, 3), C(3), C(2, 3)], [0.3, R(3), R(3, 4), R(2, 3, 4), C(3)]
    )


def test_outer():
    combo_check(np.outer, [0, 1], order=3)([R(3), C(3)], [R(3), C(3)])


def test_matmul():
    combo_check(np.matmul, [0, 1])(
        [R(3), R(2, 3), R(2, 2, 3), C(3), C(2, 3)], [R(3), R(3, 4), R(2, 3, 4), C(3), C(3, 4)]
    )


def test_tensordot_1():
    combo_check(np.tensordot, [0, 1], order=3)(
        [R(1, 3), R(2, 3, 2), C(1, 3)], [R(3), R(3, 1), R(3, 4, 2), C(3)], axes=[[(1,), (0,)]]
    )


def test_einsum_matmult():
    combo_check(np.einsum, [1, 2])(["ij,jk->ik"], [R(2, 3), C(2, 3)], [R(3, 4), C(3, 4)])
