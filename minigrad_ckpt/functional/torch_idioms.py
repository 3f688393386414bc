"""PyTorch's spellings of the public functions: ``mg.<name>`` keeps NumPy's meaning, and
``dim=`` selects PyTorch's where the two libraries differ.

The rule (``docs/from-pytorch.md``): **the spelling picks the meaning, and no call
silently means the other library's answer.**

* ``dim=`` (and ``keepdim=``) is accepted wherever ``axis=`` (``keepdims=``) is; where
  both libraries mean the same thing it is only a second name (``mg.sum(x, dim=1)``).
* Where they differ, ``dim=`` gives PyTorch's answer: ``mg.var(x, dim=1)`` and
  ``mg.std`` use PyTorch's default ``correction=1``; ``mg.split(x, 3, dim=0)`` cuts
  pieces *of* 3 (NumPy: 3 pieces); ``mg.sort(x, dim=0)`` and ``mg.max(x, dim=0)``
  return ``(values, indices)``; ``mg.argsort(x, dim=0, descending=True)``.
* PyTorch-only names: ``mg.cat``, ``mg.unsqueeze``, ``mg.chunk``, ``mg.unbind``,
  ``mg.topk``, ``mg.clamp``, ``mg.flatten(x, start_dim, end_dim)``,
  ``mg.transpose(x, dim0, dim1)`` (two dims: PyTorch's swap; an ``axes`` tuple: NumPy's).

Tensor's methods follow PyTorch (:mod:`~minigrad_ckpt.functional.torch_methods`).
"""

from __future__ import annotations

import builtins
import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..backend import as_dtype, host_numpy, scalar_type_name
from ..tensor import Tensor, fresh_result
from ..user_frame import stacklevel_outside_the_engine
from . import math as mf
from .arguments import (
    as_index,
    as_tensor,
    check_nonempty,
    normalize_axis,
    number,
    numpy_keywords,
    one_axis,
    reduction_dims,
    refuse_bool,
    refuse_complex,
)
from .errors import (
    DimensionOutOfRange,
    DtypeNotImplemented,
    InputMismatch,
    MissingBounds,
    NeedsFloatingInput,
    RefusedArgument,
    TooFewDims,
)
from .indexing import take_along_axis_in_range
from .return_types import return_type

__all__ = [
    "sum", "mean", "prod", "var", "std", "logsumexp", "cumsum", "cumprod", "argmax", "argmin", "max", "min",
    "concatenate", "stack", "split", "flip", "squeeze", "expand_dims", "take", "sort", "argsort", "roll", "meshgrid",
    "repeat", "take_along_axis", "cross", "flatten", "cat", "unsqueeze", "ValuesIndices", "transpose", "chunk",
    "unbind", "topk", "clamp", "mul", "sub", "div", "true_divide", "neg", "pow", "eq", "ne", "lt", "le", "gt", "ge",
    "acos", "asin", "atan", "atan2", "acosh", "asinh", "atanh", "absolute", "concat", "t", "numel",
]

_UNSET: Any = object()


def along_zero_d(fn: Callable[..., Any], x: Any, dim: Any, args: tuple, kwargs: dict) -> Any:
    """PyTorch's rule for a 0-d tensor: ``dim`` 0 or -1 names its one element, as if it were
    of shape ``(1,)``, and the result is 0-d again."""
    r = fn(mf.reshape(x, (1,)), *args, **dict(kwargs, axis=0 if isinstance(dim, int) else (0,)))
    return mf.reshape(r, ()) if isinstance(r, Tensor) and r.size == 1 and r.ndim else r


def _names_the_zero_d_element(x: Any, dim: Any) -> bool:
    if not isinstance(x, Tensor) or x.ndim or dim is None:
        return False
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    names = all(isinstance(d, (int, host_numpy.integer)) and d in (0, -1) for d in dims)
    if names and len(dims) > 1:  # 0 and -1 are the same dim of a 0-d tensor: PyTorch refuses it twice
        raise RefusedArgument(f"dim 0 appears multiple times in the list of dims {tuple(dims)}")
    return names


def reduction_axis(x: Any, dim: Any) -> Any:
    """PyTorch's ``dim`` of a reduction over ``x`` as NumPy's ``axis``: an empty list or tuple
    is every dim (None, :func:`reduction_dims`), and for a 0-d ``x``, 0 or -1 names its one
    element -- no axis to reduce, ``()`` (``tensor(3.).amax(0)`` is 3, NumPy's axis 0 an error)."""
    dim = reduction_dims(dim)
    return () if _names_the_zero_d_element(x, dim) else dim


