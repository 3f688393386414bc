"""PyTorch's spellings beside NumPy's: ``dim=`` (and ``keepdim=``) wherever ``axis=`` is,
``mg.cat``, ``max(dim=)`` / ``min(dim=)`` returning ``(values, indices)``, and the Tensor
methods ``view``, ``unsqueeze``, ``flatten(start_dim, end_dim)``, ``eq``/``ne``/``lt``/``le``/``gt``/``ge``.

The NumPy names keep their NumPy meaning: ``x.max(axis=1)`` is the maximum (gradient split
evenly between ties), ``x.max(dim=1)`` is PyTorch's pair whose ``values`` send the gradient
to the index in ``indices``. ``dim`` is only another name for the axis: ``var``/``std``
keep NumPy's ``ddof=0`` (pass ``ddof=1`` for PyTorch's default unbiased estimate).

The wrapped functions replace the plain ones in :mod:`minigrad_ckpt.functional` (and so
in ``mg``) and in Tensor's method table before :func:`tensor_methods.bind` installs it;
code inside :mod:`.math` keeps calling the plain functions.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..tensor import Tensor
from . import math as mf
from . import tensor_methods
from .arguments import as_tensor, one_axis

__all__ = [
    "sum", "mean", "prod", "var", "std", "logsumexp", "cumsum", "cumprod", "argmax", "argmin", "max", "min",
    "concatenate", "stack", "split", "flip", "squeeze", "expand_dims", "take", "sort", "argsort", "roll",
    "repeat", "take_along_axis", "cross", "flatten", "cat", "unsqueeze", "ValuesIndices",
]

_UNSET: Any = object()


def with_dim(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (which takes ``axis``) also taking PyTorch's ``dim=`` and, where it takes
    ``keepdims``, ``keepdim=``; giving both spellings is a TypeError."""
    sig = inspect.signature(fn)
    names = list(sig.parameters)
    axis_pos = names.index("axis")
    has_keepdims = "keepdims" in sig.parameters
    keep_pos = names.index("keepdims") if has_keepdims else None
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args: Any, dim: Any = _UNSET, keepdim: Any = _UNSET, **kwargs: Any) -> Any:
        if dim is not _UNSET:
            if "axis" in kwargs or len(args) > axis_pos:
                raise TypeError(f"{name}: pass either axis= or dim=, not both (they are the same argument)")
            kwargs["axis"] = dim
        if keepdim is not _UNSET:
            if not has_keepdims:
                raise TypeError(f"{name}() got an unexpected keyword argument 'keepdim'")
            if "keepdims" in kwargs or len(args) > keep_pos:
                raise TypeError(f"{name}: pass either keepdims= or keepdim=, not both")
            kwargs["keepdims"] = keepdim
        return fn(*args, **kwargs)

    extra = [inspect.Parameter("dim", inspect.Parameter.KEYWORD_ONLY, default=None)]
    if has_keepdims:
        extra.append(inspect.Parameter("keepdim", inspect.Parameter.KEYWORD_ONLY, default=None))
    params = list(sig.parameters.values())
    var_kw = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    params = [p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD] + extra + var_kw
    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return wrapper


class ValuesIndices(NamedTuple):
    """What ``max(x, dim=...)`` / ``min(x, dim=...)`` return, as PyTorch's ``torch.return_types``:
    ``values`` (differentiable; the gradient goes to the position in ``indices``) and ``indices``."""

    values: Tensor
    indices: Tensor


def _extremum(fn: Callable[..., Any], arg: Callable[..., Any]) -> Callable[..., Any]:
    plain = with_dim(fn)
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(x: Any, axis: Any = None, keepdims: bool = False, *, dim: Any = _UNSET, keepdim: Any = _UNSET,
                **kwargs: Any) -> Any:
        if dim is _UNSET:
            if keepdim is not _UNSET:
                keepdims = keepdim
            return plain(x, axis, keepdims, **kwargs)
        if axis is not None:
            raise TypeError(f"{name}: pass either axis= or dim=, not both (dim= returns (values, indices))")
        if kwargs:
            raise TypeError(f"{name}(dim=...) takes no {', '.join(kwargs)}")
        x = as_tensor(x)
        if not isinstance(dim, int):
            raise TypeError(f"{name}(dim=...) takes one int dim, got {dim!r}")
        d = one_axis(dim, x.ndim) if x.ndim else 0
        keep = bool(keepdims if keepdim is _UNSET else keepdim)
        if x.ndim == 0:
            return ValuesIndices(x, Tensor(0))
        idx = arg(x, axis=d, keepdims=True)
        values = mf.take_along_axis(x, idx, axis=d)
        if not keep:
            values, idx = mf.squeeze(values, d), mf.squeeze(idx, d)
        return ValuesIndices(values, idx)

    wrapper.__signature__ = inspect.signature(plain)  # type: ignore[attr-defined]
    wrapper.__doc__ = (fn.__doc__ or "") + (
        f"\n\nWith PyTorch's ``dim=`` it returns ``(values, indices)`` (a :class:`ValuesIndices`), "
        f"as ``torch.{name}(x, dim)`` does; the gradient goes to the element at ``indices``.")
    return wrapper


