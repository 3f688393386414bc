"""The public math API: ``mg.exp``, ``mg.sum``, ``mg.matmul``, ...

Every function here validates its arguments, normalizes them into an op's
static attributes (axes become a sorted tuple, shapes tuples of ints; see
:mod:`~minigrad_ckpt.functional.arguments`), and runs the op through
:func:`minigrad_ckpt.tape.apply`.  Signatures follow NumPy (``axis=``,
``keepdims=``, ``ddof=``).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from ..backend import as_dtype, get_default_dtype, get_device, host_numpy, is_floating
from ..ops import comparison as _cmp
from ..ops import elementwise as _ew
from ..ops import indexing as _ix
from ..ops import linalg as _la
from ..ops import reduction as _red
from ..ops import shape as _sh
from ..ops.device import ToDevice
from ..tape import apply, apply_move, watch_versions
from ..tensor import Tensor, normalize_index
from .arguments import (
    as_tensor,
    binary,
    broadcast_shapes,
    check_nonempty,
    normalize_axis,
    one_axis,
    operand,
    shape_arg,
    tensor_list,
)
from .einsum_subscripts import explicit_einsum

__all__ = [
    "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "negative", "exp", "log",
    "log1p", "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "erf", "clip", "where", "tan", "sinh", "cosh",
    "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh", "log2", "log10", "exp2",
    "expm1", "hypot", "logaddexp", "logaddexp2", "sinc", "square", "reciprocal", "cbrt", "floor", "ceil",
    "trunc", "round", "around", "mod", "remainder", "fmod", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "sign", "isnan", "isfinite",
    "sum", "mean", "max", "min", "prod", "var", "std", "logsumexp", "cumsum", "argmax", "argmin", "matmul",
    "einsum", "reshape", "transpose", "permute", "swapaxes", "moveaxis", "expand_dims", "squeeze",
    "broadcast_to", "sum_to", "concatenate", "stack", "split", "flip", "pad", "astype", "clone",
    "to_device", "getitem", "index_add", "take", "eye",
    "ravel", "flatten", "tile", "repeat", "roll", "diag", "diagonal", "trace", "tril", "triu", "tensordot",
    "dot", "inner", "outer", "kron", "cross", "cumprod", "sort", "argsort", "take_along_axis",
    "meshgrid",
]

# ---------------------------------------------------------------------------
# Elementwise math
# ---------------------------------------------------------------------------
_ADD, _SUB, _MUL, _DIV, _POW = _ew.Add(), _ew.Sub(), _ew.Mul(), _ew.Div(), _ew.Pow()
_MAXIMUM, _MINIMUM = _ew.Maximum(), _ew.Minimum()
_NEG, _EXP, _LOG, _LOG1P = _ew.Neg(), _ew.Exp(), _ew.Log(), _ew.Log1p()
_SQRT, _ABS, _SIN, _COS = _ew.Sqrt(), _ew.Abs(), _ew.Sin(), _ew.Cos()
_TANH, _SIGMOID, _ERF = _ew.Tanh(), _ew.Sigmoid(), _ew.Erf()
_CLIP, _WHERE = _ew.Clip(), _ew.Where()


def add(x: Any, y: Any) -> Tensor:
    """``x + y`` with broadcasting."""
    return binary(_ADD, x, y)


def subtract(x: Any, y: Any) -> Tensor:
    """``x - y`` with broadcasting."""
    return binary(_SUB, x, y)


def multiply(x: Any, y: Any) -> Tensor:
    """``x * y`` with broadcasting."""
    return binary(_MUL, x, y)


def divide(x: Any, y: Any) -> Tensor:
    """``x / y`` with broadcasting (true division)."""
    return binary(_DIV, x, y)


def power(x: Any, y: Any) -> Tensor:
    """``x ** y`` with broadcasting; see :class:`~minigrad_ckpt.ops.elementwise.Pow`."""
    return binary(_POW, x, y)


def maximum(x: Any, y: Any) -> Tensor:
    """Elementwise maximum; ties split the gradient evenly."""
    return binary(_MAXIMUM, x, y)


def minimum(x: Any, y: Any) -> Tensor:
    """Elementwise minimum; ties split the gradient evenly."""
    return binary(_MINIMUM, x, y)


def negative(x: Any) -> Tensor:
    """``-x`` elementwise."""
    return apply(_NEG, x)


def exp(x: Any) -> Tensor:
    """``e ** x`` elementwise; its gradient is its output."""
    return apply(_EXP, x)


def log(x: Any) -> Tensor:
    """Natural log (``-inf`` at 0, NaN below, as NumPy, without warnings)."""
    return apply(_LOG, x)


def log1p(x: Any) -> Tensor:
    """``log(1 + x)``, accurate for small ``x``."""
    return apply(_LOG1P, x)


def sqrt(x: Any) -> Tensor:
    """Square root (NaN below 0, as NumPy); gradient ``1 / (2 sqrt(x))``, infinite at 0."""
    return apply(_SQRT, x)


def abs(x: Any) -> Tensor:  # noqa: A001 - NumPy's name
    """Absolute value; gradient ``sign(x)`` (0 at 0)."""
    return apply(_ABS, x)


def sin(x: Any) -> Tensor:
    """Sine (radians); gradient ``cos(x)``."""
    return apply(_SIN, x)


def cos(x: Any) -> Tensor:
    """Cosine (radians); gradient ``-sin(x)``."""
    return apply(_COS, x)


def tanh(x: Any) -> Tensor:
    """Hyperbolic tangent; gradient ``1 - tanh(x)**2`` from the saved output."""
    return apply(_TANH, x)


def sigmoid(x: Any) -> Tensor:
    """``1 / (1 + exp(-x))`` without overflow."""
    return apply(_SIGMOID, x)


def erf(x: Any) -> Tensor:
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``."""
    return apply(_ERF, x)