def with_dim(fn: Callable[..., Any], axis_of_the_input: bool = True, *, reduces: bool = False,
             zero_d_axis: bool = False) -> Callable[..., Any]:
    """``fn`` (which takes ``axis``) also taking PyTorch's ``dim=`` and, where it takes
    ``keepdims``, ``keepdim=``; giving both spellings is a TypeError.  With ``dim=``, a 0-d
    input takes ``dim`` 0 or -1 as PyTorch does (``axis_of_the_input``: the axis is one of the
    input's, not a new one as for ``stack``); ``reduces``: ``fn`` is a reduction, whose empty
    ``dim=()`` means every dim (:func:`reduction_dims`).  ``zero_d_axis``: the reduction's
    ``axis`` takes that rule too, positional or not -- where no NumPy function refuses it
    (SciPy's ``logsumexp`` answers ``logsumexp(array(3.), axis=0)``)."""
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
            kwargs["axis"] = dim = reduction_dims(dim) if reduces else dim
        if keepdim is not _UNSET:
            if not has_keepdims:
                raise TypeError(f"{name}() got an unexpected keyword argument 'keepdim'")
            if "keepdims" in kwargs or len(args) > keep_pos:
                raise TypeError(f"{name}: pass either keepdims= or keepdim=, not both")
            kwargs["keepdims"] = keepdim
        if zero_d_axis and dim is _UNSET and args:
            positional = len(args) > axis_pos
            if _names_the_zero_d_element(args[0], args[axis_pos] if positional else kwargs.get("axis")):
                if positional:  # nothing to reduce, as with dim= below
                    args = (*args[:axis_pos], (), *args[axis_pos + 1:])
                else:
                    kwargs["axis"] = ()
        if axis_of_the_input and dim is not _UNSET and args and _names_the_zero_d_element(args[0], dim):
            if reduces:  # nothing to reduce: the op sees the 0-d input (its gradient is PyTorch's
                kwargs["axis"] = ()  # 0-d one, ``prod``'s 1 at inf, not that of one of a row's factors)
                return fn(*args, **kwargs)
            kwargs.pop("axis")
            return along_zero_d(fn, args[0], dim, args[1:], kwargs)
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
    """What ``max(x, dim=...)``, ``sort(x, dim=...)`` and ``topk`` return, as PyTorch's
    ``torch.return_types``: ``values`` (differentiable; the gradient goes to the position
    in ``indices``) and ``indices`` (int64)."""

    values: Tensor
    indices: Tensor


#: torch.return_types' classes of the answers made here
_ANSWERS = {name: return_type(ValuesIndices, name) for name in ("max", "min", "sort", "topk")}


def _one_dim(name: str, x: Tensor, dim: Any) -> int:
    """PyTorch's rule for one ``dim``: an int, and a 0-d tensor takes 0 or -1."""
    dim = as_index(dim)
    if not isinstance(dim, (int, host_numpy.integer)) or isinstance(dim, bool):
        raise TypeError(f"{name}: dim must be one int, got {dim!r}")
    if x.ndim == 0:
        if dim not in (0, -1):  # PyTorch's words (its range for a 0-d tensor is [-1, 0])
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})")
        return 0
    return one_axis(int(dim), x.ndim)


def extremum_along(name: str, x: Any, dim: Any, keepdim: bool) -> ValuesIndices:
    """PyTorch's ``max(x, dim)`` / ``min(x, dim)``: the values and where they are."""
    x = as_tensor(x)
    d = _one_dim(name, x, dim)
    if x.ndim == 0:  # a new tensor, as PyTorch's: a write into the values is not a write into x
        refuse_complex(name, x)  # (as for more dims: the one element is no order of complex numbers either)
        return _ANSWERS[name](mf.clone(x), Tensor.constant(host_numpy.zeros((), host_numpy.int64)).to(x.device))
    check_nonempty(name, x, d)  # (in its own name: argmax below would name itself)
    arg = mf.argmax if name == "max" else mf.argmin
    idx = arg(x, axis=d, keepdims=True)
    values = take_along_axis_in_range(x, idx, axis=d)
    if not keepdim:  # (views of the kept-dim temporaries: new tensors, as PyTorch's)
        values, idx = fresh_result(mf.squeeze(values, d), x), fresh_result(mf.squeeze(idx, d), x)
    return _ANSWERS[name](values, idx)


def extremum_pair(name: str) -> Callable[..., ValuesIndices]:
    """``torch.max(x, dim, keepdim=False)`` (or ``min``) as a function: what ``mg.max(x, 1, out=(v, i))``
    answers, where ``mg.max(x, 1)`` is NumPy's (the values only)."""
    def pair(input: Any, dim: Any, keepdim: bool = False) -> ValuesIndices:  # noqa: A002
        return extremum_along(name, input, dim, bool(keepdim))
    return pair


def _extremum(fn: Callable[..., Any], elementwise: Callable[..., Any]) -> Callable[..., Any]:
    plain = with_dim(fn)
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(x: Any, axis: Any = None, *third: Any, keepdims: bool = False, dim: Any = _UNSET,
                keepdim: Any = _UNSET, **kwargs: Any) -> Any:
        if isinstance(axis, Tensor):  # torch.max(input, other): the elementwise maximum
            if third:
                raise TypeError(f"{name}(input, other) takes no third argument")
            return elementwise(x, axis)
        if third:  # NumPy's third argument is out= (None only here; np.max(x, 1, None, True) keeps dims); a
            # bool is PyTorch's keepdim, a spelling only PyTorch has: torch.max(x, 1, True) is (values, indices)
            if third[0] is None and len(third) <= 2:
                keepdims = bool(third[1]) if len(third) == 2 else keepdims
            elif len(third) == 1 and isinstance(third[0], (bool, host_numpy.bool_)):
                if dim is not _UNSET or keepdim is not _UNSET or kwargs:
                    raise TypeError(f"{name}(x, dim, keepdim) takes no other arguments")
                return extremum_along(name, x, axis, bool(third[0]))
            else:
                raise TypeError(f"{name}: the third argument is PyTorch's keepdim (a bool) or NumPy's out "
                                f"(None here), got {third!r}")
        if dim is _UNSET:
            if keepdim is not _UNSET:
                if isinstance(axis, (int, host_numpy.integer)) and not kwargs:
                    # PyTorch's spelling: torch.max(x, 1, keepdim=True) is the (values, indices) pair
                    return extremum_along(name, x, axis, bool(keepdim))
                keepdims = keepdim
            return plain(x, axis, keepdims, **kwargs)
        if axis is not None:
            raise TypeError(f"{name}: pass either axis= or dim=, not both (dim= returns (values, indices))")
        if kwargs:
            raise TypeError(f"{name}(dim=...) takes no {', '.join(kwargs)}")
        return extremum_along(name, x, dim, bool(keepdims if keepdim is _UNSET else keepdim))

    wrapper.__signature__ = inspect.signature(plain)  # type: ignore[attr-defined]
    wrapper.__doc__ = (fn.__doc__ or "") + (
        f"\n\nWith PyTorch's ``dim=`` (or ``keepdim=`` beside a dim, or a bool third argument -- NumPy's "
        f"third is ``out``: ``mg.{name}(x, 1, True)``) it returns ``(values, indices)`` "
        f"(a :class:`ValuesIndices`), "
        f"as ``torch.{name}(x, dim)`` does; the gradient goes to the element at ``indices``.  "
        f"A tensor as the second argument is PyTorch's elementwise ``torch.{name}(x, other)``.")
    return wrapper


