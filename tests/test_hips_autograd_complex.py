"""HIPS autograd's complex-number tests (tests/test_complex.py of https://github.com/HIPS/autograd,
MIT licence, by the autograd authors; and the complex tests of its tests/test_graphs.py,
tests/test_logic.py, tests/test_direct.py, and test_dtypes of tests/test_wrappers.py),
run against minigrad_ckpt through the adapter in tests/hips_autograd.py.  Every test body
is autograd's, unchanged; ``grad`` follows autograd's complex convention there (the
conjugate of minigrad_ckpt's).  Upstream: HIPS/autograd@bff107b.
"""
# ruff: noqa: E731  (autograd's lambdas, kept as written upstream)

import numpy as onp
import pytest
from hips_autograd import check_grads, grad, holomorphic_grad, np, npr

npr.seed(1)


def test_real_type():
    fun = lambda x: np.sum(np.real(x))
    df = grad(fun)
    assert np.isrealobj(df(2.0))
    assert np.iscomplexobj(df(1.0j))


def test_real_if_close_type():
    fun = lambda x: np.sum(np.real(x))
    df = grad(fun)
    assert np.isrealobj(df(1.0))
    assert np.iscomplexobj(df(1.0j))


def test_angle_real():
    fun = lambda x: np.angle(x)
    d_fun = lambda x: grad(fun)(x)
    check_grads(fun)(npr.rand())
    check_grads(d_fun)(npr.rand())


def test_angle_complex():
    fun = lambda x: np.angle(x)
    d_fun = lambda x: grad(fun)(x)
    check_grads(fun)(npr.rand() + 1j * npr.rand())
    check_grads(d_fun)(npr.rand() + 1j * npr.rand())


def test_abs_real():
    fun = lambda x: np.abs(x)
    d_fun = lambda x: grad(fun)(x)
    check_grads(fun)(1.1)
    check_grads(d_fun)(2.1)


def test_abs_complex():
    fun = lambda x: np.abs(x)
    d_fun = lambda x: grad(fun)(x)
    check_grads(fun)(1.1 + 1.2j)
    check_grads(d_fun)(1.1 + 1.3j)


# The complex tests of autograd's tests/test_graphs.py (the rest of that file is in
# tests/test_hips_autograd_graphs.py, with an adapter of its own for real numbers).


def test_complex_mutating_outgrad_from_indexing():
    def fun(a):
        b = a + 1.0j
        c = b[0] + 1.5
        d = a + b
        e = d + c
        return np.sum(np.sin(np.real(e)))

    A = npr.randn(5)
    check_grads(fun)(A)
    d_fun = lambda x: grad(fun)(x)
    check_grads(d_fun)(A)


def test_complex_separate_real_and_imaginary():
    def fun(a):
        r, i = np.real(a), np.imag(a)
        a = np.abs(r) ** 1.4 + np.abs(i) ** 1.3
        return np.sum(np.sin(a))

    d_fun = lambda x: grad(fun)(x)
    A = npr.randn(5, 3) + 0.1j * npr.randn(5, 3)
    check_grads(fun)(A)
    check_grads(d_fun)(A)


# From autograd's tests/test_logic.py: a branch on a property of the value.


def test_falseyness():
    fun = lambda x: np.real(x**2 if np.iscomplex(x) else np.sum(x))
    check_grads(fun)(2.0)
    check_grads(fun)(2.0 + 1j)


# From autograd's tests/test_direct.py (test_grad_complex_output, test_holomorphic_grad).
# autograd raises TypeError for the gradient of a
# complex output; minigrad_ckpt raises RuntimeError (a complex output's backward needs an
# explicit ``gradient=``, as in PyTorch; ``mg.func.grad`` says to differentiate a real function of it):
# the one change to the body.


def test_grad_complex_output():
    def fun(x):
        return x * (1.0 + 0.2j)

    with pytest.raises(RuntimeError, match="complex"):
        grad(fun)(1.0)


def test_holomorphic_grad():
    def fun(x):
        return x * (1.0 + 0.2j)

    g = holomorphic_grad(fun)(1.0 + 0.0j)
    assert 0.9999 < onp.real(g) < 1.0001


# From autograd's tests/test_wrappers.py: the gradient has the argument's dtype.  The one
# change: autograd also differentiates long doubles (float128, complex256); minigrad_ckpt
# supports float16 to float64 and complex64/complex128, and refuses the long ones with a
# TypeError that lists what it supports.


def test_dtypes():
    def f(x):
        return np.real(np.sum(x**2))

    # Array y with dtype np.float32
    y = np.random.randn(10, 10).astype(np.float32)
    assert grad(f)(y).dtype.type is np.float32

    y = np.random.randn(10, 10).astype(np.float16)
    assert grad(f)(y).dtype.type is np.float16

    y = np.random.randn(10, 10).astype(np.longdouble)
    with pytest.raises(TypeError, match="unsupported dtype float128"):
        grad(f)(y)

    y = np.random.randn(10, 10).astype(np.clongdouble)
    with pytest.raises(TypeError, match="unsupported dtype complex256"):
        grad(f)(y)
