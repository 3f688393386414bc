"""PyTorch's ``segment_reduce``: a reduction over consecutive runs ("segments") of one axis.

PyTorch Geometric reduces the messages of an edge list sorted by target node this way when
``torch_scatter`` is not installed (``torch._segment_reduce(src, reduce, offsets=ptr)`` in its
``utils.segment``, and so in ``softmax(src, ptr=...)`` and every aggregation given a CSR
``ptr``), and PyTorch's masked reductions of CSR tensors call it too.

It is ``scatter_reduce`` in other words: each element of a segment targets that segment's
position of the result, so the work is :func:`~minigrad_ckpt.functional.scatter.reduce_at`'s,
and the gradients (``max``'s ties sharing evenly) are its compositions'.  What is PyTorch's
own is read here: the segment bounds (``lengths``, or ``offsets`` whose first entry may skip a
prefix), ``initial`` (one more operand of the reduction, except that a ``mean`` divides by the
segment's length alone and an empty segment is ``initial``), and an empty segment without
``initial`` (``sum`` 0, ``prod`` 1, ``mean`` NaN, ``max`` -inf, ``min`` +inf).
"""

from __future__ import annotations

from typing import Any

from ..backend import DtypeNotImplemented, RefusedArgument, host_numpy
from ..tensor import Tensor
from . import math as mf
from .arguments import as_tensor
from .indexing import getitem_in_range
from .scatter import constant, host, reduce_at

#: PyTorch's names (its kernel takes ``max``/``min`` and their ``amax``/``amin`` spellings)
_REDUCE = {"sum": "sum", "prod": "prod", "mean": "mean", "max": "amax", "min": "amin",
           "amax": "amax", "amin": "amin"}
_EMPTY = {"sum": 0.0, "prod": 1.0, "mean": host_numpy.nan, "amax": -host_numpy.inf, "amin": host_numpy.inf}


def segment_reduce(data: Any, reduce: str, *, lengths: Any = None, indices: Any = None, offsets: Any = None,
                   axis: int | None = None, unsafe: bool = False, initial: Any = None,
                   dim: int | None = None) -> Tensor:
    """``torch.segment_reduce``: ``data`` reduced (``"sum"``, ``"prod"``, ``"mean"``, ``"max"``,
    ``"min"``) over consecutive segments of ``axis``, one result per segment.

    The segments are ``lengths`` (they must add up to ``data.shape[axis]`` unless ``unsafe``) or
    ``offsets`` (segment ``i`` is ``[offsets[i], offsets[i+1])``); either has ``data``'s leading
    dims before ``axis`` and the segments last, and ``axis`` is that last dim. ``initial`` joins
    every segment's reduction (a ``mean`` still divides by the segment's length) and is an empty
    segment's value; without it an empty segment is the reduction's identity (``mean``: NaN).
    ``max``/``min`` share a tie's gradient evenly among the tied elements, as PyTorch's where the
    gradient is positive (PyTorch's gives a negative one whole to each tied element).
    ``dim=`` is ``axis=`` (PyTorch's name here is ``axis``; the engine's functions take both).

    >>> segment_reduce(mg.tensor([1., 5., 2., 4.]), "max", lengths=mg.tensor([1, 0, 3]))
    tensor([  1., -inf,   5.])
    """
    if axis is not None and dim is not None:
        raise TypeError("segment_reduce: pass either axis= or dim=, not both")
    axis = dim if axis is None else axis
    x = as_tensor(data)
    red = _reduction(reduce)
    if x.dtype.kind != "f":  # (PyTorch's CPU and CUDA kernels are floating point only)
        raise DtypeNotImplemented(f'"segment_reduce" not implemented for {x.dtype} '
                                  "(floating point only, as PyTorch's)")
    starts, ends, axis = _bounds(x, 0 if axis is None else axis, lengths, indices, offsets, unsafe)
    out, counts = _reduce_segments(x, red, axis, starts, ends)
    if initial is None:
        return _divided(out, counts) if red == "mean" else out
    return _with_initial(out, red, counts, initial)


