"""Comparisons and tests: ``mg.equal``, ``mg.less``, ``mg.logical_and``, ``mg.isnan``, ...

Their results are bool (or sign) tensors and carry no gradient: each runs a
non-differentiable op of :mod:`minigrad_ckpt.ops.comparison`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from ..backend import broadcast_refusal, host_numpy
from ..ops import comparison as _cmp
from ..ops import elementwise as _ew
from ..tape import apply
from ..tensor import Tensor
from .arguments import as_tensor, binary, one_device, ordered_binary, promoted_operands
from .elementwise import abs as _abs
from .elementwise import divide, unary_function, where
from .errors import DtypeNotImplemented

__all__ = [
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "logical_not", "sign", "isnan", "isfinite", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
]


_EQ, _NE, _LT = _cmp.Equal(), _cmp.NotEqual(), _cmp.Less()
_LE, _GT, _GE = _cmp.LessEqual(), _cmp.Greater(), _cmp.GreaterEqual()
_AND, _OR, _NOT = _cmp.LogicalAnd(), _cmp.LogicalOr(), _cmp.LogicalNot()
_SIGN, _ISNAN, _ISFINITE = _ew.Sign(), _cmp.IsNan(), _cmp.IsFinite()


def _comparison(name: str, op: Any, symbol: str, *, orders: bool) -> Callable[[Any, Any], Tensor]:
    """The public function ``name(x, y)``: ``x <symbol> y`` elementwise, broadcast, a bool
    tensor; a comparison that ``orders`` its operands (``<``) refuses complex ones.  The operands
    are compared in the dtype PyTorch computes them in (:func:`~.arguments.binary`): a float32
    tensor with a 0-d float64 one in float32, a Python int beside an integer tensor wrapped
    into its range (``uint8_tensor >= -3`` compares with 253; NumPy compares the exact numbers)."""
    if orders:
        def compare(x: Any, y: Any) -> Tensor:
            return ordered_binary(name, op, x, y)
    else:
        def compare(x: Any, y: Any) -> Tensor:
            return binary(op, x, y)
    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = f"``x {symbol} y`` elementwise, a bool tensor (not differentiable)."
    return compare


equal = _comparison("equal", _EQ, "==", orders=False)
not_equal = _comparison("not_equal", _NE, "!=", orders=False)
less = _comparison("less", _LT, "<", orders=True)
less_equal = _comparison("less_equal", _LE, "<=", orders=True)
greater = _comparison("greater", _GT, ">", orders=True)
greater_equal = _comparison("greater_equal", _GE, ">=", orders=True)


def logical_and(x: Any, y: Any) -> Any:
    """Elementwise logical and of the truth values, a bool tensor."""
    if isinstance(x, bool) and isinstance(y, bool):
        return x and y
    return binary(_AND, x, y)


def logical_or(x: Any, y: Any) -> Any:
    """Elementwise logical or of the truth values, a bool tensor."""
    if isinstance(x, bool) and isinstance(y, bool):
        return x or y
    return binary(_OR, x, y)


def logical_not(x: Any) -> Any:
    """Elementwise logical not of the truth values, a bool tensor."""
    if isinstance(x, bool):
        return not x
    return apply(_NOT, x)


def _bits(name: str, x: Any, like: Tensor | None) -> Any:
    """A bitwise op's operand: a tensor's array or a Python int/bool (kept weakly typed, as
    NumPy and PyTorch keep it), refusing floating and complex ones as both libraries do:
    ``&`` on floats has no meaning, and a silent logical ``and`` would be neither's answer.  The
    error is PyTorch's ``RuntimeError`` ("bitwise_and_cpu" not implemented for 'Float') and a
    ``TypeError``."""
    if isinstance(x, (bool, int, host_numpy.integer, host_numpy.bool_)):
        return x.item() if isinstance(x, host_numpy.generic) else x
    t = x if isinstance(x, Tensor) else as_tensor(x, like) if like is not None else as_tensor(x)
    if t.dtype.kind not in "biu":
        raise DtypeNotImplemented(f"{name}: only integer and bool tensors have bits, got {t.dtype} "
                        "(compare first, e.g. (x > 0) & (y > 0), or cast with .long())")
    return t._data


def _is_bool(x: Any) -> bool:
    return isinstance(x, (bool, host_numpy.bool_)) or (isinstance(x, Tensor) and x.dtype.kind == "b")


def _bitwise(name: str, symbol: str, logical: Callable[[Any, Any], Tensor],
             operator_of: Callable[[Any, Any], Any]) -> Callable[..., Tensor]:
    """The public ``name``: ``x <symbol> y`` bit by bit for integers and, on bools, the logical
    op (NumPy's and PyTorch's meaning of ``&``, ``|``, ``^``). Not differentiable."""
    def bitwise(x: Any, y: Any) -> Tensor:
        if _is_bool(x) and _is_bool(y):
            return logical(as_tensor(x), y) if not isinstance(x, Tensor) else logical(x, y)
        x, y = promoted_operands(*one_device(name, x, y))  # PyTorch's dtype: uint8 & 0-d int8 is uint8
        like = x if isinstance(x, Tensor) else y
        a, b = _bits(name, x, like), _bits(name, y, like)
        with broadcast_refusal(a, b):
            out = operator_of(a, b)  # the arrays' own operator
        return Tensor.constant(like.device.xp.asarray(out), like.device)
    bitwise.__name__ = bitwise.__qualname__ = name
    bitwise.__doc__ = (f"``x {symbol} y`` bit by bit for integer tensors, the logical op for bool ones "
                       f"(NumPy's and PyTorch's ``{name}``); floats are a TypeError. Not differentiable.")
    return bitwise


bitwise_and = _bitwise("bitwise_and", "&", logical_and, operator.and_)
bitwise_or = _bitwise("bitwise_or", "|", logical_or, operator.or_)
bitwise_xor = _bitwise("bitwise_xor", "^", not_equal, operator.xor)


def bitwise_not(x: Any) -> Tensor:
    """``~x``: every bit flipped for an integer tensor (``~5 == -6``), logical not for a bool
    one (NumPy's ``invert`` and PyTorch's ``bitwise_not``); floats are a TypeError."""
    t = as_tensor(x)
    if t.dtype.kind == "b":
        return logical_not(t)
    return Tensor.constant(t.device.xp.asarray(~_bits("bitwise_not", t, t)), t.device)  # (~ of a 0-d array: a scalar)


def sign(x: Any) -> Tensor:
    """-1, 0 or 1, with gradient 0 (PyTorch's: the result requires grad where ``x`` does).

    For a complex ``z`` it is ``z / |z|`` (0 at 0), NumPy's and PyTorch's ``sgn``: the point
    on the unit circle, which moves with ``z``, so it is differentiable (as a composition;
    its gradient is 0 at 0, where the denominator is kept away from 0 for backward)."""
    if isinstance(x, Tensor) and x.dtype.kind == "c":
        size = _abs(x)
        zero = equal(size, 0)
        return where(zero, 0, divide(x, where(zero, 1, size)))
    if isinstance(x, Tensor) and x.dtype.kind == "b":  # PyTorch: a bool's sign is itself (NumPy has no bool sign)
        return logical_or(x, x)
    return apply(_SIGN, x)


isnan = unary_function("isnan", _ISNAN, "True where ``x`` is NaN.")
isfinite = unary_function("isfinite", _ISFINITE, "True where ``x`` is neither infinite nor NaN.")
