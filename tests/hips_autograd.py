"""HIPS autograd's test API, on minigrad_ckpt: the adapter that runs its tests against ``mg``.

HIPS autograd (https://github.com/HIPS/autograd, MIT licence, by Dougal
Maclaurin, David Duvenaud, Matthew Johnson, Jamie Townsend and contributors)
tests its complex-number and FFT support with ``check_grads`` and ``grad``
on functions written against ``autograd.numpy``.  The files
``tests/test_hips_autograd_*.py`` are those tests, ported with their bodies
unchanged; this module gives them the names they import:

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
``check_grads``   autograd's ``check_grads(fun, modes, order)(*args)``, run as
                  ``mg.testing.gradcheck`` (and ``gradgradcheck`` for
                  ``order=2``) on float64/complex128 tensors: the full
                  Jacobian against central differences, real and imaginary
                  parts perturbed separately -- a stronger check than
                  autograd's random-direction one, and convention-free.
"""

from __future__ import annotations

from typing import Any

import numpy as onp
import numpy.random as npr  # noqa: F401  (imported by the ported tests)

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck, gradgradcheck

__all__ = ["np", "npr", "grad", "check_grads"]


def _has_tensor(args: Any) -> bool:
    for a in args:
        if isinstance(a, mg.Tensor) or (isinstance(a, (list, tuple)) and _has_tensor(a)):
            return True
    return False


class _Dispatching:
    """A namespace whose functions are ``mg``'s on Tensors and NumPy's otherwise."""

    def __init__(self, mg_module: Any, numpy_module: Any) -> None:
        self._mg, self._np = mg_module, numpy_module

    def __getattr__(self, name: str) -> Any:
        numpy_fn = getattr(self._np, name)
        mg_fn = getattr(self._mg, name, None)
        if mg_fn is None or not callable(numpy_fn):
            return numpy_fn

        def fn(*args: Any, **kwargs: Any) -> Any:
            if _has_tensor(args) or _has_tensor(kwargs.values()):
                return mg_fn(*args, **kwargs)
            return numpy_fn(*args, **kwargs)

        fn.__name__ = name
        return fn


class _Numpy(_Dispatching):
    fft = _Dispatching(mg.fft, onp.fft)
    linalg = _Dispatching(mg.linalg, onp.linalg)

    @staticmethod
    def isrealobj(x: Any) -> bool:
        return not x.is_complex() if isinstance(x, mg.Tensor) else onp.isrealobj(x)

    @staticmethod
    def iscomplexobj(x: Any) -> bool:
        return x.is_complex() if isinstance(x, mg.Tensor) else onp.iscomplexobj(x)


np = _Numpy(mg, onp)


def _tensor(x: Any) -> mg.Tensor:
    a = onp.asarray(x)
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


def check_grads(fun: Any, modes: Any = None, order: int = 2) -> Any:
    """autograd's ``check_grads(fun, modes, order)(*args)``, as ``mg.testing`` checks."""
    modes = ("fwd", "rev") if modes is None else tuple(modes)

    def check(*args: Any) -> None:
        xs = tuple(_tensor(a) for a in args)
        assert gradcheck(fun, xs, modes=modes)
        if order > 1:
            assert gradgradcheck(fun, xs, modes=modes)

    return check
