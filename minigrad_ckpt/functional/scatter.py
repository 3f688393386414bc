"""PyTorch's gather/scatter family: ``gather``, ``scatter``, ``scatter_add``, ``scatter_reduce``,
``index_add``, ``index_copy``, ``index_fill``, ``index_reduce``, ``index_put``, ``index_select``,
``masked_fill``, ``masked_select``, ``masked_scatter``, ``put``, ``nonzero``, ``argwhere``.

Every function here is a composition of differentiable ops (``getitem``, its adjoint
``index_add``, ``where``, the reductions), so backward, forward mode and higher derivatives
come from those ops.  Each first turns its index into *flat target positions* -- where in
the output each written element lands -- and then does one of three things:

* **accumulate** (``scatter_add``, ``index_add``, ``index_put(accumulate=True)``): the
  values added at their targets; a repeated target gets the sum;
* **overwrite** (``scatter``, ``index_copy``, ``index_put``, ``masked_scatter``, ``put``):
  the values written at their targets; where a target repeats, the *last* write in index
  order wins (PyTorch leaves that case undefined) and only it gets a gradient;
* **reduce** (``scatter_reduce``, ``index_reduce``): the values at each target laid out in
  the row of a dense ``(targets, slots)`` table (a gather) and reduced along the row with
  ``sum``/``prod``/``mean``/``max``/``min``, so ``amax``'s ties share the gradient
  evenly, as PyTorch's.

The index bookkeeping (which position each element targets, which write wins) is integer
work on the host, as an index's data-dependent shape needs anyway; the values never leave
their device.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

from ..backend import ValueOverflow, checked_int, host_numpy, overflow_words, scalar_type_name
from ..out_arguments import rule, with_out
from ..tape import watch_versions
from ..tensor import Tensor, index_put_shape_mismatch, value_fits_region
from . import math as mf
from .arguments import as_tensor, broadcast_shapes, number, one_device, operand
from .complex_numbers import real
from .errors import (
    BoolMaskRequired,
    DtypeNotImplemented,
    IndexOutOfBounds,
    IndexRefused,
    RefusedArgument,
    first_out_of_range,
)
from .indexing import _index_array, getitem_in_range, index_add
from .torch_idioms import _one_dim

_UNSET: Any = object()
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def host(t: Tensor) -> Any:
    """A tensor's values as a NumPy array on the host (an explicit copy off a GPU)."""
    return t.device.xp.to_host(t._data)


def constant(array: Any, like: Tensor) -> Tensor:
    """A host array as a constant tensor on ``like``'s device."""
    return Tensor._wrap(like.device.xp.asarray(array), None, like.device)


# ----------------------------------------------------------------- targets
def _dim_targets(name: str, x: Tensor, dim: Any, index: Any, src: Tensor | None = None) -> tuple[Any, Tensor]:
    """Flat positions in ``x`` of each element of a gather/scatter ``index`` along ``dim``.

    PyTorch's rules: ``index`` has ``x``'s rank; on every other dim it is no longer than
    ``x`` (and on every dim no longer than ``src``); its values lie in ``[0, x.shape[dim])``.
    An index tensor with no elements is exempt, as PyTorch's kernels skip every check of it
    (its dtype, rank and shape) once ``dim`` is valid: it reads and writes nothing.
    Returns the targets (a host array of ``index``'s shape) and the index tensor.
    """
    d = _one_dim(name, x, dim)
    index_shape = tuple(index.shape) if hasattr(index, "shape") else host_numpy.shape(index)
    if 0 in index_shape:
        return host_numpy.zeros(index_shape, host_numpy.int64), index
    idx = _index_array(name, index, x)
    h = host(idx).astype(host_numpy.int64)
    shape = x.shape or (1,)
    hs = h.shape or (1,)  # (PyTorch counts a 0-d tensor as one of one element: ranks 0 and 1 meet)
    if len(hs) != len(shape):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                           f"{'input' if name == 'gather' else 'self'} tensor ({name}: index has {h.ndim} dims, "
                           f"the input {x.ndim})")
    src_shape = None if src is None else (src.shape or (1,))
    if src_shape is not None and len(src_shape) != len(hs):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as src tensor "
                           f"({name}: index has {h.ndim} dims, src {src.ndim})")
    for k, (ni, nx) in enumerate(zip(hs, shape)):
        if k != d and ni > nx:
            raise RuntimeError(f"{_longer_index(name, hs, shape, d, src_shape, k)} ({name}: index is longer than "
                               f"the input on dim {k} ({ni} > {nx}))")
        if src_shape is not None and ni > src_shape[k]:
            raise RuntimeError(f"{_longer_index(name, hs, shape, d, src_shape, k)} ({name}: index is longer than "
                               f"src on dim {k} ({ni} > {src_shape[k]}))")
    n = shape[d]
    if h.size and (h.min() < 0 or h.max() >= n):
        raise IndexOutOfBounds(f"index {first_out_of_range(h, 0, n)} is out of bounds for dimension {d} with size {n}")
    grids = list(host_numpy.indices(hs, sparse=True))
    grids[d] = h.reshape(hs)
    return host_numpy.ravel_multi_index(tuple(grids), shape).reshape(h.shape), idx


