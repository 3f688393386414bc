"""NumPy's ufuncs on tensors: ``np.exp(loss)``, ``np.isnan(t)``, ``np.add(a, t)``, and ``a * t``
(an array's operator is its ufunc: ``a * t`` is ``np.multiply(a, t)``).

NumPy hands a ufunc call with a Tensor among its operands to ``Tensor.__array_ufunc__`` (NEP 13),
which is :func:`array_ufunc`.  A plain call (no keyword) goes to the engine where the engine has
the ufunc:

* a ufunc that is a Python operator (``np.multiply``, ``np.less``, ``np.negative``, ...) is
  Tensor's operator: ``np.multiply(a, t)`` is ``t.__rmul__(a)`` and ``np.less(a, t)`` is
  ``t.__gt__(a)``, so ``a * t`` and ``a < t`` give the differentiable tensor they gave when the
  class said ``__array_ufunc__ = None`` and NumPy handed the operator to Python;
* another ufunc with an engine function of its name and meaning is that function: ``np.sin(t)`` is
  ``mg.sin(t)``, ``np.isnan(t)`` is ``mg.isnan(t)`` -- differentiable and on the tensor's device,
  with PyTorch's dtypes (``np.sqrt`` of an int64 tensor is float32: PyTorch's ``sqrt``).

Everything else -- a ufunc the engine lacks (``np.spacing``, ``np.modf``), the methods ``reduce``,
``accumulate``, ``outer``, ``at`` and ``reduceat``, and keywords (``out=``, ``where=``,
``dtype=``) -- is NumPy's computation on the values, as a PyTorch tensor's is (through
``__array__``): its result as a tensor, or NumPy's own answer where ``out=`` names arrays.  A tensor
that requires grad is refused there in PyTorch's words (the result would be off the tape), as is a
tensor off the CPU (``__array__``'s refusal).

PyTorch refuses *every* ufunc of a tensor that requires grad; differentiating where the engine has
the function is what the ufunc means, so ported ``np.exp(loss)`` keeps its gradient here.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy as np
from ..grad_mode import state as _grad_state
from ..tensor import Tensor

#: NumPy's comparisons, which a NumPy scalar on the left calls with itself made a 0-d array
_COMPARISONS = frozenset((np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal))

#: The ufuncs that are Python operators: Tensor's method when a tensor comes first, and its
#: reflected method when the tensor is the second operand.
_OPERATORS: dict[Any, tuple[str, str | None]] = {
    np.add: ("__add__", "__radd__"), np.subtract: ("__sub__", "__rsub__"),
    np.multiply: ("__mul__", "__rmul__"), np.divide: ("__truediv__", "__rtruediv__"),
    np.floor_divide: ("__floordiv__", "__rfloordiv__"), np.remainder: ("__mod__", "__rmod__"),
    np.power: ("__pow__", "__rpow__"), np.matmul: ("__matmul__", "__rmatmul__"),
    np.less: ("__lt__", "__gt__"), np.less_equal: ("__le__", "__ge__"),
    np.greater: ("__gt__", "__lt__"), np.greater_equal: ("__ge__", "__le__"),
    np.equal: ("__eq__", "__eq__"), np.not_equal: ("__ne__", "__ne__"),
    np.bitwise_and: ("__and__", "__rand__"), np.bitwise_or: ("__or__", "__ror__"),
    np.bitwise_xor: ("__xor__", "__rxor__"), np.left_shift: ("__lshift__", "__rlshift__"),
    np.right_shift: ("__rshift__", "__rrshift__"),
    np.negative: ("__neg__", None), np.positive: ("__pos__", None), np.absolute: ("__abs__", None),
    np.invert: ("__invert__", None),
}

#: The ufuncs whose engine function of the same name means what NumPy's does.
SAME_MEANING = tuple(
    "arccos arccosh arcsin arcsinh arctan arctan2 arctanh cbrt ceil copysign cos cosh deg2rad exp exp2 expm1 "
    "float_power floor fmax fmin fmod frexp gcd heaviside hypot isfinite isinf isnan lcm ldexp log log10 log1p "
    "log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor maximum minimum nextafter rad2deg "
    "signbit sin sinh sqrt square tan tanh trunc".split())

#: NumPy's other names for engine functions: ``np.conjugate`` is ``mg.conj``, ...
ALIASES = {"conjugate": "conj", "degrees": "rad2deg", "radians": "deg2rad", "rint": "round",
           "sign": "sgn"}  # (NumPy 2's sign of a complex z is z / |z|: PyTorch's sgn; its sign refuses complex)

#: Engine functions of a ufunc's name that mean something else, left to NumPy: ``np.reciprocal`` of
#: an integer is an integer (``1 // x``), PyTorch's ``reciprocal`` a float.
MEANING_DIFFERS = ("reciprocal",)

#: ufunc -> engine function, filled once from the package's exports by :func:`use_engine_functions`
_ENGINE: dict[Any, Any] = {}


def use_engine_functions(exported: dict[str, Any]) -> None:
    """Take the engine's public functions (``mg.sin``, ...) for the ufuncs of :data:`SAME_MEANING`
    and :data:`ALIASES` (called once, when the package binds Tensor's methods)."""
    names = {**{name: name for name in SAME_MEANING}, **ALIASES}
    _ENGINE.update({getattr(np, ufunc): exported[name] for ufunc, name in names.items()})


class ForNumPyOnly:
    """``Tensor.__array_ufunc__``: :func:`array_ufunc` where NumPy looks, None where CuPy looks.

    NumPy finds an operand's ``__array_ufunc__`` on its *type* and calls it with the operand (NEP 13);
    CuPy's operators ask the operand *itself*, ``y.__array_ufunc__``, and hand ``cupy_array * y`` to
    ``y.__rmul__`` only where that is None -- its own ufunc would refuse a Tensor.  So the class sees
    the function and an instance sees None: ``np.sin(t)`` and ``ndarray * t`` reach the engine through
    NumPy, and ``cupy_array * t`` still reaches Tensor's reflected operator on a GPU, as it did when
    the class said ``__array_ufunc__ = None``."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.__doc__ = function.__doc__

    def __get__(self, tensor: Any, owner: Any = None) -> Any:
        return self.function if tensor is None else None


def array_ufunc(self: Tensor, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``Tensor.__array_ufunc__``: ``ufunc`` of ``inputs``, one of which is ``self`` (see the module)."""
    if method == "__call__" and not kwargs:
        names = _OPERATORS.get(ufunc)
        if names is not None:
            result = _operator(names, inputs, ufunc in _COMPARISONS)
            if result is not NotImplemented:
                return result
        elif ufunc in _ENGINE:
            return _ENGINE[ufunc](*inputs)
    return _on_the_host(ufunc, method, inputs, kwargs)


def _operator(names: tuple[str, str | None], inputs: tuple, comparison: bool) -> Any:
    """Tensor's operator of ``inputs``: ``x.__mul__(y)`` for a tensor ``x``, else ``y.__rmul__(x)``
    (the ``y`` NumPy found a tensor in); NotImplemented where the operator hands the operand back."""
    method, reflected = names
    if len(inputs) == 1:
        x, = inputs
        return getattr(type(x), method)(x)
    x, y = inputs
    if isinstance(x, Tensor):
        return getattr(type(x), method)(x, y)
    if comparison and type(x) is np.ndarray and x.ndim == 0:
        # ``np.complex128(z) < t`` arrives as ``np.less(array(z), t)``: NumPy's scalars compare as
        # 0-d arrays.  The operator takes the number back, as it did when NumPy deferred to it
        # (a complex number has no order, a longdouble is read as a float)
        x = x[()]
    return getattr(type(y), reflected)(y, x)


def _on_the_host(ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> Any:
    """NumPy's ``ufunc.method`` of the values, as a tensor's ``__array__`` gives them to NumPy."""
    outs = kwargs.get("out", ())
    if any(isinstance(o, Tensor) for o in outs):
        raise TypeError(f"{ufunc.__name__}: out= must be NumPy arrays here (NumPy cannot write into a "
                        f"tensor's memory behind the engine's back); the engine's function takes out=, "
                        f"as mg.add(x, y, out=t)")
    if method == "at" and isinstance(inputs[0], Tensor):  # (NumPy's ``at`` ignores a read-only view)
        raise ValueError(f"{ufunc.__name__}.at: output array is read-only (a tensor's memory is not NumPy's to "
                         f"write; index the tensor: t.index_put_((i,), v, accumulate=True) or t[i] += v)")
    result = getattr(ufunc, method)(*(_values(x, ufunc) for x in inputs), **kwargs)
    if outs or method == "at":  # NumPy's own answer: the arrays written, or None
        return result
    return tuple(map(_as_tensor, result)) if isinstance(result, tuple) else _as_tensor(result)


def _values(x: Any, ufunc: Any) -> Any:
    if not isinstance(x, Tensor):
        return x
    if x.requires_grad and _grad_state.enabled:
        raise RuntimeError(f"Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                           f"instead. (np.{ufunc.__name__} of a tensor is NumPy's computation here, off the "
                           f"tape: the engine has no function of its meaning, or was given keywords)")
    return x.__array__()


def _as_tensor(value: Any) -> Any:
    if isinstance(value, (np.ndarray, np.generic)):
        return Tensor._from_data(np.asarray(value))
    return value