def correction_of(name: str, ddof: Any, correction: Any, unbiased: Any, torch_default: bool) -> Any:
    """The divisor's offset from NumPy's ``ddof`` or PyTorch's ``correction``/``unbiased``.

    NumPy's default is 0; PyTorch's (``dim=``, ``correction=`` or ``unbiased=`` given) is 1.
    """
    given = [n for n, v in (("ddof", ddof), ("correction", correction), ("unbiased", unbiased)) if v is not _UNSET]
    if len(given) > 1:
        raise TypeError(f"{name}: pass one of ddof=, correction= or unbiased=, not {' and '.join(given)}")
    if unbiased is not _UNSET:
        return 1 if unbiased else 0
    if correction is not _UNSET:
        return 1 if correction is None else correction
    if ddof is not _UNSET:
        return ddof
    return 1 if torch_default else 0


def warn_without_degrees_of_freedom(name: str, x: Any, axis: Any, correction: Any) -> None:
    """PyTorch's warning where ``std``/``var`` (and ``std_mean``/``var_mean``) divide by ``N -
    correction <= 0`` -- a variance of one sample, or a correction as large as the slice: the
    answer is then inf or NaN, and PyTorch says why.  ``N`` is as PyTorch counts it: the input's
    elements per output element (0 where the output is empty); ``axis`` is NumPy's (None: every
    dim, ``()`` for a 0-d ``x``'s one element)."""
    if not isinstance(x, Tensor) or not isinstance(correction, (int, float, host_numpy.integer, host_numpy.floating)):
        return
    axes = normalize_axis(axis, x.ndim) if x.ndim else ()
    kept = 1
    for i, n in enumerate(x.shape):
        kept *= 1 if i in axes else n
    if (x.size // kept if kept else 0) - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning,
                      stacklevel=stacklevel_outside_the_engine())


def floating(name: str, x: Any) -> Any:
    """``x``, checked to be floating or complex: PyTorch's ``mean``, ``std``, ``var`` and
    ``norm`` refuse integer and bool tensors (they cannot say which float to answer in)
    where NumPy answers in float64; ``dtype=`` or ``x.float()`` says which."""
    if isinstance(x, Tensor) and x.dtype.kind in "biu":
        words = _NOT_FLOATING.get(name, lambda t: f"{name} only support floating point and complex dtypes")
        raise NeedsFloatingInput(f"{words(scalar_type_name(x.dtype))} ({name}(): input dtype must be "
                                 f"floating point or complex, got {x.dtype}; cast first with x.float() or x.double())")
    return x


# PyTorch's words for an integer or bool input to these, each as its kernel writes them (ScalarType names)
_NOT_FLOATING = {
    "mean": lambda t: f"mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
                      f"dtype. Got: {t}",
    "nanmean": lambda t: f"nanmean(): expected input to have floating point or complex dtype but got {t}",
    "norm": lambda t: f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {t}",
    "std": lambda t: "std and var only support floating point and complex dtypes",
    "var": lambda t: "std and var only support floating point and complex dtypes",
}  # (and "std_mean only support floating point and complex dtypes" for the others)


def floating_dtype(name: str, dtype: Any) -> None:
    """Refuse an integer or bool ``dtype=`` for ``mean``/``nanmean``, as PyTorch's ("could not infer
    output dtype"): a mean is a fraction, and casting the input to integers first would not make it
    one (NumPy would truncate, or divide into float64)."""
    if dtype is not None and as_dtype(dtype).kind in "biu":
        raise NeedsFloatingInput(f"{name}(): could not infer output dtype. Optional dtype must be either a "
                                 f"floating point or complex dtype. Got: {scalar_type_name(as_dtype(dtype))} "
                                 f"({as_dtype(dtype)})")


