"""Diagonals and triangles: ``mg.diagonal``, ``mg.diag``, ``mg.trace``, ``mg.tril``, ``mg.triu``,
``mg.eye``.
"""

from __future__ import annotations

import builtins
from typing import Any

from ..backend import as_dtype, check_layout, get_default_dtype, get_device
from ..creation import pinned_as_asked
from ..ops import shape as _sh
from ..tape import apply
from ..tensor import Tensor, requires_grad_flag
from .arguments import as_tensor, number, one_axis
from .conversion import clone
from .errors import InvalidShape, RefusedArgument, TooFewDims
from .indexing import index_add
from .reduction import sum  # noqa: A004  (the tensor sum)
from .shape import reshape

__all__ = ["eye", "diag", "diagonal", "trace", "tril", "triu"]


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The diagonal of the ``(axis1, axis2)`` planes, as the last axis (NumPy's ``diagonal``):
    a view, as PyTorch's -- ``x.t().diagonal().zero_()`` zeroes ``x``'s diagonal."""
    offset = number("diagonal", "offset", offset, "int")
    x = as_tensor(x)
    if x.ndim < 2:
        raise TooFewDims(f"diagonal: needs at least 2 dimensions, got shape {x.shape}")
    a1, a2 = one_axis(axis1, x.ndim), one_axis(axis2, x.ndim)
    if a1 == a2:
        raise RefusedArgument(f"diagonal dimensions cannot be identical {axis1}, {axis2}")  # PyTorch's words
    return apply(_sh.Diagonal(offset=int(offset), axis1=a1, axis2=a2, in_shape=x.shape), x)


def diag(v: Any, k: int = 0) -> Tensor:
    """A 1-D ``v`` placed on the ``k``-th diagonal of a square matrix, or a copy of the ``k``-th diagonal of a
    2-D ``v`` (PyTorch's ``diag``; :func:`diagonal` is the view)."""
    k = number("diag", "diagonal", k, "int")  # (an int: a bool or float is refused, a tensor read)
    v = as_tensor(v)
    if v.ndim == 2:  # a copy, as PyTorch's diag (its diagonal() is the view)
        return clone(diagonal(v, k))
    if v.ndim != 1:  # a 0-d input has too few dims; 3-D and more, an argument the kernel refuses
        raise (TooFewDims if v.ndim == 0 else RefusedArgument)(f"diag(): Supports 1D or 2D tensors. Got {v.ndim}D")
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
    k = number("tril", "diagonal", k, "SymInt")
    x = as_tensor(x)
    if x.ndim < 2:
        raise TooFewDims("tril: input tensor must have at least 2 dimensions")
    return apply(_sh.Tril(k=int(k)), x)


def triu(x: Any, k: int = 0) -> Tensor:
    """Zero below the ``k``-th diagonal of the last two axes."""
    k = number("triu", "diagonal", k, "SymInt")
    x = as_tensor(x)
    if x.ndim < 2:
        raise TooFewDims("triu: input tensor must have at least 2 dimensions")
    return apply(_sh.Triu(k=int(k)), x)


def eye(n: int, m: int | None = None, dtype: Any = None, device: Any = None, *, requires_grad: bool = False,
        layout: Any = None, pin_memory: bool = False) -> Tensor:
    """The identity matrix: a constant, or a leaf that requires grad (``mg.eye(4, 5, requires_grad=True)``)."""
    check_layout("eye", layout)
    for name, size in (("n", n), ("m", m)):
        if size is not None and size < 0:  # PyTorch's RuntimeError and words, NumPy's ValueError
            raise InvalidShape(f"{name} must be greater or equal to 0, got {size}")
    dev = get_device(device)
    dt = as_dtype(dtype) if dtype is not None else get_default_dtype()
    out = Tensor._wrap(dev.xp.eye(n, m, dtype=dt), None, dev)
    if requires_grad_flag(requires_grad):
        out.requires_grad = True
    return out if pin_memory is False else pinned_as_asked("eye", out, pin_memory)