def clip(x: Any, a_min: Any = None, a_max: Any = None) -> Tensor:
    """Limit values to ``[a_min, a_max]`` (either may be None, a scalar or a tensor)."""
    x = as_tensor(x)
    lo = None if a_min is None else operand(a_min, x)
    hi = None if a_max is None else operand(a_max, x)
    return apply(_CLIP, x, lo, hi)


def where(condition: Any, x: Any, y: Any) -> Tensor:
    """``x`` where ``condition`` is true, else ``y``.

    The gradient of the branch that was not selected is exactly zero at each
    element, and ops with a singular derivative turn a zero upstream gradient
    into a zero gradient -- so ``where(x > 0, sqrt(x), 0)`` has no NaN at 0.
    """
    like = next((v for v in (condition, x, y) if isinstance(v, Tensor)), None)
    cond = as_tensor(condition, like)
    if cond.dtype != host_numpy.bool_:
        cond = cond != 0
    return apply(_WHERE, cond, operand(x, cond), operand(y, cond))


# ---------------------------------------------------------------------------
# NumPy's other elementwise functions (issue 14)
# ---------------------------------------------------------------------------
_TAN, _SINH, _COSH = _ew.Tan(), _ew.Sinh(), _ew.Cosh()
_ARCSIN, _ARCCOS, _ARCTAN = _ew.Arcsin(), _ew.Arccos(), _ew.Arctan()
_ARCSINH, _ARCCOSH, _ARCTANH = _ew.Arcsinh(), _ew.Arccosh(), _ew.Arctanh()
_LOG2, _LOG10, _EXP2, _EXPM1 = _ew.Log2(), _ew.Log10(), _ew.Exp2(), _ew.Expm1()
_SINC, _SQUARE, _RECIPROCAL, _CBRT = _ew.Sinc(), _ew.Square(), _ew.Reciprocal(), _ew.Cbrt()
_FLOOR, _CEIL, _TRUNC = _ew.Floor(), _ew.Ceil(), _ew.Trunc()
_ARCTAN2, _HYPOT = _ew.Arctan2(), _ew.Hypot()
_LOGADDEXP, _LOGADDEXP2 = _ew.LogAddExp(), _ew.LogAddExp2()
_MOD, _FMOD = _ew.Mod(), _ew.Fmod()


def tan(x: Any) -> Tensor:
    """Tangent; poles at ``pi/2 + k pi``."""
    return apply(_TAN, x)


def sinh(x: Any) -> Tensor:
    """Hyperbolic sine; gradient ``cosh(x)``."""
    return apply(_SINH, x)


def cosh(x: Any) -> Tensor:
    """Hyperbolic cosine; gradient ``sinh(x)``."""
    return apply(_COSH, x)


def arcsin(x: Any) -> Tensor:
    """Inverse sine on ``[-1, 1]`` (NaN outside); the derivative is infinite at ``+-1``."""
    return apply(_ARCSIN, x)


def arccos(x: Any) -> Tensor:
    """Inverse cosine on ``[-1, 1]`` (NaN outside); the derivative is infinite at ``+-1``."""
    return apply(_ARCCOS, x)


def arctan(x: Any) -> Tensor:
    """Inverse tangent; gradient ``1 / (1 + x**2)``."""
    return apply(_ARCTAN, x)


def arctan2(x1: Any, x2: Any) -> Tensor:
    """The angle of the point ``(x2, x1)``, NumPy's ``arctan2(y, x)``; gradient 0 at the origin."""
    return binary(_ARCTAN2, x1, x2)


def arcsinh(x: Any) -> Tensor:
    """Inverse hyperbolic sine; gradient ``1 / sqrt(x**2 + 1)``."""
    return apply(_ARCSINH, x)


def arccosh(x: Any) -> Tensor:
    """Inverse hyperbolic cosine on ``[1, inf)``; the derivative is infinite at 1."""
    return apply(_ARCCOSH, x)


def arctanh(x: Any) -> Tensor:
    """Inverse hyperbolic tangent on ``(-1, 1)``; ``+-inf`` at ``+-1``."""
    return apply(_ARCTANH, x)


def log2(x: Any) -> Tensor:
    """Base-2 logarithm (``-inf`` at 0, NaN below)."""
    return apply(_LOG2, x)


def log10(x: Any) -> Tensor:
    """Base-10 logarithm (``-inf`` at 0, NaN below)."""
    return apply(_LOG10, x)


def exp2(x: Any) -> Tensor:
    """``2 ** x``."""
    return apply(_EXP2, x)


def expm1(x: Any) -> Tensor:
    """``exp(x) - 1``, accurate for small ``x``."""
    return apply(_EXPM1, x)


def hypot(x1: Any, x2: Any) -> Tensor:
    """``sqrt(x1**2 + x2**2)`` without overflow; gradient 0 at the origin (a kink)."""
    return binary(_HYPOT, x1, x2)


def logaddexp(x1: Any, x2: Any) -> Tensor:
    """``log(exp(x1) + exp(x2))`` without overflow."""
    return binary(_LOGADDEXP, x1, x2)


def logaddexp2(x1: Any, x2: Any) -> Tensor:
    """``log2(2**x1 + 2**x2)`` without overflow."""
    return binary(_LOGADDEXP2, x1, x2)


def sinc(x: Any) -> Tensor:
    """The normalized sinc ``sin(pi x) / (pi x)``, 1 at 0 (NumPy's ``sinc``)."""
    return apply(_SINC, x)


def square(x: Any) -> Tensor:
    """``x * x``."""
    return apply(_SQUARE, x)


def reciprocal(x: Any) -> Tensor:
    """``1 / x`` (``inf`` at 0)."""
    return apply(_RECIPROCAL, x)


def cbrt(x: Any) -> Tensor:
    """The real cube root; the derivative is infinite at 0."""
    return apply(_CBRT, x)


