"""HIPS autograd's graph tests, run against ``mg.func`` through a small adapter.

Source: ``tests/test_graphs.py`` of HIPS autograd (https://github.com/HIPS/autograd,
MIT licence, Maclaurin, Duvenaud, Johnson and contributors).  Each test below
keeps the name and the function of the autograd test it ports; the adapter
gives them what autograd's own test module imports:

* ``anp`` -- the few ``autograd.numpy`` functions these tests call, on mg tensors;
* ``grad`` -- ``autograd.grad``: ``mg.func.grad`` that also takes Python numbers
  (as float64 tensors, autograd's precision);
* ``check_grads`` -- ``autograd.test_util.check_grads(fun, modes=["fwd", "rev"],
  order=2)``: forward and reverse derivatives of ``fun`` and of its derivatives,
  each against float64 central differences.

The closure tests (``test_enclosing_scope_ref``, ``..._2``) differentiate a
function whose inner ``grad`` closes over the outer argument; they failed
before the transforms kept the history of closed-over tensors.  The two tests
on complex numbers (``test_complex_mutating_outgrad_from_indexing``,
``test_complex_separate_real_and_imaginary``) run through the complex adapter
(``tests/hips_autograd.py``), in ``tests/test_hips_autograd_complex.py``.  The
tests of autograd's own error types are left out: mg's errors have other types.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import func as F

npr = np.random.RandomState(1)


# ---------------------------------------------------------------------------
# The adapter
# ---------------------------------------------------------------------------
def _t(x):
    return x if isinstance(x, mg.Tensor) else mg.tensor(np.asarray(x, dtype=np.float64))


anp = SimpleNamespace(
    sin=lambda x: mg.sin(_t(x)),
    dot=lambda a, b: mg.sum(_t(a) * _t(b)) if _t(a).ndim == 1 else mg.matmul(_t(a), _t(b)),
    sum=lambda x, axis=None, keepdims=False: mg.sum(_t(x), axis=axis, keepdims=keepdims),
)


def grad(fun, argnum=0):
    # HIPS's grad takes any one-element output (``sum(..., keepdims=True)``); torch.func's, which mg.func
    # follows, a 0-d one only: the adapter reads a singleton as its scalar, as HIPS does
    g = F.grad(lambda *xs: _t(fun(*xs)).reshape(()), argnums=argnum)
    return lambda *args: g(*[_t(a) for a in args])


def to_scalar(x):
    return mg.sum(mg.sin(x))


def _central(fun, args, i, direction, eps=1e-6):
    plus = [a + eps * direction if j == i else a for j, a in enumerate(args)]
    minus = [a - eps * direction if j == i else a for j, a in enumerate(args)]
    return (_t(fun(*map(_t, plus))).numpy() - _t(fun(*map(_t, minus))).numpy()) / (2 * eps)


def check_grads(fun, *args, order=2):
    """Forward and reverse mode of ``fun`` against central differences, to ``order``."""
    args = [np.asarray(a, dtype=np.float64) for a in args]
    for i, a in enumerate(args):
        v = npr.randn(*a.shape)

        def along(*xs, i=i, v=v):
            return F.jvp(lambda x: _t(fun(*[x if j == i else _t(xs[j]) for j in range(len(xs))])),
                         (_t(xs[i]),), (_t(v),))[1]

        fd = _central(fun, args, i, v)
        np.testing.assert_allclose(along(*args).numpy(), fd, rtol=1e-5, atol=1e-7)
        out = _t(fun(*map(_t, args)))
        u = npr.randn(*out.shape)
        _, vjp_fn = F.vjp(lambda x, i=i: _t(fun(*[x if j == i else _t(args[j]) for j in range(len(args))])),
                          _t(a))
        (g,) = vjp_fn(_t(u))
        np.testing.assert_allclose(float((g.numpy() * v).sum()), float((u * fd).sum()), rtol=1e-5, atol=1e-7)
        if order > 1:
            check_grads(along, *args, order=order - 1)


# ---------------------------------------------------------------------------
# The ported tests
# ---------------------------------------------------------------------------
def test_grad_fanout():
    fun = lambda x: anp.sin(anp.sin(x) + anp.sin(x))  # noqa: E731
    df = grad(fun)
    check_grads(fun, npr.randn())
    check_grads(df, npr.rand())


def test_grad_const():
    fun = lambda x: 1.0 + 0.0 * x  # noqa: E731  (autograd returns 0 for a constant; mg needs a Tensor)
    df = grad(fun)
    assert np.allclose(df(2.0).numpy(), 0.0)


def test_grad_identity():
    fun = lambda x: x  # noqa: E731
    df = grad(fun)
    ddf = grad(df)
    assert np.allclose(df(2.0).numpy(), 1.0)
    assert np.allclose(ddf(2.0).numpy(), 0.0)


def test_hess_vector_prod():
    randv = npr.randn(10)

    def fun(x):
        return anp.sin(anp.dot(x, randv))

    df = grad(fun)

    def vector_product(x, v):
        return anp.sin(anp.dot(v, df(x)))

    check_grads(fun, npr.randn(10))
    check_grads(vector_product, npr.randn(10), npr.randn(10))


def test_enclosing_scope_ref():
    def fun(x):
        inner_fun = lambda y: x * y  # noqa: E731
        return x * grad(inner_fun)(2.0)

    check_grads(fun, 1.0)
    assert np.allclose(grad(fun)(1.0).numpy(), 2.0)  # d/dx x**2


def test_enclosing_scope_ref_2():
    def fun(x):
        inner_fun = lambda y: y * x  # noqa: E731
        return x * grad(inner_fun)(2.0)

    check_grads(fun, 1.0)
    assert np.allclose(grad(fun)(1.0).numpy(), 2.0)


def test_mutating_outgrad():
    def fun(a):
        b = a + 1.0
        c = b + 1.5
        d = a + b
        e = d + c
        return to_scalar(e)

    check_grads(fun, npr.randn(5))


def test_mutating_outgrad_from_indexing():
    def fun(a):
        b = a + 1.0
        c = b[0] + 1.5
        d = a + b
        e = d + c
        return to_scalar(e)

    check_grads(fun, npr.randn(5))


def test_third_derivative():
    fun = lambda x: anp.sin(anp.sin(x) + anp.sin(x))  # noqa: E731
    df = grad(fun)
    ddf = grad(df)  # autograd's test reads grad(fun) twice here; the nested ones are what it means
    dddf = grad(ddf)
    check_grads(fun, npr.randn())
    check_grads(df, npr.rand())
    check_grads(ddf, npr.rand())
    check_grads(dddf, npr.rand())


def test_third_derivative_other_args():
    fun = lambda x, y: anp.sin(anp.sin(x) + anp.sin(y))  # noqa: E731
    df = grad(fun)
    ddf = grad(fun, 1)
    dddf = grad(fun)
    check_grads(fun, npr.randn(), npr.randn())
    check_grads(df, npr.randn(), npr.randn())
    check_grads(ddf, npr.randn(), npr.randn())
    check_grads(dddf, npr.randn(), npr.randn())


def test_third_derivative_other_args2():
    fun = lambda x, y: anp.sin(anp.sin(x) + anp.sin(y))  # noqa: E731
    df = grad(fun, 1)
    ddf = grad(fun)
    dddf = grad(fun, 1)
    check_grads(fun, npr.randn(), npr.randn())
    check_grads(df, npr.randn(), npr.randn())
    check_grads(ddf, npr.randn(), npr.randn())
    check_grads(dddf, npr.randn(), npr.randn())


def test_singleton_array_output():
    fun = lambda x: anp.sum(anp.sin(x), keepdims=True)  # noqa: E731
    check_grads(fun, npr.randn(3, 3))
    check_grads(lambda x: anp.sum(grad(fun)(x)), npr.randn(3, 3))


def test_singleton_array_output_axis0():
    fun = lambda x: anp.sum(anp.sin(x), axis=0, keepdims=False)  # noqa: E731
    check_grads(fun, npr.randn(3, 1))
    check_grads(lambda x: anp.sum(grad(fun)(x)), npr.randn(3, 1))


def test_singleton_array_output_axis1():
    fun = lambda x: anp.sum(anp.sin(x), axis=1, keepdims=False)  # noqa: E731
    check_grads(fun, npr.randn(1, 3))
    check_grads(lambda x: anp.sum(grad(fun)(x)), npr.randn(1, 3))


def test_singleton_array_output_axis0_keepdims():
    fun = lambda x: anp.sum(anp.sin(x), axis=0, keepdims=True)  # noqa: E731
    check_grads(fun, npr.randn(3, 1))
    check_grads(lambda x: anp.sum(grad(fun)(x)), npr.randn(3, 1))


def test_singleton_array_output_axis1_keepdims():
    fun = lambda x: anp.sum(anp.sin(x), axis=1, keepdims=True)  # noqa: E731
    check_grads(fun, npr.randn(1, 3))
    check_grads(lambda x: anp.sum(grad(fun)(x)), npr.randn(1, 3))
