"""HIPS autograd's test API, on minigrad_ckpt: the adapter that runs its tests against ``mg``.

HIPS autograd (https://github.com/HIPS/autograd, MIT licence, by Dougal
Maclaurin, David Duvenaud, Matthew Johnson, Jamie Townsend and contributors)
tests its complex-number and FFT support with ``check_grads`` and ``grad``
on functions written against ``autograd.numpy``.  The files
``tests/test_hips_autograd_*.py`` are those tests, ported with their bodies
unchanged; this module gives them the names they import:

``special``       ``scipy.special`` the same way (``special.erf`` -> ``mg.special.erf`` on
                  a Tensor); ``None`` where SciPy is not installed.
``np``            NumPy's namespace where every function dispatches on its
                  arguments: given an ``mg.Tensor`` it runs ``mg``'s function
                  (``np.fft.rfft`` -> ``mg.fft.rfft``, ``np.linalg.norm`` ->
                  ``mg.linalg.norm``), given plain data it is
                  NumPy's (the tests build inputs with NumPy).
``npr``           ``numpy.random`` (the tests seed it with ``npr.seed``).
``grad``          autograd's ``grad``, computed by ``mg.func.grad``.  For a
                  complex argument autograd returns ``du/dx - i du/dy``
                  (docs/tutorial.md, "Complex numbers"), the conjugate of
                  minigrad_ckpt's (and PyTorch's) ``du/dx + i du/dy``: the
                  adapter conjugates, so the tests see autograd's convention.
``holomorphic_grad``  autograd's ``f'(z)`` of a holomorphic ``f``: minigrad_ckpt's
                  vector-Jacobian product with cotangent 1 is ``conj(f'(z))``
                  (docs/complex.md), so the adapter conjugates it.
``check_grads``   autograd's ``check_grads(fun, argnum, modes, order)(*args, **kwargs)``,
                  run as ``mg.testing.gradcheck`` (and ``gradgradcheck`` for
                  ``order >= 2``; ``order=3`` checks the vector-Jacobian
                  product's second derivatives too, as autograd recurses) on
                  float64/complex128 tensors: the full Jacobian against
                  central differences, real and imaginary parts perturbed
                  separately -- a stronger check than autograd's
                  random-direction one, and convention-free.  ``argnum``
                  (autograd's: an int or a sequence) names the arguments
                  differentiated; by default every argument is.
``tuple``         ``autograd.tuple`` (a differentiable tuple): Python's, as ``mg``
                  differentiates tuples of Tensors as they are.
``combo_check``   autograd's ``combo_check`` (every combination of the listed
                  arguments and keyword values), and ``stat_check``,
                  ``unary_ufunc_check``, ``binary_ufunc_check`` from its
                  ``tests/numpy_utils.py``, with their bodies unchanged.

NumPy's aliases that ``mg`` spells once (``absolute``, ``conjugate``) map to
``mg.abs`` and ``mg.conj``; ``real_if_close`` of a Tensor is ``mg.real`` when
every imaginary part is within NumPy's tolerance (100 machine epsilons), else
the Tensor itself, as NumPy's.
"""

from __future__ import annotations

import builtins
from itertools import product
from typing import Any

import numpy as onp
import numpy.random as npr  # noqa: F401  (imported by the ported tests)

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck, gradgradcheck

__all__ = ["np", "npr", "special", "grad", "holomorphic_grad", "check_grads", "tuple", "combo_check", "stat_check",
           "unary_ufunc_check", "binary_ufunc_check"]


def _has_tensor(args: Any) -> bool:
    for a in args:
        if isinstance(a, mg.Tensor) or (isinstance(a, (list, tuple)) and _has_tensor(a)):
            return True
    return False


def _either(name: str, mg_fn: Any, numpy_fn: Any) -> Any:
    """``mg_fn`` on Tensor arguments, ``numpy_fn`` otherwise."""

    def fn(*args: Any, **kwargs: Any) -> Any:
        if _has_tensor(args) or _has_tensor(kwargs.values()):
            return mg_fn(*args, **kwargs)
        return numpy_fn(*args, **kwargs)

    fn.__name__ = name
    return fn