def floor(x: Any) -> Tensor:
    """The largest integer ``<= x``; gradient 0 (a step function)."""
    return apply(_FLOOR, x)


def ceil(x: Any) -> Tensor:
    """The smallest integer ``>= x``; gradient 0 (a step function)."""
    return apply(_CEIL, x)


def trunc(x: Any) -> Tensor:
    """``x`` rounded towards 0; gradient 0 (a step function)."""
    return apply(_TRUNC, x)


def round(x: Any, decimals: int = 0) -> Tensor:  # noqa: A001 - NumPy's name
    """Round half to even to ``decimals`` places (NumPy's ``round``); gradient 0."""
    if not isinstance(decimals, (int, host_numpy.integer)) or isinstance(decimals, bool):
        raise TypeError(f"round: decimals must be an int, got {decimals!r}")
    return apply(_ew.Round(decimals=int(decimals)), x)


around = round


def mod(x1: Any, x2: Any) -> Tensor:
    """``x1 mod x2`` with the sign of ``x2`` (Python's ``%``); ``d/dx2 = -floor(x1 / x2)``."""
    return binary(_MOD, x1, x2)


remainder = mod


def fmod(x1: Any, x2: Any) -> Tensor:
    """``x1 mod x2`` with the sign of ``x1`` (C's ``fmod``); ``d/dx2 = -trunc(x1 / x2)``."""
    return binary(_FMOD, x1, x2)


# ---------------------------------------------------------------------------
# Non-differentiable elementwise ops
# ---------------------------------------------------------------------------
_EQ, _NE, _LT = _cmp.Equal(), _cmp.NotEqual(), _cmp.Less()
_LE, _GT, _GE = _cmp.LessEqual(), _cmp.Greater(), _cmp.GreaterEqual()
_AND, _OR, _NOT = _cmp.LogicalAnd(), _cmp.LogicalOr(), _cmp.LogicalNot()
_SIGN, _ISNAN, _ISFINITE = _cmp.Sign(), _cmp.IsNan(), _cmp.IsFinite()


def equal(x: Any, y: Any) -> Tensor:
    """``x == y`` elementwise, a bool tensor (not differentiable)."""
    return binary(_EQ, x, y)


def not_equal(x: Any, y: Any) -> Tensor:
    """``x != y`` elementwise, a bool tensor (not differentiable)."""
    return binary(_NE, x, y)


def less(x: Any, y: Any) -> Tensor:
    """``x < y`` elementwise, a bool tensor (not differentiable)."""
    return binary(_LT, x, y)


def less_equal(x: Any, y: Any) -> Tensor:
    """``x <= y`` elementwise, a bool tensor (not differentiable)."""
    return binary(_LE, x, y)


def greater(x: Any, y: Any) -> Tensor:
    """``x > y`` elementwise, a bool tensor (not differentiable)."""
    return binary(_GT, x, y)


def greater_equal(x: Any, y: Any) -> Tensor:
    """``x >= y`` elementwise, a bool tensor (not differentiable)."""
    return binary(_GE, x, y)


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
    """-1, 0 or 1 (not differentiable: the result does not require grad)."""
    return apply(_SIGN, x)


def isnan(x: Any) -> Tensor:
    """True where ``x`` is NaN."""
    return apply(_ISNAN, x)


def isfinite(x: Any) -> Tensor:
    """True where ``x`` is neither infinite nor NaN."""
    return apply(_ISFINITE, x)


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


def _numpy_protocol(name: str, dtype: Any, out: Any) -> None:
    """Accept NumPy's ``dtype=None, out=None`` (what ``numpy.sum(t)`` and friends
    pass to ``t.sum``) and refuse anything else with the reason."""
    if dtype is not None:
        raise TypeError(f"{name}: dtype={dtype!r} is not supported (results keep the input's "
                        f"dtype); cast first with astype() to reduce in another dtype")
    if out is not None:
        raise TypeError(f"{name}: out= is not supported: every result is a new tensor, recorded "
                        f"on the tape; assign the result instead")


def _reduce(cls: type, x: Any, axis: Any, keepdims: bool, **extra: Any) -> Tensor:
    x = as_tensor(x)
    axes = normalize_axis(axis, x.ndim)
    return apply(cls(axes=axes, keepdims=bool(keepdims), in_shape=x.shape, **extra), x)


def sum(x: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None,  # noqa: A001
        out: Any = None) -> Tensor:
    """Sum over ``axis`` (all axes for None; ``()`` for none).

    ``dtype`` and ``out`` exist for NumPy's reduction protocol (``numpy.sum(t)``
    calls ``t.sum(axis=..., dtype=None, out=None)``): only None is accepted.
    """
    _numpy_protocol("sum", dtype, out)
    return _reduce(_red.Sum, x, axis, keepdims)


def mean(x: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None, out: Any = None) -> Tensor:
    """Arithmetic mean over ``axis`` (NaN over an empty axis, like NumPy)."""
    _numpy_protocol("mean", dtype, out)
    return _reduce(_red.Mean, x, axis, keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False, *, out: Any = None) -> Tensor:  # noqa: A001
    """Maximum over ``axis``; tied maxima share the gradient evenly."""
    _numpy_protocol("max", None, out)
    x = as_tensor(x)
    check_nonempty("max", x, axis)
    return _reduce(_red.Max, x, axis, keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False, *, out: Any = None) -> Tensor:  # noqa: A001
    """Minimum over ``axis``; tied minima share the gradient evenly."""
    _numpy_protocol("min", None, out)
    x = as_tensor(x)
    check_nonempty("min", x, axis)
    return _reduce(_red.Min, x, axis, keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None, out: Any = None) -> Tensor:
    """Product over ``axis``, with exact gradients when factors are zero."""
    _numpy_protocol("prod", dtype, out)
    return _reduce(_red.Prod, x, axis, keepdims)