sum = with_dim(mf.sum)  # noqa: A001 - NumPy's name
mean = with_dim(mf.mean)
prod = with_dim(mf.prod)
var = with_dim(mf.var)
std = with_dim(mf.std)
logsumexp = with_dim(mf.logsumexp)
cumsum = with_dim(mf.cumsum)
cumprod = with_dim(mf.cumprod)
argmax = with_dim(mf.argmax)
argmin = with_dim(mf.argmin)
max = _extremum(mf.max, mf.argmax)  # noqa: A001
min = _extremum(mf.min, mf.argmin)  # noqa: A001
concatenate = with_dim(mf.concatenate)
stack = with_dim(mf.stack)
split = with_dim(mf.split)
flip = with_dim(mf.flip)
squeeze = with_dim(mf.squeeze)
expand_dims = with_dim(mf.expand_dims)
take = with_dim(mf.take)
sort = with_dim(mf.sort)
argsort = with_dim(mf.argsort)
roll = with_dim(mf.roll)
repeat = with_dim(mf.repeat)
take_along_axis = with_dim(mf.take_along_axis)
cross = with_dim(mf.cross)


def cat(tensors: Sequence[Any], dim: int = 0, *, axis: int | None = None) -> Tensor:
    """PyTorch's name for :func:`concatenate`: join ``tensors`` along ``dim``."""
    if axis is not None and dim != 0 and axis != dim:
        raise TypeError("cat: pass either axis= or dim=, not both")
    return mf.concatenate(tensors, axis=dim if axis is None else axis)


def unsqueeze(x: Any, dim: int) -> Tensor:
    """PyTorch's name for :func:`expand_dims`: a new axis of length 1 at ``dim``."""
    return mf.expand_dims(x, dim)


def flatten(x: Any, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Axes ``start_dim..end_dim`` merged into one (all of them by default: NumPy's
    ``flatten``, a 1-D copy)."""
    x = as_tensor(x)
    if x.ndim == 0:
        return mf.reshape(x, (1,))
    s, e = one_axis(start_dim, x.ndim), one_axis(end_dim, x.ndim)
    if s > e:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim} for a {x.ndim}-D tensor")
    if s == 0 and e == x.ndim - 1:
        return mf.flatten(x)
    n = 1
    for d in x.shape[s:e + 1]:
        n *= d
    return mf.reshape(x, x.shape[:s] + (n,) + x.shape[e + 1:])


def _view(x: Tensor, *shape: Any) -> Tensor:
    """PyTorch's ``view``: :meth:`reshape` (values are never shared: a Tensor's array is its own)."""
    return tensor_methods._method_reshape(x, *shape)


def _method(fn: Callable[..., Any], doc: str) -> Callable[..., Any]:
    def method(self: Tensor, other: Any) -> Tensor:
        return fn(self, other)
    method.__doc__ = doc
    return method


tensor_methods.METHODS.update({
    "sum": sum, "mean": mean, "prod": prod, "var": var, "std": std, "logsumexp": logsumexp, "cumsum": cumsum,
    "cumprod": cumprod, "argmax": argmax, "argmin": argmin, "max": max, "min": min, "flip": flip,
    "squeeze": squeeze, "expand_dims": expand_dims, "take": take, "repeat": repeat, "argsort": argsort,
    "flatten": flatten, "unsqueeze": unsqueeze, "view": _view,
    "eq": _method(mf.equal, "``self == other`` elementwise (PyTorch's name)."),
    "ne": _method(mf.not_equal, "``self != other`` elementwise (PyTorch's name)."),
    "lt": _method(mf.less, "``self < other`` elementwise (PyTorch's name)."),
    "le": _method(mf.less_equal, "``self <= other`` elementwise (PyTorch's name)."),
    "gt": _method(mf.greater, "``self > other`` elementwise (PyTorch's name)."),
    "ge": _method(mf.greater_equal, "``self >= other`` elementwise (PyTorch's name)."),
})