def _longer_index(name: str, index: tuple, shape: tuple, d: int, src: tuple | None, k: int) -> str:
    """PyTorch's words for an index longer than the input (off ``dim``) or than ``src`` on dim ``k``:
    gather's kernel names the dim, scatter's names both shapes."""
    if name == "gather":
        return (f"Size does not match at dimension {k} expected index {list(index)} to be no larger than self "
                f"{list(shape)} apart from dimension {d}")
    words = f"Expected index {list(index)} to be no larger than self {list(shape)} apart from dimension {d}"
    return words if src is None else f"{words} and to be no larger size than src {list(src)}"


def _leading(src: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``src``'s leading block of ``shape`` (what an index of that shape reads), flattened (a 0-d
    ``src`` is its one element, as PyTorch reads it; an empty index reads nothing, whatever
    ``src``'s rank)."""
    if 0 in shape:
        return mf.ravel(src)[:0]
    if not src.ndim:
        return mf.reshape(src, (1,))
    if src.shape != shape:
        src = src[tuple(slice(0, s) for s in shape)]
    return mf.ravel(src)


def _flat_index(tgt: Any, like: Tensor) -> tuple[Any]:
    """Flat positions made (and checked) on the host, as the index of a device gather or scatter that
    does not check them again (a device would wait for a read of each)."""
    return (like.device.xp.asarray(host_numpy.ascontiguousarray(tgt, dtype=host_numpy.int64).ravel()),)


# ------------------------------------------------------- the three writes
def _in_dtype_of(x: Tensor, values: Tensor) -> Tensor:
    """``values`` cast to ``x``'s dtype, the written tensor's (PyTorch's rule) -- except complex
    values into a real tensor, refused as PyTorch does: the cast would drop the imaginary
    parts with only NumPy's ComplexWarning."""
    if values.dtype == x.dtype:
        return values
    if values.dtype.kind == "c" and x.dtype.kind != "c":
        raise RuntimeError(f"cannot write {values.dtype} values into a {x.dtype} tensor: the imaginary "
                           f"parts would be lost (make the tensor complex first, x.to({values.dtype.name}))")
    return mf.astype(values, x.dtype)


def same_dtype(name: str, x: Tensor, source: Any) -> Tensor:
    """``source`` as a tensor of ``x``'s dtype, by PyTorch's rule for the ops that write a source
    tensor (``index_add``, ``scatter``, ``index_put``, ...): a Tensor of another dtype is refused
    -- a cast would truncate silently (a float source added into an integer tensor).  A list or
    array (which PyTorch does not take) is converted where that loses nothing of its kind."""
    if not isinstance(source, Tensor):
        source = as_tensor(source)
        if source.dtype != x.dtype and host_numpy.can_cast(source.dtype, x.dtype, "same_kind"):
            source = mf.astype(source, x.dtype)
    if source.dtype != x.dtype:
        lost = " (a cast would lose its imaginary part)" if source.dtype.kind == "c" and x.dtype.kind != "c" else ""
        words = _DTYPE_WORDS.get(name, _DTYPE_WORDS["scatter"])(scalar_type_name(x.dtype),
                                                                 scalar_type_name(source.dtype))
        raise RuntimeError(f"{words} ({name}: self ({x.dtype}) and source ({source.dtype}) must have the same "
                           f"dtype, as PyTorch's{lost}; cast one of them (source.to({x.dtype.name})))")
    return source


# PyTorch's words for a source of another dtype than the tensor written, op by op (its kernels differ)
_DTYPE_WORDS = {
    "scatter": lambda a, b: "scatter(): Expected self.dtype to be equal to src.dtype",
    "index_add": lambda a, b: f"index_add_(): self ({a}) and source ({b}) must have the same scalar type",
    "index_reduce": lambda a, b: f"index_reduce_(): self ({a}) and source ({b}) must have the same scalar type",
    "index_copy": lambda a, b: (f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                                f"{a} and (source) {b}"),
    "index_put": lambda a, b: (f"Index put requires the source and destination dtypes match, got {a} for the "
                               f"destination and {b} for the source."),
    "put": lambda a, b: (f"put_(): self and source expected to have the same dtype, but got self.dtype = {a} and "
                         f"source.dtype = {b}"),
    "masked_scatter": lambda a, b: f"masked_scatter: expected self and source to have same dtypes but got{a} and {b}",
}


def fill_value(name: str, value: Any, x: Tensor) -> Tensor:
    """A fill ``value`` (a number or a 0-d tensor) as a 0-d tensor of ``x``'s dtype: PyTorch's
    rule for ``masked_fill``, ``index_fill`` and ``scatter(value=)``, whose result keeps the
    input's dtype (2.7 into an integer tensor writes 2, as C's cast).  Refused as PyTorch
    does: a tensor of more dimensions, a complex value into a real tensor unless its imaginary
    part is 0 (any complex value for ``index_fill``), and a number the dtype cannot hold (300
    into uint8, NaN into integers, 1e40 into float32)."""
    value = operand(value, x)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"{name}_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} "
                               f"dimension(s).")
        if value.device != x.device:  # PyTorch reads it as a number (.item()), from any device
            value = value.to(x.device)
        if value.dtype.kind == "c" and x.dtype.kind != "c":
            _real_part_fits(name, complex(host(value)), x)  # PyTorch reads the number too (.item())
            value = real(value) if x.dtype.kind != "b" else value != 0
        return value if value.dtype == x.dtype else mf.astype(value, x.dtype)
    if isinstance(value, complex) and x.dtype.kind != "c":
        value = _real_part_fits(name, value, x)
    if x.dtype.kind in "iu" and isinstance(value, (int, host_numpy.integer)) and not isinstance(value, bool):
        value = checked_int(name, value, x.dtype)  # (-1 into uint8 is 255, as PyTorch's)
    if not _fits(value, x.dtype):
        raise ValueOverflow(f"{overflow_words(x.dtype)} ({name}: the value {value!r} does not fit {x.dtype})")
    return constant(host_numpy.asarray(value).astype(x.dtype), x)