def var(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False, *, dtype: Any = None,
        out: Any = None) -> Tensor:
    """Variance over ``axis``: ``sum((x - mean)**2) / (N - ddof)``."""
    _numpy_protocol("var", dtype, out)
    return _reduce(_red.Var, x, axis, keepdims, ddof=int(ddof))


def std(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False, *, dtype: Any = None,
        out: Any = None) -> Tensor:
    """Standard deviation; the gradient of a constant slice is 0."""
    _numpy_protocol("std", dtype, out)
    return _reduce(_red.Std, x, axis, keepdims, ddof=int(ddof))


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, stable for large magnitudes."""
    x = as_tensor(x)
    check_nonempty("logsumexp", x, axis)
    return _reduce(_red.LogSumExp, x, axis, keepdims)


def cumsum(x: Any, axis: int | None = None, *, dtype: Any = None, out: Any = None) -> Tensor:
    """Running sum along ``axis`` (over the flattened tensor for None)."""
    _numpy_protocol("cumsum", dtype, out)
    x = as_tensor(x)
    ax = None if axis is None else one_axis(axis, x.ndim)
    return apply(_red.CumSum(axis=ax, in_shape=x.shape), x)


def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Index of the maximum (first on ties); an int64 tensor, not differentiable."""
    x = as_tensor(x)
    ax = None if axis is None else one_axis(axis, x.ndim)
    check_nonempty("argmax", x, ax)
    return apply(_cmp.ArgMax(axis=ax, keepdims=bool(keepdims)), x)


