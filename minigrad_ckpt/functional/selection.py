"""Selection and ordering: ``kthvalue``, ``median``, ``nanmedian``, ``quantile``, ``nanquantile``,
``mode``, ``cummax``, ``cummin``, ``logcumsumexp``, ``unique``, ``searchsorted``, ``bucketize``,
``histc``, ``bincount``.

A selection picks elements: its *indices* are integer work (a sort, a count, a running
extremum) with no derivative, and its *values* are ``take_along_axis(x, indices)``, so the
gradient goes to exactly the chosen elements, in every mode and order, as PyTorch's.
An interpolating quantile is a ``lerp`` of two such picks.  ``logcumsumexp`` is a
``logsumexp`` over a lower-triangular mask: stable for any spread of values, and
differentiable to every order (it costs ``n`` times the memory of the scan).

Where NumPy and PyTorch mean different things by one name, the spelling picks:
``mg.median(x)`` and ``mg.median(x, axis)`` are NumPy's (the mean of the two middle values);
``mg.median(x, dim=d)`` and ``x.median()`` are PyTorch's (the lower one, with its index).
"""

from __future__ import annotations

import builtins
import math
from typing import Any, NamedTuple

from ..backend import host_numpy
from ..tensor import Tensor, fresh_result
from . import math as mf
from .arguments import as_tensor, number, numpy_keywords, one_axis, refuse_bool, refuse_complex
from .elementwise_compositions import lerp
from .errors import (
    DtypeNotImplemented,
    IndexOutOfBounds,
    IndexRefused,
    InputMismatch,
    NeedsFloatingInput,
    RefusedArgument,
    empty_reduction,
)
from .indexing import index_add, take_along_axis_in_range
from .return_types import return_type
from .scatter import constant, host
from .torch_idioms import ValuesIndices, _one_dim

_UNSET: Any = object()


def _picked(x: Tensor, idx: Tensor, d: int, keepdim: bool) -> ValuesIndices:
    """The values at ``idx`` (keepdims-shaped, along ``d``) and the indices, as PyTorch returns them."""
    values = take_along_axis_in_range(x, idx, axis=d)
    if not keepdim:  # (views of the kept-dim temporaries: new tensors, as PyTorch's)
        values, idx = fresh_result(mf.squeeze(values, d), x), fresh_result(mf.squeeze(idx, d), x)
    return ValuesIndices(values, idx)


def _as_row(name: str, x: Tensor, dim: Any) -> tuple[Tensor, int]:
    """``x`` and the axis a selection runs along (a 0-d tensor as one element)."""
    d = _one_dim(name, x, dim)
    return (mf.reshape(x, (1,)), 0) if x.ndim == 0 else (x, d)


#: The classes of their answers, torch.return_types' (a ValuesIndices each)
_ANSWERS = {name: return_type(ValuesIndices, name) for name in ("median", "nanmedian", "kthvalue", "mode", "cummax",
                                                                 "cummin")}


def _zero_d(name: str, result: ValuesIndices, was_zero_d: bool) -> ValuesIndices:
    """``name``'s answer, as its class; of a 0-d input, 0-d too."""
    if was_zero_d:
        result = (fresh_result(mf.reshape(t, ())) for t in result)  # (of the 1-d answer, no one's)
    return _ANSWERS[name]._make(result)


def _order(x: Tensor, d: int) -> Tensor:
    """Indices that sort ``x`` along ``d`` (stable; NaNs last), a constant."""
    return mf.argsort(x.detach(), axis=d)


def _nan_count(x: Tensor, d: int) -> Tensor:
    return mf.sum(mf.astype(mf.isnan(x.detach()), "int64"), axis=d, keepdims=True)


def _at_rank(x: Tensor, d: int, rank: Any, keepdim: bool) -> ValuesIndices:
    """The element of sorted rank ``rank`` (an int, or an int tensor of keepdims shape) along ``d``."""
    order = _order(x, d)
    if isinstance(rank, int):
        rank = constant(host_numpy.full((1,) * x.ndim, rank, dtype=host_numpy.int64), x)
    shape = tuple(1 if i == d else n for i, n in enumerate(x.shape))
    idx = take_along_axis_in_range(order, mf.broadcast_to(rank, shape), axis=d)
    return _picked(x, idx, d, keepdim)


@numpy_keywords
def kthvalue(input: Any, k: int, dim: int = -1, keepdim: bool = False) -> ValuesIndices:  # noqa: A002
    """The ``k``-th smallest value along ``dim`` (``k`` counts from 1) and its index, as
    ``torch.kthvalue``; the gradient goes to that element.  Where the value is tied, the index
    is on the CPU the one PyTorch's CPU kernel picks (see :func:`_kth_index_as_pytorch`), on
    another device the stable sort's first (nothing is read back to choose; PyTorch's CUDA kernel
    picks by another algorithm again)."""
    k = number("kthvalue", "k", k, "SymInt")
    refuse_complex("kthvalue", input)
    x0 = as_tensor(input)
    if x0.ndim:  # (a 0-d tensor is its own k-th value, of any dtype: PyTorch answers before its kernel)
        refuse_bool("kthvalue", x0)
    x, d = _as_row("kthvalue", x0, dim)
    n = x.shape[d]
    if n == 0:
        raise empty_reduction("kthvalue", x.shape, d)
    if not 1 <= k <= n:
        raise IndexOutOfBounds(f"kthvalue(): selected number k out of range for dimension {d} (k={k}, 1 <= k <= {n})")
    shape = tuple(1 if i == d else m for i, m in enumerate(x.shape))
    stable = take_along_axis_in_range(_order(x, d), constant(host_numpy.full(shape, int(k) - 1), x), axis=d)
    idx = _kth_index_as_pytorch(x, d, int(k) - 1, stable) if x.device.type == "cpu" else stable
    return _zero_d("kthvalue", _picked(x, idx, d, keepdim), x0.ndim == 0)