def _real_part_fits(name: str, value: complex, x: Tensor) -> float:
    """A complex fill value for a real ``x``, as PyTorch converts a complex number there: its real
    part where the imaginary part is 0 (``masked_fill``, ``scatter``), else its error -- but whether
    it is nonzero for a bool ``x``; ``index_fill`` converts none."""
    if name == "index_fill":
        raise RuntimeError(f"index_fill: converting the complex value {value!r} to {x.dtype} is not supported, "
                           f"as PyTorch's (an imaginary part would be lost)")
    if x.dtype.kind == "b":
        return value != 0  # (a bool holds any number: 1j is True)
    if value.imag != 0:
        raise RuntimeError(f"{overflow_words(x.dtype)} ({name}: the value {value!r} into {x.dtype}: its imaginary "
                           f"part would be lost)")
    return value.real


def _fits(number: Any, dtype: Any) -> bool:
    """Whether ``dtype`` holds the Python number (bool holds any real number)."""
    if isinstance(number, complex):
        number = abs(number)
    if dtype.kind in "iu":
        info = host_numpy.iinfo(dtype)
        return bool(host_numpy.isfinite(number)) and info.min <= number <= info.max
    if dtype.kind in "fc" and host_numpy.isfinite(number):
        return abs(number) <= float(host_numpy.finfo(dtype).max)
    return True


def accumulate(x: Tensor, tgt: Any, values: Tensor) -> Tensor:
    """``x`` with ``values`` (flat, one per target) added at flat positions ``tgt``."""
    values = _in_dtype_of(x, values)
    added = index_add((x.size,), _flat_index(tgt, x), values)
    return x + mf.reshape(added, x.shape)


def overwrite(x: Tensor, tgt: Any, values: Any) -> Tensor:
    """``x`` with ``values`` written at flat positions ``tgt`` (a tensor: one value per
    target, the last write winning where a target repeats; a scalar: written everywhere)."""
    tgt = host_numpy.asarray(tgt, dtype=host_numpy.int64).ravel()
    hit = host_numpy.zeros(x.size, bool)
    hit[tgt] = True
    if not isinstance(values, Tensor) or values.ndim == 0:
        return mf.where(constant(hit.reshape(x.shape), x), operand(values, x), x)
    last = host_numpy.zeros(x.size, host_numpy.int64)  # (0 where nothing is written: masked out below)
    last[tgt] = host_numpy.arange(tgt.size)  # NumPy assigns repeated positions in order: the last stays
    if tgt.size:  # a gather, not an index_add into zeros: a copy keeps its bits (0.0 + -0.0 is 0.0)
        placed = getitem_in_range(values, _flat_index(last, x))
    else:  # nothing written; the empty values stay in the graph, with their (empty) gradient
        placed = index_add((x.size,), _flat_index(tgt, x), values)
    placed = _in_dtype_of(x, placed)
    return mf.where(constant(hit.reshape(x.shape), x), mf.reshape(placed, x.shape), x)


def _identity(reduce: str, dtype: Any) -> Any:
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -host_numpy.inf if reduce == "amax" else host_numpy.inf
    if dtype.kind == "b":
        return reduce == "amin"  # any / all
    info = host_numpy.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:  # (complex: PyTorch has no kernel, its NotImplementedError; a TypeError here before: both)
        raise DtypeNotImplemented(f"{reduce}: not defined for {dtype} (PyTorch's scatter_reduce and index_reduce "
                                  f"have no {reduce} of complex numbers)")
    return info.min if reduce == "amax" else info.max