def argmin(x: Any, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Index of the minimum (first on ties); an int64 tensor, not differentiable."""
    x = as_tensor(x)
    ax = None if axis is None else one_axis(axis, x.ndim)
    check_nonempty("argmin", x, ax)
    return apply(_cmp.ArgMin(axis=ax, keepdims=bool(keepdims)), x)


# ---------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------
_MATMUL = _la.MatMul()


def matmul(x: Any, y: Any) -> Tensor:
    """Matrix product with NumPy's rules (1-D promotion, batch broadcasting)."""
    x = as_tensor(x, y if isinstance(y, Tensor) else None)
    y = as_tensor(y, x)
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError(f"matmul: operands must not be 0-d (got shapes {x.shape} and {y.shape})")
    k1 = x.shape[-1]
    k2 = y.shape[0] if y.ndim == 1 else y.shape[-2]
    if k1 != k2:
        raise ValueError(
            f"matmul: shapes {x.shape} and {y.shape} are not aligned: "
            f"{k1} (last axis of the first) != {k2} ({'only' if y.ndim == 1 else 'second-to-last'} "
            f"axis of the second)"
        )
    if x.ndim > 2 and y.ndim > 2:
        broadcast_shapes("matmul", x.shape[:-2], y.shape[:-2])
    return apply(_MATMUL, x, y)


def einsum(subscripts: str, *operands: Any) -> Tensor:
    """Einstein summation, e.g. ``einsum("bij,bjk->bik", a, b)``.

    Implicit output (no ``->``) and ``...`` are supported, as in NumPy.
    """
    like = next((o for o in operands if isinstance(o, Tensor)), None)
    ts = [as_tensor(o, like) for o in operands]
    explicit = explicit_einsum(subscripts, [t.shape for t in ts])
    return apply(_la.Einsum(subscripts=explicit), *ts)


# ---------------------------------------------------------------------------
# Shape and layout
# ---------------------------------------------------------------------------


def reshape(x: Any, shape: Any) -> Tensor:
    """Same values, new shape (one entry may be -1)."""
    x = as_tensor(x)
    shape = shape_arg(shape)
    if shape.count(-1) > 1:
        raise ValueError(f"reshape: only one dimension can be -1, got {shape}")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if known == 0 or x.size % known:
            raise ValueError(f"reshape: cannot reshape {x.shape} into {shape}")
        shape = tuple(x.size // known if s == -1 else s for s in shape)
    n = 1
    for s in shape:
        if s < 0:
            raise ValueError(f"reshape: negative dimension in {shape}")
        n *= s
    if n != x.size:
        raise ValueError(
            f"reshape: cannot reshape a tensor of shape {x.shape} ({x.size} elements) into {shape}"
        )
    return apply(_sh.Reshape(shape=shape, in_shape=x.shape), x)


def transpose(x: Any, axes: Any = None) -> Tensor:
    """Permute axes (reverse them for None)."""
    x = as_tensor(x)
    if axes is None:
        perm = tuple(reversed(range(x.ndim)))
    else:
        perm = tuple(int(a) % x.ndim if x.ndim else int(a) for a in axes)
        if sorted(perm) != list(range(x.ndim)):
            raise ValueError(f"transpose: axes {tuple(axes)} are not a permutation of {x.ndim} axes")
    return apply(_sh.Transpose(axes=perm), x)


def permute(x: Any, *axes: Any) -> Tensor:
    """PyTorch's name for :func:`transpose` with explicit axes."""
    if len(axes) == 1 and not isinstance(axes[0], int):
        axes = tuple(axes[0])
    return transpose(x, axes)


def swapaxes(x: Any, axis1: int, axis2: int) -> Tensor:
    """Exchange two axes."""
    x = as_tensor(x)
    a, b = one_axis(axis1, x.ndim), one_axis(axis2, x.ndim)
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return apply(_sh.Transpose(axes=tuple(perm)), x)


def moveaxis(x: Any, source: Any, destination: Any) -> Tensor:
    """Move axes ``source`` to positions ``destination`` (ints or equal-length sequences; a view,
    NumPy's ``moveaxis``)."""
    x = as_tensor(x)
    src = (source,) if isinstance(source, (int, host_numpy.integer)) else tuple(source)
    dst = (destination,) if isinstance(destination, (int, host_numpy.integer)) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of elements")
    src = tuple(one_axis(a, x.ndim) for a in src)
    dst = tuple(one_axis(a, x.ndim) for a in dst)
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("moveaxis: repeated axis")
    perm = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return apply(_sh.Transpose(axes=tuple(perm)), x)


def expand_dims(x: Any, axis: Any) -> Tensor:
    """Insert size-1 axes at ``axis`` (an int or a tuple, positions in the result)."""
    x = as_tensor(x)
    axes = (axis,) if isinstance(axis, (int, host_numpy.integer)) else tuple(axis)
    nd = x.ndim + len(axes)
    pos = normalize_axis(axes, nd)
    it = iter(x.shape)
    shape = tuple(1 if i in pos else next(it) for i in range(nd))
    return apply(_sh.Reshape(shape=shape, in_shape=x.shape), x)


def squeeze(x: Any, axis: Any = None) -> Tensor:
    """Remove size-1 axes (all of them for None)."""
    x = as_tensor(x)
    if axis is None:
        axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
    else:
        axes = normalize_axis(axis, x.ndim)
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1")
    shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    return apply(_sh.Reshape(shape=shape, in_shape=x.shape), x)


def broadcast_to(x: Any, shape: Any) -> Tensor:
    """A read-only view of ``x`` broadcast to ``shape``."""
    x = as_tensor(x)
    shape = shape_arg(shape)
    if broadcast_shapes("broadcast_to", x.shape, shape) != shape:
        raise ValueError(f"broadcast_to: cannot broadcast {x.shape} to {shape}")
    return apply(_sh.BroadcastTo(shape=shape, in_shape=x.shape), x)


def sum_to(x: Any, shape: Any) -> Tensor:
    """Sum ``x`` down to ``shape`` (the adjoint of :func:`broadcast_to`)."""
    x = as_tensor(x)
    shape = shape_arg(shape)
    if x.shape == shape:
        return x
    if broadcast_shapes("sum_to", x.shape, shape) != x.shape:
        raise ValueError(f"sum_to: {x.shape} is not a broadcast of {shape}")
    return apply(_sh.SumTo(shape=shape, in_shape=x.shape), x)


def concatenate(tensors: Sequence[Any], axis: int = 0) -> Tensor:
    """Join tensors along an existing axis."""
    ts = tensor_list("concatenate", tensors)
    ax = one_axis(axis, ts[0].ndim) if ts[0].ndim else None
    if ax is None:
        raise ValueError("concatenate: zero-dimensional tensors cannot be concatenated")
    for t in ts[1:]:
        if t.ndim != ts[0].ndim or any(
            a != b for i, (a, b) in enumerate(zip(t.shape, ts[0].shape)) if i != ax
        ):
            raise ValueError(
                f"concatenate: shapes {ts[0].shape} and {t.shape} differ outside axis {ax}"
            )
    return apply(_sh.Concatenate(axis=ax, sizes=tuple(t.shape[ax] for t in ts)), *ts)


def stack(tensors: Sequence[Any], axis: int = 0) -> Tensor:
    """Join same-shaped tensors along a new axis."""
    ts = tensor_list("stack", tensors)
    for t in ts[1:]:
        if t.shape != ts[0].shape:
            raise ValueError(f"stack: all tensors need the same shape, got {ts[0].shape} and {t.shape}")
    ax = one_axis(axis, ts[0].ndim + 1)
    return apply(_sh.Stack(axis=ax), *ts)


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Tensor]:
    """Split into pieces along ``axis`` (NumPy's ``split``: a count or split points)."""
    x = as_tensor(x)
    ax = one_axis(axis, x.ndim)
    n = x.shape[ax]
    if isinstance(indices_or_sections, (int, host_numpy.integer)):
        k = int(indices_or_sections)
        if k <= 0 or n % k:
            raise ValueError(f"split: axis {ax} of length {n} cannot be split into {k} equal parts")
        points = [n // k * i for i in range(1, k)]
    else:
        points = [int(p) for p in indices_or_sections]
    bounds = [0] + points + [n]
    lead = (slice(None),) * ax
    return [x[lead + (slice(a, b),)] for a, b in zip(bounds[:-1], bounds[1:])]


def flip(x: Any, axis: Any = None) -> Tensor:
    """Reverse the order of elements along ``axis`` (all axes for None)."""
    x = as_tensor(x)
    return apply(_sh.Flip(axes=normalize_axis(axis, x.ndim)), x)


def pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: float = 0) -> Tensor:
    """Pad with a constant (NumPy's ``pad_width`` forms: int, pair, or a pair per axis)."""
    x = as_tensor(x)
    if mode != "constant":
        raise NotImplementedError(f"pad: only mode='constant' is supported, got {mode!r}")
    pw = host_numpy.broadcast_to(host_numpy.asarray(pad_width, dtype=host_numpy.int64), (x.ndim, 2))
    if (pw < 0).any():
        raise ValueError(f"pad: negative pad width in {pad_width!r}")
    widths = tuple((int(a), int(b)) for a, b in pw)
    value = operand(constant_values, x)
    if isinstance(value, Tensor):
        raise TypeError("pad: constant_values must be a number")
    return apply(_sh.Pad(pad_width=widths, value=value, in_shape=x.shape), x)


def astype(x: Any, dtype: Any) -> Tensor:
    """Cast to ``dtype``.  Casting to a non-float type cuts the tape (no gradient)."""
    x = as_tensor(x)
    dt = as_dtype(dtype)
    if dt == x.dtype:
        return x
    if not is_floating(dt):
        return apply(_sh.AsType(dtype=dt.name), x.detach())
    return apply(_sh.AsType(dtype=dt.name), x)


def clone(x: Any) -> Tensor:
    """A copy with its own memory (differentiable)."""
    return apply(_sh.Clone(), as_tensor(x))


def to_device(x: Any, device: Any) -> Tensor:
    """Move to another device (differentiable; see ``docs/devices.md``)."""
    x = as_tensor(x)
    dev = get_device(device)
    if dev is x.device:
        return x
    return apply_move(ToDevice(device=str(dev), source=str(x.device)), x, dev)


# ---------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------


def getitem(x: Any, index: Any) -> Tensor:
    """``x[index]``: basic, integer-array and boolean indexing, as NumPy."""
    x = as_tensor(x)
    idx = normalize_index(index, x)
    out = apply(_ix.GetItem(index=idx, in_shape=x.shape), x)
    if out._node is not None:  # the op holds index tensors' arrays: watch them (host arrays were copied)
        watch_versions(out, _index_tensors(index))
    return out


def _index_tensors(index: Any) -> list[Tensor]:
    return [it for it in (index if type(index) is tuple else (index,)) if isinstance(it, Tensor)]


def index_add(shape: Any, index: Any, values: Any, unique: bool = False) -> Tensor:
    """Zeros of ``shape`` with ``values`` accumulated at ``index`` (indexing's adjoint).

    ``unique`` mirrors the array backend's hint (no position repeats); the
    accumulation recorded here is exact either way, so it is not needed.
    """
    del unique
    values = as_tensor(values)
    shape = shape_arg(shape)
    watched = _index_tensors(index)
    if not isinstance(index, tuple) or watched:
        probe = Tensor._wrap(values.device.xp.empty(shape, dtype=values.dtype), None, values.device)
        index = normalize_index(index, probe)
    return watch_versions(apply(_ix.IndexAdd(shape=shape, index=index), values), watched)


def take(x: Any, indices: Any, axis: int | None = None) -> Tensor:
    """Elements of ``x`` at integer ``indices`` along ``axis`` (flattened for None)."""
    x = as_tensor(x)
    if axis is None:
        return getitem(reshape(x, (-1,)), (indices,))
    ax = one_axis(axis, x.ndim)
    return getitem(x, (slice(None),) * ax + (indices,))


# ---------------------------------------------------------------------------
# NumPy's other shape functions (issue 14); most are compositions of the ops above
# ---------------------------------------------------------------------------


def ravel(x: Any) -> Tensor:
    """The elements as a 1-D tensor (a view where the layout allows)."""
    x = as_tensor(x)
    return reshape(x, (x.size,))


def flatten(x: Any) -> Tensor:
    """The elements as a new 1-D tensor (a copy, like ``ndarray.flatten``)."""
    return clone(ravel(x))


def tile(x: Any, reps: Any) -> Tensor:
    """``x`` repeated ``reps`` times along each axis (NumPy's ``tile``)."""
    x = as_tensor(x)
    reps = shape_arg(reps)
    if builtins.any(r < 0 for r in reps):
        raise ValueError(f"tile: negative repetitions in {reps}")
    nd = builtins.max(x.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    if x.ndim < nd:
        x = reshape(x, (1,) * (nd - x.ndim) + x.shape)
    return apply(_sh.Tile(reps=reps, in_shape=x.shape), x)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Tensor:
    """Each element repeated ``repeats`` times along ``axis`` (flattened for None).

    ``repeats`` is a count or one count per element along ``axis``.
    """
    x = as_tensor(x)
    if axis is None:
        x, ax = ravel(x), 0
    else:
        ax = one_axis(axis, x.ndim)
    n = x.shape[ax]
    if isinstance(repeats, (int, host_numpy.integer)) and not isinstance(repeats, bool):
        if repeats < 0:
            raise ValueError(f"repeat: negative count {repeats}")
        return apply(_sh.Repeat(repeats=int(repeats), axis=ax, in_shape=x.shape), x)
    counts = host_numpy.asarray(repeats)
    if counts.dtype.kind not in "iu" or counts.ndim > 1:
        raise TypeError(f"repeat: repeats must be an int or a sequence of ints, got {repeats!r}")
    counts = host_numpy.broadcast_to(counts, (n,))
    if (counts < 0).any():
        raise ValueError("repeat: negative counts")
    # per-element counts: a gather (its gradient accumulates each run of copies)
    index = host_numpy.repeat(host_numpy.arange(n), counts)
    return getitem(x, (slice(None),) * ax + (index,))


def roll(x: Any, shift: Any, axis: Any = None) -> Tensor:
    """Shift elements cyclically along ``axis`` (over the flattened tensor for None)."""
    x = as_tensor(x)
    if axis is None:
        if not isinstance(shift, (int, host_numpy.integer)):
            raise TypeError("roll: with axis=None, shift must be an int")
        return reshape(roll(ravel(x), shift, 0), x.shape)
    axes = (axis,) if isinstance(axis, (int, host_numpy.integer)) else tuple(axis)
    shifts = (shift,) if isinstance(shift, (int, host_numpy.integer)) else tuple(shift)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: {len(shifts)} shifts for {len(axes)} axes")
    axes = tuple(one_axis(a, x.ndim) for a in axes)
    return apply(_sh.Roll(shifts=tuple(int(s) for s in shifts), axes=axes), x)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The diagonal of the ``(axis1, axis2)`` planes, as the last axis (NumPy's ``diagonal``).

    Built from registered ops: the plane is moved last and flattened, and the
    diagonal is the strided slice ``offset, offset + n2 + 1, ...`` of it (whose
    gradient is an assignment into zeros).
    """
    x = as_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"diagonal: needs at least 2 dimensions, got shape {x.shape}")
    a1, a2 = one_axis(axis1, x.ndim), one_axis(axis2, x.ndim)
    if a1 == a2:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same")
    offset = int(offset)
    moved = moveaxis(x, (a1, a2), (-2, -1))
    n1, n2 = moved.shape[-2:]
    k = builtins.max(0, builtins.min(n1, n2 - offset) if offset >= 0 else builtins.min(n1 + offset, n2))
    flat = reshape(moved, moved.shape[:-2] + (n1 * n2,))
    start = offset if offset >= 0 else -offset * n2
    sl = slice(start, start + (k - 1) * (n2 + 1) + 1, n2 + 1) if k else slice(0, 0)
    return getitem(flat, (Ellipsis, sl))


def diag(v: Any, k: int = 0) -> Tensor:
    """A 1-D ``v`` placed on the ``k``-th diagonal of a square matrix, or the ``k``-th diagonal of a 2-D ``v``."""
    v = as_tensor(v)
    k = int(k)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError(f"diag: input must be 1-D or 2-D, got shape {v.shape}")
    m = v.shape[0]
    n = m + builtins.abs(k)
    start = k if k >= 0 else -k * n
    sl = slice(start, start + (m - 1) * (n + 1) + 1, n + 1) if m else slice(0, 0)
    return reshape(index_add((n * n,), (sl,), v), (n, n))


def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The sum along a diagonal (NumPy's ``trace``)."""
    return sum(diagonal(x, offset, axis1, axis2), axis=-1)


def tril(x: Any, k: int = 0) -> Tensor:
    """Zero above the ``k``-th diagonal of the last two axes."""
    x = as_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"tril: needs at least 2 dimensions, got shape {x.shape}")
    return apply(_sh.Tril(k=int(k)), x)


def triu(x: Any, k: int = 0) -> Tensor:
    """Zero below the ``k``-th diagonal of the last two axes."""
    x = as_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"triu: needs at least 2 dimensions, got shape {x.shape}")
    return apply(_sh.Triu(k=int(k)), x)


def _pair(a: Any, b: Any) -> tuple[Tensor, Tensor]:
    a = as_tensor(a, b if isinstance(b, Tensor) else None)
    return a, as_tensor(b, a)


def tensordot(a: Any, b: Any, axes: Any = 2) -> Tensor:
    """Sum products over ``axes`` (an int N: the last N of ``a`` with the first N of ``b``;
    or two sequences of axes), as NumPy: transposes and one matrix product."""
    a, b = _pair(a, b)
    if isinstance(axes, (int, host_numpy.integer)):
        n = int(axes)
        if n < 0 or n > builtins.min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: axes={n} does not fit shapes {a.shape} and {b.shape}")
        ax_a, ax_b = tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    else:
        ax_a, ax_b = axes
        ax_a = (ax_a,) if isinstance(ax_a, (int, host_numpy.integer)) else tuple(ax_a)
        ax_b = (ax_b,) if isinstance(ax_b, (int, host_numpy.integer)) else tuple(ax_b)
        if len(ax_a) != len(ax_b):
            raise ValueError("tensordot: the two axis lists differ in length")
        ax_a = tuple(one_axis(i, a.ndim) for i in ax_a)
        ax_b = tuple(one_axis(i, b.ndim) for i in ax_b)
    for i, j in zip(ax_a, ax_b):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: shape mismatch for sum: {a.shape}[{i}] != {b.shape}[{j}]")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    k = 1
    for i in ax_a:
        k *= a.shape[i]
    m = 1
    for i in free_a:
        m *= a.shape[i]
    n = 1
    for j in free_b:
        n *= b.shape[j]
    a2 = reshape(transpose(a, tuple(free_a) + ax_a), (m, k))
    b2 = reshape(transpose(b, ax_b + tuple(free_b)), (k, n))
    return reshape(matmul(a2, b2), tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b))