def floating_under_dim(name: str, fn: Callable[..., Any], *, dtype_casts_integers: bool) -> Callable[..., Any]:
    """``fn`` (a :func:`with_dim` reduction) under PyTorch's ``dim=`` as PyTorch's: integer
    input refused (``mg.mean(i, dim=0)``; ``mg.mean(i, 0)`` is NumPy's question, answered in
    float64) unless ``dtype=`` names the float and ``dtype_casts_integers`` (``mean`` does,
    ``nanmean`` does not); ``dtype=`` casts the input first."""
    @functools.wraps(fn)
    def wrapper(x: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("dim", _UNSET) is _UNSET:
            return fn(x, *args, **kwargs)
        dtype = kwargs.pop("dtype", None)
        floating_dtype(name, dtype)
        if dtype is None or not dtype_casts_integers:
            floating(name, x)
        return fn(x if dtype is None else mf.astype(x, dtype), *args, **kwargs)
    return wrapper


def _spread(fn: Callable[..., Any]) -> Callable[..., Any]:
    name = fn.__name__

    def wrapper(x: Any, axis: Any = None, ddof: Any = _UNSET, keepdims: bool = False, *, dim: Any = _UNSET,
                keepdim: Any = _UNSET, correction: Any = _UNSET, unbiased: Any = _UNSET, **kwargs: Any) -> Tensor:
        if isinstance(axis, (bool, host_numpy.bool_)):  # PyTorch's torch.std(x, True): unbiased, over all
            # of x (NumPy's axis is never a bool)
            if ddof is not _UNSET or unbiased is not _UNSET:
                raise TypeError(f"{name}(x, unbiased) takes no other correction")
            axis, unbiased = None, bool(axis)
        if isinstance(ddof, (bool, host_numpy.bool_)):  # PyTorch's positional unbiased, torch.std(x, 1, True):
            # NumPy's third argument is a dtype and a bool is no ddof
            if unbiased is not _UNSET:
                raise TypeError(f"{name}: unbiased given twice (the third argument and unbiased=)")
            ddof, unbiased = _UNSET, bool(ddof)
        torch_spelling = (dim is not _UNSET or correction is not _UNSET or unbiased is not _UNSET
                          or keepdim is not _UNSET)  # keepdim= is PyTorch's word too (NumPy's: keepdims=)
        if dim is not _UNSET:
            if axis is not None:
                raise TypeError(f"{name}: pass either axis= or dim=, not both")
            axis = dim = reduction_dims(dim)
        if keepdim is not _UNSET:
            keepdims = keepdim
        c = correction_of(name, ddof, correction, unbiased, torch_spelling)
        if torch_spelling:
            floating(name, x)
            warn_without_degrees_of_freedom(name, x, axis, c)
        if dim is not _UNSET and _names_the_zero_d_element(x, dim):
            return along_zero_d(lambda t, axis: fn(t, axis, c, keepdims, **kwargs), x, dim, (), {})
        return fn(x, axis, c, keepdims, **kwargs)

    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = (fn.__doc__ or "") + (
        "\n\nNumPy's ``ddof`` defaults to 0.  PyTorch's spelling -- ``dim=``, ``correction=`` or "
        "``unbiased=`` -- means PyTorch's default ``correction=1`` (Bessel's correction).")
    return wrapper


def split(x: Any, indices_or_sections: Any = _UNSET, axis: Any = _UNSET, *, dim: Any = _UNSET,
          split_size_or_sections: Any = _UNSET) -> list[Tensor] | tuple[Tensor, ...]:
    """NumPy's ``split`` (``k`` equal pieces, or pieces between split points) along ``axis``, a
    list as NumPy's; with PyTorch's ``dim=`` or its ``split_size_or_sections=``, PyTorch's: pieces
    *of* ``split_size`` (the last may be shorter), or pieces of the listed sizes, a tuple as PyTorch's."""
    if split_size_or_sections is not _UNSET:
        if indices_or_sections is not _UNSET or axis is not _UNSET:
            raise TypeError("split: split_size_or_sections= is PyTorch's split; pass dim=, not a NumPy "
                            "indices_or_sections or axis")
        return split_sizes(as_tensor(x), split_size_or_sections, 0 if dim is _UNSET else dim)
    if indices_or_sections is _UNSET:
        raise TypeError("split() missing its second argument: indices_or_sections (NumPy) or "
                        "split_size_or_sections (PyTorch)")
    if dim is _UNSET:
        return mf.split(x, indices_or_sections, 0 if axis is _UNSET else axis)
    if axis is not _UNSET:
        raise TypeError("split: pass either axis= or dim=, not both (dim= means PyTorch's split sizes)")
    return split_sizes(as_tensor(x), indices_or_sections, dim)


def split_sizes(x: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """PyTorch's ``split``: pieces of ``split_size`` along ``dim``, or of the listed sizes, as a tuple
    (PyTorch's type: a caller cannot append to it); each refusal PyTorch's ``RuntimeError``, and the
    ``ValueError`` it was here."""
    if x.ndim == 0:
        raise TooFewDims("split expects at least a 1-dimensional tensor")
    d = _one_dim("split", x, dim)
    n = x.shape[d]
    if isinstance(split_size_or_sections, Tensor) and split_size_or_sections.numel() == 1:
        # PyTorch's Tensor.split reads int(split_size) first, as Python does: any one-element tensor
        split_size_or_sections = int(split_size_or_sections.item())
    split_size_or_sections = as_index(split_size_or_sections)
    if isinstance(split_size_or_sections, (int, host_numpy.integer)):
        size = int(split_size_or_sections)
        if size < 0:  # PyTorch's RuntimeErrors, in its words
            raise RefusedArgument(f"split expects split_size be non-negative, but got split_size={size}")
        if size == 0 and n:
            raise RefusedArgument(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sizes = [builtins.min(size, n - s) for s in range(0, n, size)] if n else [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.min(sizes, default=0) < 0:  # PyTorch's RuntimeErrors, in its order and words
            raise RefusedArgument(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                                  f"split_sizes={sizes}")
        if builtins.sum(sizes) != n:
            raise RefusedArgument(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                                  f"at dimension {dim}), but got split_sizes={sizes}")
    points = list(host_numpy.cumsum(sizes)[:-1])
    return tuple(mf.split(x, points, d))


@numpy_keywords
def chunk(input: Any, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """PyTorch's ``chunk``: at most ``chunks`` pieces of ``ceil(n / chunks)`` along ``dim``, a tuple."""
    chunks = number("chunk", "chunks", chunks, "int")
    x = as_tensor(input)
    if x.ndim == 0:  # PyTorch's first check, then the count: RuntimeErrors (ValueErrors here before)
        raise TooFewDims("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RefusedArgument(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = x.shape[_one_dim("chunk", x, dim)]
    if n == 0:  # PyTorch's: ``chunks`` empty pieces
        return split_sizes(x, [0] * chunks, dim)
    return split_sizes(x, -(-n // chunks), dim)


@numpy_keywords
def unbind(input: Any, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """The slices along ``dim``, that dim removed (PyTorch's ``unbind``)."""
    x = as_tensor(input)
    if x.ndim == 0 and dim in (0, -1):  # (dim 0 of a 0-d tensor, its element elsewhere, has no slices)
        raise DimensionOutOfRange("Dimension specified as 0 but tensor has no dimensions")
    d = _one_dim("unbind", x, dim)
    lead = (slice(None),) * d
    return tuple(x[lead + (i,)] for i in range(x.shape[d]))


def sort(x: Any, axis: Any = -1, kind: str | None = None, order: Any = None, *, dim: Any = _UNSET,
         descending: Any = _UNSET, stable: Any = _UNSET) -> Any:
    """NumPy's ``sort`` (the sorted values) along ``axis``; with PyTorch's ``dim=``, ``descending=`` or
    ``stable=`` (keywords NumPy's ``sort`` does not take), PyTorch's ``(values, indices)``; so is a bool
    third argument, PyTorch's ``descending`` (NumPy's ``kind`` is a string): ``mg.sort(x, 1, True)``.
    The keyword's presence picks the meaning, not its value: ``mg.sort(x, 1, descending=False)`` is
    PyTorch's spelling, and answers PyTorch's pair.  Always stable."""
    pytorchs = dim is not _UNSET or descending is not _UNSET or stable is not _UNSET
    descending = False if descending is _UNSET else descending
    if isinstance(kind, bool):
        kind, descending, pytorchs = None, descending or kind, True
        if dim is _UNSET:
            dim, axis = axis, -1
    if not pytorchs:
        return mf.sort(x, axis, kind, order)
    if dim is not _UNSET and axis != -1:
        raise TypeError("sort: pass either axis= or dim=, not both")
    # a positional dim beside descending= is PyTorch's (torch.sort(x, 0, descending=True))
    return sort_pair(as_tensor(x), axis if dim is _UNSET else dim, descending)


def sort_pair(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> ValuesIndices:
    """PyTorch's ``sort``: values and indices along ``dim``; stable, ties keep their order
    (also when descending, as ``torch.sort(stable=True)``), whatever ``stable`` says (PyTorch's keyword,
    taken so that ``sort(x, stable=True, out=(v, i))`` reaches here)."""
    x = as_tensor(x)
    if x.ndim == 0:
        _one_dim("sort", x, dim)  # (values: a new tensor, as PyTorch's, not x -- also topk's and msort's)
        refuse_complex("sort", x)  # (PyTorch's "Sort does not support complex dtypes", as of more dims)
        return _ANSWERS["sort"](mf.clone(x), Tensor.constant(host_numpy.zeros((), host_numpy.int64)).to(x.device))
    d = _one_dim("sort", x, dim)
    key = x.detach()
    if descending:  # a stable ascending sort of order-reversed keys keeps ties in their order;
        # integers reverse by their complement (-k - 1), which, unlike negation, does not overflow
        # at the dtype's minimum (-(-128) is -128 in int8, and would sort first)
        key = ~key if key.dtype.kind in "biu" else -key
    idx = mf.argsort(key, axis=d)
    if descending and key.dtype.kind == "f":
        idx = _nans_first(key, idx, d)
    return _ANSWERS["sort"](take_along_axis_in_range(x, idx, axis=d), idx)


def _nans_first(key: Tensor, idx: Tensor, d: int) -> Tensor:
    """``idx`` (an ascending sort of the negated keys, NaNs last) reordered so that the NaNs
    come first: PyTorch orders NaN above every number, so a descending sort (and ``topk``)
    starts with them; a second stable sort on "is a number" keeps the rest in order."""
    is_number = mf.astype(mf.logical_not(mf.isnan(take_along_axis_in_range(key, idx, axis=d))), "int8")
    return take_along_axis_in_range(idx, mf.argsort(is_number, axis=d), axis=d)


def argsort(x: Any, axis: Any = -1, kind: str | None = None, order: Any = None, *, dim: Any = _UNSET,
            descending: bool = False, stable: bool = False) -> Tensor:
    """Indices that sort along ``axis`` (stable); PyTorch's ``dim=`` and ``descending=`` too, and a bool
    third argument as PyTorch's ``descending`` (NumPy's ``kind`` is a string): ``mg.argsort(x, 1, True)``."""
    if isinstance(kind, bool):
        kind, descending = None, descending or kind
    if dim is _UNSET and not descending:
        return mf.argsort(x, axis, kind, order)
    if dim is not _UNSET and axis != -1:
        raise TypeError("argsort: pass either axis= or dim=, not both")
    return sort_pair(as_tensor(x), axis if dim is _UNSET else dim, descending).indices


def topk(input: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> ValuesIndices:  # noqa: A002
    """The ``k`` largest (``largest=False``: smallest) values along ``dim`` and their indices,
    as ``torch.topk``; the gradient goes to the chosen elements."""
    refuse_complex("topk", input)
    x = refuse_bool("topk", as_tensor(input))
    n = 1 if x.ndim == 0 else x.shape[_one_dim("topk", x, dim)]
    if not 0 <= k <= n:  # PyTorch's RuntimeError ("selected index k out of range"), NumPy's ValueError
        raise RefusedArgument(f"topk: k={k} is out of range for a dim of length {n}")
    values, idx = sort_pair(x, dim, descending=largest)
    if x.ndim == 0:
        return _ANSWERS["topk"](values, idx)
    d = one_axis(dim, x.ndim)
    lead = (slice(None),) * d + (slice(0, k),)
    idx = idx[lead].contiguous()  # new, row-major indices (as PyTorch's), not a view of the sorted ones
    return _ANSWERS["topk"](take_along_axis_in_range(x, idx, axis=d), idx)


POSITIONAL = "*"


def swapaxes(input: Any, *axes: Any, **names: Any) -> Tensor:  # noqa: A002
    """Two axes exchanged, by position or by either library's keywords: NumPy's
    ``swapaxes(a, axis1, axis2)`` and PyTorch's ``swapaxes(input, axis0, axis1)`` (the same
    ``axis1`` is NumPy's first axis and PyTorch's second: ``axis0=``, or ``axis1=`` without
    ``axis2=``, is PyTorch's spelling)."""
    pytorchs = "axis0" in names or ("axis1" in names and "axis2" not in names)
    order = ("axis0", "axis1") if pytorchs else ("axis1", "axis2")
    if set(names) - set(order[len(axes):]):
        bad = sorted(set(names) - set(order[len(axes):]))[0]
        raise TypeError(f"swapaxes() got {'multiple values for' if bad in order else 'an unexpected keyword'} "
                        f"argument '{bad}'")
    values = [*axes, *(names[n] for n in order[len(axes):] if n in names)]
    if len(values) != 2:
        raise TypeError(f"swapaxes() takes two axes, got {len(values)}")
    return mf.swapaxes(input, *values)


def torch_keywords(fn: Callable[..., Any], **renames: str) -> Callable[..., Any]:
    """``fn`` also taking PyTorch's keyword names for arguments it already takes under NumPy's
    name, with the same meaning: ``torch_keywords(tril, diagonal="k")`` makes
    ``tril(x, diagonal=1)`` (``torch.tril``'s spelling) ``tril(x, k=1)``.  A rename to ``"*"``
    hands the value on as the last positional argument (``permute(x, dims=(1, 0))``).  Only
    names that NumPy's function lacks are renamed, so no spelling changes meaning; giving both
    names is a TypeError."""
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for torch_name, own in renames.items():
            if torch_name not in kwargs:
                continue
            value = kwargs.pop(torch_name)
            if own == POSITIONAL:
                args = (*args, value)
            elif own in kwargs:
                raise TypeError(f"{name}: pass either {own}= or {torch_name}=, not both (they are the same argument)")
            else:
                kwargs[own] = value
        return fn(*args, **kwargs)

    return wrapper


def operands_as_list(fn: Callable[..., Any], first: int) -> Callable[..., Any]:
    """``fn(*leading, *operands)`` also taking the operands as one list or tuple, as PyTorch's
    ``einsum("ij,jk", [a, b])`` does (NumPy's takes them spread out)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        rest = args[first:]
        if len(rest) == 1 and isinstance(rest[0], (list, tuple)) and rest[0] \
                and all(isinstance(o, Tensor) for o in rest[0]):
            args = (*args[:first], *rest[0])
        return fn(*args, **kwargs)

    return wrapper


def meshgrid(*tensors: Any, indexing: str | None = None, **kwargs: Any) -> tuple[Tensor, ...]:
    """NumPy's ``meshgrid`` for operands spread out (``indexing="xy"`` by default); PyTorch's for
    operands given as one list or tuple, ``meshgrid([x, y])``, a spelling only PyTorch has (NumPy
    reads the list as one array): ``indexing="ij"`` by default there, with PyTorch's warning that
    asks for the argument (Swin's ``torch.meshgrid([coords_h, coords_w])`` is ``"ij"``)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) and tensors[0] \
            and all(isinstance(t, Tensor) for t in tensors[0]):
        if indexing is None:
            warnings.warn("meshgrid: in an upcoming release, it will be required to pass the indexing argument "
                          "(PyTorch's warning; operands in one list take PyTorch's default, 'ij')", UserWarning,
                          stacklevel=stacklevel_outside_the_engine())
            indexing = "ij"
        tensors = tuple(tensors[0])
    return mf.meshgrid(*tensors, indexing="xy" if indexing is None else indexing, **kwargs)


def transpose(x: Any, *axes: Any) -> Tensor:
    """NumPy's ``transpose(x, axes)`` (axes reversed for None), or, with two dims,
    PyTorch's ``transpose(x, dim0, dim1)``: those two swapped."""
    axes = tuple(as_index(a) for a in axes)
    if len(axes) == 2 and all(isinstance(a, (int, host_numpy.integer)) for a in axes):
        return mf.swapaxes(x, int(axes[0]), int(axes[1]))
    if len(axes) > 1:
        raise TypeError("transpose takes an axes tuple (NumPy) or two dims to swap (PyTorch), "
                        f"got {len(axes)} arguments")
    return mf.transpose(x, axes[0] if axes else None)


def clamp(x: Any, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """PyTorch's name for :func:`clip`; at least one bound is required, as PyTorch's."""
    if min is None and max is None:
        raise MissingBounds("clamp: at least one of min or max must be given (PyTorch's words: At least one of "
                            "'min' or 'max' must not be None)")
    _refuse_a_mask_between_bool_numbers(x, min, max)
    return mf.clip(x, min, max)


def _refuse_a_mask_between_bool_numbers(x: Any, low: Any, high: Any) -> None:
    """PyTorch's clamp of a bool tensor between bool bounds runs a kernel it lacks in bool:
    ``mask.clamp(min=True)`` and ``mask.clamp(low_mask, high_mask)`` are its ``NotImplementedError``,
    where NumPy's clip answers a mask.  One bool tensor bound alone is its ``clamp_min``/``clamp_max``
    kernel, which has bool; a number that promotes the result to an integer or a float is answered."""
    given = [b for b in (low, high) if b is not None]
    if not (isinstance(x, Tensor) and x.dtype.kind == "b"):
        return
    if not builtins.all(isinstance(b, (bool, host_numpy.bool_)) or (isinstance(b, Tensor) and b.dtype.kind == "b")
                        for b in given):
        return
    tensors = builtins.sum(isinstance(b, Tensor) for b in given)
    if tensors == 2:
        kernel = "clamp_cpu"
    elif tensors == 1 and len(given) == 1:
        return
    else:  # numbers (a 0-d tensor beside a number is read as one, as PyTorch's parser reads it)
        kernel = "clamp_scalar_cpu" if len(given) == 2 else "clamp_min_scalar_cpu" if low is not None \
            else "clamp_max_scalar_cpu"
    raise DtypeNotImplemented(f"\"{kernel}\" not implemented for 'Bool'")


# PyTorch's names of functions the package has under NumPy's: the same function with the same
# meaning (``torch.mul`` is ``numpy.multiply``), so a ported program needs no rename.
mul, sub, div, true_divide, neg, pow = mf.multiply, mf.subtract, mf.divide, mf.divide, mf.negative, mf.power  # noqa: A001
eq, ne, lt, le, gt, ge = mf.equal, mf.not_equal, mf.less, mf.less_equal, mf.greater, mf.greater_equal
acos, asin, atan, atan2 = mf.arccos, mf.arcsin, mf.arctan, mf.arctan2
acosh, asinh, atanh, absolute = mf.arccosh, mf.arcsinh, mf.arctanh, mf.abs


def t(x: Any) -> Tensor:
    """PyTorch's ``t``: a 2-D tensor transposed; 0-d and 1-D tensors as they are."""
    x = as_tensor(x)
    if x.ndim > 2:
        raise RefusedArgument(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return mf.transpose(x) if x.ndim == 2 else x


def numel(x: Any) -> int:
    """PyTorch's ``numel``: how many elements ``x`` has."""
    return int(as_tensor(x).size)


sum = with_dim(mf.sum, reduces=True)  # noqa: A001 - NumPy's name
mean = floating_under_dim("mean", with_dim(mf.mean, reduces=True), dtype_casts_integers=True)
prod = with_dim(mf.prod, reduces=True)
var = _spread(mf.var)
std = _spread(mf.std)
logsumexp = with_dim(mf.logsumexp, reduces=True, zero_d_axis=True)


def _no_bool_scan_under_dim(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (a running sum or product), whose PyTorch spelling (``dim=``) refuses to run in bool --
    ``dtype=mg.bool``, or a bool ``out=`` -- as PyTorch has no such kernel ("cumsum_out_cpu" not
    implemented for 'Bool'); NumPy's ``mg.cumsum(x, dtype=bool)`` answers.  A bool input still
    counts in int64."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        dtype = kwargs.get("dtype")
        if kwargs.get("dim", _UNSET) is not _UNSET and dtype is not None and as_dtype(dtype).kind == "b":
            raise DtypeNotImplemented(f"\"{name}_out_cpu\" not implemented for 'Bool'")
        return fn(*args, **kwargs)
    return wrapper


cumsum = _no_bool_scan_under_dim("cumsum", with_dim(mf.cumsum))
cumprod = _no_bool_scan_under_dim("cumprod", with_dim(mf.cumprod))


def _bool_refused_under_dim(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``mg.argmax(x, dim=d)``/``argmin``, PyTorch's spelling, refuse a bool ``x`` as PyTorch's
    ("argmax(): does not support bool input"); NumPy's ``mg.argmax(mask)`` answers."""
    @functools.wraps(fn)
    def checked(x: Any, *args: Any, **kwargs: Any) -> Any:
        if "dim" in kwargs and isinstance(x, Tensor) and x.dtype.kind == "b":
            raise DtypeNotImplemented(f"{fn.__name__}(): does not support bool input")
        return fn(x, *args, **kwargs)
    return checked


argmax = _bool_refused_under_dim(with_dim(mf.argmax))
argmin = _bool_refused_under_dim(with_dim(mf.argmin))
max = _extremum(mf.max, mf.maximum)  # noqa: A001
min = _extremum(mf.min, mf.minimum)  # noqa: A001
concatenate = with_dim(mf.concatenate, axis_of_the_input=False)
stack = with_dim(mf.stack, axis_of_the_input=False)
flip = with_dim(mf.flip)
expand_dims = with_dim(mf.expand_dims, axis_of_the_input=False)
take = with_dim(mf.take)
roll = with_dim(mf.roll)
repeat = with_dim(mf.repeat)
take_along_axis = with_dim(mf.take_along_axis)
_numpy_cross = with_dim(mf.cross)


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None, *,
          dim: Any = _UNSET) -> Tensor:
    """NumPy's ``cross``, along the last axis (or ``axisa``/``axisb``/``axisc``, or ``axis``), and
    PyTorch's ``torch.cross(input, other, dim=None)``: with ``dim=`` along that dim, and with
    ``dim=None`` (PyTorch's default, given) along the first dim of size 3, with PyTorch's
    deprecation warning."""
    if dim is _UNSET:
        return mf.cross(a, b, axisa, axisb, axisc, axis)
    if (axisa, axisb, axisc, axis) != (-1, -1, -1, None):
        raise TypeError("cross: pass either axis= or dim=, not both (they are the same argument)")
    one_cross_dtype(a, b)
    return _numpy_cross(a, b, dim=first_dim_of_size_3(a, b) if dim is None else dim)


def one_cross_dtype(a: Any, b: Any) -> None:
    """Refuse two tensors of different dtypes in PyTorch's cross product (``x.cross(y)``,
    ``torch.cross(x, y, dim=)``, ``torch.linalg.cross``), in its words: its kernel computes in the
    first's dtype, where NumPy's ``cross`` promotes (float32 with int64 was float32 here)."""
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype != b.dtype:
        raise InputMismatch(f"expected scalar type {scalar_type_name(a.dtype)} but found {scalar_type_name(b.dtype)}")


def first_dim_of_size_3(a: Any, b: Any) -> int:
    """The dim PyTorch's ``cross`` takes without one (``x.cross(y)``, ``torch.cross(x, y)``): the first
    of size 3 in the broadcast shape (counted from the end, for the broadcast), with its deprecation
    warning; none is PyTorch's RuntimeError, as are inputs of two ranks or shapes that do not
    broadcast (NumPy's ValueError, from ``broadcast_shapes``, is not what PyTorch's callers catch)."""
    shapes = tuple(getattr(a, "shape", ())), tuple(getattr(b, "shape", ()))
    if len(shapes[0]) != len(shapes[1]):
        raise InputMismatch(f"linalg.cross: inputs must have the same number of dimensions, got "
                            f"{len(shapes[0])} and {len(shapes[1])}")
    try:
        shape = host_numpy.broadcast_shapes(*shapes)
    except ValueError:
        raise InputMismatch(f"linalg.cross: the shapes {shapes[0]} and {shapes[1]} of the inputs do not "
                            "broadcast") from None
    sizes3 = [d for d, n in enumerate(shape) if n == 3]
    if not sizes3:
        raise InputMismatch(f"no dimension of size 3 in input (cross of the shape {shape})")
    warnings.warn("Using cross without specifying the dim arg is deprecated (PyTorch): it takes the first dim "
                  "of size 3; pass dim= or use mg.linalg.cross(x, y) for the last", UserWarning,
                  stacklevel=stacklevel_outside_the_engine())
    return sizes3[0] - len(shape)


def squeeze(x: Any, axis: Any = None, *, dim: Any = _UNSET) -> Tensor:
    """NumPy's ``squeeze``: the size-1 axes removed (all of them for None; naming an axis of
    another size is an error).  With PyTorch's ``dim=`` (an int or a tuple), PyTorch's: the
    named dims of size 1 removed and any other named dim left as it is."""
    if dim is _UNSET:
        return mf.squeeze(x, axis)
    if axis is not None:
        raise TypeError("squeeze: pass either axis= or dim=, not both (they are the same argument)")
    return squeeze_dims(as_tensor(x), dim)


def squeeze_dims(x: Tensor, dim: Any) -> Tensor:
    """PyTorch's ``squeeze(x, dim)``: of the dims named (every dim for None), those of size 1
    removed; a 0-d tensor takes ``dim`` 0 or -1 and stays as it is."""
    if x.ndim == 0:
        if dim is not None and not _names_the_zero_d_element(x, dim):
            raise IndexError(f"squeeze: dim {dim!r} is out of range for a 0-d tensor (expected 0 or -1)")
        return mf.squeeze(x, None)
    named = normalize_axis(dim, x.ndim)
    return mf.squeeze(x, tuple(d for d in named if x.shape[d] == 1))


def cat(tensors: Sequence[Any], dim: int = 0, *, axis: int | None = None) -> Tensor:
    """PyTorch's name for :func:`concatenate`: join ``tensors`` along ``dim``."""
    if axis is not None and dim != 0 and axis != dim:
        raise TypeError("cat: pass either axis= or dim=, not both")
    return mf.concatenate(tensors, axis=dim if axis is None else axis)


concat = cat  # PyTorch's other name for it: one function, so the two take the same arguments (out= too)


@numpy_keywords
def unsqueeze(x: Any, dim: int) -> Tensor:
    """PyTorch's name for :func:`expand_dims`: a new axis of length 1 at ``dim``."""
    return mf.expand_dims(x, dim)


def flatten(x: Any, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Axes ``start_dim..end_dim`` merged into one (all of them by default), as PyTorch's: a
    view where the memory allows it (a write into it is a write into ``x``), else a copy --
    not NumPy's ``flatten``, always a copy."""
    x = as_tensor(x)
    s, e = _one_dim("flatten", x, start_dim), _one_dim("flatten", x, end_dim)  # a 0-d tensor's: 0 or -1
    if x.ndim == 0:
        return mf.reshape(x, (1,))
    if s > e:
        raise RefusedArgument(f"flatten() has invalid args: start_dim cannot come after end_dim (start_dim "
                              f"{start_dim}, end_dim {end_dim} of a {x.ndim}-D tensor)")
    if s == e:  # nothing to merge: PyTorch returns the input itself (not a view of it)
        return x
    n = 1
    for d in x.shape[s:e + 1]:
        n *= d
    return mf.reshape(x, x.shape[:s] + (n,) + x.shape[e + 1:])