class _Dispatching:
    """A namespace whose functions are ``mg``'s on Tensors and NumPy's otherwise."""

    def __init__(self, mg_module: Any, numpy_module: Any) -> None:
        self._mg, self._np = mg_module, numpy_module

    def __getattr__(self, name: str) -> Any:
        numpy_fn = getattr(self._np, name)
        mg_fn = getattr(self._mg, name, None)
        if mg_fn is None or not callable(numpy_fn) or isinstance(numpy_fn, type):  # dtypes stay NumPy's
            return numpy_fn
        return _either(name, mg_fn, numpy_fn)


def _real_if_close(x: mg.Tensor) -> mg.Tensor:
    if not x.is_complex():
        return x
    tol = 100 * onp.finfo(x.real.dtype).eps
    return mg.real(x) if bool(onp.all(onp.abs(x.imag.numpy()) < tol)) else x


class _Numpy(_Dispatching):
    fft = _Dispatching(mg.fft, onp.fft)
    linalg = _Dispatching(mg.linalg, onp.linalg)
    absolute = staticmethod(_either("absolute", mg.abs, onp.absolute))
    conjugate = staticmethod(_either("conjugate", mg.conj, onp.conjugate))
    real_if_close = staticmethod(_either("real_if_close", _real_if_close, onp.real_if_close))

    @staticmethod
    def isrealobj(x: Any) -> bool:
        return not x.is_complex() if isinstance(x, mg.Tensor) else onp.isrealobj(x)

    @staticmethod
    def iscomplex(x: Any) -> Any:
        return onp.iscomplex(x.numpy() if isinstance(x, mg.Tensor) else x)

    @staticmethod
    def iscomplexobj(x: Any) -> bool:
        return x.is_complex() if isinstance(x, mg.Tensor) else onp.iscomplexobj(x)


np = _Numpy(mg, onp)
try:
    import scipy.special as _scipy_special
except ImportError:  # a test-only dependency: the ported scipy.special tests skip
    special = None
else:
    special = _Dispatching(mg.special, _scipy_special)
tuple = builtins.tuple  # noqa: A001  (autograd's name; mg needs no container type)


def _tensor(x: Any) -> mg.Tensor:
    """A differentiable leaf: a float or complex NumPy array keeps its precision (autograd's
    gradient has the argument's dtype); Python numbers and integers become float64/complex128."""
    a = onp.asarray(x)
    if isinstance(x, onp.ndarray) and a.dtype.kind in "fc":
        return mg.tensor(a, requires_grad=True)
    return mg.tensor(a, dtype="complex128" if a.dtype.kind == "c" else "float64", requires_grad=True)


def grad(fun: Any, argnum: int = 0) -> Any:
    """autograd's ``grad``: d fun / d args[argnum] for a real scalar ``fun``, in autograd's
    complex convention (the conjugate of minigrad_ckpt's)."""

    def gradfun(*args: Any) -> Any:
        args = list(args)
        x = args[argnum] if isinstance(args[argnum], mg.Tensor) else _tensor(args[argnum])

        def at(v: mg.Tensor) -> mg.Tensor:
            args[argnum] = v
            return fun(*args)

        g = mg.func.grad(at)(x)
        return mg.conj(g) if g.is_complex() else g

    return gradfun


def holomorphic_grad(fun: Any) -> Any:
    """autograd's ``holomorphic_grad``: ``f'(z)`` for a holomorphic ``f`` of one argument."""

    def gradfun(x: Any) -> mg.Tensor:
        z = x if isinstance(x, mg.Tensor) else mg.tensor(onp.asarray(x, dtype=onp.complex128), requires_grad=True)
        out = fun(z)
        (g,) = mg.grad(out, [z], grad_outputs=mg.ones_like(out))
        return mg.conj(g)

    return gradfun


def check_grads(fun: Any, argnum: Any = None, modes: Any = None, order: int = 2) -> Any:
    """autograd's ``check_grads(fun, argnum, modes, order)(*args, **kwargs)``, as ``mg.testing`` checks."""
    modes = ("fwd", "rev") if modes is None else tuple(modes)

    def check(*args: Any, **kwargs: Any) -> None:
        wrt = range(len(args)) if argnum is None else ([argnum] if isinstance(argnum, int) else list(argnum))
        xs = tuple(_tensor(args[i]) for i in wrt)

        def at(*ts: mg.Tensor) -> Any:
            full = list(args)
            for i, t in zip(wrt, ts):
                full[i] = t
            return fun(*full, **kwargs)

        _check_to_order(at, xs, modes, order)

    return check