def dot(a: Any, b: Any) -> Tensor:
    """NumPy's ``dot``: a product for 0-d operands, the inner product of vectors, the
    matrix product, and for N-D the sum over ``a``'s last and ``b``'s second-to-last axis."""
    a, b = _pair(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if b.ndim == 1:
        return tensordot(a, b, ((a.ndim - 1,), (0,)))
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 2,)))


def inner(a: Any, b: Any) -> Tensor:
    """The sum of products over the last axes (a product for 0-d operands)."""
    a, b = _pair(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a: Any, b: Any) -> Tensor:
    """``ravel(a)[:, None] * ravel(b)[None, :]``."""
    a, b = _pair(a, b)
    return multiply(reshape(a, (a.size, 1)), reshape(b, (1, b.size)))


def kron(a: Any, b: Any) -> Tensor:
    """The Kronecker product: blocks ``a[i, j] * b`` (NumPy's ``kron``, any rank)."""
    a, b = _pair(a, b)
    nd = builtins.max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    inter_a: tuple[int, ...] = ()
    inter_b: tuple[int, ...] = ()
    for p, q in zip(sa, sb):
        inter_a += (p, 1)
        inter_b += (1, q)
    prod_ = multiply(reshape(a, inter_a), reshape(b, inter_b))
    return reshape(prod_, tuple(p * q for p, q in zip(sa, sb)))


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Tensor:
    """The cross product of 3-vectors along ``axisa``/``axisb`` (or ``axis``), leading axes broadcast."""
    a, b = _pair(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("cross: operands must have at least one dimension")
    a = moveaxis(a, one_axis(axisa, a.ndim), -1)
    b = moveaxis(b, one_axis(axisb, b.ndim), -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError(f"cross: vectors must have 3 components, got {a.shape[-1]} and {b.shape[-1]} "
                         f"(2-component cross products are deprecated in NumPy 2 and not supported)")
    a0, a1, a2 = (a[..., i] for i in range(3))
    b0, b1, b2 = (b[..., i] for i in range(3))
    c = stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(c, -1, one_axis(axisc, c.ndim))


def cumprod(x: Any, axis: int | None = None, *, dtype: Any = None, out: Any = None) -> Tensor:
    """Running product along ``axis`` (over the flattened tensor for None); exact gradients with zeros."""
    _numpy_protocol("cumprod", dtype, out)
    x = as_tensor(x)
    ax = None if axis is None else one_axis(axis, x.ndim)
    return apply(_red.CumProd(axis=ax, in_shape=x.shape), x)


_SORT_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _sort_axis(name: str, x: Tensor, axis: Any, kind: Any, order: Any) -> tuple[Tensor, int]:
    if order is not None:
        raise TypeError(f"{name}: order= is for structured arrays, which are not supported")
    if kind not in _SORT_KINDS:
        raise ValueError(f"{name}: kind must be one of {_SORT_KINDS}, got {kind!r}")
    if axis is None:
        return ravel(x), 0
    if x.ndim == 0:
        raise ValueError(f"{name}: a 0-d tensor has no axis to sort along (use axis=None)")
    return x, one_axis(axis, x.ndim)


def sort(x: Any, axis: int | None = -1, kind: str | None = None, order: Any = None) -> Tensor:
    """A sorted copy along ``axis`` (flattened for None); the gradient follows the permutation.

    The sort is always stable (``kind`` is accepted for NumPy compatibility:
    every kind gives the same values); tied elements keep their order, so each
    gets the gradient of the slot it was sorted into.
    """
    x, ax = _sort_axis("sort", as_tensor(x), axis, kind, order)
    return apply(_ix.Sort(axis=ax), x)


def argsort(x: Any, axis: int | None = -1, kind: str | None = None, order: Any = None) -> Tensor:
    """Indices that sort along ``axis`` (stable), an int64 tensor (not differentiable)."""
    x, ax = _sort_axis("argsort", as_tensor(x), axis, kind, order)
    return apply(_cmp.ArgSort(axis=ax), x)


def _index_array(name: str, indices: Any, like: Tensor) -> Tensor:
    """Integer indices as a tensor on ``like``'s device (never requiring grad)."""
    if isinstance(indices, Tensor):
        idx = indices.detach()
    elif isinstance(indices, like.device.xp.array_type) and like.device.xp.name != "numpy":
        idx = Tensor._wrap(indices, None, like.device)
    else:
        arr = host_numpy.asarray(indices)
        if arr.size == 0 and arr.dtype.kind not in "iu":
            arr = arr.astype(host_numpy.int64)
        idx = Tensor._wrap(like.device.xp.asarray(arr), None, like.device)
    if idx.device is not like.device:
        raise RuntimeError(f"{name}: indices are on {idx.device}, the tensor is on {like.device}")
    if idx.dtype.kind not in "iu":
        raise IndexError(f"{name}: indices must be integers, got {idx.dtype}")
    return idx


def take_along_axis(arr: Any, indices: Any, axis: int | None = -1) -> Tensor:
    """``arr`` gathered at ``indices`` along ``axis`` (NumPy's ``take_along_axis``).

    ``indices`` has ``arr``'s rank and broadcasts against it on the other axes;
    negative indices count from the end; out-of-range ones raise ``IndexError``.
    The gradient scatters back, accumulating repeated indices.
    """
    arr = as_tensor(arr)
    idx = _index_array("take_along_axis", indices, arr)
    if axis is None:
        if idx.ndim != 1:
            raise ValueError("take_along_axis: with axis=None, indices must be 1-D")
        arr, ax = ravel(arr), 0
    else:
        ax = one_axis(axis, arr.ndim)
    if idx.ndim != arr.ndim:
        raise ValueError(f"take_along_axis: indices of rank {idx.ndim} for a tensor of rank {arr.ndim}")
    others = broadcast_shapes("take_along_axis",
                               tuple(1 if i == ax else n for i, n in enumerate(arr.shape)),
                               tuple(1 if i == ax else n for i, n in enumerate(idx.shape)))
    n = arr.shape[ax]
    xp = arr.device.xp
    data = idx.data
    if data.size:
        lo, hi = xp.scalar(xp.min(data)), xp.scalar(xp.max(data))
        if lo < -n or hi >= n:
            raise IndexError(f"take_along_axis: index {lo if lo < -n else hi} is out of bounds "
                             f"for axis {ax} with size {n}")
        if lo < 0:
            data = xp.where(data < 0, data + n, data)
    a_shape = tuple(n if i == ax else s for i, s in enumerate(others))
    i_shape = tuple(idx.shape[ax] if i == ax else s for i, s in enumerate(others))
    if arr.shape != a_shape:
        arr = broadcast_to(arr, a_shape)
    if tuple(data.shape) != i_shape:
        data = xp.ascontiguousarray(xp.broadcast_to(data, i_shape))
    # The op saves the indices: when they are still the caller's array, pass the caller's tensor
    # (its version box), so an in-place change before backward is caught (issue 12 §1).
    indices_t = idx if data is idx.data else Tensor._wrap(data, None, arr.device)
    return apply(_ix.TakeAlongAxis(axis=ax, in_shape=a_shape), arr, indices_t)


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple[Tensor, ...]:
    """Coordinate tensors from 1-D coordinate vectors (NumPy's ``meshgrid``).

    ``indexing="xy"`` (Cartesian) swaps the first two output axes, ``"ij"``
    (matrix) does not; ``sparse=True`` returns broadcastable shapes.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    like = next((v for v in xi if isinstance(v, Tensor)), None)
    vs = [ravel(as_tensor(v, like)) for v in xi]
    nd = len(vs)
    shapes = [(1,) * i + (v.size,) + (1,) * (nd - i - 1) for i, v in enumerate(vs)]
    if indexing == "xy" and nd > 1:
        shapes = [(s[1], s[0]) + s[2:] for s in shapes]
    outs = [reshape(v, s) for v, s in zip(vs, shapes)]
    if not sparse:
        full = tuple(builtins.max(s[i] for s in shapes) for i in range(nd))
        outs = [broadcast_to(o, full) for o in outs]
    if copy:
        outs = [clone(o) for o in outs]
    return tuple(outs)


# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------


def eye(n: int, m: int | None = None, dtype: Any = None, device: Any = None) -> Tensor:
    """The identity matrix (a constant)."""
    dev = get_device(device)
    dt = as_dtype(dtype) if dtype is not None else get_default_dtype()
    return Tensor._wrap(dev.xp.eye(n, m, dtype=dt), None, dev)
