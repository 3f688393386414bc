"""Reductions and scans: ``mg.sum``, ``mg.mean``, ``mg.var``, ``mg.logsumexp``, ``mg.cumsum``,
``mg.argmax``, ...

Axes are normalized into a sorted tuple (the op's static attribute); the
NumPy reduction protocol (``numpy.sum(t)`` passes ``dtype=None, out=None``)
is accepted and anything else refused with the reason.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from ..ops import comparison as _cmp
from ..ops import reduction as _red
from ..tape import apply
from ..tensor import Tensor
from .arguments import as_tensor, check_nonempty, in_default_float, normalize_axis, number, one_axis, refuse_complex
from .conversion import astype

__all__ = ["sum", "mean", "max", "min", "prod", "var", "std", "logsumexp", "cumsum", "argmax", "argmin", "cumprod"]


def _numpy_protocol(name: str, dtype: Any, out: Any) -> None:
    """Accept NumPy's ``dtype=None, out=None`` (what ``numpy.sum(t)`` and friends
    pass to ``t.sum``) and refuse anything else with the reason."""
    if dtype is not None:
        raise TypeError(f"{name}: dtype={dtype!r} is not supported (results keep the input's "
                        f"dtype); cast first with astype() to reduce in another dtype")
    _refuse_out(name, out)


def _in_dtype(name: str, x: Any, dtype: Any, out: Any) -> Tensor:
    """``x`` cast to ``dtype`` first (PyTorch's ``x.sum(dtype=...)``, and NumPy's, which reduces
    in that dtype): the gradient comes back through the cast, in ``x``'s dtype.  Without a
    ``dtype``, unsigned integers of fewer than 64 bits are summed in int64, as PyTorch's (every
    integer sum is int64 there; NumPy's sum of uint8 is uint64)."""
    _refuse_out(name, out)
    if dtype is not None:
        return astype(x, dtype)
    x = as_tensor(x)
    if x._data.dtype.kind == "u" and x._data.dtype.itemsize < 8:  # PyTorch sums uint8 in int64 (NumPy: uint64)
        return astype(x, "int64")
    return x


def _keep_dtype(result: Tensor, dtype: Any) -> Tensor:
    """``result`` in the ``dtype`` asked for: a sum of int32 is int64 unless ``dtype`` says int32."""
    return result if dtype is None else astype(result, dtype)


def _refuse_out(name: str, out: Any) -> None:
    if out is not None:
        raise TypeError(f"{name}: out= is not supported: every result is a new tensor, recorded "
                        f"on the tape; assign the result instead")


def _reduce(cls: type, x: Any, axis: Any, keepdims: bool, **extra: Any) -> Tensor:
    x = as_tensor(x)
    axes = normalize_axis(axis, x.ndim)
    if extra:
        return apply(cls(axes=axes, keepdims=bool(keepdims), in_shape=x.shape, **extra), x)
    return apply(cls.shared(axes, bool(keepdims), x._data.shape), x)


def sum(x: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None,  # noqa: A001
        out: Any = None) -> Tensor:
    """Sum over ``axis`` (all axes for None; ``()`` for none), in ``dtype`` if one is given
    (the input is cast to it first).

    ``out`` exists for NumPy's reduction protocol (``numpy.sum(t)`` calls
    ``t.sum(axis=..., dtype=None, out=None)``): only None is accepted.
    """
    return _keep_dtype(_reduce(_red.Sum, _in_dtype("sum", x, dtype, out), axis, keepdims), dtype)


def mean(x: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None, out: Any = None) -> Tensor:
    """Arithmetic mean over ``axis`` (NaN over an empty axis, like NumPy), in ``dtype`` if one is given."""
    return _reduce(_red.Mean, _in_dtype("mean", x, dtype, out), axis, keepdims)


def _extreme(name: str, cls: type, x: Any, axis: Any, keepdims: bool, out: Any) -> Tensor:
    """Max or min: real numbers only (complex ones have no order) and no empty slice (no identity)."""
    _numpy_protocol(name, None, out)
    x = as_tensor(x)
    refuse_complex(name, x)
    check_nonempty(name, x, axis)
    return _reduce(cls, x, axis, keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False, *, out: Any = None) -> Tensor:  # noqa: A001
    """Maximum over ``axis``; tied maxima share the gradient evenly."""
    return _extreme("max", _red.Max, x, axis, keepdims, out)