def reduce_at(x: Tensor, tgt: Any, values: Tensor, reduce: str, include_self: bool) -> Tensor:
    """``x`` where no value targets it; elsewhere the ``reduce`` of the values targeting
    each position (and of ``x``'s own value there if ``include_self``)."""
    if reduce not in _REDUCTIONS:
        raise RefusedArgument(f"reduce must be one of {_REDUCTIONS}, got {reduce!r}")  # torch's RuntimeError
    if reduce == "mean" and x.dtype.kind == "b":  # PyTorch has no kernel for a mean of bools
        raise DtypeNotImplemented("scatter_reduce / index_reduce: 'mean' is not implemented for bool tensors")
    tgt = host_numpy.asarray(tgt, dtype=host_numpy.int64).ravel()
    values = _in_dtype_of(x, values)
    if tgt.size == 0:  # nothing written; the (empty) values stay on the graph: an empty gradient, not None
        out = mf.clone(x)
        return out - mf.sum(values) if values.requires_grad and x.dtype.kind in "fc" else out  # x - 0 is x, -0.0 too
    counts = host_numpy.bincount(tgt, minlength=x.size)
    order = host_numpy.argsort(tgt, kind="stable")
    rank = host_numpy.arange(tgt.size) - (host_numpy.cumsum(counts) - counts)[tgt[order]]
    lead = int(include_self)
    table = host_numpy.full((x.size, int(counts.max()) + lead), tgt.size + x.size)  # the identity's slot
    table[tgt[order], rank + lead] = order
    if include_self:
        table[:, 0] = tgt.size + host_numpy.arange(x.size)
    ident = Tensor._wrap(x.device.xp.full((1,), _identity(reduce, x.dtype), dtype=x.dtype), None, x.device)
    rows = getitem_in_range(mf.concatenate([values, mf.ravel(x), ident]), (x.device.xp.asarray(table),))
    if reduce in ("sum", "mean"):  # integers summed in their own dtype, wrapping as PyTorch's before a mean divides
        out = mf.sum(rows, axis=-1, dtype=x.dtype if x.dtype.kind in "iu" else None)
        if reduce == "mean":
            n = constant(host_numpy.maximum(counts + lead, 1).astype(x.dtype), x)
            out = out // n if x.dtype.kind in "iu" else out / n  # (exact: a float quotient would round)
    else:
        out = {"prod": mf.prod, "amax": mf.max, "amin": mf.min}[reduce](rows, axis=-1)
    hit = constant((counts > 0).reshape(x.shape), x)
    return mf.where(hit, mf.astype(mf.reshape(out, x.shape), x.dtype), x)


# ------------------------------------------------------------ along a dim
def gather(input: Any, dim: int, index: Any, *, sparse_grad: bool = False) -> Tensor:  # noqa: A002
    """The elements of ``input`` at ``index`` along ``dim`` (``torch.gather``): ``out[i][j] =
    input[index[i][j]][j]`` for ``dim=0``.  ``index`` has ``input``'s rank and is no longer on
    the other dims; the result has ``index``'s shape.  The gradient scatters back, adding
    where an index repeats.  ``sparse_grad`` is accepted (gradients here are dense)."""
    x = as_tensor(input)
    tgt, _ = _dim_targets("gather", x, dim, index)
    return mf.reshape(getitem_in_range(mf.ravel(x), _flat_index(tgt, x)), tgt.shape)


def _source(name: str, src: Any, value: Any) -> Any:
    if (src is _UNSET) == (value is _UNSET):
        raise TypeError(f"{name}: pass exactly one of src (a tensor) and value (a number)")
    return value if src is _UNSET else src


def scatter(input: Any, dim: int, index: Any, src: Any = _UNSET, *, value: Any = _UNSET,  # noqa: A002
            reduce: str | None = None) -> Tensor:
    """``input`` with ``src``'s elements (or the number ``value``) written at ``index`` along
    ``dim`` (``torch.scatter``): ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``.  Where an
    index repeats the last write wins.  ``reduce="add"``/``"multiply"`` accumulate instead.
    Gradients: to ``input`` where nothing was written, to each written ``src`` element."""
    x = as_tensor(input)
    s = _source("scatter", src, value)
    scalar_value = src is _UNSET and isinstance(s, Tensor) and s.ndim == 0  # value=tensor(2.5): PyTorch's Scalar
    if not scalar_value and (isinstance(s, Tensor) or host_numpy.ndim(s)):
        s = same_dtype("scatter", x, s)
        tgt, _ = _dim_targets("scatter", x, dim, index, s)
        vals = _leading(s, tgt.shape)
        if reduce is None:
            return overwrite(x, tgt, vals)
    else:
        tgt, _ = _dim_targets("scatter", x, dim, index)
        s = fill_value("scatter", s, x)
        if reduce is None:
            return overwrite(x, tgt, s)
        vals = mf.broadcast_to(s, (tgt.size,))
    if reduce == "add":
        return accumulate(x, tgt, vals)
    if reduce == "multiply":
        return reduce_at(x, tgt, vals, "prod", True)
    raise RefusedArgument(f"scatter: reduce must be 'add' or 'multiply', got {reduce!r} (see scatter_reduce)")


