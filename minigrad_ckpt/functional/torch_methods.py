"""Tensor's methods with PyTorch's meaning.

A method that ``torch.Tensor`` has behaves as PyTorch's: ``x.transpose(0, 1)`` swaps two
dims, ``x.split(2)`` cuts pieces of 2, ``x.max(1)`` is ``(values, indices)``, ``x.repeat(2, 1)``
tiles, ``x.var()`` divides by ``N - 1``, ``x.sort()`` returns ``(values, indices)``.  Where
NumPy's ``ndarray`` has a method of the same name, NumPy's keywords select NumPy's meaning
(``x.max(axis=1)``, ``x.var(axis=0)``, ``x.repeat(2, axis=0)``, ``x.sort(axis=0)``).  The
table of every name whose meanings differ is in ``docs/from-pytorch.md``.

The functions here are the methods whose meaning or signature is PyTorch's own; the table of
public names (:mod:`~minigrad_ckpt.functional.public_names`) declares which name each one is.
"""

from __future__ import annotations

import inspect
import math
import operator
from typing import Any

from ..backend import (
    as_dtype,
    check_layout,
    check_memory_format,
    contiguous_format,
    fill_scalar,
    get_default_dtype,
    get_device,
    has_layout,
    host_numpy,
    layout_axes,
    preserve_format,
)
from ..ops import activation as _act
from ..tape import apply
from ..tensor import Tensor
from . import complex_numbers as cn
from . import differences as diffs
from . import elementwise_compositions as ewc
from . import linalg
from . import math as mf
from . import selection as sel
from . import statistics as stats
from . import torch_idioms as ti
from .arguments import (
    as_index,
    as_tensor,
    int_sizes,
    int_tuple,
    normalize_axis,
    number,
    numpy_keywords,
    one_axis,
    refuse_complex,
)
from .errors import DtypeNotImplemented, IndexRefused, InputMismatch, RefusedArgument, WrongTensorKind
from .products import one_product_dtype, same_batches
from .promotion import result_type
from .shape import expand_mismatch

_UNSET: Any = ti._UNSET