def _reduction(reduce: str) -> str:
    if reduce not in _REDUCE:
        raise RefusedArgument(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return _REDUCE[reduce]


def _integers(name: str, bounds: Any) -> Any:
    array = host(bounds) if isinstance(bounds, Tensor) else host_numpy.asarray(bounds)
    if array.dtype.kind not in "iu":
        raise DtypeNotImplemented(f"segment_reduce: {name} must be integers (int32 or int64), got {array.dtype}")
    return array.astype(host_numpy.int64)


def _bounds(x: Tensor, axis: int, lengths: Any, indices: Any, offsets: Any, unsafe: bool) -> tuple[Any, Any, int]:
    """Each segment's ``[start, end)`` along ``axis``, shaped ``(rows, segments)`` -- a row for each
    position of ``data``'s dims before ``axis`` -- and ``axis`` itself, non-negative. PyTorch's
    checks, in its words."""
    if indices is not None:
        raise RefusedArgument("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RefusedArgument("segment_reduce(): Either lengths or offsets must be defined.")
    bounds = _integers("lengths", lengths) if lengths is not None else _integers("offsets", offsets)
    last = bounds.ndim - 1
    if axis not in (last, last - x.ndim) or not 0 <= last < x.ndim:
        raise RefusedArgument(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}.")
    if bounds.shape[:-1] != x.shape[:last]:
        raise RefusedArgument(f"segment_reduce(): lengths (or offsets) of shape {bounds.shape} do not fit data of "
                              f"shape {tuple(x.shape)}: their leading dims must be data's dims before axis {last}")
    size = x.shape[last]
    rows = bounds.reshape(-1, bounds.shape[-1])
    if lengths is not None:
        if (rows < 0).any():
            raise RefusedArgument("lengths contains negative value!")
        if not unsafe and (rows.sum(axis=1) != size).any():
            raise RefusedArgument("segment_reduce(): Expected all rows of lengths along axis to sum to "
                                  "data.size(lengths.dim()-1) when !unsafe.")
        ends = host_numpy.cumsum(rows, axis=1)
        return ends - rows, ends, last
    starts, ends = rows[:, :-1], rows[:, 1:]
    if (ends < starts).any() or (rows < 0).any() or (rows > size).any():
        raise RefusedArgument(f"segment_reduce(): offsets must be non-decreasing and within [0, {size}], got {rows}")
    return starts, ends, last


def _reduce_segments(x: Tensor, red: str, axis: int, starts: Any, ends: Any) -> tuple[Tensor, Any]:
    """The reductions without ``initial`` (an empty segment: ``_EMPTY``; a mean: its sum, not yet
    divided) and each segment's length."""
    n_rows, n_seg = starts.shape
    lead = x.shape[:axis]
    size, trailing = x.shape[axis], x.shape[axis + 1:]
    width = int(host_numpy.prod(trailing, dtype=host_numpy.int64))
    counts = (ends - starts).ravel()
    total = int(counts.sum())
    segment = host_numpy.repeat(host_numpy.arange(n_rows * n_seg), counts)  # (row, segment) of each element
    first = host_numpy.repeat(host_numpy.cumsum(counts) - counts, counts)
    position = host_numpy.repeat(starts.ravel(), counts) + host_numpy.arange(total) - first
    row = segment // max(n_seg, 1)
    cols = host_numpy.arange(width)
    source = ((row * size + position)[:, None] * width + cols).ravel()
    target = (segment[:, None] * width + cols).ravel()
    values = getitem_in_range(mf.ravel(x), (x.device.xp.asarray(source),))
    shape = tuple(lead) + (n_seg,) + tuple(trailing)
    base = constant(host_numpy.full(shape, _EMPTY[red], dtype=x.dtype), x)
    out = reduce_at(base, target, values, "sum" if red == "mean" else red, include_self=False)
    counts = counts.reshape(tuple(lead) + (n_seg,) + (1,) * len(trailing))
    return out, counts  # (a mean's sum: divided by the caller, after initial joins it)


def _divided(out: Tensor, counts: Any) -> Tensor:
    return out / constant(host_numpy.maximum(counts, 1).astype(out.dtype), out)


def _with_initial(out: Tensor, red: str, counts: Any, initial: Any) -> Tensor:
    """``initial`` joined to each segment's reduction, as PyTorch's kernel joins it: one more operand
    (a tie with a value leaves the value its gradient), a mean's numerator, an empty segment's value."""
    # a number is read in the result's dtype, from its double (PyTorch's Scalar): through the default
    # float32 first, initial=0.3 beside float64 data joined as 0.30000001192092896
    init = (mf.astype(initial, out.dtype) if isinstance(initial, Tensor)
            else constant(host_numpy.asarray(initial, dtype=out.dtype), out))
    if red == "sum":
        return out + init
    if red == "prod":
        return out * init
    if red == "mean":  # (initial + sum) / length, rounded as PyTorch's kernel rounds it
        nonempty = constant(counts > 0, out)
        return mf.where(nonempty, _divided(out + init, counts), init)
    past = out < init if red == "amax" else out > init
    return mf.where(past, init, out)