def scatter_add(input: Any, dim: int, index: Any, src: Any) -> Tensor:  # noqa: A002
    """``input`` with ``src``'s elements added at ``index`` along ``dim`` (``torch.scatter_add``);
    repeated indices accumulate."""
    x = as_tensor(input)
    s = same_dtype("scatter_add", x, src)
    tgt, _ = _dim_targets("scatter_add", x, dim, index, s)
    return accumulate(x, tgt, _leading(s, tgt.shape))


def scatter_reduce(input: Any, dim: int, index: Any, src: Any, reduce: str, *,  # noqa: A002
                   include_self: bool = True) -> Tensor:
    """``torch.scatter_reduce``: each position of ``input`` that ``index`` targets along ``dim``
    becomes the ``reduce`` (``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``) of the
    ``src`` elements sent there, and of its own value if ``include_self``; the others keep
    theirs.  ``amax``/``amin`` share the gradient evenly among tied elements, as PyTorch."""
    x = as_tensor(input)
    s = same_dtype("scatter_reduce", x, src)
    tgt, _ = _dim_targets("scatter_reduce", x, dim, index, s)
    return reduce_at(x, tgt, _leading(s, tgt.shape), reduce, include_self)


def _along(name: str, x: Tensor, dim: int, index: Any, rows: tuple[int, ...] | None = None) -> tuple[Any, int]:
    """The scatter index of ``index_*``: the 1-D ``index`` repeated over every other dim,
    for a source of ``x``'s shape with ``len(index)`` rows along ``dim``."""
    d = _one_dim(name, x, dim)
    idx = host(_index_array(name, index, x)).astype(host_numpy.int64)
    if idx.ndim > 1:  # PyTorch's IndexError, but index_fill's RuntimeError: both
        raise IndexRefused(f"{name}: index must be 1-D (or 0-d), got {idx.ndim} dims")
    idx = idx.reshape(-1)
    n = (x.shape or (1,))[d]
    lowest = -n if name == "index_fill" else 0  # PyTorch's index_fill alone counts from the end
    if idx.size and (idx.min() < lowest or idx.max() >= n):
        raise _OUT_OF_RANGE[name](first_out_of_range(idx, lowest, n), d, n)
    idx = host_numpy.where(idx < 0, idx + n, idx)
    if x.ndim == 0:
        return idx.reshape(()) if idx.size == 1 else idx, d
    shape = list(x.shape)
    shape[d] = idx.size
    view = [1] * x.ndim
    view[d] = idx.size
    grids = list(host_numpy.indices(shape, sparse=True))
    grids[d] = idx.reshape(view)
    return host_numpy.ravel_multi_index(tuple(grids), x.shape), d


# PyTorch's words for an index out of range, op by op (its kernels differ; the types are its own)
_OUT_OF_RANGE = {
    "index_add": lambda i, d, n: IndexOutOfBounds(f"index {i} is out of bounds for dimension {d} with size {n}"),
    "index_copy": lambda i, d, n: IndexError(f"index_copy_(): index {i} is out of bounds for dimension {d} "
                                             f"with size {n}"),
    "index_fill": lambda i, d, n: IndexError(f"index {i} is out of bounds for dimension {d} with size {n}"),
    "index_reduce": lambda i, d, n: IndexError("index out of range in self"),
    # torch's IndexError along dim 0, its RuntimeError ("INDICES element is out of DATA bounds") along others
    "index_select": lambda i, d, n: IndexOutOfBounds("index out of range in self"),
}


def _matching_source(name: str, x: Tensor, source: Any, tgt: Any, d: int) -> Tensor:
    s = same_dtype(name, x, source)
    loose = _loose_source(name, x.ndim, s.ndim)
    if s.size != tgt.size or (not loose and (x.ndim == 0 or s.shape != tgt.shape)):  # (0-d: loose or refused)
        # PyTorch's RuntimeError (index_copy's count of indices: its IndexError)
        raise IndexOutOfBounds(f"{_source_misfit(name, x.shape, s.shape, tgt.shape, d)} ({name}: source has shape "
                               f"{s.shape}; the input's shape {x.shape} with the index's length on dim {d} is "
                               f"{tgt.shape})")
    return mf.ravel(s)


def _loose_source(name: str, ndim: int, source_ndim: int) -> bool:
    """Whether a source is matched by its size alone, not its shape, as PyTorch's checks do:
    index_copy's 0-d source fills one row, and a 0-d input takes index_copy's 0-d or 1-D source.
    index_add and index_reduce hold a 0-d input to a 0-d source (PyTorch refuses their 1-D one)."""
    if name == "index_copy":
        return source_ndim == 0 or (ndim == 0 and source_ndim == 1)
    return ndim == 0 and source_ndim == 0


