"""PyTorch's ``histogramdd``: counts of the rows of an ``(..., D)`` tensor in a D-dimensional grid
of bins, and each dimension's edges.

Each dimension is binned as ``mg.histogram`` bins with PyTorch's keyword (``selection.py``):
equal bins have ``linspace`` edges in the input's dtype (PyTorch's points, not NumPy's float64
ones) over the given ``range`` or the data's (widened by 0.5 each way where it is one value);
given edges are used as they are; a value counts in the bin of the last edge at or below it, the
last bin closed, and a row outside any dimension's range counts nowhere.  ``density`` divides by
the total and then by each bin's width along each dimension, PyTorch's order.  No gradient.
"""

from __future__ import annotations

import builtins
from typing import Any, NamedTuple

from ..backend import DtypeNotImplemented, host_numpy, scalar_type_name
from ..tensor import Tensor
from .arguments import as_tensor
from .errors import RefusedArgument
from .return_types import return_type
from .scatter import constant, host

__all__ = ["histogramdd"]


class HistogramDD(NamedTuple):
    """What ``histogramdd`` returns, as ``torch.return_types.histogramdd``."""

    hist: Tensor
    bin_edges: tuple[Tensor, ...]


_histogramdd = return_type(HistogramDD, "histogramdd")


def histogramdd(input: Any, bins: Any, *, range: Any = None, weight: Any = None,  # noqa: A002
                density: bool = False) -> HistogramDD:
    """``torch.histogramdd``: ``bins`` is one count for every dimension, a count per dimension, or a
    sequence of edge tensors; ``range`` the flat ``(min_0, max_0, min_1, max_1, ...)``; ``weight``
    one weight per row.

    >>> mg.histogramdd(mg.tensor([[0., 1.], [1., 0.]]), bins=2).hist
    tensor([[0., 1.], [1., 0.]])
    """
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise DtypeNotImplemented(f'"histogramdd" not implemented for \'{scalar_type_name(x.dtype)}\'')
    dims = x.shape[-1] if x.ndim else 1
    rows = host(x).reshape(-1, dims)
    counts_or_edges = _per_dimension(bins, dims)
    ranges = _ranges(range, dims)
    edges = [_edges(rows[:, d], spec, ranges[d], d, x.dtype) for d, spec in enumerate(counts_or_edges)]
    w = None if weight is None else host(as_tensor(weight))
    if w is not None and w.shape != tuple(x.shape[:-1]):
        raise RefusedArgument("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                              "input tensor excluding its innermost dimension, but got input with shape "
                              f"{list(x.shape)} and weight with shape {list(w.shape)}")
    inside = host_numpy.ones(len(rows), dtype=bool)
    positions = []
    for d, e in enumerate(edges):
        v = rows[:, d]
        inside &= (v >= e[0]) & (v <= e[-1])
        positions.append(host_numpy.minimum(host_numpy.searchsorted(e, v, side="right") - 1, len(e) - 2))
    shape = tuple(len(e) - 1 for e in edges)
    flat = host_numpy.ravel_multi_index(tuple(p[inside] for p in positions), shape) if shape else None
    counts = host_numpy.zeros(shape, dtype=x.dtype)
    weights = None if w is None else w.reshape(-1)[inside].astype(x.dtype)
    host_numpy.add.at(counts.reshape(-1), flat, 1 if weights is None else weights)
    if density:
        with host_numpy.errstate(invalid="ignore", divide="ignore"):
            counts = counts / counts.sum()
            for d, e in enumerate(edges):
                counts = counts / host_numpy.diff(e).reshape([-1 if k == d else 1 for k in builtins.range(dims)])
    return _histogramdd(constant(counts.astype(x.dtype), x), tuple(constant(e, x) for e in edges))


def _per_dimension(bins: Any, dims: int) -> list:
    if isinstance(bins, int) and not isinstance(bins, bool):
        return [bins] * dims
    if isinstance(bins, Tensor) or not isinstance(bins, (tuple, list)):
        raise TypeError("histogramdd(): bins must be an int, a sequence of ints or a sequence of tensors of edges, "
                        f"got {type(bins).__name__}")
    if len(bins) != dims:
        raise RefusedArgument("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    return list(bins)


def _ranges(range: Any, dims: int) -> list:  # noqa: A002
    if range is None:
        return [None] * dims
    values = [float(v) for v in range]
    if len(values) != 2 * dims:
        raise RefusedArgument(f"torch.histogramdd: for a {dims}-dimensional histogram range should have "
                              f"{2 * dims} elements, but got {len(values)}")
    return [(values[2 * d], values[2 * d + 1]) for d in builtins.range(dims)]


def _edges(values: Any, spec: Any, given: Any, d: int, dtype: Any) -> Any:
    """Dimension ``d``'s edges: the given tensor's, or ``spec`` equal bins over ``given`` or the data."""
    if isinstance(spec, Tensor):
        return host(spec).astype(dtype)
    if spec <= 0:
        raise RefusedArgument(f"torch.histogram(): bins must be > 0, but got {spec} for dimension {d}")
    if given is not None:
        lo, hi = given
    elif values.size:
        lo, hi = float(values.min()), float(values.max())
    else:
        lo, hi = 0.0, 1.0
    if not (host_numpy.isfinite(lo) and host_numpy.isfinite(hi)):
        raise RefusedArgument(f"torch.histogramdd: dimension {d}'s range [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RefusedArgument(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for "
                              f"dimension {d}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    from ..creation import linspace  # (PyTorch's points in the input's dtype)

    return host(linspace(lo, hi, spec + 1, dtype=dtype))
