"""The public math API: ``mg.exp``, ``mg.sum``, ``mg.matmul``, ...

Every function here validates its arguments, normalizes them into an op's
static attributes (axes become a sorted tuple, shapes tuples of ints; see
:mod:`~minigrad_ckpt.functional.arguments`), and runs the op through
:func:`minigrad_ckpt.tape.apply`.  Signatures follow NumPy (``axis=``,
``keepdims=``, ``ddof=``).
"""

from __future__ import annotations

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
from ..tape import apply, apply_move
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


def _reduce(cls: type, x: Any, axis: Any, keepdims: bool, **extra: Any) -> Tensor:
    x = as_tensor(x)
    axes = normalize_axis(axis, x.ndim)
    return apply(cls(axes=axes, keepdims=bool(keepdims), in_shape=x.shape, **extra), x)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over ``axis`` (all axes for None; ``()`` for none)."""
    return _reduce(_red.Sum, x, axis, keepdims)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Arithmetic mean over ``axis`` (NaN over an empty axis, like NumPy)."""
    return _reduce(_red.Mean, x, axis, keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Maximum over ``axis``; tied maxima share the gradient evenly."""
    x = as_tensor(x)
    check_nonempty("max", x, axis)
    return _reduce(_red.Max, x, axis, keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Minimum over ``axis``; tied minima share the gradient evenly."""
    x = as_tensor(x)
    check_nonempty("min", x, axis)
    return _reduce(_red.Min, x, axis, keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Product over ``axis``, with exact gradients when factors are zero."""
    return _reduce(_red.Prod, x, axis, keepdims)


def var(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Variance over ``axis``: ``sum((x - mean)**2) / (N - ddof)``."""
    return _reduce(_red.Var, x, axis, keepdims, ddof=int(ddof))


def std(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """Standard deviation; the gradient of a constant slice is 0."""
    return _reduce(_red.Std, x, axis, keepdims, ddof=int(ddof))


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, stable for large magnitudes."""
    x = as_tensor(x)
    check_nonempty("logsumexp", x, axis)
    return _reduce(_red.LogSumExp, x, axis, keepdims)


def cumsum(x: Any, axis: int | None = None) -> Tensor:
    """Running sum along ``axis`` (over the flattened tensor for None)."""
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


def moveaxis(x: Any, source: int, destination: int) -> Tensor:
    """Move axis ``source`` to position ``destination`` (a view; NumPy's ``moveaxis``)."""
    x = as_tensor(x)
    s, d = one_axis(source, x.ndim), one_axis(destination, x.ndim)
    perm = [a for a in range(x.ndim) if a != s]
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
    return apply(_ix.GetItem(index=idx, in_shape=x.shape), x)


def index_add(shape: Any, index: Any, values: Any, unique: bool = False) -> Tensor:
    """Zeros of ``shape`` with ``values`` accumulated at ``index`` (indexing's adjoint).

    ``unique`` mirrors the array backend's hint (no position repeats); the
    accumulation recorded here is exact either way, so it is not needed.
    """
    del unique
    values = as_tensor(values)
    shape = shape_arg(shape)
    if not isinstance(index, tuple) or any(isinstance(i, Tensor) for i in index):
        probe = Tensor._wrap(values.device.xp.empty(shape, dtype=values.dtype), None, values.device)
        index = normalize_index(index, probe)
    return apply(_ix.IndexAdd(shape=shape, index=index), values)


def take(x: Any, indices: Any, axis: int | None = None) -> Tensor:
    """Elements of ``x`` at integer ``indices`` along ``axis`` (flattened for None)."""
    x = as_tensor(x)
    if axis is None:
        return getitem(reshape(x, (-1,)), (indices,))
    ax = one_axis(axis, x.ndim)
    return getitem(x, (slice(None),) * ax + (indices,))


# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------


def eye(n: int, m: int | None = None, dtype: Any = None, device: Any = None) -> Tensor:
    """The identity matrix (a constant)."""
    dev = get_device(device)
    dt = as_dtype(dtype) if dtype is not None else get_default_dtype()
    return Tensor._wrap(dev.xp.eye(n, m, dtype=dt), None, dev)