def _source_misfit(name: str, shape: tuple, source: tuple, fits: tuple, d: int) -> str:
    """PyTorch's words for a source of shape ``source`` that does not fit ``shape`` with the index's
    length on dim ``d`` (``fits``): the count of indices first, then the other dims, as its checks run."""
    n = fits[d] if fits else 1
    count = source[d] if d < len(source) else 1
    if name == "index_copy":
        if source and shape and len(source) != len(shape):
            return (f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                    f"match. Source dimensionality ({len(source)}), destination dimensionality ({len(shape)})")
        if count != n:
            return f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({count})"
        rest, rest_source = shape[:d] + shape[d + 1:], source[:d] + source[d + 1:]
        # (a 0-d source has no slice: PyTorch writes nothing for its size)
        i, (a, b) = next((i, ab) for i, ab in enumerate(zip_longest(rest, rest_source, fillvalue="")) if ab[0] != ab[1])
        return (f"index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
                f"{a} at dimension {i} and source slice shape: {b} at dimension {i}.")
    if count != n:
        return f"{name}_(): Number of indices ({n}) should be equal to source.size(dim): ({count}), for dim: {d}"
    return (f"source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape "
            f"= {list(shape)} source.shape = {list(source)}")


def index_add_along(input: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``torch.index_add``: ``input`` with ``alpha * source`` added at the rows ``index``
    along ``dim`` (``source`` is ``input``'s shape with ``len(index)`` rows there); repeated
    indices accumulate.  (``mg.index_add`` is this; ``mg.functional.index_add`` is the
    adjoint of indexing, ``index_add(shape, index, values)``.)"""
    alpha = number("index_add", "alpha", alpha)
    x = as_tensor(input)
    tgt, d = _along("index_add", x, dim, index)
    s = _matching_source("index_add", x, source, tgt, d)
    if alpha == 1:
        return accumulate(x, tgt, s)
    if x.dtype.kind in "iub":  # alpha in the tensor's dtype first, as PyTorch's kernel: 2.5 is 2 for integers
        alpha = fill_value("index_add", alpha, x)
    return accumulate(x, tgt, s * alpha)


def index_copy(input: Any, dim: int, index: Any, source: Any) -> Tensor:  # noqa: A002
    """``torch.index_copy``: ``input`` with the rows ``index`` along ``dim`` replaced by
    ``source``'s rows (the last one wins where an index repeats)."""
    x = as_tensor(input)
    tgt, d = _along("index_copy", x, dim, index)
    return overwrite(x, tgt, _matching_source("index_copy", x, source, tgt, d))


def index_fill(input: Any, dim: int, index: Any, value: Any) -> Tensor:  # noqa: A002
    """``torch.index_fill``: ``input`` with the rows ``index`` along ``dim`` set to ``value``
    (a number or a 0-d tensor, which gets their gradient)."""
    x = as_tensor(input)
    tgt, _ = _along("index_fill", x, dim, index)
    return overwrite(x, tgt, fill_value("index_fill", value, x))


def index_reduce(input: Any, dim: int, index: Any, source: Any, reduce: str, *,  # noqa: A002
                 include_self: bool = True) -> Tensor:
    """``torch.index_reduce``: the rows ``index`` along ``dim`` become the ``reduce``
    (``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``) of ``source``'s rows sent there (and of
    their own values if ``include_self``)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RefusedArgument(f"index_reduce: reduce must be 'prod', 'mean', 'amax' or 'amin', got {reduce!r}")
    x = as_tensor(input)
    tgt, d = _along("index_reduce", x, dim, index)
    return reduce_at(x, tgt, _matching_source("index_reduce", x, source, tgt, d), reduce, include_self)


def index_select(input: Any, dim: int, index: Any) -> Tensor:  # noqa: A002
    """``torch.index_select``: the rows ``index`` (1-D) along ``dim``."""
    x = as_tensor(input)
    d = _one_dim("index_select", x, dim)
    idx = _index_array("index_select", index, x)
    if idx.ndim > 1:
        raise IndexError(f"index_select: index must be 1-D (or 0-d), got {idx.ndim} dims")
    n, h = (x.shape[d] if x.ndim else 1), host(idx)
    if h.size and n == 0:  # PyTorch's RuntimeError before its range check's IndexError: both
        raise IndexOutOfBounds(f"index_select(): self indexing axis dim should be positive (dim {d} is empty)")
    if h.size and (h.min() < 0 or h.max() >= n):  # no counting from the end, as PyTorch's
        raise _OUT_OF_RANGE["index_select"](first_out_of_range(h, 0, n), d, n)
    if x.ndim == 0:
        if idx.size != 1:
            raise IndexRefused(f"index_select: a 0-d input takes one index, got {idx.size} (PyTorch's rule)")
        # the answer keeps the input's 0 dims whatever the index's rank (torch's: x.index_select(0, [0]) is 0-d)
        return mf.reshape(mf.getitem(mf.reshape(x, (1,)), (mf.reshape(idx, (-1,)),)), ())
    out = getitem_in_range(x, (slice(None),) * d + (idx._data.reshape(-1),))  # (checked above)
    if out._node is not None and isinstance(index, Tensor):  # the op holds the caller's indices: watch them
        watch_versions(out, [index])
    return out


# ------------------------------------------------------- by index or mask
def _flat_targets_of_index(name: str, x: Tensor, indices: Any) -> Any:
    """Flat positions of ``x[indices]`` (a tuple of integer or bool index tensors).  A ``None`` entry
    is ATen's optional index: the whole of its dim (``aten.index_put(x, [None, i], v)`` writes
    ``x[:, i]``), not ``x[None]``'s new dim, which would write other positions silently."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}: indices must be a tuple of index tensors")
    positions = constant(host_numpy.arange(x.size).reshape(x.shape), x)
    return host(mf.getitem(positions, tuple(slice(None) if i is None else i for i in indices)))


def index_put(input: Any, indices: Any, values: Any, accumulate: bool = False) -> Tensor:  # noqa: A002
    """``torch.index_put``: ``input`` with ``values`` (broadcast to ``input[indices]``'s shape)
    written at ``indices`` -- or added there, repeated positions accumulating, if
    ``accumulate``.  ``x[indices] = values`` without changing ``x``."""
    x, values = one_device("index_put", as_tensor(input), values)  # (a CPU scalar value broadcasts on x's device)
    tgt = _flat_targets_of_index("index_put", x, indices)
    if isinstance(values, Tensor) or host_numpy.ndim(values):
        values = same_dtype("index_put", x, values)
    else:  # a number (which PyTorch does not take): written in x's dtype, as a fill value
        values = fill_value("index_put", values, x)
    if not value_fits_region(values.shape, tgt.shape, leading_ones=False):  # (broadcast_to: expand's words)
        raise index_put_shape_mismatch(values.shape, tgt.shape)
    v = mf.ravel(mf.broadcast_to(values, tgt.shape))
    return globals()["accumulate"](x, tgt, v) if accumulate else overwrite(x, tgt, v)


def put(input: Any, index: Any, source: Any, accumulate: bool = False) -> Tensor:  # noqa: A002
    """``torch.put``: ``input`` seen flat, with ``source``'s elements written at ``index``
    (negative counts from the end), or added there if ``accumulate``."""
    x = as_tensor(input)
    idx = host(_index_array("put", index, x)).astype(host_numpy.int64).ravel()
    if idx.size and (idx.min() < -x.size or idx.max() >= x.size):
        raise IndexError(f"out of range: tried to access index {first_out_of_range(idx, -x.size, x.size)} "
                         f"on a tensor of {x.size} elements.")
    s = same_dtype("put", x, source)
    if s.size != idx.size:  # PyTorch's IndexError (a RuntimeError here before: both)
        raise IndexRefused(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {s.size}, index.numel() = {idx.size}")
    tgt = host_numpy.where(idx < 0, idx + x.size, idx)
    return globals()["accumulate"](x, tgt, mf.ravel(s)) if accumulate else overwrite(x, tgt, mf.ravel(s))


def _not_bool_mask(name: str, dtype: Any) -> str:
    """PyTorch's words for a mask that is not bool: ``masked_select`` has its own sentence; ``masked_fill``
    and ``masked_scatter`` name their in-place kernels (``masked_fill_``), as torch 2.13's do."""
    if name == "masked_select":
        return f"masked_select: expected BoolTensor for mask (got a mask of dtype {dtype})"
    return f"{name}_ only supports boolean masks, but got mask with dtype {dtype} ({name}: mask must be a bool tensor)"


def _mask(name: str, mask: Any, x: Tensor) -> Tensor:
    m = as_tensor(mask)
    if m.dtype.kind != "b":
        raise BoolMaskRequired(_not_bool_mask(name, m.dtype))
    if m.device is not x.device:
        raise RuntimeError(f"{name}: mask is on {m.device}, the tensor on {x.device}")
    return m


def masked_fill(input: Any, mask: Any, value: Any) -> Tensor:  # noqa: A002
    """``value`` where ``mask`` (broadcast) is true, ``input`` elsewhere (``torch.masked_fill``),
    in ``input``'s dtype (:func:`fill_value`); the gradient flows where it is false (and to a
    tensor ``value`` where it is true)."""
    x = as_tensor(input)
    return mf.where(_mask("masked_fill", mask, x), fill_value("masked_fill", value, x), x)


def masked_select(input: Any, mask: Any) -> Tensor:  # noqa: A002
    """The elements of ``input`` where ``mask`` is true, as a 1-D tensor (the two broadcast
    against each other first), as ``torch.masked_select``."""
    x = as_tensor(input)
    m = _mask("masked_select", mask, x)
    shape = broadcast_shapes("masked_select", x.shape, m.shape)
    x = mf.broadcast_to(x, shape) if x.shape != shape else x
    m = mf.broadcast_to(m, shape) if m.shape != shape else m
    return mf.getitem(mf.ravel(x), (mf.ravel(m),))


def masked_scatter(input: Any, mask: Any, source: Any) -> Tensor:  # noqa: A002
    """``torch.masked_scatter``: ``input`` with the positions where ``mask`` is true filled, in
    order, by ``source``'s leading elements; ``input`` and ``mask`` broadcast together, as
    PyTorch's (a (5,) input under a (5, 5) mask gives (5, 5))."""
    x = as_tensor(input)
    m = host(_mask("masked_scatter", mask, x))
    if m.ndim > x.ndim or m.shape != x.shape[x.ndim - m.ndim:]:
        x = mf.broadcast_to(x, host_numpy.broadcast_shapes(x.shape, m.shape))
    tgt = host_numpy.flatnonzero(host_numpy.broadcast_to(m, x.shape))
    s = mf.ravel(same_dtype("masked_scatter", x, source))
    if s.size < tgt.size:
        raise RuntimeError(f"masked_scatter: the mask selects {tgt.size} positions, source has {s.size} elements")
    return overwrite(x, tgt, s[:tgt.size])


def nonzero(input: Any, *, as_tuple: Any = _UNSET, out: Tensor | None = None) -> Any:  # noqa: A002
    """Where ``input`` is non-zero.  NumPy's meaning by default (as ``np.nonzero``): a tuple of
    index tensors, one per dim.  PyTorch's with ``as_tuple=``: ``False`` gives one int64
    tensor of shape ``(count, ndim)`` (``x.nonzero()``), ``True`` the tuple (a 0-d input
    counts as 1-D, as PyTorch).  ``out=`` is PyTorch's spelling, so PyTorch's meaning: the
    ``(count, ndim)`` tensor written into ``out`` (int64 only).  No gradient."""
    if out is not None:
        if as_tuple is not _UNSET and as_tuple:
            raise RefusedArgument("nonzero does not support the out kwarg when as_tuple is True")
        return _argwhere_into(input, out=out)
    x = as_tensor(input)
    h = host(x)
    if as_tuple is _UNSET or as_tuple:
        if x.ndim == 0:  # as 1-D, as PyTorch's (NumPy refuses a 0-d array)
            h = h.reshape(1)
        return tuple(constant(i.astype(host_numpy.int64), x) for i in host_numpy.nonzero(h))
    return argwhere(x)


def argwhere(input: Any) -> Tensor:  # noqa: A002
    """The indices of the non-zero elements, one row each: int64 of shape ``(count, ndim)``
    (``np.argwhere``, ``torch.argwhere``, ``torch.nonzero``).  No gradient."""
    x = as_tensor(input)
    return constant(host_numpy.argwhere(host(x)).astype(host_numpy.int64), x)


_argwhere_into = with_out("nonzero", argwhere,
                          rule("nonzero: Expected out tensor to have scalar type {result} but got scalar type{out}"))


def _embedded(name: str, x: Tensor, view: Any, src: Any) -> Tensor:
    """``x`` with the part ``view`` picks out (a function of a tensor) replaced by ``src``."""
    positions = constant(host_numpy.arange(x.size).reshape(x.shape), x)
    tgt = host(view(positions))
    s = as_tensor(src)
    if s.shape != tgt.shape:
        raise RuntimeError(f"{name}: src has shape {s.shape}, the part it replaces {tgt.shape}")
    return overwrite(x, tgt, mf.ravel(s))


def select_scatter(input: Any, src: Any, dim: int, index: int) -> Tensor:  # noqa: A002
    """``input`` with ``input.select(dim, index)`` replaced by ``src`` (``torch.select_scatter``)."""
    x = as_tensor(input)
    d = _one_dim("select_scatter", x, dim)
    return _embedded("select_scatter", x, lambda t: t[(slice(None),) * d + (index,)], src)


def slice_scatter(input: Any, src: Any, dim: int = 0, start: Any = None, end: Any = None,  # noqa: A002
                  step: int = 1) -> Tensor:
    """``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src`` (``torch.slice_scatter``)."""
    x = as_tensor(input)
    d = _one_dim("slice_scatter", x, dim)
    return _embedded("slice_scatter", x, lambda t: t[(slice(None),) * d + (slice(start, end, step),)], src)


def diagonal_scatter(input: Any, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """``input`` with its ``offset`` diagonal in (``dim1``, ``dim2``) replaced by ``src``
    (``torch.diagonal_scatter``)."""
    x = as_tensor(input)
    return _embedded("diagonal_scatter", x, lambda t: mf.diagonal(t, offset, dim1, dim2), src)


def scatter_method(x: Tensor, dim: int, index: Any, src: Any = _UNSET, value: Any = _UNSET,
                    reduce: str | None = None) -> Tensor:
    """``x.scatter(dim, index, src)`` / ``x.scatter(dim, index, value=...)`` (PyTorch's)."""
    if src is not _UNSET and not isinstance(src, Tensor) and value is _UNSET:
        src, value = _UNSET, src
    return scatter(x, dim, index, src, value=value, reduce=reduce)


def nonzero_method(x: Tensor, *, as_tuple: bool = False) -> Any:
    """PyTorch's ``x.nonzero()``: an int64 ``(count, ndim)`` tensor; ``as_tuple=True``: one per dim."""
    return nonzero(x, as_tuple=as_tuple)