def _kth_index_as_pytorch(x: Tensor, d: int, rank: int, stable: Tensor) -> Tensor:
    """The index of the rank-``rank`` element along ``d`` that PyTorch's CPU ``kthvalue`` returns.
    Where that value is unique in its slice, it is the stable sort's (``stable``, keepdims-shaped);
    where it is tied (a NaN ties with NaNs), PyTorch returns whichever its quickselect leaves at the
    rank, so those slices -- only those -- are run through the same quickselect on the host."""
    rows = host_numpy.moveaxis(host(x.detach()), d, -1)
    picked = host_numpy.moveaxis(host(stable), d, -1)
    kth = host_numpy.take_along_axis(rows, picked, axis=-1)
    with host_numpy.errstate(invalid="ignore"):
        same = (rows == kth) | ((rows != rows) & (kth != kth))
    tied = host_numpy.flatnonzero(same.sum(axis=-1) > 1)
    if not tied.size:
        return stable
    flat_rows, flat_picked = rows.reshape(-1, rows.shape[-1]), picked.reshape(-1).copy()
    for r in tied:
        flat_picked[r] = _quickselect_index(flat_rows[r].tolist(), rank)
    return constant(host_numpy.moveaxis(flat_picked.reshape(picked.shape), -1, d), x)


def _quickselect_index(values: list, rank: int) -> int:
    """The original position of the element PyTorch's ``quick_select_template`` (ATen's
    ``SortingUtils.h``: median-of-three pivot, Hoare partition, NaN above everything) leaves at
    ``rank``.  Ported step for step: among equal values, which one lands there is this algorithm's
    accident, and the gradient goes to it."""
    arr, pos = list(values), list(range(len(values)))

    def above(a: Any, b: Any) -> bool:  # PyTorch's comparator: a NaN is above every number
        return (a != a and b == b) or a > b

    def swap(i: int, j: int) -> None:
        arr[i], arr[j] = arr[j], arr[i]
        pos[i], pos[j] = pos[j], pos[i]

    lo, hi = 0, len(arr) - 1
    while hi > lo + 1:
        mid = lo + (hi - lo) // 2
        swap(mid, lo + 1)
        if above(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if above(arr[lo], arr[hi]):
            swap(lo, hi)
        if above(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while above(pivot, arr[i]):
                i += 1
            j -= 1
            while above(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= rank:
            lo = i
        if j >= rank:
            hi = j - 1
    if hi == lo + 1 and above(arr[lo], arr[hi]):
        swap(lo, hi)
    return pos[rank]


def _lower_median(name: str, input: Any, dim: Any, keepdim: bool, skip_nan: bool) -> Any:  # noqa: A002
    """PyTorch's median: the lower of the two middle values (a NaN if the slice has one,
    unless ``skip_nan``), with its index along ``dim``; the whole tensor's for ``dim=None``."""
    x0 = as_tensor(input)
    if dim is None and x0.size == 0:  # (answered before PyTorch looks for a kernel of the dtype)
        return _empty_median(x0)
    refuse_complex(name, x0)  # PyTorch's NotImplementedError ("median_out" has no complex kernel)
    if x0.dtype.kind == "b":  # PyTorch has no bool kernel (NumPy's would order False < True)
        kernel = "median_cpu" if dim is None else "median_out"
        raise DtypeNotImplemented(f"\"{kernel}\" not implemented for 'Bool'")
    if dim is None:
        return _shared_median(name, mf.ravel(x0), skip_nan)
    x, d = _as_row(name, x0, dim)
    n = x.shape[d]
    if n == 0:
        raise empty_reduction("median", x.shape, d)  # (nanmedian's too, in PyTorch's words)
    nans = _nan_count(x, d)
    if skip_nan:  # the lower median of the numbers; of all NaNs, the first
        rank = mf.maximum(n - 1 - nans, 0) // 2
    else:  # a NaN wins: the first NaN in sorted order
        rank = mf.where(nans > 0, n - nans, (n - 1) // 2)
    return _zero_d(name, _at_rank(x, d, rank, keepdim), x0.ndim == 0)


def _empty_median(x: Tensor) -> Tensor:
    """The 0-d median of no elements, as PyTorch's: NaN in ``x``'s dtype.  A float one is the sum of
    nothing plus NaN, differentiable with a zero derivative; PyTorch fills an integer or bool one with
    NaN converted to its dtype, which NumPy's conversion matches (on x86: 0 for 8- and 16-bit
    integers and uint32, the minimum for int32 and int64, True for bool)."""
    if x.dtype.kind in "fc":
        return mf.reshape(mf.sum(x) + float("nan"), ())
    with host_numpy.errstate(invalid="ignore"):
        return constant(host_numpy.array(host_numpy.nan).astype(x.dtype), x)


def _shared_median(name: str, flat: Tensor, skip_nan: bool) -> Tensor:
    """The whole tensor's median, its gradient shared evenly by every element equal to it (by
    every NaN when it is NaN), as PyTorch's ``x.median()``; ``x.median(dim)`` gives it to the
    element at its index instead.  The maximum of those equal elements is the median exactly,
    and a maximum shares the gradient among ties in both modes."""
    m = _lower_median(name, flat, 0, False, skip_nan).values.detach()
    equal = mf.logical_or(mf.equal(flat.detach(), m), mf.logical_and(mf.isnan(flat.detach()), mf.isnan(m)))
    return mf.max(flat[equal])


def _quantile_positions(q: Any) -> tuple[Any, bool]:
    qs = host_numpy.asarray(host(q) if isinstance(q, Tensor) else q, dtype=host_numpy.float64)
    if qs.ndim > 1:
        raise RefusedArgument(f"quantile() q must be a scalar or 1D tensor (got {qs.ndim} dims)")
    if qs.size and (host_numpy.isnan(qs).any() or qs.min() < 0 or qs.max() > 1):
        raise RefusedArgument(f"quantile: q must lie in [0, 1], got {qs.tolist()}")  # (PyTorch's RuntimeError)
    return qs.reshape(-1), qs.ndim == 0


_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _one_quantile(s: Tensor, d: int, count: Tensor, q: float, method: str, q_tensor: Tensor | None = None) -> Tensor:
    """The ``q``-quantile along ``d`` of ``s`` (sorted, NaNs last), ``count`` numbers per slice.
    ``q_tensor`` is ``q`` as the caller's tensor, when it is one: a linear quantile moves with ``q``
    (by the gap between its two order statistics, times ``count - 1``), so its weight is computed
    from that tensor for ``q``'s derivative; the other methods are steps in ``q``."""
    steps = mf.astype(mf.maximum(count - 1, 0), s.dtype)
    pos = steps * q  # in s's precision: float32 stays float32
    lo, hi = mf.floor(pos), mf.ceil(pos)
    if method == "nearest":
        lo = hi = mf.round(pos)
    at = [take_along_axis_in_range(s, mf.astype(i, "int64"), axis=d) for i in (lo, hi)]
    if method in ("lower", "nearest"):
        return at[0]
    if method == "higher":
        return at[1]
    if method == "midpoint":  # PyTorch's (and NumPy's) lerp at weight 0.5, from the upper end:
        return at[1] - (at[1] - at[0]) * 0.5  # NaN for [inf, inf], no overflow for [1e308, 1.7e308]
    if method == "mean":  # NumPy's median: the mean of the two middle values
        return (at[0] + at[1]) / 2
    weight = pos - lo if q_tensor is None else steps * mf.astype(q_tensor, s.dtype) - lo
    return lerp(at[0], at[1], mf.astype(weight, s.dtype))


def _quantile(name: str, input: Any, q: Any, axis: Any, keepdims: bool, method: str,  # noqa: A002
              skip_nan: bool) -> Tensor:
    x0 = as_tensor(input)
    refuse_complex(name, x0)  # PyTorch's NotImplementedError ("median_cpu"), NumPy's lexicographic order
    if x0.dtype.kind != "f":  # PyTorch's RuntimeError, and the TypeError it is
        raise NeedsFloatingInput(f"{name}: the input must be a float tensor, got {x0.dtype}")
    if x0.numel() == 0:  # PyTorch refuses any empty input, even along a non-empty dim (NumPy: IndexError)
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    qs, scalar = _quantile_positions(q)
    x, d = (mf.ravel(x0), 0) if axis is None else _as_row(name, x0, axis)
    s = mf.sort(x, axis=d)
    nans = _nan_count(x, d)
    count = x.shape[d] - nans if skip_nan else nans * 0 + x.shape[d]
    last = s[(slice(None),) * d + (slice(-1, None),)]  # a NaN where the slice has one (NaNs sort last)
    q_tensors = mf.ravel(q) if isinstance(q, Tensor) else None
    outs = []
    for i, qv in enumerate(qs):
        r = _one_quantile(s, d, count, float(qv), method, None if q_tensors is None else q_tensors[i])
        if not skip_nan:  # the NaN itself, so its gradient goes there, as PyTorch's
            r = mf.where(nans > 0, last, r)
        if axis is None:
            r = mf.reshape(r, (1,) * x0.ndim if keepdims else ())
        elif not keepdims or x0.ndim == 0:
            r = mf.squeeze(r, d)
        outs.append(r)
    return fresh_result(outs[0], x0) if scalar else mf.stack(outs, axis=0)  # (a view of the sums: new)


_QUANTILE_DOC = """The ``q``-quantiles of ``input`` along ``axis`` (all of it for None), {nans}:
NumPy's ``{name}`` and PyTorch's alike.  ``q`` is a number or 1-D (then the quantiles stack along a
new first dim); ``method=`` (PyTorch: ``interpolation=``) is ``'linear'``, ``'lower'``, ``'higher'``,
``'nearest'`` or ``'midpoint'``; ``dim=``/``keepdim=`` as PyTorch.  Differentiable: the gradient goes
to the one or two order statistics each quantile interpolates, and, for ``'linear'``, to a tensor ``q``
too (the slope of the interpolation: the gap between those two, times the count less one)."""

_MEDIAN_DOC = """NumPy's ``{name}``: the middle value along ``axis`` (all of it for None), the mean of the
two middle ones for an even count{nans}.  With PyTorch's ``dim=`` (or ``keepdim=`` beside a dim)
it is ``torch.{name}``'s: the *lower* middle value and its index, a :class:`ValuesIndices`
(``x.{name}()`` without a dim: that value of the whole tensor).  The gradient goes to the middle element(s)."""


def _named(fn: Any, name: str, doc: str) -> Any:
    """``fn`` under the public ``name``, with ``doc``: one of the functions a factory below makes."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def refuse_half(name: str, x: Any) -> None:
    """PyTorch's ``quantile`` and ``nanquantile`` take float32 and float64 only: a float16 tensor is its
    ``RuntimeError`` (NumPy's quantile, and ``mg.quantile`` spelled as NumPy's, answer in float16)."""
    if isinstance(x, Tensor) and x.dtype.kind == "f" and x.dtype.itemsize < 4:
        raise NeedsFloatingInput(f"{name}() input tensor must be either float or double dtype (a float tensor of "
                                 f"32 or 64 bits), got {x.dtype}")


def _quantile_api(name: str, skip_nan: bool) -> Any:
    def fn(input: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,  # noqa: A002
           method: str = "linear", keepdims: bool = False, *, dim: Any = _UNSET, keepdim: Any = _UNSET,
           interpolation: Any = _UNSET) -> Tensor:
        if isinstance(out, bool):  # PyTorch's fourth argument: quantile(x, q, dim, keepdim)
            out, keepdims = None, out
        if out is not None:
            raise TypeError(f"{name}: out= is not supported (tensors here are values)")
        if dim is not _UNSET:
            if axis is not None:
                raise TypeError(f"{name}: pass either axis= or dim=, not both")
            axis = dim
        if dim is not _UNSET or interpolation is not _UNSET:  # PyTorch's spelling: its float32/float64 only
            refuse_half(name, input)
            if isinstance(q, Tensor) and isinstance(input, Tensor) and q.dtype != input.dtype:
                raise InputMismatch(f"{name}() q tensor must be same dtype as the input tensor "
                                    f"(q is {q.dtype}, the input {input.dtype})")
        keep = keepdims if keepdim is _UNSET else keepdim
        how = method if interpolation is _UNSET else interpolation
        if how not in _METHODS:
            raise RefusedArgument(f"{name}: interpolation must be one of {_METHODS}, got {how!r}")
        return _quantile(name, input, q, axis, bool(keep), how, skip_nan)

    nans = "ignoring NaNs" if skip_nan else "NaN where a slice has one"
    return _named(fn, name, _QUANTILE_DOC.format(name=name, nans=nans))


quantile = _quantile_api("quantile", skip_nan=False)
nanquantile = _quantile_api("nanquantile", skip_nan=True)


def _median_api(name: str, skip_nan: bool) -> Any:
    def fn(input: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,  # noqa: A002
           keepdims: bool = False, *, dim: Any = _UNSET, keepdim: Any = _UNSET) -> Any:
        if isinstance(out, bool) and keepdim is _UNSET:  # PyTorch's third argument: median(x, dim, keepdim)
            out, keepdim = None, out
        if out is not None:
            raise TypeError(f"{name}: out= is not supported (tensors here are values)")
        if dim is _UNSET and keepdim is not _UNSET and isinstance(axis, (int, host_numpy.integer)):
            dim, axis = axis, None  # PyTorch's spelling: median(x, 0, keepdim=True) is its pair
        if dim is not _UNSET:  # PyTorch's: the lower median and its index
            if keepdim is _UNSET and keepdims:  # (PyTorch reads keepdims= as keepdim=; it was dropped)
                keepdim = keepdims
            if axis is not None:
                raise TypeError(f"{name}: pass either axis= or dim=, not both (dim= returns (values, indices))")
            return _lower_median(name, input, dim, bool(keepdim is not _UNSET and keepdim), skip_nan)
        if keepdim is not _UNSET:
            keepdims = keepdim
        x = as_tensor(input)
        x = x if x.dtype.kind in "fc" else mf.astype(x, "float64")  # NumPy: the median of integers is a float
        if axis is None and x.size == 0:  # NaN, as NumPy's and PyTorch's (their quantile refuses it)
            nan = _empty_median(x)
            return mf.reshape(nan, (1,) * x.ndim) if keepdims else nan
        return _quantile(name, x, 0.5, axis, keepdims, "mean", skip_nan)

    return _named(fn, name, _MEDIAN_DOC.format(name=name, nans=", ignoring NaNs" if skip_nan else ""))


median = _median_api("median", skip_nan=False)
nanmedian = _median_api("nanmedian", skip_nan=True)


def median_pair(name: str) -> Any:
    """PyTorch's ``median(x, dim, keepdim=False)`` (or ``nanmedian``) as a function: what
    ``mg.median(x, 1, out=(v, i))`` answers, where ``mg.median(x, 1)`` is NumPy's (the values only)."""
    skip_nan = name == "nanmedian"

    def pair(input: Any, dim: Any, keepdim: bool = False) -> Any:  # noqa: A002
        return _lower_median(name, input, dim, bool(keepdim), skip_nan)

    pair.__name__ = name
    return pair


def median_method(name: str) -> Any:
    skip_nan = name == "nanmedian"

    @numpy_keywords
    def method(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
        return _lower_median(name, self, dim, keepdim, skip_nan)

    method.__name__ = name
    method.__doc__ = (f"PyTorch's ``x.{name}()``: the lower middle value; ``x.{name}(dim)`` the pair "
                      f"``(values, indices)``.")
    return method


@numpy_keywords
def mode(input: Any, dim: int = -1, keepdim: bool = False) -> ValuesIndices:  # noqa: A002
    """The most frequent value along ``dim`` (the smallest of those tied) and the index of its
    last occurrence, as ``torch.mode``; the gradient goes to that element.  A slice with NaNs
    is answered as PyTorch's CPU kernel does (:func:`_mode_index_with_nans`)."""
    refuse_complex("mode", input)
    x0 = as_tensor(input)
    x, d = _as_row("mode", x0, dim)
    n = x.shape[d]
    if n == 0:
        raise empty_reduction("mode", x.shape, d)
    rows = host_numpy.moveaxis(host(x), d, -1).reshape(-1, n)
    counts = (rows[:, :, None] == rows[:, None, :]).sum(-1)
    best = counts == counts.max(-1, keepdims=True)
    kind = rows.dtype.kind
    fill = host_numpy.inf if kind == "f" else True if kind == "b" else host_numpy.iinfo(rows.dtype).max
    # the smallest of the most frequent, NaN ordered above every number (PyTorch's order)
    numbers = best & ~host_numpy.isnan(rows) if kind == "f" else best
    value = host_numpy.where(numbers, rows, fill).min(-1, keepdims=True)
    last = n - 1 - host_numpy.argmax((rows == value)[:, ::-1], axis=-1)
    if kind == "f":
        for r in host_numpy.flatnonzero(host_numpy.isnan(rows).any(-1)):
            last[r] = _mode_index_with_nans(rows[r].tolist())
    shape = list(host_numpy.moveaxis(host_numpy.empty(x.shape), d, -1).shape[:-1]) + [1]
    idx = constant(host_numpy.moveaxis(last.reshape(shape), -1, d).astype(host_numpy.int64), x)
    return _zero_d("mode", _picked(x, idx, d, keepdim), x0.ndim == 0)


def _mode_index_with_nans(row: list[float]) -> int:
    """Where PyTorch's ``mode`` finds the mode of a slice with NaNs.  Its CPU kernel sorts the
    slice with ``a < b`` (false for a NaN either side, so a NaN stays where insertion sort meets
    it) and takes the first longest run of ``!=``-equal neighbours (each NaN a run of its own),
    answering the run's last index.  This replays the insertion sort libstdc++'s ``std::sort``
    runs on up to 16 elements: ``mode([nan, nan, nan, 1, 1, 2])`` is 1 at 4, ``mode([nan, nan,
    1])`` NaN at 0.  Longer slices there go through introsort first, whose NaN placement is
    not replayed (only slices with NaNs differ: without, every sort agrees)."""
    order: list[int] = []
    for i, v in enumerate(row):
        at = 0 if order and v < row[order[0]] else len(order)  # below the first: to the front
        while 0 < at and v < row[order[at - 1]]:
            at -= 1
        order.insert(at, i)
    best, longest, run = 0, 0, 0
    for k, i in enumerate(order):
        run += 1
        if k == len(order) - 1 or row[i] != row[order[k + 1]]:
            if run > longest:
                best, longest = i, run
            run = 0
    return best


def _running(name: str, input: Any, dim: Any) -> ValuesIndices:  # noqa: A002
    """PyTorch's ``cummax``/``cummin``: the running extremum and where it was last reached
    (a NaN, once met, is the extremum from there; a later NaN takes over its index)."""
    x0 = as_tensor(input)
    x, d = _as_row(name, x0, dim)
    h = host_numpy.moveaxis(host(x), d, 0)
    idx = host_numpy.zeros(h.shape, host_numpy.int64)
    best = h[0].copy() if h.shape[0] else h[:0]
    better = host_numpy.greater_equal if name == "cummax" else host_numpy.less_equal
    for i in range(1, h.shape[0]):
        take = host_numpy.isnan(h[i]) | (~host_numpy.isnan(best) & better(h[i], best)) if h.dtype.kind == "f" \
            else better(h[i], best)
        best = host_numpy.where(take, h[i], best)
        idx[i] = host_numpy.where(take, i, idx[i - 1])
    indices = constant(host_numpy.ascontiguousarray(host_numpy.moveaxis(idx, 0, d)), x)
    return _zero_d(name, ValuesIndices(take_along_axis_in_range(x, indices, axis=d), indices), x0.ndim == 0)


def cummax(input: Any, dim: int) -> ValuesIndices:  # noqa: A002
    """The running maximum along ``dim`` and the index where each was (last) reached, as
    ``torch.cummax``; the gradient goes to those elements."""
    refuse_complex("cummax", input)
    return _running("cummax", input, dim)


def cummin(input: Any, dim: int) -> ValuesIndices:  # noqa: A002
    """The running minimum along ``dim`` and the index where each was (last) reached, as
    ``torch.cummin``; the gradient goes to those elements."""
    refuse_complex("cummin", input)
    return _running("cummin", input, dim)


def logcumsumexp(input: Any, dim: int) -> Tensor:  # noqa: A002
    """``log(cumsum(exp(x)))`` along ``dim`` without overflow or underflow, as
    ``torch.logcumsumexp``: each prefix a ``logsumexp`` (see :func:`_prefix_logsumexp`), so it is
    exact at any spread of values and differentiable to every order."""
    x0 = as_tensor(input)
    x, d = _as_row("logcumsumexp", x0, dim)
    n = x.shape[d]
    if n == 0 or x0.ndim == 0:  # a 0-d input is its own result, gradient 1 even at +-inf
        return mf.clone(x0)     # (PyTorch's 0-d logcumsumexp; a row's logsumexp gives NaN there)
    out = mf.moveaxis(_prefix_logsumexp(mf.moveaxis(x, d, -1)), -1, d)
    return fresh_result(mf.reshape(out, ()) if x0.ndim == 0 else out)  # (a view of the sums, no one's)


#: The longest row :func:`_prefix_logsumexp` takes in one piece (a row of n costs n * n there).
_PREFIX_BLOCK = 64


def _prefix_logsumexp(rows: Tensor) -> Tensor:
    """The inclusive prefix ``logsumexp`` of each row (the last axis).

    A short row in one piece: every prefix a ``logsumexp`` of the row under a lower-triangular
    mask, each with its own shift (an all ``-inf`` prefix passes gradient 0, where ``exp(x - out)``
    is NaN).  A long row in blocks of :data:`_PREFIX_BLOCK`: prefixes within each block, then the
    blocks' totals' prefixes (the same function, a row 64 times shorter), each block's prefixes
    combined with the total of the blocks before it by one more ``logsumexp`` of two -- O(n * 64)
    work and memory, where the mask over the whole row was O(n * n) (1e5 elements: 80 GB)."""
    n = rows.shape[-1]
    if n <= _PREFIX_BLOCK:
        prefix = constant(host_numpy.tril(host_numpy.ones((n, n), bool)), rows)
        return mf.logsumexp(mf.where(prefix, mf.expand_dims(rows, -2), -float("inf")), axis=-1)
    blocks = -(-n // _PREFIX_BLOCK)
    lead = rows.shape[:-1]
    pad = blocks * _PREFIX_BLOCK - n
    if pad:
        rows = mf.concatenate([rows, _minus_infinities(lead + (pad,), rows)], axis=-1)
    within = _prefix_logsumexp(mf.reshape(rows, lead + (blocks, _PREFIX_BLOCK)))  # (..., blocks, B)
    totals = _prefix_logsumexp(within[..., -1])                                   # (..., blocks)
    nothing = _minus_infinities(lead + (1,), rows)
    before = mf.concatenate([nothing, totals[..., :-1]], axis=-1)  # the blocks before each one
    pairs = mf.stack([within, mf.broadcast_to(mf.expand_dims(before, -1), within.shape)], axis=-1)
    return mf.reshape(mf.logsumexp(pairs, axis=-1), lead + (blocks * _PREFIX_BLOCK,))[..., :n]



def _minus_infinities(shape: tuple, like: Tensor) -> Tensor:
    """A constant of ``-inf`` (``exp`` of it is 0) in ``like``'s dtype: one of NumPy's default float64
    beside a float32 or complex64 row would promote the result."""
    return constant(host_numpy.full(shape, -host_numpy.inf, dtype=like.dtype), like)

class _Unique(NamedTuple):
    values: Tensor
    inverse: Tensor | None
    counts: Tensor | None
    index: Tensor | None


def _refuse_empty_slices(name: str, rows: Any) -> None:
    """PyTorch's refusal of slices (``rows`` along the dim taken first) that hold nothing."""
    if rows.shape.count(0) > 1:
        raise RuntimeError(f"{name}: the number of zero sized dimensions is more than one, so unique cannot "
                           "be applied (PyTorch's rule)")
    if rows.size == 0 and rows.shape[0]:
        raise RuntimeError(f"{name}: there are 0 sized dimensions, and they aren't selected, so unique "
                           "cannot be applied (PyTorch's rule)")


def _unique(x: Tensor, axis: Any, first_index: bool, sort: bool, equal_nan: bool = True) -> _Unique:
    h = host(x)
    if axis is None:
        h, ax = h.reshape(-1), None
    else:
        ax = one_axis(axis, x.ndim)
        _refuse_empty_slices("unique", host_numpy.moveaxis(h, ax, 0))
    values, index, inverse, counts = host_numpy.unique(h, return_index=True, return_inverse=True,
                                                       return_counts=True, axis=ax, equal_nan=equal_nan)
    inverse = inverse.reshape(x.shape if axis is None else (-1,))
    del sort  # PyTorch's unique sorts on the CPU either way, as NumPy's
    as_int = [constant(a.astype(host_numpy.int64), x) for a in (inverse, counts, index)]
    return _Unique(constant(values, x), as_int[0], as_int[1], as_int[2] if first_index else None)


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: Any = None, *, equal_nan: Any = _UNSET, sorted: Any = _UNSET, dim: Any = _UNSET) -> Any:  # noqa: A002
    """The distinct values of ``ar``, sorted (NumPy's ``unique``; ``axis``/PyTorch's ``dim``: the
    distinct slices along it), and as asked: ``return_index`` (where each first occurs),
    ``return_inverse`` (each element's position among the values, ``ar``'s shape) and
    ``return_counts``.  A tuple in NumPy's order when any is asked.  PyTorch's
    ``torch.unique(x, sorted, return_inverse, return_counts, dim)`` is ``x.unique(...)``.
    NaNs are merged (NumPy's ``equal_nan=True``) unless PyTorch's ``sorted=`` or ``dim=`` is
    given: then each NaN is its own value, as PyTorch's.  No gradient (as PyTorch)."""
    refuse_complex("unique", ar)
    x = as_tensor(ar)
    if equal_nan is _UNSET:
        equal_nan = sorted is _UNSET and dim is _UNSET
    if dim is not _UNSET:
        if axis is not None:
            raise TypeError("unique: pass either axis= or dim=, not both")
        axis = dim
    u = _unique(x, axis, return_index, sorted, equal_nan)
    extra = [t for t, want in ((u.index, return_index), (u.inverse, return_inverse), (u.counts, return_counts))
             if want]
    return (u.values, *extra) if extra else u.values


def unique_method(self: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
                   return_counts: bool = False, dim: Any = None) -> Any:
    """PyTorch's ``x.unique(sorted=True, return_inverse=False, return_counts=False, dim=None)``:
    each NaN is its own value, as PyTorch's (NumPy's ``unique`` merges them: ``equal_nan=True``)."""
    return unique(self, False, return_inverse, return_counts, dim, sorted=sorted, equal_nan=False)


def unique_consecutive(input: Any, return_inverse: bool = False, return_counts: bool = False,  # noqa: A002
                       dim: Any = None) -> Any:
    """Each run of equal consecutive elements (slices along ``dim``) kept once, as
    ``torch.unique_consecutive``; with ``return_inverse`` each element's run, with
    ``return_counts`` each run's length.  No gradient."""
    refuse_complex("unique_consecutive", input)
    x = as_tensor(input)
    h = host(x)
    rows = h.reshape(-1, 1) if dim is None else host_numpy.moveaxis(h, one_axis(dim, x.ndim), 0)
    _refuse_empty_slices("unique_consecutive", rows)
    rows = rows.reshape(rows.shape[0], rows[:1].size)
    new_run = host_numpy.ones(rows.shape[0], bool)
    new_run[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    kept = rows[new_run]
    if dim is None:
        values = kept.reshape(-1)
    else:
        d = one_axis(dim, x.ndim)
        moved = host_numpy.moveaxis(h, d, 0)
        values = host_numpy.moveaxis(kept.reshape((-1,) + moved.shape[1:]), 0, d)
    inverse = (host_numpy.cumsum(new_run) - 1).reshape(x.shape if dim is None else (-1,))
    counts = host_numpy.diff(host_numpy.append(host_numpy.flatnonzero(new_run), rows.shape[0]))
    out = [constant(host_numpy.ascontiguousarray(values), x)]
    out += [constant(a.astype(host_numpy.int64), x) for a, want in ((inverse, return_inverse),
                                                                   (counts, return_counts)) if want]
    return tuple(out) if len(out) > 1 else out[0]


class Histogram(NamedTuple):
    """What ``histogram`` returns, as ``torch.return_types.histogram``."""

    hist: Tensor
    bin_edges: Tensor


_histogram = return_type(Histogram, "histogram")  # torch.return_types' class of the answer


def histogram(input: Any, bins: Any = _UNSET, range: Any = None, density: bool = False,  # noqa: A002
              weights: Any = None, *, weight: Any = None) -> Histogram:
    """NumPy's and PyTorch's ``histogram``: the counts (or summed ``weights``; PyTorch's keyword
    is ``weight``) in ``bins`` equal bins over ``range`` (the data's by default) or between
    the given edges, and the edges; ``density`` normalizes to a density.  As PyTorch, the
    counts have the input's float dtype.  No gradient.  Without ``bins``: NumPy's 10, or
    PyTorch's 100 beside PyTorch's ``weight=`` (the call is PyTorch's)."""
    refuse_complex("histogram", input)
    x = as_tensor(input)
    if bins is _UNSET:
        bins = 10 if weight is None else 100
    if weight is not None and _equal_bins(bins) and x.dtype.kind == "f":  # PyTorch's keyword: its meaning
        return _histogram_on_linspace(x, bins, range, weight, density)
    w = weights if weight is None else weight
    edges_in = host(bins) if isinstance(bins, Tensor) else bins
    try:
        hist, edges = host_numpy.histogram(host(x).reshape(-1), bins=edges_in, range=range, density=density,
                                           weights=None if w is None else host(as_tensor(w)).reshape(-1))
    except ValueError as e:  # a range not finite or reversed, no bins: PyTorch's RuntimeError, NumPy's ValueError
        raise RefusedArgument(f"histogram: {e}") from None
    dtype = x.dtype if x.dtype.kind == "f" else host_numpy.float64
    return _histogram(constant(hist.astype(dtype), x), constant(edges.astype(dtype), x))


def searchsorted(a: Any, v: Any, side: str | None = None, sorter: Any = None, *, right: bool = False,
                 out_int32: bool = False) -> Tensor:
    """Where each of ``v`` would be inserted into the sorted ``a`` to keep it sorted: NumPy's
    ``searchsorted`` (``side="right"``: after equal values; PyTorch: ``right=True``; None:
    ``"left"``, and ``side="left"`` with ``right=True`` is PyTorch's error).  As
    ``torch.searchsorted``, an N-D ``a`` is a batch of sorted rows, one per row of ``v``.
    int64 (``out_int32=True``: int32); no gradient."""
    refuse_complex("searchsorted", a, v)
    seq, vals = as_tensor(a), as_tensor(v)
    if right and side == "left":  # PyTorch's RuntimeError: the two spellings say opposite things
        raise RefusedArgument("searchsorted: side and right can't be set to opposites, got side of left while "
                              "right was True")
    side = "right" if right else side or "left"
    if side not in ("left", "right"):
        raise RefusedArgument(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if seq.ndim == 0:
        raise RuntimeError("searchsorted: the sorted sequence must have at least one dim, got a 0-d tensor")
    hs, hv = host(seq), host(vals)
    if sorter is not None:
        order = host(as_tensor(sorter))
        if order.dtype != host_numpy.int64:  # (NumPy's cast read 1.7 as index 1)
            raise IndexRefused(f"searchsorted: sorter must be a tensor of long dtype but got dtype {order.dtype}")
        if order.shape != hs.shape:
            raise RuntimeError(f"searchsorted: sorter has shape {order.shape}, the sorted sequence {hs.shape}; "
                               "they must match (PyTorch's rule)")
        if order.size and (order.min() < 0 or order.max() >= hs.shape[-1]):  # (NumPy's take wraps -1 silently)
            raise IndexOutOfBounds(f"searchsorted: sorter index out of range: each must be in [0, {hs.shape[-1]})")
        hs = host_numpy.take_along_axis(hs, order.astype(host_numpy.int64), axis=-1)
    if hs.ndim <= 1:
        out = _bisect(hs.reshape(1, -1), hv.reshape(1, -1), side == "right").reshape(hv.shape)
    else:
        if hs.shape[:-1] != hv.shape[:-1]:
            raise RuntimeError(f"searchsorted: the leading dims of the sorted sequence {hs.shape[:-1]} and of "
                               f"the values {hv.shape[:-1]} differ")
        out = _bisect(hs.reshape(-1, hs.shape[-1]), hv.reshape(-1, hv.shape[-1]), side == "right")
        out = out.reshape(hv.shape)
    return constant(host_numpy.asarray(out).astype(host_numpy.int32 if out_int32 else host_numpy.int64), vals)


def _bisect(rows: Any, values: Any, right: bool) -> Any:
    """PyTorch's binary search, all rows at once: for each of ``values[r]`` (host arrays, (R, M)),
    the first position in ``rows[r]`` ((R, N)) whose element is not below it (``right``: not at or
    below it).  Written as PyTorch's kernel writes its comparisons (``!(mid >= v)``), not as NumPy's
    ``searchsorted``: they agree on numbers, but a NaN compares false both ways, so a NaN value goes
    past every element and a NaN in the sequence -- where ``torch.sort`` puts them, last -- is passed
    over or not as the search meets it (``searchsorted([1, 2, nan], 2, right=True)`` is 3, NumPy's 2)."""
    n = rows.shape[1]
    start = host_numpy.zeros(values.shape, dtype=host_numpy.int64)
    end = host_numpy.full(values.shape, n, dtype=host_numpy.int64)
    while (searching := start < end).any():
        mid = start + ((end - start) >> 1)
        at_mid = host_numpy.take_along_axis(rows, host_numpy.minimum(mid, n - 1), axis=1)
        with host_numpy.errstate(invalid="ignore"):
            onward = ~(at_mid > values) if right else ~(at_mid >= values)
        start = host_numpy.where(searching & onward, mid + 1, start)
        end = host_numpy.where(searching & ~onward, mid, end)
    return start


def bucketize(input: Any, boundaries: Any, *, out_int32: bool = False, right: bool = False) -> Tensor:  # noqa: A002
    """The bucket of each element among the sorted 1-D ``boundaries``, as ``torch.bucketize``:
    ``boundaries[i-1] < x <= boundaries[i]`` (``right=True``: ``boundaries[i-1] <= x <
    boundaries[i]``).  No gradient."""
    refuse_complex("bucketize", input, boundaries)
    b = as_tensor(boundaries)
    if b.ndim != 1:
        raise RefusedArgument(f"boundaries tensor must be 1 dimension, but got dim({b.ndim})")
    return searchsorted(b, input, right=right, out_int32=out_int32)


def histc(input: Any, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """A histogram of ``input``'s values: ``bins`` equal-width bins over ``[min, max]`` (the
    data's own range if they are equal, as PyTorch's kernel, not only both 0 as its documentation
    says; widened by 1 each way if it is one value), values outside
    ignored, each value in the bin PyTorch's kernel computes (see ``_linear_bin_counts``), as
    ``torch.histc``.  Counts in ``input``'s dtype; no gradient."""
    bins, min, max = number("histc", "bins", bins, "int"), number("histc", "min", min), number("histc", "max", max)  # noqa: A001
    refuse_complex("histc", input)
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise NotImplementedError(f"histc: not implemented for {x.dtype} (PyTorch's histc takes floating input)")
    if bins <= 0:  # each refusal is PyTorch's RuntimeError, and the ValueError NumPy's is
        raise RefusedArgument(f"histc: bins must be positive, got {bins}")
    if min > max:
        raise RefusedArgument(f"histc: min {min} is above max {max}")
    h = host(x).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and h.size:  # any empty range given, not only (0, 0): the data's own, as PyTorch's kernel
        lo, hi = float(h.min()), float(h.max())
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RefusedArgument(f"torch.histc: range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return constant(_linear_bin_counts(h, int(bins), lo, hi).astype(x.dtype), x)


def _linear_bin_counts(h: Any, bins: int, lo: float, hi: float) -> Any:
    """PyTorch's histc kernel: a value's bin is ``floor((x - lo) * bins / (hi - lo))``, computed in
    the input's dtype with ``lo``/``hi`` cast to it, ``hi`` itself in the last bin.  NumPy's
    ``histogram`` instead compares with its float64 edges, which puts a value within a rounding of an
    edge in the neighbouring bin (float64 0.3 of ``histc(10, 0, 1)``: bin 2 there, 3 in PyTorch)."""
    kind = h.dtype.type
    low, high = kind(lo), kind(hi)
    with host_numpy.errstate(invalid="ignore", over="ignore"):
        inside = h[(h >= low) & (h <= high)]  # NaN compares false: ignored, as there
        pos = host_numpy.floor((inside - low) * kind(bins) / (high - low))
    return host_numpy.bincount(host_numpy.minimum(pos.astype(host_numpy.int64), bins - 1), minlength=bins)


def bincount(input: Any, weights: Any = None, minlength: int = 0) -> Tensor:  # noqa: A002
    """How often each value ``0..max`` occurs in the 1-D non-negative integer ``input`` (at least
    ``minlength`` counts), or the sum of ``weights`` at each: NumPy's and PyTorch's
    ``bincount``.  Differentiable with respect to ``weights``."""
    x = as_tensor(input)
    if x.dtype.kind not in "iu":  # PyTorch has no kernel for them: its NotImplementedError
        raise DtypeNotImplemented(f"bincount: input must be a 1-D integer tensor, got {x.ndim}-D {x.dtype}")
    if x.ndim != 1:
        raise InputMismatch(f"bincount only supports 1-d non-negative integral inputs, got {x.ndim}-D")
    h = host(x)
    if h.size and h.min() < 0:  # PyTorch's RuntimeError, in its words (NumPy's ValueError too)
        raise InputMismatch("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RefusedArgument(f"bincount: minlength must be non-negative, got {minlength}")
    n = builtins.max(int(h.max()) + 1 if h.size else 0, int(minlength))
    if weights is None:
        return constant(host_numpy.bincount(h, minlength=n).astype(host_numpy.int64), x)
    w = as_tensor(weights)
    if w.shape != x.shape:
        raise InputMismatch(f"weights should be 1-d and have the same length as input (bincount: weights of shape "
                            f"{w.shape} for an input of shape {x.shape})")
    if w.dtype != host_numpy.float32:  # PyTorch sums every other dtype of weights in float64
        w = mf.astype(w, host_numpy.float64)
    # the adjoint of indexing: a differentiable scatter-add; its index in int64, as a uint8 one is a mask there
    return index_add((n,), (mf.astype(x, host_numpy.int64),), w)


def histogram_method(self: Tensor, bins: Any = 100, *, range: Any = None, weight: Any = None,  # noqa: A002
                     density: bool = False) -> Any:
    """PyTorch's ``x.histogram(bins=100, *, range=None, weight=None, density=False)``; integer and
    bool input is PyTorch's ``NotImplementedError`` (``mg.histogram``, NumPy's, counts them)."""
    if self.dtype.kind not in "f":
        raise DtypeNotImplemented(f"histogram: not implemented for {self.dtype} (PyTorch's takes floating input)")
    if not _equal_bins(bins):  # edges given, or no bins: refused there in NumPy's words
        return histogram(self, bins, range, density, weight=weight)
    return _histogram_on_linspace(self, bins, range, weight, density)


def _equal_bins(bins: Any) -> bool:
    """Whether ``bins`` asks for that many equal bins (PyTorch's kernel, :func:`_histogram_on_linspace`),
    not for given edges nor for none (which NumPy's path refuses)."""
    return isinstance(bins, int) and bins >= 1


def _histogram_on_linspace(x: Tensor, bins: int, range: Any, weight: Any, density: bool) -> Any:  # noqa: A002
    """PyTorch's histogram of ``bins`` equal bins: the edges are ``linspace`` in ``x``'s dtype (PyTorch's
    linspace, whose points NumPy's float64 edges are not), and a value counts in the bin of the last
    edge at or below it, the last bin closed -- PyTorch's kernel searches those edges.  The range is
    the data's where not given, widened by 0.5 each way where it is one value."""
    from ..creation import linspace  # (a creation function: the edges are PyTorch's points)

    h = host(x).reshape(-1)
    kind = h.dtype.type
    if range is not None:
        lo, hi = (float(v) for v in range)
    elif h.size:  # (a NaN makes the range NaN: refused below, as PyTorch's)
        lo, hi = float(h.min()), float(h.max())
    else:
        lo, hi = 0.0, 1.0  # PyTorch's range of no data
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RefusedArgument(f"torch.histogramdd: dimension 0's range [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RefusedArgument(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for "
                              "dimension 0")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = host(linspace(lo, hi, bins + 1, dtype=x.dtype))
    w = None if weight is None else host(as_tensor(weight)).reshape(-1)
    if w is not None and w.size != h.size:  # (a mask of the wrong length was NumPy's IndexError)
        raise RefusedArgument(f"torch.histogramdd: the weight tensor has {w.size} elements, the input {h.size}; "
                              "they must have the same shape")
    inside = (h >= kind(lo)) & (h <= kind(hi))
    pos = host_numpy.minimum(host_numpy.searchsorted(edges, h[inside], side="right") - 1, bins - 1)
    counts = host_numpy.zeros(bins, dtype=h.dtype)
    if weight is None:
        counts += host_numpy.bincount(pos, minlength=bins)
    else:  # weights added in the input's dtype, one by one in order, as PyTorch's kernel adds them
        host_numpy.add.at(counts, pos, w[inside].astype(h.dtype))
    if density:  # PyTorch's order: by the total, then by each bin's width (no value inside: NaN, silently)
        with host_numpy.errstate(invalid="ignore", divide="ignore"):
            counts = counts / counts.sum()
            counts = counts / host_numpy.diff(edges)
    return _histogram(constant(counts, x), constant(edges, x))
