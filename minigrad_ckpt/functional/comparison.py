"""Comparisons and tests: ``mg.equal``, ``mg.less``, ``mg.logical_and``, ``mg.isnan``, ...

Their results are bool (or sign) tensors and carry no gradient: each runs a
non-differentiable op of :mod:`minigrad_ckpt.ops.comparison`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ops import comparison as _cmp
from ..tape import apply
from ..tensor import Tensor
from .arguments import binary, ordered_binary
from .elementwise import abs as _abs
from .elementwise import divide, unary_function, where

__all__ = [
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "logical_not", "sign", "isnan", "isfinite",
]


_EQ, _NE, _LT = _cmp.Equal(), _cmp.NotEqual(), _cmp.Less()
_LE, _GT, _GE = _cmp.LessEqual(), _cmp.Greater(), _cmp.GreaterEqual()
_AND, _OR, _NOT = _cmp.LogicalAnd(), _cmp.LogicalOr(), _cmp.LogicalNot()
_SIGN, _ISNAN, _ISFINITE = _cmp.Sign(), _cmp.IsNan(), _cmp.IsFinite()


def _comparison(name: str, op: Any, symbol: str, *, orders: bool) -> Callable[[Any, Any], Tensor]:
    """The public function ``name(x, y)``: ``x <symbol> y`` elementwise, broadcast, a bool
    tensor; a comparison that ``orders`` its operands (``<``) refuses complex ones."""
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


def sign(x: Any) -> Tensor:
    """-1, 0 or 1 (not differentiable: the result does not require grad).

    For a complex ``z`` it is ``z / |z|`` (0 at 0), NumPy's and PyTorch's ``sgn``: the point
    on the unit circle, which moves with ``z``, so it is differentiable (as a composition;
    its gradient is 0 at 0, where the denominator is kept away from 0 for backward)."""
    if isinstance(x, Tensor) and x.dtype.kind == "c":
        size = _abs(x)
        zero = equal(size, 0)
        return where(zero, 0, divide(x, where(zero, 1, size)))
    return apply(_SIGN, x)


isnan = unary_function("isnan", _ISNAN, "True where ``x`` is NaN.")
isfinite = unary_function("isfinite", _ISFINITE, "True where ``x`` is neither infinite nor NaN.")