def _sizes(args: tuple) -> tuple[int, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` alike, as PyTorch's size arguments."""
    if len(args) == 1 and not isinstance(as_index(args[0]), (int, host_numpy.integer)):
        return int_sizes(args[0])
    return int_sizes(args)


def _size_argument(method: str, keyword: str, args: tuple, kwargs: dict) -> tuple[int, ...]:
    """PyTorch's three spellings of a method's size argument: ``f(2, 3)``, ``f((2, 3))`` and
    ``f(<keyword>=(2, 3))`` -- its argument parser names the whole tuple (``reshape(shape=)``,
    ``expand(size=)``, ``repeat(repeats=)``, ``sum_to_size(size=)``, ``tile(dims=)``), and ported
    code spells it so (MAE's and DiT's ``x.reshape(shape=(n, h, w, p, p, c))``)."""
    if keyword in kwargs:
        if args:
            raise TypeError(f"{method}() got multiple values for argument '{keyword}'")
        args = (kwargs.pop(keyword),)
    if kwargs:
        raise TypeError(f"{method}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return _sizes(args)


def view_in_place(name: str) -> Any:
    """PyTorch's in-place view changes (``x.unsqueeze_(0)``, ``squeeze_``, ``t_``, ``transpose_``,
    ``swapaxes_``, ``swapdims_``): ``x`` becomes its own view ``x.<name>(...)`` (the same memory,
    other views untouched; on the tape, the recorded view op is ``x``'s history)."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return self._become_view(getattr(self, name)(*args, **kwargs), name + "_")
    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"``x.{name}_(...)``: ``x`` becomes ``x.{name}(...)`` in place (a view of the same memory)."
    return method


def fill_diagonal_method(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """PyTorch's ``x.fill_diagonal_(v, wrap=False)``: ``v`` written on the main diagonal of a matrix
    (or of a tensor whose dims are all equal), through ``x[i, i, ...] = v`` (so on the tape where
    ``x`` is); ``wrap=True`` starts the diagonal again below a tall matrix's top square, every
    ``columns + 1`` rows, as NumPy's ``fill_diagonal``."""
    shape = self.shape
    if len(shape) < 2:
        raise RuntimeError("fill_diagonal_: dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("fill_diagonal_: all dimensions of input must be of equal length")
    size = math.prod(shape)
    step = sum(math.prod(shape[k + 1:]) for k in range(len(shape)))  # one more along every dim
    end = size if wrap and len(shape) == 2 else min(size, shape[-1] * step)
    flat = host_numpy.arange(0, end, step)
    fill_value = number("fill_diagonal_", "fill_value", fill_value)
    self[tuple(as_tensor(i) for i in host_numpy.unravel_index(flat, shape))] = fill_value
    return self


def reshape_method(x: Tensor, *shape: Any, **keyword: Any) -> Tensor:
    """``x.reshape(2, 3)``, ``x.reshape((2, 3))`` or ``x.reshape(shape=(2, 3))``."""
    # (the keyword's reading only when one is given: reshape is on models' forward paths)
    return mf.reshape(x, _size_argument("reshape", "shape", shape, keyword) if keyword else _sizes(shape))


def view_method(x: Tensor, *shape: Any, **keyword: Any) -> Tensor:
    """PyTorch's ``view``: the same values in another shape, sharing ``x``'s memory -- where the
    strides cannot give that shape without a copy (``x.t().view(-1)``), PyTorch's RuntimeError, since
    writes through a copy would be lost (:meth:`reshape` copies there); or, given a dtype, the same
    bytes reinterpreted (no gradient): with another item size the last dim shrinks or grows by the
    ratio (``float32 (3, 4)`` as ``int8`` is ``(3, 16)``), under PyTorch's conditions on the strides.
    PyTorch's keywords: ``view(size=(2, 3))``, ``view(dtype=mg.int32)``."""
    if keyword:
        name = next(iter(keyword))
        if shape or len(keyword) > 1 or name not in ("size", "dtype"):
            raise TypeError(f"view() takes the shape or a dtype, by position or as size= or dtype=; got "
                            f"{len(shape)} positional and the keywords {sorted(keyword)}")
        shape = (keyword[name],)
    if len(shape) == 1 and not isinstance(shape[0], (int, host_numpy.integer, tuple, list)):
        dt = as_dtype(shape[0])
        if dt.itemsize != x.dtype.itemsize:
            _check_resizing_view(x, dt)
        # PyTorch's reinterpretation needs no gradient, whatever x's (nor does it refuse x that needs
        # one); it shares x's memory and version stamp, as x.detach() does, so that a write through it
        # into a value saved for backward is caught when the backward reads it
        out = x.detach()
        out._data = out._data.view(dt)
        return out
    x._lay_out_row_major()  # an op's result PyTorch lays out row-major is viewable, as there
    out = reshape_method(x, *shape)
    xp = x._device.xp
    if out._data is not x._data and xp.memory_owner(out._data) is not xp.memory_owner(x._data):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return out


def _check_resizing_view(x: Tensor, dt: Any) -> None:
    """PyTorch's conditions for viewing ``x``'s bytes as a dtype of another item size: a last dim
    of stride 1 and, to a larger item, a last dim, storage offset and strides that divide evenly."""
    old, new = x.dtype.itemsize, dt.itemsize
    what = f"to view {scalar_type_name(x.dtype)} as {scalar_type_name(dt)} (different element sizes)"
    if x.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    if x._data.size == 0:
        return  # no bytes to misalign
    steps = stride_method(x)
    if steps[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {steps[-1]}")
    if new < old:
        return
    ratio = new // old
    if x.shape[-1] % ratio:
        raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {x.shape[-1]}")
    address = x._device.xp.address(x._data)
    if address % new:  # the memory's start is aligned: this is PyTorch's storage offset test
        offset = _storage_offset(x, address)
        got = "" if offset is None else f", but got {offset}"
        raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}{got}")
    for d, step in enumerate(steps[:-1]):
        if step % ratio:
            raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} {what}, but got {step}")


def _storage_offset(x: Tensor, address: int) -> int | None:
    """Elements between the start of the memory ``x`` views and its first one; None where the
    owner of that memory does not say where it starts."""
    xp = x._device.xp
    owner = xp.memory_owner(x._data)
    if not xp.holds(owner):  # (memory from outside: a buffer np.frombuffer views)
        return None
    return (address - xp.address(owner)) // x.dtype.itemsize


def is_contiguous_method(x: Tensor, memory_format: Any = contiguous_format) -> bool:
    """PyTorch's ``is_contiguous()``: whether the values lie in memory in row-major order
    without gaps.  A transpose, a strided slice or an expanded view is not; the result of an
    elementwise op keeps its input's layout (NumPy's and PyTorch's rule alike).  With
    ``memory_format=mg.channels_last``: whether they lie channels innermost (False for a tensor
    of another rank than the format's, as PyTorch's)."""
    check_memory_format("is_contiguous", memory_format)
    if memory_format in (None, contiguous_format, preserve_format):
        return bool(x._data.flags.c_contiguous)
    try:
        check_memory_format("is_contiguous", memory_format, x.ndim)
    except RuntimeError:
        return False
    return has_layout(x._data, layout_axes(memory_format, x._data))


def contiguous_method(x: Tensor, memory_format: Any = contiguous_format) -> Tensor:
    """PyTorch's ``contiguous()``: ``x`` itself when it is laid out as ``memory_format`` asks
    (row-major unless given), else a copy so laid out (differentiable, as :func:`clone`)."""
    check_memory_format("contiguous", memory_format, x.ndim)
    fmt = contiguous_format if memory_format in (None, preserve_format) else memory_format
    return x if is_contiguous_method(x, fmt) else mf.clone(x, memory_format=fmt)


def stride_method(x: Tensor, dim: int | None = None) -> tuple[int, ...] | int:
    """PyTorch's ``stride()``: how many elements apart in memory the neighbours along each dim
    are (one dim's, given ``dim``).  An expanded dim has stride 0."""
    if x._data.size == 0:  # NumPy gives an empty array's dims stride 0; PyTorch, a row-major layout's
        steps = tuple(math.prod(max(n, 1) for n in x.shape[k + 1:]) for k in range(x.ndim))
    else:
        steps = tuple(s // x.dtype.itemsize for s in x._data.strides)
    return steps if dim is None else steps[one_axis(dim, x.ndim)]


def data_ptr_method(x: Tensor) -> int:
    """PyTorch's ``data_ptr()``: the address of the first element; two tensors share memory
    where their ranges overlap (a view's is inside its base's).  An empty tensor's is 0, as
    PyTorch's: it has no first element (NumPy's empty array still points somewhere)."""
    return x._device.xp.address(x._data) if x._data.size else 0


def transpose_method(x: Tensor, *axes: Any) -> Tensor:
    """``x.transpose(dim0, dim1)``: PyTorch's swap of two dims; ``x.transpose()`` or an
    axes tuple: NumPy's permutation."""
    if x.ndim == 0 and len(axes) == 2 and all(a in (0, -1) for a in axes):
        return mf.reshape(x, ())  # PyTorch: a 0-d tensor's dims 0 and -1 are the same one; a view, not x
    if len(axes) == 1 and axes[0] is not None and not isinstance(axes[0], (int, host_numpy.integer)):
        axes = (tuple(axes[0]),)
    elif len(axes) not in (0, 2):
        axes = (tuple(axes),)
    return ti.transpose(x, *axes)


def t_method(x: Tensor) -> Tensor:
    """PyTorch's ``t()``: the transpose of a tensor of at most 2 dims."""
    if x.ndim > 2:
        raise RefusedArgument(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D (use "
                              f"x.transpose(d0, d1) or x.mT)")
    return mf.transpose(x)


def _torch_keepdims(name: str, dim: Any, keepdim: Any, keepdims: Any, axis: Any) -> tuple[Any, Any, Any]:
    """``(dim, keepdim, keepdims)`` of a method that takes both spellings: with PyTorch's ``dim`` given
    (``x.std(1, keepdims=True)``, makemore's ``counts.sum(1, keepdims=True)`` idiom) and no NumPy ``axis=``,
    ``keepdims=`` is PyTorch's other spelling of ``keepdim`` (its argument parser's), not NumPy's meaning;
    without a ``dim`` it keeps selecting NumPy's (``x.var(keepdims=True)``, ``np.std(x, keepdims=True)``)."""
    if dim is None or keepdims is _UNSET or axis is not _UNSET:
        return dim, keepdim, keepdims
    if keepdim is not False:
        raise TypeError(f"{name}() got multiple values for argument 'keepdim' (keepdims= is its other spelling)")
    return dim, bool(keepdims), _UNSET


def extremum_method(name: str) -> Any:
    plain = getattr(ti, name)

    def method(self: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = _UNSET,
               keepdims: Any = _UNSET, **kwargs: Any) -> Any:
        dim, keepdim, keepdims = _torch_keepdims(name, dim, keepdim, keepdims, axis)
        if axis is not _UNSET or keepdims is not _UNSET:  # NumPy's spelling: NumPy's meaning
            if dim is not None:
                raise TypeError(f"{name}: pass either axis= or dim=, not both (dim= returns (values, indices))")
            return plain(self, None if axis is _UNSET else axis, keepdims=bool(keepdims is True), **kwargs)
        if isinstance(dim, Tensor):
            return plain(self, dim)
        if dim is None:
            return plain(self, None, keepdims=keepdim, **kwargs)
        return ti.extremum_along(name, self, dim, keepdim)

    method.__name__ = name
    method.__doc__ = (f"PyTorch's ``x.{name}()``: the {name}imum; ``x.{name}(dim)`` the pair ``(values, indices)``; "
                      f"``x.{name}(other)`` the elementwise {name}imum.  ``axis=`` gives NumPy's reduction.")
    return method


def mean_method(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
                axis: Any = _UNSET, keepdims: Any = _UNSET, out: Any = None) -> Tensor:
    """PyTorch's ``x.mean(dim=None, keepdim=False, *, dtype=None)``: floating or complex input
    (an integer one is an error, or is cast to ``dtype`` first).  NumPy's ``axis=``/``keepdims=``
    (and ``np.mean(x)``, which passes them) give NumPy's meaning, integers answered in float64."""
    if out is None:
        dim, keepdim, keepdims = _torch_keepdims("mean", dim, keepdim, keepdims, axis)
    if axis is not _UNSET or keepdims is not _UNSET or out is not None:
        if dim is not None:
            raise TypeError("mean: pass either axis= or dim=, not both")
        return mf.mean(self, None if axis is _UNSET else axis, bool(keepdims is True), dtype=dtype, out=out)
    ti.floating_dtype("mean", dtype)
    x = ti.floating("mean", self if dtype is None else mf.astype(self, dtype))
    return ti.mean(x, dim=dim, keepdim=keepdim)


def spread_method(name: str) -> Any:
    plain = getattr(ti, name)

    def method(self: Tensor, dim: Any = None, unbiased: Any = _UNSET, keepdim: bool = False, *,
               correction: Any = _UNSET, axis: Any = _UNSET, ddof: Any = _UNSET, keepdims: Any = _UNSET) -> Tensor:
        if isinstance(dim, (bool, host_numpy.bool_)):  # x.std(True): PyTorch's unbiased overload, all of x
            if unbiased is not _UNSET:
                raise TypeError(f"{name}(unbiased) takes no other correction")
            dim, unbiased = None, bool(dim)
        if ddof is _UNSET:
            dim, keepdim, keepdims = _torch_keepdims(name, dim, keepdim, keepdims, axis)
        if axis is not _UNSET or ddof is not _UNSET or keepdims is not _UNSET:  # NumPy's meaning: ddof=0
            return plain(self, None if axis is _UNSET else axis, 0 if ddof is _UNSET else ddof,
                         bool(keepdims is True))
        c = ti.correction_of(name, _UNSET, correction, unbiased, torch_default=True)
        axis = ti.reduction_axis(ti.floating(name, self), dim)
        ti.warn_without_degrees_of_freedom(name, self, axis, c)
        return plain(self, axis, c, keepdim)

    method.__name__ = name
    method.__doc__ = (f"PyTorch's ``x.{name}(dim, unbiased, keepdim, correction=)``: Bessel's correction (N - 1) "
                      f"by default.  ``axis=``/``ddof=`` give NumPy's meaning (``ddof=0`` by default).")
    return method


def repeat_method(x: Tensor, *sizes: Any, axis: Any = _UNSET, **keyword: Any) -> Tensor:
    """PyTorch's ``x.repeat(2, 1)`` (or ``x.repeat(repeats=(2, 1))``): tile the tensor (NumPy's
    ``tile``); with ``axis=``, NumPy's ``x.repeat(2, axis=0)``: repeat each element."""
    if axis is not _UNSET:
        if "repeats" in keyword:  # NumPy's name for the count too
            sizes = (*sizes, keyword.pop("repeats"))
        if len(sizes) != 1 or keyword:
            raise TypeError("repeat(repeats, axis=) takes one count (or one per element)")
        return mf.repeat(x, sizes[0], axis)
    reps = _size_argument("repeat", "repeats", sizes, keyword)
    if len(reps) < x.ndim:
        raise RuntimeError(f"repeat: {len(reps)} repeat counts for a {x.ndim}-d tensor (PyTorch's repeat tiles; "
                           f"for NumPy's element repeat pass axis=, or use mg.repeat_interleave)")
    return mf.tile(x, reps)


def expand_method(x: Tensor, *sizes: Any, implicit: bool = False, **keyword: Any) -> Tensor:
    """PyTorch's ``expand`` (``x.expand(2, -1)``, ``x.expand((2, -1))``, ``x.expand(size=(2, -1))``):
    a broadcast view (writable where no dim repeats); ``-1`` keeps a dim's size.  ``implicit`` is
    PyTorch's internal flag, which changes nothing a program sees."""
    target = _size_argument("expand", "size", sizes, keyword)
    lead = len(target) - x.ndim
    if lead < 0:
        raise RuntimeError(f"expand(torch.{scalar_type_name(x.dtype)}Tensor{{{list(x.shape)}}}, size={list(target)}): "
                           f"the number of sizes provided ({len(target)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({x.ndim})")
    shape = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(target))
    if -1 in shape[:lead]:
        raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension "
                           f"{shape.index(-1)}")
    if any(n != s and n != 1 for n, s in zip(x.shape, shape[lead:])):
        raise expand_mismatch(x.shape, shape, target)
    return _expanded(x, shape)


def tile_method(x: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """PyTorch's ``x.tile(2, 1)``, ``x.tile((2, 1))`` or ``x.tile(dims=(2, 1))``: ``x`` repeated
    that many times along each dim (NumPy's ``tile``)."""
    return mf.tile(x, _size_argument("tile", "dims", dims, kwargs))


@numpy_keywords
def count_nonzero_method(x: Tensor, *dims: Any, dim: Any = None) -> Tensor:
    """PyTorch's ``x.count_nonzero()``, ``x.count_nonzero(0)``, ``x.count_nonzero(0, 1)`` or
    ``x.count_nonzero((0, 1))``: the nonzero elements, over every dim or the given ones."""
    if dims:
        dim = dims[0] if len(dims) == 1 else dims
    return stats.count_nonzero(x, dim=dim)


def _expanded(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``x`` expanded to ``shape`` (already checked): a broadcast where a dim is really repeated
    (a write that repeats no element of it reaches ``x``, one that would is refused, as
    PyTorch's), but a plain view where none is (``x.expand(1, n)``, ``x.expand_as(x)``): leading
    dims of 1 put in as ``unsqueeze(0)`` puts them, with PyTorch's strides (the size times the stride
    of the dim after; NumPy's ``x[None]`` gives 0), and a 0-d tensor's broadcast (PyTorch's 0s)."""
    lead = len(shape) - x.ndim
    if x.ndim and shape[lead:] == x.shape and all(n == 1 for n in shape[:lead]):
        for _ in range(lead):
            x = x.unsqueeze(0)
        return x
    return mf.broadcast_to(x, shape)


def expand_as_method(x: Tensor, other: Tensor) -> Tensor:
    """PyTorch's ``expand_as``: ``x.expand(other.size())``."""
    return expand_method(x, *other.shape)


def sort_method(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *, axis: Any = _UNSET,
          kind: Any = None) -> Any:
    """PyTorch's ``x.sort(dim=-1, descending=False)``: ``(values, indices)``.  ``axis=`` gives
    NumPy's meaning as a value (the sorted copy; NumPy sorts in place)."""
    if axis is not _UNSET:
        return mf.sort(x, axis, kind)
    return ti.sort_pair(x, dim, descending)


def argsort_method(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *, axis: Any = _UNSET,
             kind: Any = None) -> Tensor:
    """PyTorch's ``x.argsort(dim=-1, descending=False)``; ``axis=`` as NumPy's."""
    if axis is not _UNSET:
        return mf.argsort(x, axis, kind)
    return ti.sort_pair(x, dim, descending).indices


def split_method(x: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """PyTorch's ``x.split(size, dim=0)``: pieces of ``size`` (or of the listed sizes), a tuple."""
    return ti.split_sizes(x, split_size_or_sections, dim)


def truth_in_input_dtype(x: Tensor, truth: Tensor) -> Tensor:
    """``all``/``any``'s bool answer as PyTorch gives it: uint8 for a uint8 input (its legacy
    byte-mask rule, documented for ``torch.all``), bool for every other dtype."""
    return mf.astype(truth, "uint8") if x.dtype == "uint8" else truth


def reduction_method(fn: Any) -> Any:
    """``x.all(dim)``, ``x.any(dim)``: PyTorch's ``dim``/``keepdim`` beside NumPy's ``axis``
    (which keeps NumPy's bool answer for a uint8 ``x``; PyTorch's spellings answer uint8)."""
    def method(self: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None,
               keepdims: bool = False) -> Tensor:
        numpy_spelling = axis is not None or keepdims
        axis = axis if dim is None else dim  # an empty list, as torch's x.all([]), reduces nothing
        if dim is not None and not (isinstance(dim, (tuple, list)) and not dim):
            axis = ti.reduction_axis(self, dim)  # a 0-d x's 0 or -1, once
            if isinstance(axis, (tuple, list)) and axis:  # a dim listed twice: PyTorch's RuntimeError
                axis = normalize_axis(axis, self.ndim)
        truth = fn(self, axis=tuple(axis) if isinstance(axis, list) else axis, keepdims=bool(keepdims or keepdim))
        return truth if numpy_spelling else truth_in_input_dtype(self, truth)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def dim_first_method(fn: Any, positional: tuple[str, ...] = ("dim", "keepdim", "dtype")) -> Any:
    """``x.sum(dim, keepdim, dtype)``, ``x.prod(...)``, ``x.argmax(dim, keepdim)``: the positional
    arguments are PyTorch's, so ``x.sum(())`` is the total (PyTorch's empty ``dim``; NumPy's
    ``axis=()`` reduces nothing, and ``x.sum(axis=())`` still does) and ``tensor(3.).sum(0)``
    is 3 (NumPy's axis 0 of a 0-d array is an error)."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if len(args) == 1 and not kwargs and type(args[0]) is int and self.ndim:
            return fn(self, args[0])  # one int dim of a tensor that has dims: NumPy's axis means the same
        if args and "axis" not in kwargs:
            if len(args) > len(positional):
                raise TypeError(f"{fn.__name__}() takes at most {len(positional)} positional arguments "
                                f"({', '.join(positional)})")
            for name, value in zip(positional, args):
                if name in kwargs:
                    raise TypeError(f"{fn.__name__}() got multiple values for argument '{name}'")
                kwargs[name] = value
            args = ()
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def relu_method(x: Tensor) -> Tensor:
    """PyTorch's ``x.relu()``: ``max(x, 0)``; complex input refused (no order), and bool, as PyTorch."""
    refuse_complex("relu", x)
    if x.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    return apply(_act.Relu(), x)


def _one_int_dim(name: str, dim: Any) -> int:
    """PyTorch's ``softmax(dim)``: one int, no default (a missing or tuple ``dim`` is an error,
    never a guess)."""
    if dim is _UNSET:
        raise TypeError(f"{name}() missing required argument 'dim' (PyTorch's x.{name}(dim) has no default)")
    dim = as_index(dim)
    if not isinstance(dim, (int, host_numpy.integer)) or isinstance(dim, bool):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    return int(dim)


def refuse_complex_input(name: str, x: Tensor) -> Tensor:
    """``x``, or PyTorch's refusal where its ``name`` has no complex kernel (softmax and its kin)."""
    if x.dtype.kind == "c":
        raise DtypeNotImplemented(f"{name}: complex input is not supported (as PyTorch's {name})")
    return x


def refuse_integer_softmax(name: str, x: Tensor, dim: int) -> None:
    """PyTorch's ``softmax``/``log_softmax`` kernels are built for floating types only: an integer or
    bool ``x`` (without ``dtype=``) is its ``NotImplementedError``, which names the kernel for the
    last dim or another ('"softmax_lastdim_kernel_impl" not implemented for 'Long''), where NumPy's
    promotion would answer in a float."""
    if x.dtype.kind in "biu":
        last = x.ndim <= 1 or normalize_axis(dim, x.ndim) == (x.ndim - 1,)
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        raise DtypeNotImplemented(f"\"{kernel}\" not implemented for '{scalar_type_name(x.dtype)}'")


@numpy_keywords
def softmax_method(x: Tensor, dim: Any = _UNSET) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim`` (required, as PyTorch's ``x.softmax(dim)``; complex and
    integer input refused, as there)."""
    refuse_complex_input("softmax", x)
    dim = _one_int_dim("softmax", dim)
    refuse_integer_softmax("softmax", x, dim)
    if x.ndim == 0:
        return ti.along_zero_d(lambda t, axis: softmax_method(t, axis), x, dim, (), {})
    return apply(_act.Softmax(axis=normalize_axis(dim, x.ndim)), x)


@numpy_keywords
def log_softmax_method(x: Tensor, dim: Any = _UNSET) -> Tensor:
    """``x - logsumexp(x)`` along ``dim`` (required, as PyTorch's ``x.log_softmax(dim)``; complex and
    integer input refused)."""
    refuse_complex_input("log_softmax", x)
    dim = _one_int_dim("log_softmax", dim)
    refuse_integer_softmax("log_softmax", x, dim)
    if x.ndim == 0:
        return ti.along_zero_d(lambda t, axis: log_softmax_method(t, axis), x, dim, (), {})
    return apply(_act.LogSoftmax(axis=normalize_axis(dim, x.ndim)), x)


def no_kernel_for(fn: Any, kernel: str, kinds: str = "b", message: str | None = None) -> Any:
    """``fn`` under PyTorch's kernel dtypes: a tensor first argument of a dtype kind in ``kinds``
    (``"b"`` bool, ``"biu"`` every integer too) is PyTorch's ``NotImplementedError`` ('"abs_cpu" not
    implemented for 'Bool''), where NumPy's ufunc would answer (``abs`` of a mask, ``hypot`` of
    integers in a float), or its ``RuntimeError`` ``message`` where PyTorch checks by hand (``cov``).
    For the methods of names NumPy's functions share (``x.abs()``; ``mg.abs`` keeps NumPy's reading)
    and the functions only PyTorch has (``mg.frac``, ``mg.mm``)."""
    def checked(*args: Any, **kwargs: Any) -> Any:
        x = args[0] if args else kwargs.get("input", kwargs.get("x"))  # (PyTorch's input= keyword too)
        if isinstance(x, Tensor) and x._data.dtype.kind in kinds:
            if message is not None:
                raise RuntimeError(message)
            raise DtypeNotImplemented(f"\"{kernel}\" not implemented for '{scalar_type_name(x._data.dtype)}'")
        return fn(*args, **kwargs)
    checked.__name__ = checked.__qualname__ = getattr(fn, "__name__", kernel)
    checked.__doc__ = fn.__doc__
    checked.__wrapped__ = fn  # (its signature, for docs/api.md)
    return checked


_NUMBERS = (int, float, complex, host_numpy.number, host_numpy.bool_)


def no_kernel_for_result(fn: Any, kernel: str, kinds: str = "biu") -> Any:
    """:func:`no_kernel_for` for a method of two operands (``x.hypot(y)``, ``x.logaddexp(y)``): PyTorch picks
    the kernel by the dtype the operands promote to, so a bool ``x`` beside a float16 ``y`` is a float16
    hypot, and two integer tensors of different dtypes are refused as two of one dtype."""
    def checked(x: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(x, Tensor) and (isinstance(other, Tensor) or isinstance(other, _NUMBERS)):
            dtype = result_type(x, other)
            if dtype.kind in kinds:
                raise DtypeNotImplemented(f"\"{kernel}\" not implemented for '{scalar_type_name(dtype)}'")
        return fn(x, other, *args, **kwargs)
    checked.__name__ = checked.__qualname__ = getattr(fn, "__name__", kernel)
    checked.__doc__ = fn.__doc__
    checked.__wrapped__ = fn  # (its signature, for docs/api.md)
    return checked


def trace_method(self: Tensor) -> Tensor:
    """PyTorch's ``x.trace()``: the sum of a matrix's diagonal.  Another rank is its RuntimeError
    ("expected a matrix"; ``mg.trace`` is NumPy's, of any rank from 2, with an offset and axes), a bool
    matrix its ``NotImplementedError``."""
    if self.ndim != 2:
        raise WrongTensorKind(f"trace: expected a matrix, but got tensor with dim {self.ndim}")
    return _TRACE(self)


_TRACE = no_kernel_for(mf.trace, "trace")


def round(input: Any, decimals: Any = None) -> Tensor:  # noqa: A001, A002 - PyTorch's names
    """``x.round(decimals=0)``: :func:`~.elementwise.round` under PyTorch's kernels.  PyTorch has
    two: ``round()`` keeps an integer tensor (and refuses a bool one), while any ``decimals=`` given,
    0 included, is the other overload, which has no integer or bool kernel -- its
    ``NotImplementedError`` ('"round_cpu" not implemented for 'Long''), where NumPy's ``round``
    answers the integers unchanged.  ``decimals`` may come positionally, as before (PyTorch's is a
    keyword)."""
    kind = input._data.dtype.kind if isinstance(input, Tensor) else ""
    if kind in ("b", "c") or (kind in ("i", "u") and decimals is not None):
        kernel = "round_cpu" if decimals else "round_vml_cpu"  # decimals=0 is the plain round's kernel
        raise DtypeNotImplemented(f"\"{kernel}\" not implemented for '{scalar_type_name(input._data.dtype)}'")
    return mf.round(input, 0 if decimals is None else decimals)


def lerp(input: Any, end: Any, weight: Any) -> Tensor:  # noqa: A002
    """``input + weight * (end - input)``, from the nearer end so that ``weight = 1`` gives ``end``
    exactly, as ``torch.lerp`` (:func:`~.elementwise_compositions.lerp`); differentiable in all three.
    An integer or bool ``input`` is PyTorch's ``NotImplementedError``, named by its kernel for a
    number or a tensor ``weight`` (NumPy's promotion would answer in a float)."""
    if isinstance(input, Tensor) and input._data.dtype.kind in "biu":
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise DtypeNotImplemented(f"\"{kernel}\" not implemented for '{scalar_type_name(input._data.dtype)}'")
    if isinstance(input, Tensor):  # PyTorch's kernel takes one dtype: end's, and a weight's that is not 0-d
        for name, other in (("end", end), ("weight", weight)):
            if isinstance(other, Tensor) and other.dtype != input.dtype and (name == "end" or other.ndim):
                raise RuntimeError(f"lerp: expected dtype {input.dtype} for `{name}` but got dtype {other.dtype} "
                                   f"(PyTorch's lerp does not promote; cast it with .to(x.dtype))")
    return ewc.lerp(input, end, weight)


def refusing_bool(method: Any, name: str) -> Any:
    """``x.argmax()``/``x.argmin()`` as PyTorch's: a bool tensor is its error ("argmax(): does not
    support bool input"); ``mg.argmax``, NumPy's, takes it."""
    def checked(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if self._data.dtype.kind == "b":
            raise DtypeNotImplemented(f"{name}(): does not support bool input")
        return method(self, *args, **kwargs)
    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = method.__doc__
    return checked


def cross_method(self: Tensor, other: Any, dim: Any = None) -> Tensor:
    """PyTorch's ``x.cross(other, dim=None)``: the cross product along ``dim`` -- a second
    positional argument is that dim, not NumPy's ``axisa`` -- and without ``dim`` along the
    first dim of size 3, with PyTorch's deprecation warning (``mg.cross(x, y)`` is NumPy's,
    along the last)."""
    if dim is None:
        other = as_tensor(other, self)
        dim = ti.first_dim_of_size_3(self, other)
    return ti.cross(self, other, dim=dim)


def sign_method(self: Tensor) -> Tensor:
    """PyTorch's ``x.sign()``: -1, 0 or 1, and 0 at NaN (PyTorch's answer; ``mg.sign`` is NumPy's,
    NaN at NaN).  A complex tensor is refused as PyTorch refuses it: its ``z / |z|`` is ``x.sgn()``."""
    if self.dtype.kind == "c":
        raise RuntimeError("Unlike NumPy, sign is not intended to support complex numbers. Please use sgn instead.")
    return sgn_method(self)


def sgn_method(self: Tensor) -> Tensor:
    """PyTorch's ``x.sgn()``: ``x.sign()`` of a real tensor, ``z / |z|`` (0 at 0) of a complex one."""
    s = mf.sign(self)
    if self.dtype.kind != "f":
        return s
    return mf.where(mf.isnan(self), 0.0, s)


def take_method(self: Tensor, index: Any) -> Tensor:
    """PyTorch's ``x.take(index)``: the elements of the flattened ``x`` at ``index`` (there is
    no axis argument: NumPy's ``take(indices, axis)`` is ``mg.take``).  An index tensor of any
    dtype but int64 is PyTorch's ``RuntimeError`` ("Expected a long tensor for index"), not a mask
    (bool, uint8) or a cast (float, int32)."""
    if isinstance(index, Tensor) and index.dtype != host_numpy.int64:
        raise IndexRefused(f"take(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}")
    return ti.take(self, index)


def _rank_words(name: str, ranks: tuple[int, int], first: int, second: int) -> str:
    """PyTorch's words for operands of a product method of fixed ranks that have others, as each
    kernel writes them (it names the first operand it finds wrong)."""
    if name in ("dot", "vdot"):
        return f"1D tensors expected, but got {first}D and {second}D tensors"
    if name == "mv":
        return f"vector + matrix @ vector expected, got 1, {first}, {second}"
    if name in ("outer", "ger"):
        which, got = ("self", first) if first != 1 else ("vec2", second)
        return f"outer: Expected 1-D argument {which}, but got {got}-D"
    which = ("self", "mat2") if ranks == (2, 2) else ("batch1", "batch2")
    return f"{which[0] if first != ranks[0] else which[1]} must be a {'matrix' if ranks == (2, 2) else '3D tensor'}"


def product_method(name: str, fn: Any, ranks: tuple[int, int], second: str = "other", one_dtype: bool = True) -> Any:
    """PyTorch's ``x.<name>(other)`` for a product of fixed ranks (``dot``: 1-D and 1-D, ``mm``:
    2-D and 2-D, ...): other ranks are an error, as PyTorch's, not NumPy's or ``matmul``'s
    answer for them (``x.dot(y)`` of matrices would silently be their matrix product); so are two
    dtypes where ``one_dtype`` (PyTorch's matrix kernels; its ``outer`` promotes).  The
    operands also go by PyTorch's names, ``input`` and ``second`` (``mm(input=a, mat2=b)``,
    ``x.mv(vec=v)``)."""
    def method(*args: Any, **kwargs: Any) -> Tensor:
        self, other = _two_operands(name, ("input", second), args, kwargs)
        self, other = as_tensor(self), as_tensor(other, self)
        if (self.ndim, other.ndim) != ranks:
            raise InputMismatch(f"{_rank_words(name, ranks, self.ndim, other.ndim)} ({name}: expects {ranks[0]}-D "
                                f"and {ranks[1]}-D tensors (as PyTorch's), got {self.ndim}-D and {other.ndim}-D; "
                                f"mg.{name if name in ('dot', 'outer') else 'matmul'} takes other ranks)")
        if one_dtype:
            one_product_dtype(self, other)
        if ranks == (3, 3):  # bmm: PyTorch's batches do not broadcast
            same_batches(self, other)
        return fn(self, other)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"PyTorch's ``{name}(input, {second})``: {ranks[0]}-D and {ranks[1]}-D operands only."
    method.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  (what help() and the API docs show)
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in ("input", second)])
    return method


def matmul_method(x: Any, y: Any) -> Tensor:
    """PyTorch's ``x @ y`` (``x.matmul(y)``, ``mg.linalg.matmul``): :func:`~.products.matmul` of two
    tensors of one dtype; two dtypes are PyTorch's ``RuntimeError`` (``mg.matmul``, NumPy's, promotes)."""
    if isinstance(y, Tensor) and isinstance(x, Tensor) and x._data.dtype != y._data.dtype:  # (read once: hot)
        one_product_dtype(x, y)
    return mf.matmul(x, y)


def inner_method(input: Any, other: Any) -> Tensor:  # noqa: A002 - PyTorch's names
    """PyTorch's ``x.inner(y)``: :func:`~.products.inner` of tensors of one dtype, unless one is 0-d
    (a product, which promotes); two dtypes are PyTorch's ``RuntimeError`` (``mg.inner`` promotes)."""
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input.ndim and other.ndim \
            and input.dtype != other.dtype:
        raise InputMismatch("both inputs should have same dtype")
    return mf.inner(input, other)


def _two_operands(name: str, names: tuple[str, str], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """The two operands of ``name``, given positionally or by ``names`` (PyTorch's argument names)."""
    unknown = set(kwargs) - set(names)
    if unknown or len(args) > 2:
        raise TypeError(f"{name}() takes ({names[0]}, {names[1]}); got {len(args)} positional and the keywords "
                        f"{sorted(kwargs)}")
    given = list(args) + [kwargs.pop(n) for n in names[len(args):] if n in kwargs]
    if kwargs:
        raise TypeError(f"{name}() got multiple values for argument {sorted(kwargs)[0]!r}")
    if len(given) != 2:
        raise TypeError(f"{name}() missing 1 required positional argument: {names[1]!r}")
    return given


def _vdot(x: Tensor, y: Tensor) -> Tensor:
    """``sum(conj(x) * y)``: the first vector conjugated, as NumPy's and PyTorch's ``vdot``."""
    return mf.dot(cn.conj(x), y)


def float_power_method(self: Tensor, exponent: Any) -> Tensor:
    """PyTorch's ``x.float_power(exponent)``: the power computed in double precision -- float64
    (complex128 if either operand is complex), whatever the inputs' dtypes."""
    def wide(v: Any) -> Any:
        if not isinstance(v, Tensor):
            return complex(v) if isinstance(v, complex) else float(v)
        return mf.astype(v, "complex128" if v.dtype.kind == "c" else "float64")
    return mf.power(wide(self), wide(exponent))


def along_dim_method(fn: Any, *after_dim: str) -> Any:
    """``x.cumsum(dim, *, dtype=None)``, ``x.cumprod(dim)``, ``x.logsumexp(dim, keepdim=False)``:
    PyTorch's ``dim`` is required -- without it NumPy would flatten (``cumsum``) or reduce
    everything (``logsumexp``), an answer PyTorch never gives.  NumPy's ``axis=`` keeps
    NumPy's meaning (``axis=None``: the flattened tensor); ``dtype=`` casts first, as PyTorch.
    ``after_dim`` names PyTorch's positional arguments after ``dim`` (``keepdim``)."""
    name = fn.__name__
    takes_dtype = "dtype" in inspect.signature(fn).parameters  # (cumsum's own dtype= rules then apply)

    def method(self: Tensor, *args: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
        if not args and "dim" not in kwargs and "axis" not in kwargs:
            raise TypeError(f"{name}() missing required argument 'dim' (PyTorch's x.{name}(dim) has no "
                            f"default; NumPy's x.{name}(axis=None) is over the flattened tensor)")
        if args and "axis" not in kwargs and "dim" not in kwargs:
            kwargs["dim"], args = args[0], args[1:]
            if len(args) > len(after_dim):
                raise TypeError(f"{name}() takes {2 + len(after_dim)} positional arguments but "
                                f"{len(args) + 2} were given")
            kwargs.update(zip(after_dim, args))
            args = ()
        if takes_dtype and dtype is not None:
            return fn(self, *args, dtype=dtype, **kwargs)
        out = fn(self if dtype is None else mf.astype(self, dtype), *args, **kwargs)
        return out if dtype is None else mf.astype(out, dtype)  # an int32 running sum stays int32
    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    return method


def flip_method(self: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """PyTorch's ``x.flip(dims)``: ``x.flip(0)``, ``x.flip(0, 1)``, ``x.flip((0, 1))``,
    ``x.flip(dims=[0])``; the dims are required (NumPy's flip of every axis is
    ``x.flip(axis=None)``)."""
    if "dims" in kwargs:
        dims = (kwargs.pop("dims"),)
    if "axis" in kwargs or "dim" in kwargs:
        if dims:
            raise TypeError("flip: pass the dims either positionally or by keyword, not both")
        return ti.flip(self, **kwargs)
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument {next(iter(kwargs))!r}")
    if not dims:
        raise TypeError("flip() missing required argument 'dims' (PyTorch's x.flip(dims); "
                        "NumPy's flip of every axis is x.flip(axis=None))")
    return ti.flip(self, dim=dims[0] if len(dims) == 1 else dims)


def roll_method(self: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """PyTorch's ``x.roll(shifts, dims=None)``: one shift per dim, the two counts equal (PyTorch
    refuses the broadcasting of one shift over several dims, or of several shifts over one dim,
    that NumPy's ``mg.roll`` does); without dims (or with none), one shift, of the flattened tensor."""
    shifts = as_index(shifts)
    if not isinstance(shifts, (int, host_numpy.integer)) and not hasattr(shifts, "__iter__"):
        raise TypeError(f"roll(): argument 'shifts' must be tuple of ints, but got {type(shifts).__name__}")
    shift_list = int_tuple(shifts)
    dim_list = () if dims is None else int_tuple(dims)
    if not shift_list:
        raise RuntimeError("`shifts` required")
    if not dim_list and len(shift_list) == 1:
        return mf.roll(self, shift_list[0])
    if len(shift_list) != len(dim_list):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shift_list)}, dims:{len(dim_list)}")
    return mf.roll(self, shift_list, dim_list)


def squeeze_method(self: Tensor, *dims: Any, **kwargs: Any) -> Tensor:
    """PyTorch's ``x.squeeze(dim=None)``: the size-1 dims among ``dim`` (an int, a tuple, or
    several ints) removed, any other named dim left as it is -- no error, unlike NumPy's
    ``squeeze``, which ``x.squeeze(axis=...)`` keeps; every size-1 dim without ``dim``."""
    if "axis" in kwargs:
        if dims or len(kwargs) > 1:
            raise TypeError("squeeze: pass either axis= (NumPy's) or dim (PyTorch's), not both")
        return mf.squeeze(self, kwargs["axis"])
    if "dim" in kwargs:
        if dims or len(kwargs) > 1:
            raise TypeError("squeeze() takes one dim argument, positionally or as dim=")
        dims = (kwargs["dim"],)
    elif kwargs:
        raise TypeError(f"squeeze() got an unexpected keyword argument {next(iter(kwargs))!r}")
    return ti.squeeze_dims(self, None if not dims else dims[0] if len(dims) == 1 else dims)




def new_method(fill: Any, name: str | None = None) -> Any:
    """``x.new_zeros``/``new_ones`` (by ``fill``), or the method ``name`` that fills with it
    (``new_empty``, ``new_full``: their errors name them)."""
    def method(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               layout: Any = None, pin_memory: bool = False, **keyword: Any) -> Tensor:
        from ..creation import _shape  # (the creation functions' reading of a size: no floats, no negatives)
        check_layout(method.__name__, layout)
        if keyword:  # PyTorch's size= (x.new_zeros(size=(2, 3)))
            if size or set(keyword) != {"size"}:
                raise TypeError(f"{method.__name__}() takes the size by position or as size=, not both; got the "
                                f"keywords {sorted(keyword)}")
            size = (keyword["size"],)
        shape = _shape(size)
        dt = as_dtype(dtype) if dtype is not None else self.dtype
        dev = get_device(device) if device is not None else self.device
        t = Tensor.constant(dev.xp.full(shape, fill_scalar("new_full", fill, dt), dtype=dt), dev)
        t = t.requires_grad_(True) if requires_grad else t
        if pin_memory is False:
            return t
        from ..creation import pinned_as_asked
        return pinned_as_asked(method.__name__, t, pin_memory)
    method.__name__ = name or f"new_{'zeros' if fill == 0 else 'ones'}"
    method.__doc__ = f"A tensor of {'zeros' if fill == 0 else 'ones'} with this one's dtype and device."
    return method


def new_full_method(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value``, with this one's dtype and device."""
    from ..creation import fill_number
    check_layout("new_full", layout)
    fill = fill_number("new_full", fill_value)
    return new_method(fill, "new_full")(self, size, dtype=dtype, device=device, requires_grad=requires_grad,
                                        pin_memory=pin_memory)


def _as_int_or_none(x: Any) -> Any:
    """``x`` as an int where Python's ``operator.index`` reads it so (not a bool), else None."""
    if isinstance(x, (bool, host_numpy.bool_)):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def legacy_new_method(self: Tensor, *args: Any, size: Any = None, device: Any = None) -> Tensor:
    """PyTorch's legacy constructor ``x.new(...)``, with ``x``'s dtype and device (or ``device=``):
    ``x.new(2, 3)``, ``x.new(other.shape)`` or ``x.new(size=(2, 3))`` is a tensor of that size (zeros
    here, as ``new_empty``; PyTorch leaves the memory unset), ``x.new()`` an empty one, ``x.new([1, 2])``,
    ``x.new((1, 2))`` or ``x.new(range(2))`` a copy of the data (a tuple is data, an ``mg.Size`` a size;
    Python ints an integer dtype cannot hold are refused, as ``mg.tensor``'s), and ``x.new(t)`` of a
    tensor of ``x``'s dtype a view of ``t``. Older code builds its zero states so (NVIDIA/tacotron2's
    ``memory.data.new(B, n).zero_()``); ``new_zeros``, ``new_empty`` and ``new_tensor`` are the current
    spellings. A lone number that is not an int (``x.new(2.5)``, ``x.new(True)``) and a tensor of
    another dtype are PyTorch's ``TypeError``s; ``x.new(t, device=...)`` its ``RuntimeError``."""
    from ..backend import check_python_integers
    from ..creation import _shape
    from ..tensor import Size
    if size is not None:  # (PyTorch's new(size=...), a size whatever its type)
        if args:
            raise TypeError("new() got multiple values for argument 'size'")
        args = (Size(_shape((size,))),)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if device is not None:
            raise RuntimeError("Legacy tensor new of the form tensor.new(tensor, device=device) is not supported.  "
                               "Use torch.as_tensor(...) instead.")
        if other.dtype != self.dtype:
            raise TypeError(f"new(): expected a tensor of {self.dtype}, got one of {other.dtype} (x.new(t) is a view "
                            "of t, which cannot change its dtype: use t.to(x.dtype) or x.new_tensor(t))")
        return other.view_as(other)
    dev = get_device(device) if device is not None else self.device
    if len(args) == 1 and not isinstance(args[0], Size):
        data = args[0]
        index = _as_int_or_none(data)
        if index is not None:
            args = (index,)  # one int (np.int64(3), a 0-d integer array): a size, as PyTorch's
        elif isinstance(data, str):
            raise TypeError("new(): invalid data type 'str'")
        elif isinstance(data, (dict, host_numpy.generic)) or not hasattr(type(data), "__getitem__"):
            # (PyTorch's PySequence_Check: a NumPy scalar, a number, None are not sequences)
            name = type(data).__name__
            raise TypeError(f"new(): data must be a sequence (got "
                            f"{'numpy.' + name if isinstance(data, host_numpy.generic) else name})")
        else:
            check_python_integers(data, self.dtype)
            return Tensor._from_data(data, dtype=self.dtype, device=dev)
    shape = _shape(args) if args else (0,)
    return Tensor.constant(dev.xp.zeros(shape, dtype=self.dtype), dev)


def new_tensor_method(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None,
                requires_grad: bool = False) -> Tensor:
    """A copy of ``data`` with this tensor's dtype and device (unless given); a tensor as ``data`` is
    copied with PyTorch's advice to say ``data.detach().clone()``, as ``mg.tensor(t)`` is."""
    if isinstance(data, Tensor):
        from ..creation import warn_copy_construct
        warn_copy_construct("tensor.new_tensor(sourceTensor)")
    from ..backend import check_python_integers
    check_python_integers(data, dtype or self.dtype)  # (Python ints an integer dtype cannot hold, as mg.tensor's)
    return Tensor._from_data(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)




def add_method(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``self + alpha * other`` (PyTorch's ``add``; a float ``alpha`` of integers is its error)."""
    return self + other if alpha.__class__ is int and alpha == 1 else mf.add(self, other, alpha=alpha)


def sub_method(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``self - alpha * other`` (PyTorch's ``sub``; a float ``alpha`` of integers is its error)."""
    return self - other if alpha.__class__ is int and alpha == 1 else mf.subtract(self, other, alpha=alpha)


_TYPE_NAMES = {"float16": "HalfTensor", "float32": "FloatTensor", "float64": "DoubleTensor", "int8": "CharTensor",
               "int16": "ShortTensor", "int32": "IntTensor", "int64": "LongTensor", "uint8": "ByteTensor",
               "bool": "BoolTensor", "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}


def scalar_type_name(dtype: Any) -> str:
    """PyTorch's name of a dtype in its messages (``Float`` for float32, ``Long`` for int64)."""
    return _TYPE_NAMES.get(dtype.name, dtype.name + "Tensor")[:-len("Tensor")]


def type_method(self: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    """PyTorch's ``type()``: the type's name, which names a device other than the CPU
    (``'minigrad_ckpt.FloatTensor'``, ``'minigrad_ckpt.cuda.FloatTensor'``); ``type(dtype)`` casts,
    and a type -- a name (``'torch.cuda.DoubleTensor'``) or a legacy class (``mg.LongTensor``, a
    CPU type; ``mg.Tensor`` and ``'torch.Tensor'`` the default dtype's) -- moves to its device too,
    as PyTorch's (``gpu_x.type('torch.FloatTensor')`` is on the CPU).
    ``non_blocking`` is PyTorch's (copies here finish before the call returns)."""
    if dtype is None:
        where = "" if self.device.type == "cpu" else self.device.type + "."
        return f"minigrad_ckpt.{where}{_TYPE_NAMES.get(self.dtype.name, self.dtype.name)}"
    if dtype is Tensor:  # torch.Tensor names the default tensor type, a CPU type as the legacy ones
        return self.to("cpu", get_default_dtype())
    if isinstance(dtype, type) and issubclass(dtype, Tensor):  # its dtype is a property, no legacy type's
        raise ValueError(f"invalid type: {dtype.__name__!r}")  # (x.type(nn.Parameter): PyTorch's words)
    if isinstance(dtype, type) and hasattr(dtype, "dtype"):  # a legacy type: x.type(mg.LongTensor)
        return self.to("cpu", dtype.dtype)
    if isinstance(dtype, str) and dtype.endswith("Tensor"):
        parts = dtype.split(".")
        names = {v: k for k, v in _TYPE_NAMES.items()} | {"Tensor": get_default_dtype().name}
        if parts[-1] not in names:
            raise ValueError(f"type: unknown tensor type {dtype!r}")
        return self.to(parts[-2] if len(parts) > 2 else "cpu", names[parts[-1]])
    return self.to(dtype=dtype)


def format_method(self: Tensor, spec: str) -> str:
    """A 0-d tensor formats as its number (``f"{loss:.4f}"``), as in PyTorch."""
    if self.ndim == 0:
        return format(self.item(), spec)
    return object.__format__(self, spec)



def svd_method(x: Tensor, some: bool = True) -> linalg.SVDFactors:
    """PyTorch's ``Tensor.svd``: ``(U, S, V)`` with ``x = U diag(S) V^H`` (``V``, not ``V^H``: the
    conjugate transpose of ``linalg.svd``'s ``Vh``, for complex ``x`` too)."""
    u, s, vh = linalg.svd(x, full_matrices=not some)
    v = mf.swapaxes(vh, -1, -2)
    return linalg.svd_answer(u, s, cn.conj(v) if v.dtype.kind == "c" else v)


def equal_method(self: Tensor, other: Any) -> bool:
    """PyTorch's ``x.equal(other)``: True if both have the same shape and elements (one bool)."""
    return self.shape == as_tensor(other).shape and bool(mf.equal(self, other).numpy().all())


def heaviside_method(self: Tensor, values: Any) -> Tensor:
    """PyTorch's ``x.heaviside(values)``: 0 below 0, 1 above, ``values`` at 0 (a NaN input gives ``values``)."""
    if isinstance(values, Tensor) and values.dtype != self.dtype:  # (mg.heaviside, NumPy's, promotes them)
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return ewc.heaviside(self, values, nan_is_nan=False)


@numpy_keywords
def nansum_method(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """PyTorch's ``x.nansum(dim, keepdim, dtype=)``: the sum, NaNs counted as zero."""
    return stats.nansum(self, dim=dim, keepdim=keepdim, dtype=dtype)


@numpy_keywords
def nanmean_method(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """PyTorch's ``x.nanmean(dim, keepdim, dtype=)``: the mean of the elements that are not NaN."""
    ti.floating("nanmean", self)  # PyTorch refuses integers here, even with dtype=
    ti.floating_dtype("nanmean", dtype)
    return stats.nanmean(self, dim=dim, keepdim=keepdim, dtype=dtype)


def cov_method(self: Tensor, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Tensor:
    """PyTorch's ``x.cov(correction=1, fweights=None, aweights=None)``: rows are variables."""
    return stats.cov(self, correction=correction, fweights=fweights, aweights=aweights)


def diff_method(self: Tensor, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
    """PyTorch's ``x.diff(n=1, dim=-1, prepend=None, append=None)``: the ``n``-th differences along ``dim``."""
    return diffs.diff(self, n, dim=dim, prepend=prepend, append=append)


def quantile_method(self: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
                    interpolation: str = "linear") -> Tensor:
    """PyTorch's ``x.quantile(q, dim=None, keepdim=False, interpolation='linear')``."""
    sel.refuse_half("quantile", self)
    return sel.quantile(self, q, dim=dim, keepdim=keepdim, interpolation=interpolation)


def nanquantile_method(self: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
                       interpolation: str = "linear") -> Tensor:
    """PyTorch's ``x.nanquantile(q, dim=None, keepdim=False, interpolation='linear')``, NaNs ignored."""
    sel.refuse_half("nanquantile", self)
    return sel.nanquantile(self, q, dim=dim, keepdim=keepdim, interpolation=interpolation)


def cholesky_method(self: Tensor, upper: bool = False) -> Tensor:
    """PyTorch's ``x.cholesky(upper=False)``: the lower factor ``L`` (``upper=True``: ``L^H``, the
    conjugate transpose for a complex ``x``).  An integer or bool stack of square matrices is
    PyTorch's ``NotImplementedError`` ('"cholesky_cpu" not implemented for 'Long''): this older
    spelling has no kernel for them, where ``linalg.cholesky`` refuses them with a ``RuntimeError``;
    a shape that is not a stack of square matrices is refused first, as there."""
    x = as_tensor(self)
    if x.dtype.kind in "biu" and x.ndim >= 2 and x.shape[-1] == x.shape[-2]:
        raise DtypeNotImplemented(f"\"cholesky_cpu\" not implemented for '{scalar_type_name(x.dtype)}'")
    return linalg.cholesky(x, upper=upper)


def logical_xor_method(self: Tensor, other: Any) -> Tensor:
    """PyTorch's ``x.logical_xor(other)``: where exactly one of the two is true (a bool tensor)."""
    return mf.not_equal(mf.astype(self, "bool"), mf.astype(as_tensor(other), "bool"))






def select_method(input: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """PyTorch's ``x.select(dim, index)``: the slice at ``index`` along ``dim``, that dim removed."""
    return mf.getitem(input, (slice(None),) * one_axis(dim, input.ndim) + (index,))


def sum_to_size_method(self: Tensor, *size: Any, **keyword: Any) -> Tensor:
    """PyTorch's ``x.sum_to_size(*size)`` (or ``size=``): summed down to the broadcastable ``size``."""
    out = mf.sum_to(self, _size_argument("sum_to_size", "size", size, keyword))
    if out is not self and out.dtype.kind == "u":  # NumPy's sum of unsigned integers is uint64, PyTorch's int64
        out = mf.astype(out, "int64")  # (the same bits: both wrap modulo 2**64)
    return out


def split_with_sizes_method(self: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """PyTorch's ``x.split_with_sizes(split_sizes, dim=0)``: pieces of the listed sizes along ``dim``."""
    return ti.split_sizes(self, list(split_sizes), dim)