def _check_to_order(f: Any, xs: tuple, modes: tuple, order: int) -> None:
    assert gradcheck(f, xs, modes=modes)
    if order > 1:
        assert gradgradcheck(f, xs, modes=modes)
    if order > 2:  # autograd recurses: the vector-Jacobian product (x, v) -> J(x)^T v, to order - 1
        v = f(*xs).detach()
        cot = mg.tensor(onp.random.standard_normal(v.shape) + (1j * onp.random.standard_normal(v.shape)
                                                               if v.is_complex() else 0),
                        dtype=v.dtype, requires_grad=True)

        def vjp(*a: mg.Tensor) -> Any:
            return mg.grad(f(*a[:-1]), list(a[:-1]), grad_outputs=a[-1], create_graph=True)

        _check_to_order(vjp, (*xs, cot), ("rev",), order - 1)


def combo_check(fun: Any, *args: Any, **kwargs: Any) -> Any:
    # autograd's combo_check, unchanged: tests all combinations of args and kwargs given.
    _check_grads = lambda f: check_grads(f, *args, **kwargs)  # noqa: E731

    def _combo_check(*args: Any, **kwargs: Any) -> None:
        kwarg_key_vals = [[(k, x) for x in xs] for k, xs in kwargs.items()]
        for _args in product(*args):
            for _kwargs in product(*kwarg_key_vals):
                _check_grads(fun)(*_args, **dict(_kwargs))

    return _combo_check


# ---- autograd's tests/numpy_utils.py, bodies unchanged ----------------------------------------
# ruff: noqa: E731  (autograd's lambdas)

def stat_check(fun: Any, test_complex: bool = True, **kwargs: Any) -> None:
    # Tests functions that compute statistics, like sum, mean, etc
    x = 3.5
    A = npr.randn()
    B = npr.randn(3)
    C = npr.randn(2, 3)
    D = npr.randn(1, 3)
    check = combo_check(fun, (0,), **kwargs)
    check([x, A])
    check([B, C, D], axis=[None, 0], keepdims=[True, False])
    check([C, D], axis=[None, 0, 1], keepdims=[True, False])
    if test_complex:
        c = npr.randn() + 0.1j * npr.randn()
        E = npr.randn(2, 3) + 0.1j * npr.randn(2, 3)
        check([x, c, A])
        check([B, C, D, E], axis=[None, 0], keepdims=[True, False])


def unary_ufunc_check(fun: Any, lims: Any = None, test_complex: bool = True, **kwargs: Any) -> None:
    if lims is None:
        lims = [-2, 2]
    scalar = transform(lims, 0.4)
    vector = transform(lims, npr.rand(2))
    mat = transform(lims, npr.rand(3, 2))
    mat2 = transform(lims, npr.rand(1, 2))
    check = combo_check(fun, (0,), **kwargs)
    check([scalar, vector, mat, mat2])
    if test_complex:
        comp = transform(lims, 0.4) + 0.1j * transform(lims, 0.3)
        matc = transform(lims, npr.rand(3, 2)) + 0.1j * npr.rand(3, 2)
        check([comp, matc])


def binary_ufunc_check(fun: Any, lims_A: Any = None, lims_B: Any = None, test_complex: bool = True,
                       **kwargs: Any) -> None:
    if lims_B is None:
        lims_B = [-2, 2]
    if lims_A is None:
        lims_A = [-2, 2]
    T_A = lambda x: transform(lims_A, x)
    T_B = lambda x: transform(lims_B, x)
    scalar = 0.6
    vector = npr.rand(2)
    mat = npr.rand(3, 2)
    mat2 = npr.rand(1, 2)
    check = combo_check(fun, (0, 1), **kwargs)
    check([T_A(scalar), T_A(vector), T_A(mat), T_A(mat2)], [T_B(scalar), T_B(vector), T_B(mat), T_B(mat2)])
    if test_complex:
        comp = 0.6 + 0.3j
        matc = npr.rand(3, 2) + 0.1j * npr.rand(3, 2)
        check(
            [T_A(scalar), T_A(comp), T_A(vector), T_A(matc), T_A(mat2)],
            [T_B(scalar), T_B(comp), T_B(vector), T_B(matc), T_B(mat2)],
        )


def transform(lims: Any, x: Any) -> Any:
    return x * (lims[1] - lims[0]) + lims[0]