def min(x: Any, axis: Any = None, keepdims: bool = False, *, out: Any = None) -> Tensor:  # noqa: A001
    """Minimum over ``axis``; tied minima share the gradient evenly."""
    return _extreme("min", _red.Min, x, axis, keepdims, out)


def prod(x: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None, out: Any = None) -> Tensor:
    """Product over ``axis``, with exact gradients when factors are zero; in ``dtype`` if one is given."""
    return _keep_dtype(_reduce(_red.Prod, _in_dtype("prod", x, dtype, out), axis, keepdims), dtype)


def _ddof(name: str, ddof: Any) -> int | float:
    """``ddof`` as the op keeps it: an int stays an int, a real number (``1.3``) stays real --
    NumPy and PyTorch divide by ``N - ddof`` for any real ``ddof``.  A 0-d tensor is its number
    (PyTorch's ``correction``, a Scalar: :func:`~.arguments.number`)."""
    ddof = number(name, "correction", ddof)
    if isinstance(ddof, bool) or not isinstance(ddof, (int, float, host_numpy.integer, host_numpy.floating)):
        raise TypeError(f"{name}: ddof must be a number, got {ddof!r}")
    return int(ddof) if float(ddof).is_integer() else float(ddof)


def var(x: Any, axis: Any = None, ddof: float = 0, keepdims: bool = False, *, dtype: Any = None,
        out: Any = None) -> Tensor:
    """Variance over ``axis``: ``sum((x - mean)**2) / (N - ddof)``."""
    _numpy_protocol("var", dtype, out)
    return _reduce(_red.Var, x, axis, keepdims, ddof=_ddof("var", ddof))


def std(x: Any, axis: Any = None, ddof: float = 0, keepdims: bool = False, *, dtype: Any = None,
        out: Any = None) -> Tensor:
    """Standard deviation; the gradient of a constant slice is 0."""
    _numpy_protocol("std", dtype, out)
    return _reduce(_red.Std, x, axis, keepdims, ddof=_ddof("std", ddof))


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, stable for large magnitudes; ``-inf`` over an empty
    axis (the log of an empty sum), as NumPy's and PyTorch's; integers in the default float dtype,
    as PyTorch's (NumPy: float64)."""
    return _reduce(_red.LogSumExp, in_default_float(x), axis, keepdims)


def _scan(cls: type, x: Any, axis: int | None) -> Tensor:
    """A running sum or product along ``axis`` (over the flattened tensor for None)."""
    x = as_tensor(x)
    ax = None if axis is None else one_axis(axis, x.ndim)
    return apply(cls(axis=ax, in_shape=x.shape), x)


def cumsum(x: Any, axis: int | None = None, *, dtype: Any = None, out: Any = None) -> Tensor:
    """Running sum along ``axis`` (over the flattened tensor for None), in ``dtype`` if one is given."""
    return _keep_dtype(_scan(_red.CumSum, _in_dtype("cumsum", x, dtype, out), axis), dtype)


def _arg_extreme(name: str, cls: type, x: Any, axis: int | None, keepdims: bool) -> Tensor:
    """Argmax or argmin: real numbers only, and no empty slice (it has no extreme to point at)."""
    x = as_tensor(x)
    ax = None if axis is None else one_axis(axis, x.ndim)
    refuse_complex(name, x)
    check_nonempty(name, x, ax)
    return apply(cls(axis=ax, keepdims=bool(keepdims)), x)


def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Index of the maximum (first on ties); an int64 tensor, not differentiable."""
    return _arg_extreme("argmax", _cmp.ArgMax, x, axis, keepdims)


def argmin(x: Any, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Index of the minimum (first on ties); an int64 tensor, not differentiable."""
    return _arg_extreme("argmin", _cmp.ArgMin, x, axis, keepdims)


def cumprod(x: Any, axis: int | None = None, *, dtype: Any = None, out: Any = None) -> Tensor:
    """Running product along ``axis`` (over the flattened tensor for None); exact gradients with zeros;
    in ``dtype`` if one is given."""
    return _keep_dtype(_scan(_red.CumProd, _in_dtype("cumprod", x, dtype, out), axis), dtype)
