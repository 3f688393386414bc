"""Indexing, gathering and sorting: ``x[index]``, ``mg.index_add``, ``mg.take``,
``mg.take_along_axis``, ``mg.sort``, ``mg.argsort``.

The ops (:mod:`minigrad_ckpt.ops.indexing`) save index arrays for backward,
so an index tensor's version is watched: changing it in place before
backward is an error, not a wrong gradient.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from ..ops import comparison as _cmp
from ..ops import indexing as _ix
from ..tape import apply, watch_versions
from ..tensor import Tensor, explain_index_error, normalize_index
from .arguments import as_tensor, broadcast_shapes, one_axis, refuse_complex, shape_arg
from .errors import IndexRefused, RefusedArgument, first_out_of_range
from .shape import broadcast_to, ravel, reshape

__all__ = ["getitem", "index_add", "take", "sort", "argsort", "take_along_axis"]


def getitem(x: Any, index: Any) -> Tensor:
    """``x[index]``: basic, integer-array and boolean indexing, as NumPy."""
    x = as_tensor(x)
    idx = normalize_index(index, x)
    op = _ix.GetItemCopy if _ix.advanced(idx) else _ix.GetItem  # a copy, or a view of x
    try:
        out = apply(op(index=idx, in_shape=x.shape), x)
    except IndexError:
        explain_index_error(index, x)  # NumPy refused an index array: PyTorch's words for it
        raise
    if out._node is not None:  # the op holds index tensors' arrays: watch them (host arrays were copied)
        watch_versions(out, _index_tensors(index))
    return out


def getitem_in_range(x: Tensor, index: tuple[Any, ...]) -> Tensor:
    """``x[index]`` for an index the engine made or has checked already: a tuple of slices and
    integer arrays on ``x``'s device, in range, placed as NumPy places them (no ints: PyTorch places
    those differently, :func:`getitem` does).  Nothing is read back from the device to check them
    again (``embedding``'s rows, a loss's picked classes, ``gather``'s positions: their callers
    checked them once), and the arrays are kept as they are: pass arrays nobody else changes."""
    return apply(_ix.GetItemCopy(index=index, in_shape=x.shape), x)


def _index_tensors(index: Any) -> list[Tensor]:
    return [it for it in (index if type(index) is tuple else (index,)) if isinstance(it, Tensor)]


def index_add(shape: Any, index: Any, values: Any, unique: bool = False) -> Tensor:
    """Zeros of ``shape`` with ``values`` accumulated at ``index`` (indexing's adjoint).

    ``unique`` mirrors the array backend's hint (no position repeats); the
    accumulation recorded here is exact either way, so it is not needed.
    An index as ``x[index]`` takes it is normalized (and checked) as there;
    a tuple of ints, slices and device arrays is taken as normalized and in
    range already (the engine's own calls: a gradient's scatter).
    """
    del unique
    values = as_tensor(values)
    shape = shape_arg(shape)
    watched = _index_tensors(index)
    xp = values.device.xp
    probe = Tensor._wrap(xp.broadcast_to(xp.zeros((), dtype=values.dtype), shape), None, values.device)
    given = index
    if not isinstance(index, tuple) or watched or (xp.wraps_bad_indices and _holds_host_data(index)):
        index = normalize_index(index, probe)  # (a device would wrap a bad index of host data silently)
    try:
        target = probe._data[index].shape
    except IndexError:
        explain_index_error(given, probe)  # NumPy refused an index array: PyTorch's words for it
        raise
    if values.shape != target:  # broadcast here, so the op's gradient has its input's shape
        values = broadcast_to(values, target)
    return watch_versions(apply(_ix.IndexAdd(shape=shape, index=index), values), watched)


def _holds_host_data(index: tuple) -> bool:
    """Whether an index tuple holds lists or host arrays: a caller's data, never the engine's."""
    return any(type(it) is list or isinstance(it, host_numpy.ndarray) for it in index)


def take(x: Any, indices: Any, axis: int | None = None) -> Tensor:
    """Elements of ``x`` at integer ``indices`` along ``axis`` (flattened for None)."""
    x = as_tensor(x)
    if isinstance(indices, Tensor) and indices._device is not x._device:  # (x[i] takes a CPU i; torch.take not)
        raise RuntimeError(f"take(): self and index expected to be in the same device, but got self.device = "
                           f"{x.device} and index.device = {indices.device}")
    if getattr(indices, "dtype", None) == host_numpy.uint8:  # numbers, as NumPy's take reads them (not x[i]'s mask)
        indices = indices.long() if isinstance(indices, Tensor) else indices.astype(host_numpy.int64)
    if axis is None:
        try:
            return getitem(reshape(x, (-1,)), (indices,))
        except IndexError:  # in torch.take's words (the error's path reads the indices again)
            flat = _host_values(indices, x)
            if flat.dtype.kind not in "iu" or not flat.size or (-x.size <= flat.min() and flat.max() < x.size):
                raise
            if not x.size:
                raise IndexError("take(): tried to take from an empty tensor") from None
            bad = first_out_of_range(flat, -x.size, x.size)
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {x.size} elements.") from None
    ax = one_axis(axis, x.ndim)
    return getitem(x, (slice(None),) * ax + (indices,))


def _host_values(indices: Any, like: Tensor) -> Any:
    """Indices (a Tensor, a device array or host data) as a host array: an explicit read."""
    xp = like.device.xp
    if isinstance(indices, Tensor):
        return indices.device.xp.to_host(indices._data)
    if isinstance(indices, xp.array_type) and xp.name != "numpy":
        return xp.to_host(indices)
    return host_numpy.asarray(indices)


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
    x = as_tensor(x)
    refuse_complex("sort", x)
    x, ax = _sort_axis("sort", x, axis, kind, order)
    return apply(_ix.Sort(axis=ax), x)


def argsort(x: Any, axis: int | None = -1, kind: str | None = None, order: Any = None) -> Tensor:
    """Indices that sort along ``axis`` (stable), an int64 tensor (not differentiable)."""
    x = as_tensor(x)
    refuse_complex("argsort", x)
    x, ax = _sort_axis("argsort", x, axis, kind, order)
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
        raise IndexRefused(f"{name}: indices must be integers, got {idx.dtype}")
    if name in _INDEX_DTYPES and idx.dtype not in _INDEX_DTYPES[name]:
        raise IndexRefused(f"{name}(): Expected dtype {' or '.join(str(d) for d in _INDEX_DTYPES[name])} for index, "
                           f"got {idx.dtype} (PyTorch's rule; cast the index: index.long())")
    return idx


_LONG = (host_numpy.dtype("int64"),)
_INT_OR_LONG = (host_numpy.dtype("int32"), host_numpy.dtype("int64"))
#: The index dtypes PyTorch's functions of these names take (NumPy's names, ``take_along_axis``, take any)
_INDEX_DTYPES = {"index_fill": _LONG, "index_copy": _LONG, "put": _LONG, "take_along_dim": _LONG,
                 **dict.fromkeys(("index_add", "index_reduce", "index_select", "gather", "scatter", "scatter_add",
                                  "scatter_reduce"), _INT_OR_LONG)}


def take_along_axis(arr: Any, indices: Any, axis: int | None = -1) -> Tensor:
    """``arr`` gathered at ``indices`` along ``axis`` (NumPy's ``take_along_axis``).

    ``indices`` has ``arr``'s rank and broadcasts against it on the other axes;
    negative indices count from the end; out-of-range ones raise ``IndexError``
    (checked in one read on a device, whose gather would wrap them; NumPy's
    gather refuses them itself on the CPU).  The gradient scatters back,
    accumulating repeated indices.
    """
    return _take_along(arr, indices, axis, check=True)


def take_along_axis_in_range(arr: Any, indices: Any, axis: int | None = -1, like: Tensor | None = None) -> Tensor:
    """:func:`take_along_axis` at indices the engine made in range (an ``argmax``, an ``argsort``,
    a pooling window's): nothing is read back from the device to check them (``x.max(dim)``,
    ``sort``, ``topk`` would each wait for the GPU).  ``like`` (a max pooling's input, which ``arr``
    is made from) keeps the gradient on its graph, derivative 0 (:class:`~..ops.indexing.TakeAlongAxisOnGraph`)."""
    return _take_along(arr, indices, axis, check=False, like=like)


def _take_along(arr: Any, indices: Any, axis: int | None, check: bool, like: Tensor | None = None) -> Tensor:
    arr = as_tensor(arr)
    idx = _index_array("take_along_axis", indices, arr)
    if axis is None:
        if idx.ndim != 1:
            raise ValueError("take_along_axis: with axis=None, indices must be 1-D")
        arr, ax = ravel(arr), 0
    else:
        ax = one_axis(axis, arr.ndim)
    if idx.ndim != arr.ndim:
        raise RefusedArgument(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                              f"but got {arr.ndim} dimensions for input, and {idx.ndim} dimensions for indices")
    others = broadcast_shapes("take_along_axis",
                               tuple(1 if i == ax else n for i, n in enumerate(arr.shape)),
                               tuple(1 if i == ax else n for i, n in enumerate(idx.shape)))
    n = arr.shape[ax]
    xp = arr.device.xp
    data = idx._data
    if check and data.size and xp.wraps_bad_indices:
        ((lo, hi),) = xp.extrema([data])
        if lo < -n or hi >= n:
            raise _out_of_axis(xp, data, ax, n)  # (never None here)
    a_shape = tuple(n if i == ax else s for i, s in enumerate(others))
    i_shape = tuple(idx.shape[ax] if i == ax else s for i, s in enumerate(others))
    if arr.shape != a_shape:
        arr = broadcast_to(arr, a_shape)
    if tuple(data.shape) != i_shape:
        data = xp.ascontiguousarray(xp.broadcast_to(data, i_shape))
    # The op saves the indices: when they are still the caller's array, pass the caller's tensor
    # (its version box), so an in-place change before backward is caught.
    indices_t = idx if data is idx._data else Tensor._wrap(data, None, arr.device)
    try:
        if like is not None and like.requires_grad:  # (a constant like has no graph to stay on)
            return apply(_ix.TakeAlongAxisOnGraph(axis=ax, in_shape=a_shape), arr, indices_t, like)
        return apply(_ix.TakeAlongAxis(axis=ax, in_shape=a_shape), arr, indices_t)
    except IndexError:  # NumPy refused an index: in the words of the check above
        error = _out_of_axis(xp, data, ax, n) if check else None
        if error is None:
            raise
        raise error from None


def _out_of_axis(xp: Any, data: Any, axis: int, n: int) -> IndexError | None:
    """The error for indices ``data`` if one is out of ``[-n, n)`` (the error's path reads them)."""
    flat = xp.to_host(data).reshape(-1)
    if not ((flat < -n) | (flat >= n)).any():
        return None
    bad = first_out_of_range(flat, -n, n)
    return IndexError(f"take_along_axis: index {bad} is out of bounds for axis {axis} with size {n}")
