"""The backend: the one module that talks to an array library.

Every array the engine computes with lives on a *device*, and every device
carries an *array namespace* (conventionally called ``xp``): an object whose
attributes are the array functions the engine is allowed to call.  On the CPU
the namespace is filled from NumPy; on a GPU (see ``docs/devices.md``) from
CuPy.  Ops receive ``xp`` as their first argument, so the same op code runs on
either device and no other engine module imports ``numpy`` or ``cupy`` for math.

The namespace is an explicit whitelist rather than the library module itself:
a function the engine does not list here cannot be reached by accident, and a
stricter stand-in namespace can be generated from the same list for testing
device code without a GPU.

Besides the library's own functions, a namespace carries a tiny *adapter* for
what differs between libraries or is missing from them:

``scatter_add(target, index, values)``
    in-place ``target[index] += values`` that accumulates repeated indices
    (``numpy.add.at``; CuPy uses ``cupyx.scatter_add``).
``sum_to(a, shape)``
    sum a broadcast gradient back down to ``shape`` (broadcast un-reduction).
``index_add(shape, index, values)``
    a fresh zero array of ``shape`` with ``values`` accumulated at ``index``;
    the backward of indexing.
``to_host(a)``
    a NumPy copy of ``a`` (identity on the CPU).

Math that is more than one library call (``erf``, ``sigmoid``, convolution
windows, the random bits of :mod:`minigrad_ckpt.random`) is not written here:
it is a *kernel*, defined beside the op that needs it and made available as
``xp.<name>`` by :func:`register_kernel`.

This module also holds the dtype policy (the supported dtypes, the default
float dtype) and the one door through which outside data becomes an array on
a device (:func:`to_array`).
"""

from __future__ import annotations

import contextlib
import inspect
import math
import threading
from collections.abc import Iterator
from typing import Any

import numpy

__all__ = [
    "Device",
    "ArrayNamespace",
    "device",
    "get_device",
    "cpu",
    "host_numpy",
    "to_host",
    "is_array",
    "SUPPORTED_DTYPES",
    "as_dtype",
    "is_floating",
    "scalar_type_name",
    "cpp_type_name",
    "overflow_words",
    "get_default_dtype",
    "half_in_float32",
    "rounded_to_half",
    "number_beside_half",
    "BroadcastMismatch",
    "CannotInferDtype",
    "DtypeNotImplemented",
    "UnknownDevice",
    "refuse_unbroadcastable",
    "broadcast_refusal",
    "expand_mismatch",
    "wrapped_int",
    "set_default_dtype",
    "to_array",
    "device_of",
    "register_kernel",
    "backward_names",
]

# The host NumPy module, for code that must produce host data by contract
# (snapshots, the testing helpers, references in tests).  Engine math never
# uses it: it goes through a device's namespace.
host_numpy = numpy

SUPPORTED_DTYPES = tuple(
    numpy.dtype(n)
    for n in (
        "bool", "int8", "int16", "int32", "int64",
        "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64",
        "complex64", "complex128",
    )
)
_SUPPORTED = frozenset(SUPPORTED_DTYPES)
#: each supported dtype to NumPy's own instance of it: an unpickled or deep-copied dtype (or an array's)
#: is equal to it but another object, and the engine tests dtypes by identity (``dtype is HALF``), as
#: PyTorch users do (``x.dtype is torch.float32``)
_CANONICAL = {d: d for d in SUPPORTED_DTYPES}


def canonical_array(array: Any) -> Any:
    """``array`` itself, or a view of it whose dtype is NumPy's own instance (see ``_CANONICAL``)."""
    dt = _CANONICAL.get(array.dtype, array.dtype)
    return array if array.dtype is dt else array.view(dt)


def cast_may_warn(source: Any, target: Any) -> bool:
    """Whether NumPy's ``astype`` from ``source`` to ``target`` can warn: a narrowing cast overflows
    to inf ('overflow'), and a float or complex value that is inf, NaN or beyond an integer's range
    is 'invalid' -- of any width, float32 to int64 too."""
    return source.itemsize > target.itemsize or (source.kind in "fc" and target.kind in "iu")


def cast_silently(xp: Any, array: Any, dtype: Any) -> Any:
    """``array.astype(dtype)`` as PyTorch's cast: silent.  Beyond a narrower float's range is inf;
    an integer takes what the hardware gives for inf, NaN or a value out of its range (the minimum
    on x86), which is PyTorch's value too.  Model code meets it by design: T5's relative-position
    buckets cast ``log(0) = -inf`` to long before ``where`` discards it."""
    target = numpy.dtype(dtype)
    if not cast_may_warn(array.dtype, target):
        return array.astype(target)  # nothing to warn of, and errstate costs 3x the cast
    with xp.errstate(over="ignore", invalid="ignore"):
        return array.astype(target)


class DtypeNotOffered:
    """A PyTorch dtype NumPy lacks (``bfloat16``, ``complex32``): the name exists so that a script
    that merely names it runs (nanoGPT builds ``{'float32': torch.float32, 'bfloat16':
    torch.bfloat16, ...}[dtype]`` before choosing), and computing in it is a ``TypeError`` that
    says what to use instead.  It equals no dtype; ``numpy.dtype()`` of it raises that error."""

    def __init__(self, name: str, instead: str) -> None:
        self.name, self.instead = name, instead

    def __repr__(self) -> str:
        return f"minigrad_ckpt.{self.name}"

    def refusal(self) -> TypeError:
        return TypeError(f"dtype {self.name} is not offered: the engine computes with NumPy, which has no "
                         f"{self.name}; use {self.instead}")

    @property
    def dtype(self) -> numpy.dtype:  # what numpy.dtype(obj) asks of an object
        raise self.refusal()

    @property
    def is_floating_point(self) -> bool:
        return self.name != "complex32"

    @property
    def is_complex(self) -> bool:
        return self.name == "complex32"


#: PyTorch's dtypes that NumPy has no counterpart of, by the names a user may write
BFLOAT16 = DtypeNotOffered("bfloat16", "float32 (or float16)")
COMPLEX32 = DtypeNotOffered("complex32", "complex64")
_NOT_OFFERED_NAMES = {"bfloat16": BFLOAT16, "complex32": COMPLEX32, "chalf": COMPLEX32}


def as_dtype(dtype: Any) -> numpy.dtype:
    """Turn a dtype-like (``"float32"``, ``numpy.float32``, a dtype) into a supported NumPy dtype."""
    if isinstance(dtype, str) and dtype in _NOT_OFFERED_NAMES:  # NumPy would answer "not understood"
        dtype = _NOT_OFFERED_NAMES[dtype]
    if isinstance(dtype, DtypeNotOffered):
        raise dtype.refusal()
    # (NumPy's dtype() would read a tensor's or an array's .dtype)
    if hasattr(dtype, "shape") and not isinstance(dtype, (type, numpy.dtype)):
        raise TypeError(f"argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    try:
        dt = numpy.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"not a dtype: {dtype!r}") from exc
    canonical = _CANONICAL.get(dt)
    if canonical is None:
        names = ", ".join(d.name for d in SUPPORTED_DTYPES)
        raise TypeError(f"unsupported dtype {dt.name}; minigrad_ckpt supports {names}")
    return canonical


def is_floating(dtype: numpy.dtype) -> bool:
    """True for the dtypes that can carry gradients: float16/32/64 and complex64/128
    (a complex number is a pair of floats; docs/complex.md has the gradient convention)."""
    return dtype.kind in "fc"


#: PyTorch's names of the dtypes, as its errors write them: ScalarType's (``Long``) and C++'s (``long int``)
_SCALAR_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}
_CPP_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
             "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
             "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
             "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int"}


def scalar_type_name(dtype: Any) -> str:
    """PyTorch's ScalarType name of ``dtype`` in its messages (``Long`` for int64)."""
    return _SCALAR_TYPE.get(str(dtype), str(dtype))


#: PyTorch's names of the dtypes where a number does not fit one ("value cannot be converted to type int64_t")
_OVERFLOW_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "int64_t", "int32": "int",
                  "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t", "bool": "bool",
                  "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def overflow_words(dtype: Any) -> str:
    """PyTorch's words for a number ``dtype`` cannot hold: "value cannot be converted to type float
    without overflow" (its C++ type there: ``int64_t``, not ``long int``)."""
    return f"value cannot be converted to type {_OVERFLOW_TYPE.get(str(dtype), str(dtype))} without overflow"


def cpp_type_name(dtype: Any) -> str:
    """PyTorch's C++ name of ``dtype`` in its messages (``long int`` for int64)."""
    return _CPP_TYPE.get(str(dtype), str(dtype))


def castable_in_place(result: numpy.dtype, target: numpy.dtype) -> bool:
    """Whether an in-place op may write a ``result``-typed value into a ``target`` tensor:
    PyTorch's ``canCast``, which looks at categories only -- no complex into a real tensor, no
    float into an integer or bool one, nothing but bool into a bool one.  Within a category any
    width goes (``uint8 += int64`` wraps, ``float16 += float64`` rounds), where NumPy's
    ``same_kind`` also refuses a signed integer into an unsigned one."""
    if result.kind == "c" and target.kind != "c":
        return False
    if result.kind == "f" and target.kind in "iub":
        return False
    return result.kind == "b" or target.kind != "b"


class _NamedConstant:
    """One of PyTorch's named constants (a memory format, a layout), compared by identity as
    PyTorch's (``fmt is torch.channels_last``): pickling or copying it gives the same object back."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __reduce__(self) -> str:  # the module attribute of that name: the one object (pickle, copy, deepcopy)
        return self.name


class MemoryFormat(_NamedConstant):
    """PyTorch's ``torch.memory_format`` values (``mg.contiguous_format``, ``mg.preserve_format``,
    ``mg.channels_last``, ``mg.channels_last_3d``), for the ``memory_format=`` of ``clone``,
    ``contiguous``, ``is_contiguous``, ``to``, ``Module.to`` and the ``*_like`` creators: the
    layout (strides) of the result, never its values (see :func:`laid_out`)."""

    def __repr__(self) -> str:
        return f"mg.{self.name}"


contiguous_format = MemoryFormat("contiguous_format")
preserve_format = MemoryFormat("preserve_format")
channels_last = MemoryFormat("channels_last")
channels_last_3d = MemoryFormat("channels_last_3d")


class Layout(_NamedConstant):
    """PyTorch's ``torch.layout`` (``mg.layout``), for the ``layout=`` of the creation functions and
    ``x.layout``.  Every tensor here is one dense array, so there is one layout, ``mg.strided``; the
    sparse ones (``torch.sparse_coo``, ...) are not offered.  ``x.layout is mg.strided``."""

    def __repr__(self) -> str:
        return f"minigrad_ckpt.{self.name}"


strided = Layout("strided")


def check_layout(function: str, layout: Any) -> None:
    """Refuse a ``layout=`` other than ``mg.strided`` or ``None`` (both: the dense result made anyway),
    in PyTorch's words for what is not a layout."""
    if layout is not None and layout is not strided:
        raise TypeError(f"{function}(): argument 'layout' must be torch.layout, not {type(layout).__name__}")


def _split(x: Any) -> tuple[Any, Any]:
    """Dekker's split of float64 ``x`` into two halves of 26 bits, whose products are exact."""
    t = 134217729.0 * x  # 2**27 + 1
    high = t - (t - x)
    return high, x - high


def fused_multiply_add(a: Any, b: Any, c: Any, dtype: Any) -> Any:
    """``a * b + c`` (arrays of ``dtype`` values, float32 or float64) rounded once to ``dtype``, as
    the fused multiply-add of PyTorch's CPU kernels (NumPy has none).  The product's and the sum's
    rounding errors, found exactly (Dekker's product, Knuth's two-sum), go back into the sum: for
    float32 the float64 sum is rounded to odd first, so its rounding to float32 is the exact
    value's; for float64 it is the exact value's but at rare ties.  Where the terms are not finite,
    plain arithmetic."""
    a, b, c = (numpy.asarray(v, dtype=numpy.float64) for v in (a, b, c))
    with numpy.errstate(all="ignore"):
        prod = a * b
        (ah, al), (bh, bl) = _split(a), _split(b)
        prod_err = ((ah * bh - prod) + ah * bl + al * bh) + al * bl
        total = prod + c
        back = total - prod
        err = prod_err + ((prod - (total - back)) + (c - back))
        if numpy.dtype(dtype) == numpy.float64:
            out = total + err
        else:
            even = (total.view(numpy.int64) & 1) == 0
            out = numpy.where((err != 0) & even, numpy.nextafter(total, numpy.where(err > 0, numpy.inf, -numpy.inf)),
                              total)
        out = numpy.where(numpy.isfinite(out), out, prod + c)
        return out.astype(dtype)


#: The channels-last formats: the rank each asks for, and its axes from the outermost in memory
_CHANNELS_LAST = {"channels_last": (4, (0, 2, 3, 1)), "channels_last_3d": (5, (0, 2, 3, 4, 1))}


def check_memory_format(name: str, memory_format: Any, ndim: int | None = None) -> None:
    """Refuse what is not a ``memory_format`` (a TypeError), and a channels-last format for a
    tensor of another rank than it asks (``ndim``), with PyTorch's RuntimeError."""
    if memory_format is None:
        return
    if not isinstance(memory_format, MemoryFormat):
        raise TypeError(f"{name}: memory_format must be an mg.memory_format (mg.contiguous_format, "
                        f"mg.preserve_format, mg.channels_last, mg.channels_last_3d), got {memory_format!r}")
    rank = _CHANNELS_LAST.get(memory_format.name, (None,))[0]
    if rank is not None and ndim is not None and ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {memory_format.name} format")


def _axes_outer_first(a: Any) -> tuple[int, ...]:
    """The axes of ``a`` from the outermost in memory, as PyTorch's ``infer_dense_strides`` orders
    them for ``preserve_format``: by stride, an expanded dim (stride 0) left where it is, equal strides
    by size (an insertion sort over the axes, innermost first)."""
    def swap(d0: int, d1: int) -> int:
        s0, s1 = a.strides[d0], a.strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return 1 if s0 > s1 else -1
        return 1 if a.shape[d0] > a.shape[d1] else 0

    perm = list(range(a.ndim))[::-1]
    for i in range(1, a.ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return tuple(perm[::-1])


def layout_axes(memory_format: Any, like: Any) -> tuple[int, ...]:
    """The axes, outermost first, of the layout ``memory_format`` (or its name) asks for a result
    like ``like``."""
    name = memory_format if isinstance(memory_format, str) else getattr(memory_format, "name", "preserve_format")
    if name in _CHANNELS_LAST:
        return _CHANNELS_LAST[name][1]
    if name == "preserve_format" and like.size:
        return _axes_outer_first(like)
    return tuple(range(like.ndim))


def has_layout(a: Any, axes: tuple[int, ...]) -> bool:
    """Whether ``a``'s strides are those of the dense layout whose axes, outermost first, are
    ``axes`` (a dim of one element may have any stride, as in PyTorch's ``is_contiguous``)."""
    step = a.itemsize
    for k in reversed(axes):
        if a.shape[k] != 1:
            if a.strides[k] != step:
                return False
            step *= a.shape[k]
    return True


def laid_out(a: Any, memory_format: Any = None, like: Any = None, copy: bool = True) -> Any:
    """``a``'s values in the layout ``memory_format`` asks, PyTorch's strides: row-major
    (``contiguous_format``), channels last (the channels innermost: strides ``(HWC, 1, WC, C)``), or
    for ``preserve_format`` (None) the order of ``like``'s strides (``a``'s unless given: a transpose's
    copy stays transposed).  ``copy=False``
    gives ``a`` itself when it already has that layout."""
    axes = layout_axes(memory_format, a if like is None else like)
    if not copy and has_layout(a, axes):
        return a
    inverse = tuple(sorted(range(len(axes)), key=axes.__getitem__))
    return a.transpose(axes).copy().transpose(inverse)  # (``copy`` is row-major: the axes' order)


# The dtype Python floats become (PyTorch's rule); a one-element list so that
# readers that imported it see changes.
_default_dtype = [numpy.dtype("float32")]


def python_number(x: numpy.generic) -> bool | int | float | complex:
    """A NumPy scalar as the Python number PyTorch reads it as beside a tensor (a weak operand):
    ``x.item()`` -- except NumPy's extended precision, whose ``item()`` is itself (a Python float
    cannot hold a ``longdouble``), so that ``x * np.longdouble(2)`` made a float128 tensor, a dtype
    no tensor may have; it is read as a float (``clongdouble``: a complex), as PyTorch reads it."""
    v = x.item()
    if isinstance(v, numpy.generic):  # longdouble, clongdouble
        return complex(v) if isinstance(v, numpy.complexfloating) else float(v)
    return v


def wrapped_int(v: int, dtype: numpy.dtype) -> int:
    """A Python int as the integer ``dtype`` holds it, wrapped modulo ``2**bits`` as a C cast
    (PyTorch's answer for ``uint8_tensor + 300``: 300 is 44; NumPy raises ``OverflowError``);
    beyond 64 bits an ``OverflowError``, as PyTorch's."""
    info = numpy.iinfo(dtype)
    if info.min <= v <= info.max:
        return v
    if not -(1 << 63) <= v < (1 << 64):
        raise OverflowError(f"Python int {v} too big to convert to a {dtype} tensor's type")
    return (v - info.min) % (1 << (8 * dtype.itemsize)) + info.min


def get_default_dtype() -> numpy.dtype:
    """The dtype Python floats become (``float32`` unless changed)."""
    return _default_dtype[0]


def set_default_dtype(dtype: Any) -> None:
    """Set the dtype Python floats and ``rand``/``zeros``/... default to (a float dtype)."""
    dt = as_dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"the default dtype must be a float dtype, got {dt}")
    _default_dtype[0] = dt


# --------------------------------------------------------------------------
# The whitelist: every library function engine code may call as ``xp.<name>``.
# --------------------------------------------------------------------------
_MIN, _MAX = numpy.minimum.reduce, numpy.maximum.reduce  # (NumPy's reductions without its Python layer)

LIBRARY_FUNCTIONS = (
    # creation
    "asarray", "empty", "zeros", "ones", "full", "arange", "zeros_like", "ones_like",
    "full_like", "eye",
    # elementwise math
    "add", "subtract", "multiply", "divide", "negative", "power", "exp", "expm1",
    "log", "log1p", "sqrt", "abs", "sign", "signbit", "sin", "cos", "tan", "tanh", "cosh",
    "arctan", "maximum", "minimum", "clip", "where", "square", "reciprocal",
    "logical_and", "logical_or", "logical_not", "isnan", "isinf", "isfinite",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "floor", "ceil", "round", "frexp", "ldexp",
    # integer arithmetic
    "gcd", "left_shift", "right_shift",
    # complex numbers
    "real", "imag", "conj",
    "sinh", "arcsin", "arccos", "arctan2", "arcsinh", "arccosh", "arctanh", "log2", "log10",
    "exp2", "hypot", "logaddexp", "logaddexp2", "cbrt", "trunc", "mod", "fmod",
    # reductions and scans
    "sum", "mean", "max", "min", "prod", "var", "std", "argmax", "argmin",
    "cumsum", "cumprod", "count_nonzero", "all", "any",
    # linear algebra
    "matmul", "einsum", "tensordot", "dot",
    # shape and layout
    "reshape", "transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze",
    "broadcast_to", "broadcast_shapes", "concatenate", "stack", "split", "flip",
    "pad", "take", "take_along_axis", "put_along_axis", "ascontiguousarray",
    "array_split", "tile", "repeat", "tril", "triu", "nonzero",
    "sort", "argsort", "roll", "diagonal", "copyto",
    # misc
    "errstate", "iinfo", "finfo", "result_type", "can_cast", "shares_memory",
)

#: The ``linalg`` functions engine code may call as ``xp.linalg.<name>`` (NumPy's and
#: CuPy's ``linalg`` modules spell them alike; both work on stacks of matrices).
LINALG_FUNCTIONS = ("inv", "det", "slogdet", "solve", "cholesky", "eigh", "svd", "qr")

#: The ``fft`` functions engine code may call as ``xp.fft.<name>``, with NumPy's
#: signatures (``(a, s, axes, norm)``); the differentiable namespace offers
#: :mod:`minigrad_ckpt.functional.fft` under the same names.
FFT_FUNCTIONS = ("fftn", "ifftn", "rfftn", "irfftn")


class LinalgNamespace:
    """``xp.linalg``: the whitelisted functions of one library's ``linalg`` module."""

    def __repr__(self) -> str:
        return f"<linalg namespace ({', '.join(LINALG_FUNCTIONS)})>"


class FFTNamespace:
    """``xp.fft``: the whitelisted functions of one library's ``fft`` module."""

    def __repr__(self) -> str:
        return f"<fft namespace ({', '.join(FFT_FUNCTIONS)})>"


def _lookup(library: Any, name: str) -> Any:
    """``library.<name>`` for a plain or dotted (``"linalg.inv"``) name."""
    obj = library
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


class ArrayNamespace:
    """The functions one array library offers the engine (``xp`` in op code).

    Attributes are filled from :data:`LIBRARY_FUNCTIONS` of the library module,
    plus the adapter methods defined below.  ``array_type`` is the library's
    array class; ``name`` is ``"numpy"`` or ``"cupy"``.
    """

    name: str
    array_type: type
    #: Whether an integer-array index out of range raises here (NumPy's ``IndexError``) or wraps
    #: around silently, as CuPy's kernels do ("CuPy handles out-of-bounds indices differently by
    #: default from NumPy when using integer array indexing ... CuPy wraps around them"; so do its
    #: ``take``, ``put`` and ``cupyx.scatter_add``).  Where they wrap, engine code that takes
    #: indices checks their range first (one explicit read, :meth:`extrema`); where they raise,
    #: it lets the library check, at no cost, and words the error as PyTorch's.
    wraps_bad_indices = False
    # constants every library spells the same (the dtype names are added below the class)
    newaxis = None
    inf = float("inf")
    nan = float("nan")
    pi = 3.141592653589793

    def __init__(self, library: Any, name: str, array_type: type | None = None) -> None:
        self.name = name
        self.library = library
        self.array_type = library.ndarray if array_type is None else array_type
        for fn in LIBRARY_FUNCTIONS:
            setattr(self, fn, self._function(fn))
        self.linalg = LinalgNamespace()
        for fn in LINALG_FUNCTIONS:
            setattr(self.linalg, fn, self._function("linalg." + fn))
        self.fft = FFTNamespace()
        for fn in FFT_FUNCTIONS:
            setattr(self.fft, fn, self._function("fft." + fn))

    def _function(self, name: str) -> Any:
        """The namespace's ``name``: the library's function itself here; subclasses
        wrap it (CuPy: run on this namespace's GPU; strict: check every argument).

        NumPy's own: the implementation behind NumPy's ``__array_function__`` dispatcher,
        which looks for that method on every argument, about 0.15 us a call; the engine
        hands this namespace NumPy arrays and numbers only."""
        fn = _lookup(self.library, name)
        return getattr(fn, "_implementation", fn) if self.library is numpy else fn

    def __repr__(self) -> str:
        return f"<array namespace {self.name}>"

    # ---- adapter: what differs between libraries --------------------------
    def scatter_add(self, target: Any, index: Any, values: Any) -> None:
        """``target[index] += values`` in place, accumulating repeated indices (in the index's
        order, as ``add.at``)."""
        if self.library is not numpy or not _added_rank_by_rank(target, index, values):
            self.library.add.at(target, index, values)

    def to_host(self, a: Any) -> numpy.ndarray:
        """A NumPy array with the contents of ``a`` (no copy on the CPU)."""
        return numpy.asarray(a)

    def scalar(self, a: Any) -> Any:
        """The value of a one-element array as a Python number: an explicit, synchronizing
        device-to-host read (the only kind the engine makes, e.g. to validate indices)."""
        return self.to_host(a).item()

    def extrema(self, arrays: list[Any]) -> list[tuple[int, int]]:
        """The (min, max) of each of ``arrays`` (one or more non-empty integer arrays) as Python
        numbers, read in ONE explicit device-to-host transfer however many arrays there are:
        checking the indices of a call costs one synchronization of a GPU, not one per array or
        bound.  (Arrays of different integer dtypes stack in their common one: uint64 beside
        int64 gives floats, exact below 2**53, which decides any range check of an index.)"""
        if self.library is numpy and self.array_type is numpy.ndarray:  # no device: each bound as it is
            return [(_MIN(a, axis=None).item(), _MAX(a, axis=None).item()) for a in arrays]
        flat = self.to_host(self.stack([end for a in arrays for end in (a.min(), a.max())])).tolist()
        return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]

    def to_device(self, a: Any, device: Any) -> Any:
        """A copy of ``a`` on ``device`` (an explicit transfer through the host)."""
        dev = get_device(device)
        host = self.to_host(a)
        return dev.xp.asarray(host) if dev.xp.name != "numpy" else host.copy()

    def synchronize(self) -> None:
        """Wait for queued device work (nothing to wait for on the CPU)."""

    def as_array(self, a: Any) -> Any:
        """``a`` as this namespace's array type: NumPy returns a scalar (``np.float64``), not a
        0-d array, for some 0-d results; the engine holds arrays only."""
        return a if a.__class__ is self.array_type else self.asarray(a)

    def holds(self, a: Any) -> bool:
        """True if ``a`` is an array of this namespace's device."""
        return isinstance(a, self.array_type)

    def owns_memory(self, a: Any) -> bool:
        """True if ``a`` is not a view into another array's memory."""
        return a.base is None

    def memory_owner(self, a: Any) -> Any:
        """The object that owns the memory ``a`` views: the same object for any two arrays
        that share memory (the end of the ``base`` chain), so its identity names the memory."""
        while getattr(a, "base", None) is not None:
            a = a.base
        return a

    def address(self, a: Any) -> int:
        """The address of ``a``'s first element (PyTorch's ``data_ptr()``)."""
        return int(a.__array_interface__["data"][0])

    # ---- adapter: helpers written once on top of the namespace ------------
    def sum_to(self, a: Any, shape: tuple[int, ...]) -> Any:
        """Sum ``a`` down to ``shape``, undoing NumPy broadcasting.

        Leading axes that broadcasting added are summed away; axes where
        ``shape`` has size 1 but ``a`` does not are summed with ``keepdims``.
        """
        return _sum_to(a, shape)

    def pairwise_sum(self, a: Any, axes: tuple[int, ...], keepdims: bool = False) -> Any:
        """``a.sum(axis=axes, keepdims=keepdims)`` (``axes`` a tuple of non-negative axes) to about
        PyTorch's float32 accuracy over any axis, not only NumPy's innermost: :func:`_pairwise_sum`."""
        return _pairwise_sum(a, axes, keepdims)

    def index_add(self, shape: tuple[int, ...], index: Any, values: Any, unique: bool = False) -> Any:
        """A zero array of ``shape`` with ``values`` accumulated at ``index``.

        ``unique=True`` promises that no position is selected twice (the
        caller knows, e.g. one class per row), so assignment is exact.
        """
        out = self.zeros(shape, dtype=values.dtype)
        if unique or _is_basic_index(index):
            # Basic indices (ints, slices, None, Ellipsis) never select an
            # element twice, so plain assignment is exact and much faster.
            out[index] = values
        else:
            self.scatter_add(out, index, values)
        return out

    def as_strided(self, a: Any, shape: tuple[int, ...], strides: tuple[int, ...], writeable: bool = False) -> Any:
        """A strided view of ``a``: read-only unless asked (windows for convolution and pooling
        are read; ``Tensor.unfold``'s windows are PyTorch's writable view)."""
        return self.library.lib.stride_tricks.as_strided(a, shape, strides, writeable=writeable)



#: The most rows one position of :func:`_added_rank_by_rank` may gather (a pass each); beyond, ``add.at``.
_MOST_REPEATS = 256
#: The fewest numbers a row must hold for :func:`_added_rank_by_rank`: gathering and scattering rows
#: by an index costs per row what ``add.at`` costs per number, so narrower rows are ``add.at``'s
#: (8,192 rows of 1 number: 0.08 ms by ``add.at``, 0.6 ranked; of 4: 0.39 and 0.79; of 16 about even)
_FEWEST_ROW_NUMBERS = 16


def _added_rank_by_rank(target: Any, index: Any, values: Any) -> bool:
    """``numpy.add.at(target, index, values)`` for rows of ``target`` picked by one integer array
    (an embedding's gradient: ``w[ids]``), with its values; False, having done nothing, elsewhere.

    ``add.at`` adds one row at a time (an embedding of 65 characters over 1,024 tokens: 7.6 ms,
    torch's whole backward 0.2).  Sorted stably by position, the rows of each position are added in
    the index's order all the same, but a rank at a time: the first row of every position at once,
    then every second one, ... -- ``target[positions] += rows`` with no position twice, so each sum is
    ``add.at``'s, ``((t + r0) + r1) + ...``, bit for bit (a sum of two NaNs is NaN in both, but which
    one's sign and payload it keeps differs between NumPy's own loops).  A rank's pass touches only
    the positions with that many rows (the positions in order of their count, a prefix each rank), so
    one position repeated costs its rows, not a pass over every position per repeat.  Taken for a
    same-dtype array index within range, rows of at least :data:`_FEWEST_ROW_NUMBERS` numbers, at most
    :data:`_MOST_REPEATS` rows a position (each rank is a pass in Python) and values that are not
    ``target``'s memory: ``add.at`` reads each value as it goes, after the writes before it, which a
    rank's gathered rows would not see."""
    if index.__class__ is tuple and len(index) == 1:
        index = index[0]
    if (target.__class__ is not numpy.ndarray or index.__class__ is not numpy.ndarray or index.dtype.kind not in "iu"
            or values.__class__ is not numpy.ndarray or values.dtype != target.dtype or target.ndim < 2
            or values.shape != index.shape + target.shape[1:] or index.size < 2
            or values.size < _FEWEST_ROW_NUMBERS * index.size or numpy.may_share_memory(target, values)):
        return False
    flat = index.reshape(-1)
    if flat.min() < 0 or flat.max() >= target.shape[0]:  # (add.at wraps negatives and raises past the end)
        return False
    order = numpy.argsort(flat, kind="stable")
    positions = flat[order]
    starts = numpy.flatnonzero(numpy.concatenate(([True], positions[1:] != positions[:-1])))
    counts = numpy.diff(numpy.append(starts, flat.size))
    most = int(counts.max())
    if most > _MOST_REPEATS:
        return False
    by_count = numpy.argsort(-counts, kind="stable")
    firsts = starts[by_count]  # each position's first row, the most repeated positions first
    with_more = len(counts) - numpy.searchsorted(counts[by_count][::-1], numpy.arange(1, most + 1))  # > rank
    rows = values.reshape((flat.size,) + target.shape[1:])
    for rank in range(most):
        live = firsts[: with_more[rank]] + rank
        target[positions[live]] += rows[order[live]]
    return True


# dtype objects, so op code can write ``xp.float32`` as in NumPy
for _dt in SUPPORTED_DTYPES:
    setattr(ArrayNamespace, _dt.name, _dt.type)
del _dt


#: Every registered kernel by name (filled by :func:`register_kernel` as the ops load).
KERNELS: dict[str, Any] = {}


def register_kernel(fn: Any) -> Any:
    """Make ``fn(xp, ...)`` available as ``xp.<name>(...)`` on every array namespace.

    Ops whose math is more than a library call (convolution windows, for
    example) define it once as a kernel; backward code then calls it through
    ``xp`` like any library function, and the differentiable namespace
    provides a function of the same name.
    """
    setattr(ArrayNamespace, fn.__name__, fn)
    KERNELS[fn.__name__] = fn
    return fn


class InvalidShape(RuntimeError, ValueError):
    """A shape ``reshape``/``view`` cannot give the tensor (its size, two -1s, a negative size):
    PyTorch's ``RuntimeError`` ("shape '[3]' is invalid for input of size 9") and NumPy's ``ValueError``.
    (Here, below creation and the math, which both raise it; ``functional.errors`` offers it too.)"""


def expand_mismatch(in_shape: tuple[int, ...], shape: tuple[int, ...], target: Any = None) -> InvalidShape:
    """PyTorch's error for ``in_shape`` broadcast to ``shape`` (``target`` as the caller spelled it,
    its -1s unresolved): a RuntimeError (``expand``, ``broadcast_to``, a value written through a basic
    index, which PyTorch copies into the view) that is NumPy's ValueError too."""
    lead = len(shape) - len(in_shape)
    if lead < 0:
        return InvalidShape(f"expand: the number of sizes provided ({len(shape)}) must be greater or equal to the "
                            f"number of dimensions in the tensor ({len(in_shape)})")
    # PyTorch checks from the right, as it broadcasts, and names the last mismatching dim
    dim = max(i for i, (n, s) in enumerate(zip(in_shape, shape[lead:])) if n not in (s, 1))
    return InvalidShape(f"The expanded size of the tensor ({shape[lead + dim]}) must match the existing size "
                        f"({in_shape[dim]}) at non-singleton dimension {lead + dim}.  Target sizes: "
                        f"{list(shape if target is None else target)}.  Tensor sizes: {list(in_shape)} (a tensor of "
                        f"shape {in_shape} does not broadcast to {shape})")


class RefusedArgument(RuntimeError, ValueError):
    """An argument value PyTorch's kernel refuses with ``RuntimeError`` where the engine, as NumPy,
    raised ``ValueError``: a dim listed twice (``x.sum((0, -2))`` of a 2-D ``x``), ``k`` past a dim's
    length (``topk``), a histogram's empty or infinite range, a negative ``minlength``, ``side`` and
    ``right`` saying opposite things (``searchsorted``), ``rot90`` of fewer than two dims, a zero step
    or an unbounded range (``arange``), a probability outside [0, 1] (``bernoulli``).  (Here, below
    creation and the math, which both raise it; ``functional.errors`` offers it too.)"""


class DtypeNotImplemented(NotImplementedError, TypeError):
    """An input dtype PyTorch has no kernel for (``bincount`` of floats or bools, ``kthvalue`` of
    bools, ``randn`` or ``bernoulli`` of integers): PyTorch's ``NotImplementedError``
    ("bincount_cpu" not implemented for 'Double'), a ``RuntimeError`` too, and the engine's
    ``TypeError`` (the input's type is what is wrong).  (Here, below creation and the math;
    ``functional.errors`` offers it too.)"""


class BroadcastMismatch(RuntimeError, ValueError):
    """Operands whose shapes do not broadcast (``ones(3, 4) * ones(3)``): PyTorch's ``RuntimeError``
    with its message, and the ``ValueError`` NumPy raised before (so handlers of either catch it)."""


class UnknownDevice(RuntimeError, ValueError):
    """A device name the engine does not know (``"tpu"``, ``"gpu"``, a typo): PyTorch's ``RuntimeError``
    ("Expected one of cpu, cuda, ... device type at start of device string"), and the ``ValueError``
    the engine raised before (so handlers of either catch it)."""


def refuse_unbroadcastable(arrays: Any, exc: ValueError) -> None:
    """Raise :class:`BroadcastMismatch` naming the first dimension (from the right) where two
    operands' sizes differ and neither is 1, if that is why the array library refused ``exc``;
    otherwise return, and the caller re-raises ``exc``."""
    if "broadcast" not in str(exc):
        return
    shapes = [tuple(getattr(a, "shape", ())) for a in arrays]
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + s for s in shapes]
    for d in range(ndim - 1, -1, -1):
        big = [(k, p[d]) for k, p in enumerate(padded) if p[d] != 1]
        if len({size for _, size in big}) > 1:
            (i, a), (j, b) = big[0], next(e for e in big if e[1] != big[0][1])
            listed = " and ".join(str(s) for s in shapes)
            raise BroadcastMismatch(f"The size of tensor {'abcdefgh'[i]} ({a}) must match the size of tensor "
                                    f"{'abcdefgh'[j]} ({b}) at non-singleton dimension {d} (shapes {listed} "
                                    f"cannot be broadcast together)") from exc


class broadcast_refusal:
    """``with broadcast_refusal(a, b): out = a & b`` -- the array library's ``ValueError`` for operands
    whose shapes do not broadcast leaves the block as PyTorch's :class:`BroadcastMismatch`, in its
    words (see :func:`refuse_unbroadcastable`); any other error leaves unchanged.  A class rather
    than a generator context manager: it is entered on every call of the ops that use it."""

    __slots__ = ("arrays",)

    def __init__(self, *arrays: Any) -> None:
        self.arrays = arrays

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, traceback: Any) -> bool:
        if kind is not None and issubclass(kind, ValueError):
            refuse_unbroadcastable(self.arrays, exc)
        return False


#: float16's dtype: an array's ``dtype`` is this one object (NumPy's dtypes are singletons), so hot
#: paths test ``a.dtype is HALF`` -- a pointer comparison -- rather than ``==``
HALF = numpy.dtype(numpy.float16)


def number_beside_half(other: Any, ndim: int) -> bool:
    """Whether PyTorch's half kernels read ``other`` -- the *second* operand of a product or quotient
    whose first is a float16 tensor of ``ndim`` dims -- as a number, taken in float32 as it is: a
    Python or NumPy real number; an integer or bool operand of one element, whatever its dims (its
    kernel's test is the operand's single broadcast element: ``x * mg.tensor([70000])`` is ``x * 70000``,
    not ``x`` times 70000 rounded to float16's inf); a 0-d float of another dtype beside ``x`` of some
    dims (two 0-d floats promote to the wider).  ``other`` is a number or an array (a tensor's data)."""
    if isinstance(other, (int, float, numpy.integer, numpy.floating)):
        return True
    dtype = getattr(other, "dtype", None)
    if dtype is None:  # a Python complex number: no real product to take in float32 (the write refuses it)
        return False
    kind = dtype.kind
    if kind in "biu":
        return other.size == 1
    return kind == "f" and other.ndim == 0 < ndim and other.dtype is not HALF


def rounded_to_half(a: Any) -> Any:
    """``a`` (computed in float32) rounded to float16 once, as PyTorch's half kernels round their
    float "opmath" result: beyond 65504 is inf, silently.  The one rounding rule of
    :func:`half_in_float32`, the float16 ops of :mod:`~minigrad_ckpt.ops.elementwise` and
    :mod:`~minigrad_ckpt.ops.interpolation`."""
    with numpy.errstate(over="ignore"):
        return a.astype(numpy.float16)


def half_in_float32(fn: Any) -> Any:
    """Compute ``fn`` (a kernel ``fn(xp, ...)`` or an op's method ``fn(self, xp, ...)``) of float16
    arrays in float32 and round the result to float16.

    PyTorch's half kernels evaluate in float (their "opmath" type) and round once at the end.
    A special function's coefficients, intermediate powers and continued fractions do not fit
    float16 (its largest value is 65504, its epsilon 1e-3): evaluated there, ``erf(10)``,
    ``lgamma(0.5)`` and ``gammainc(2, 2.5)`` came out NaN.  Arguments of other dtypes pass
    unchanged; a call without a float16 array is ``fn`` itself (a Tensor is not an array: a
    derivative taken on the differentiable namespace, for a second derivative, is left as it is).
    """

    def is_half(a: Any) -> bool:
        # identity with the dtype, not ==: the test runs on every call of hot kernels (sigmoid's),
        # where == against the scalar type and a generator cost a microsecond, a fifth of the call
        return getattr(a, "dtype", None) is HALF and is_array(a)

    def widened(*args: Any, **kwargs: Any) -> Any:
        for a in args:
            if is_half(a):
                break
        else:
            return fn(*args, **kwargs)
        wide = [a.astype(numpy.float32) if is_half(a) else a for a in args]
        return rounded_to_half(fn(*wide, **kwargs))

    widened.__name__, widened.__qualname__, widened.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    widened.__wrapped__ = fn
    return widened

# --------------------------------------------------------------------------
# The contract of backward code: the names it may use as ``xp.<name>``.
# --------------------------------------------------------------------------
#: Adapter methods that also have a meaning on Tensors (the other adapter
#: methods -- ``scatter_add``, ``to_host``, ``scalar``, ``as_strided``, ... --
#: exist for forward and kernel code on raw arrays only).
DIFFERENTIABLE_ADAPTER = ("sum_to", "pairwise_sum", "index_add", "to_device")
#: Whitelisted functions that write into an argument: never in a backward,
#: which must not mutate what it is given.
IN_PLACE_FUNCTIONS = ("put_along_axis", "copyto")
#: Sub-namespaces, each with its own whitelist (``xp.linalg.inv``: :data:`LINALG_FUNCTIONS`;
#: ``xp.fft.fftn``: :data:`FFT_FUNCTIONS`).
SUB_NAMESPACES = ("linalg", "fft")
#: Constants and dtype names (``xp.inf``, ``xp.float32``).
CONSTANT_NAMES = ("newaxis", "inf", "nan", "pi") + tuple(dt.name for dt in SUPPORTED_DTYPES)


def backward_names() -> frozenset[str]:
    """The names a ``backward`` (or ``jvp``) may use as ``xp.<name>``: one list, two namespaces.

    A backward runs on an array namespace (its arrays) and, when a gradient of
    a gradient is wanted, on the differentiable namespace
    (:mod:`minigrad_ckpt.functional.namespace`, on Tensors).  So the names it
    may use are those both offer with the same meaning: the whitelisted
    library functions (:data:`LIBRARY_FUNCTIONS`, less the in-place ones),
    :data:`DIFFERENTIABLE_ADAPTER`, every registered kernel,
    :data:`CONSTANT_NAMES`, and the :data:`SUB_NAMESPACES` (``xp.linalg``, with
    :data:`LINALG_FUNCTIONS` in it).  ``tests/test_namespace_contract.py`` checks that
    both namespaces offer every one and that op backwards use no other;
    ``docs/ops.md`` lists them.
    """
    library = (n for n in LIBRARY_FUNCTIONS if n not in IN_PLACE_FUNCTIONS)
    return frozenset((*library, *DIFFERENTIABLE_ADAPTER, *KERNELS, *CONSTANT_NAMES, *SUB_NAMESPACES))


def _is_basic_index(index: Any) -> bool:
    items = index if type(index) is tuple else (index,)
    for it in items:
        if not (it is None or it is Ellipsis or type(it) in (int, slice)):
            return False
    return True


def _sum_to(a: Any, shape: tuple[int, ...]) -> Any:
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and a.shape[lead + i] != 1
    )
    out = _pairwise_sum(a, axes, True) if axes else a
    if lead:
        out = out.reshape(shape)
    return out


#: the dtypes whose sums go through :func:`_pairwise_sum`'s tree (float64 keeps NumPy's own sums, bit for
#: bit); compared by identity, as :data:`HALF`, on the path of every sum
_FLOAT32, _COMPLEX64 = numpy.dtype(numpy.float32), numpy.dtype(numpy.complex64)
#: up to this many rows NumPy's sum one after another is kept (its error, up to 63 roundings, is a few
#: ulps in practice; each level of the tree costs a few microseconds on small arrays)
_TREE_LEAF = 64


def _pairwise_sum(a: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    """``a.sum(axis=axes, keepdims=keepdims)`` with about PyTorch's float32 accuracy in every layout.

    NumPy sums pairwise only along the axis its loop runs innermost (a contiguous one, or the whole
    of a contiguous array's full reduction); over any other axis it adds row after row, so the
    float32 sum over the 1e5 rows of a ``(1e5, 10)`` array (a bias gradient, ``mean(0)``, the last
    axis of its transpose) was off by 1e-5 relative, where PyTorch's cascade sum keeps 1e-7.  Such
    an axis is summed here in a tree of eighths: each level adds 8 slabs of the rows (a strided,
    vectorized add), so the error grows with the log of the length (64 rows or fewer: NumPy's own
    sum).  float16 is summed in float32 and rounded back (PyTorch's half accumulates in float;
    NumPy's float16 sum over the rows of a ``(1e4, 10)`` array of ~1 stalled at 2048)."""
    dtype = a.dtype
    if dtype is not _FLOAT32 and dtype is not _COMPLEX64 and dtype is not HALF:
        return a.sum(axis=axes, keepdims=keepdims)
    # (float16 row by row loses a digit in 8 rows: NumPy's float16 loop only for its pairwise one)
    if _summed_pairwise(a, axes, 1 if dtype is HALF else _TREE_LEAF):
        return a.sum(axis=axes, keepdims=keepdims)
    if dtype is HALF:
        with numpy.errstate(over="ignore"):  # beyond 65504 is inf, as PyTorch's rounding to half
            return _pairwise_sum(a.astype(numpy.float32), axes, keepdims).astype(numpy.float16)
    shape = tuple((1 if i in axes else n) for i, n in enumerate(a.shape) if keepdims or i not in axes)
    out, axes = _merged_in_memory_order(a, axes) or (a, axes)
    for k in sorted(axes, reverse=True):
        out = out.sum(axis=k, keepdims=True) if out.strides[k] == out.itemsize else _tree_sum(out, k)
    return out.reshape(shape)


def _merged_in_memory_order(a: Any, axes: tuple[int, ...]) -> tuple[Any, tuple[int, ...]] | None:
    """``a`` seen with its axes in memory order, each run of neighbouring summed (or kept) axes one axis,
    and the summed axes of that view -- or None where that view is not free (``a`` not contiguous in any
    order of its axes) or would reorder the kept axes.  A channels-last ``(N, C, H, W)`` bias gradient
    summed over ``(0, 2, 3)`` is then one tree over ``N*H*W`` rows of ``C`` instead of three reductions
    of strided axes: 95 -> 18 us for (64, 16, 8, 8) float32, 929 -> 317 us for (64, 32, 26, 26)."""
    order = sorted(range(a.ndim), key=lambda k: -a.strides[k])
    kept = [k for k in order if k not in axes]
    if kept != sorted(kept):
        return None
    shape: list[int] = []
    summed: list[bool] = []
    for k in order:
        if summed and summed[-1] == (k in axes):
            shape[-1] *= a.shape[k]
        else:
            shape.append(a.shape[k])
            summed.append(k in axes)
    if len(shape) == a.ndim:  # no two summed axes neighbours: nothing to merge (a bias gradient over rows)
        return None
    b = a.transpose(order)
    if not b.flags.c_contiguous:
        return None
    return b.reshape(tuple(shape)), tuple(i for i, s in enumerate(summed) if s)


def _summed_pairwise(a: Any, axes: tuple[int, ...], leaf: int) -> bool:
    """Whether NumPy's own sum of ``a`` over ``axes`` adds at most ``leaf`` values one after
    another: a contiguous array's full reduction is one pairwise loop, and otherwise every reduced
    axis but a contiguous one is added row by row."""
    if len(axes) == a.ndim and (a.flags.c_contiguous or a.flags.f_contiguous):
        return True
    rows, itemsize, strides = 1, a.itemsize, a.strides
    for k in axes:
        if strides[k] != itemsize:
            rows *= a.shape[k]
    return rows <= leaf


def _tree_sum(a: Any, axis: int) -> Any:
    """The sum over ``axis`` (kept, of size 1) in levels of 8: the rows ``[i, i + m, ..., i + 7m]``
    are added into row ``i`` (one vectorized reduction of a strided view), the few left over into
    row 0, until at most :data:`_TREE_LEAF` rows remain, which NumPy adds one by one."""
    lead = (slice(None),) * axis
    while a.shape[axis] > _TREE_LEAF:
        m = a.shape[axis] // 8
        slabs = a[lead + (slice(0, 8 * m),)].reshape(a.shape[:axis] + (8, m) + a.shape[axis + 1:])
        body = slabs.sum(axis=axis)
        if a.shape[axis] > 8 * m:
            body[lead + (slice(0, 1),)] += a[lead + (slice(8 * m, None),)].sum(axis=axis, keepdims=True)
        a = body
    return a.sum(axis=axis, keepdims=True)


# --------------------------------------------------------------------------
# Devices
# --------------------------------------------------------------------------
class AnsweringType(type):
    """A type whose call answers a question instead of making an instance, as PyTorch's ``torch.device``
    and ``torch.finfo`` do -- ``cls(...)`` is ``cls.answer(...)`` -- while the type itself stands where
    PyTorch code names it: ``device: torch.device | None`` or ``eps: torch.finfo | None`` in an annotation
    evaluated as a function is defined, ``isinstance(d, torch.device)``.  Instances are made with
    ``type.__call__(cls, ...)`` (:meth:`Device.made`, ``type_info``'s answers)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls.answer(*args, **kwargs)


def _named_device(type: Any = None, index: int | None = None, **device: Any) -> Device:  # noqa: A002
    """``mg.device(type, index)`` or ``mg.device(device=...)`` (PyTorch's two signatures and keywords):
    the process's one device of that name (:func:`get_device`)."""
    if device:  # device(device='cuda:0'): PyTorch's one-argument signature, on its own
        if set(device) != {"device"} or type is not None or index is not None:
            extra = sorted(set(device) - {"device"}) or ["device"]
            raise TypeError(f"device() got an unexpected keyword argument '{extra[0]}'")
        type = device["device"]
    if type is None:  # PyTorch's TypeError: a device is named (the default one is get_default_device())
        raise TypeError("device() takes the device's type: mg.device('cpu'), mg.device('cuda', 0) (the default "
                        "device is mg.get_default_device())")
    if index is not None:  # an int or what stands for one (a NumPy integer); 0.0 and True are refused
        if isinstance(index, bool) or not hasattr(index, "__index__"):
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not {index.__class__.__name__}")
        index = index.__index__()
    return get_device(type, index)


class Device(metaclass=AnsweringType):
    """Where a tensor's array lives: ``cpu`` or ``cuda:N``.  ``mg.device`` is this type, as
    ``torch.device``: calling it, ``mg.device("cuda", 0)``, returns the one device of that name.

    Compare with strings freely: ``t.device == "cpu"``.  ``xp`` is the array
    namespace used for math on this device.
    """

    answer = staticmethod(_named_device)  # (a device is a singleton per process: calling the type names one)

    @classmethod
    def made(cls, kind: str, index: int | None, xp: ArrayNamespace) -> Device:
        """A new device: only a device type's factory (:func:`register_device_type`) makes one."""
        return type.__call__(cls, kind, index, xp)

    __slots__ = ("type", "index", "xp")

    def __init__(self, type: str, index: int | None, xp: ArrayNamespace) -> None:
        self.type = type
        self.index = index
        self.xp = xp

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:  # (PyTorch's, which a notebook shows for a device or a list of them)
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Device):
            return self is other
        if isinstance(other, str):
            try:
                return get_device(other) is self
            except (ValueError, RuntimeError):
                return False
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # A device is a per-process singleton holding a module (its namespace):
        # pickle and copy it by name, so the copy *is* that process's device.
        return get_device, (str(self),)

    def __enter__(self) -> Device:
        """``with mg.device("cuda"):`` -- PyTorch's: within the block this is the device new tensors
        (and a module's parameters) are made on, as after ``set_default_device``, in this thread."""
        # A device is a singleton, so what it replaced is kept per thread, in a stack: the same
        # device may be entered again inside its own block.
        _default.__dict__.setdefault("replaced", []).append(getattr(_default, "device", None))
        _default.device = self
        return self

    def __exit__(self, *exc_info: Any) -> None:
        previous = _default.replaced.pop()
        if previous is None:
            del _default.device
        else:
            _default.device = previous


Device.__signature__ = inspect.signature(_named_device)  # (the call's, for help() and the docs)
numpy_namespace = ArrayNamespace(numpy, "numpy")
cpu = Device.made("cpu", None, numpy_namespace)


class MetaArray:
    """The array of a ``meta`` tensor: a shape and a dtype, no values (PyTorch's meta device)."""

    __slots__ = ("shape", "dtype", "__weakref__")
    base = None

    def __init__(self, shape: Any, dtype: Any) -> None:
        self.shape = tuple(int(n) for n in shape)
        self.dtype = numpy.dtype(dtype)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: 0)  # no memory behind it
    strides = property(lambda self: tuple(math.prod(self.shape[k + 1:]) * self.dtype.itemsize
                                          for k in range(len(self.shape))))
    flags = property(lambda self: numpy.empty(0).flags)  # (row-major, as a meta tensor's strides are)

    def copy(self, order: str = "C") -> MetaArray:
        return MetaArray(self.shape, self.dtype)

    def __getattr__(self, name: str) -> Any:  # (array methods: sum, reshape, ...)
        raise _no_data(name)

    def astype(self, dtype: Any, **kwargs: Any) -> MetaArray:
        return MetaArray(self.shape, dtype)

    def __repr__(self) -> str:
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"


def _meta_operator(name: str) -> Any:
    def refused(self: MetaArray, *args: Any) -> Any:
        raise _no_data(name)
    return refused


for _name in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv", "mod",
              "rmod", "pow", "rpow", "matmul", "rmatmul", "neg", "pos", "abs", "invert", "and", "rand", "or", "ror",
              "xor", "rxor", "lt", "le", "gt", "ge", "getitem", "setitem", "iadd", "isub", "imul", "itruediv",
              "bool", "float", "int", "index", "array", "iter", "len"):
    setattr(MetaArray, f"__{_name}__", _meta_operator(_name))


def _no_data(what: str) -> NotImplementedError:
    return NotImplementedError(f"{what}: a meta tensor has a shape and a dtype but no data; the engine "
                               f"computes nothing on the meta device (PyTorch's computes the shapes)")


class MetaNamespace(ArrayNamespace):
    """The ``meta`` device's namespace: the creators make :class:`MetaArray` s; any computation, and
    any read of values (``to_host``: PyTorch's "Cannot copy out of meta tensor; no data!"), is refused."""

    _CREATORS = ("empty", "zeros", "ones", "full")

    def __init__(self) -> None:
        super().__init__(numpy, "meta", MetaArray)

    def _function(self, name: str) -> Any:
        if name in self._CREATORS:
            return lambda shape, *args, dtype=None, **kwargs: MetaArray(
                (shape,) if isinstance(shape, int) else shape, numpy.float64 if dtype is None else dtype)
        if name in ("zeros_like", "ones_like", "full_like"):
            return lambda a, *args, dtype=None, **kwargs: MetaArray(a.shape, a.dtype if dtype is None else dtype)
        if name == "errstate":  # (no arithmetic to warn about)
            return lambda **kwargs: contextlib.nullcontext()
        if name == "asarray":
            return lambda a, dtype=None, **kwargs: MetaArray(
                numpy.shape(a), (a.dtype if dtype is None and hasattr(a, "dtype") else
                                 numpy.asarray(a).dtype if dtype is None else dtype))

        def refused(*args: Any, **kwargs: Any) -> Any:
            raise _no_data(name)
        return refused

    def to_host(self, a: Any) -> numpy.ndarray:
        raise NotImplementedError("Cannot copy out of meta tensor; no data! Please use Module.to_empty() instead "
                                  "of Module.to() when moving a module from meta to a different device.")


    def as_array(self, a: Any) -> Any:
        return a

    def address(self, a: Any) -> int:
        return 0


meta = Device.made("meta", None, MetaNamespace())

_devices: dict[str, Device] = {"cpu": cpu, "meta": meta}
_extra_device_factories: dict[str, Any] = {}
_default = threading.local()


def register_device_type(prefix: str, factory: Any) -> None:
    """Teach :func:`get_device` a new device type (used by the GPU and strict backends)."""
    _extra_device_factories[prefix] = factory


#: The index a device type's bare name means (``"cuda"`` -> ``mg.cuda.set_device``'s GPU), 0 unless set.
_current_index: dict[str, int] = {}


def get_device(spec: Any = None, index: int | None = None) -> Device:
    """Resolve ``None`` (the default device), a string like ``"cuda:0"``, a :class:`Device`, or an
    int (PyTorch's rule: a CUDA ordinal, ``3`` is ``"cuda:3"``).  A bare type name (``"cuda"``)
    means that type's current device (:func:`set_current_device_index`; 0 unless set).  As
    ``torch.device``, the index may come apart: ``mg.device("cuda", local_rank)``; and ``"cpu:0"``
    is the CPU."""
    if index is not None:
        if not isinstance(spec, str) or ":" in spec:
            raise RuntimeError(f"type (string) must not include an index because index was passed "
                               f"explicitly: {spec}")
        if index < 0:
            raise RuntimeError("Device index must not be negative")
        spec = f"{spec}:{int(index)}"
    if spec is None:
        return getattr(_default, "device", cpu)
    if isinstance(spec, Device):
        return spec
    if isinstance(spec, int) and not isinstance(spec, bool):
        if spec < 0:  # PyTorch's words; -1 is what get_device() says of a CPU tensor
            raise UnknownDevice(f"Device index must not be negative (got {spec}; x.get_device() is -1 for a CPU "
                                f"tensor: pass x.device to place a tensor beside x)")
        spec = f"cuda:{spec}"
    if not isinstance(spec, str):
        raise TypeError(f"device must be a string, an int or a Device, got {type(spec).__name__}")
    key = spec.strip().lower()
    if key in _devices:
        return _devices[key]
    prefix, _, idx = key.partition(":")
    if key == "cpu:0":  # (the one CPU device, by its index)
        return _devices["cpu"]
    if prefix not in _extra_device_factories:
        raise UnknownDevice(f"unknown device {spec!r}; expected 'cpu' or 'cuda[:N]'")
    if idx and not idx.isdigit():
        raise UnknownDevice(f"Invalid device string: {spec!r} (an index is a number: 'cuda:0')")
    index = int(idx) if idx else _current_index.get(prefix, 0)
    key = f"{prefix}:{index}"  # a bare name is not kept: what it means changes with the current device
    if key not in _devices:
        _devices[key] = _extra_device_factories[prefix](index)
    return _devices[key]


def gpu_target(spec: Any) -> Any:
    """Where ``x.cuda(spec)`` and ``model.cuda(spec)`` move: the current GPU for ``None``, else the
    device named, which must be a GPU or a stand-in for one (``"strict"``).  A CPU or meta device
    is PyTorch's RuntimeError, raised before any GPU is looked for: moving there instead would
    leave ``z.cuda(current_device)`` with ``current_device = "cpu"`` on the CPU without a word."""
    if spec is None:
        return "cuda"
    target = get_device(spec)
    if target.type in ("cpu", "meta"):
        raise RuntimeError("Invalid device, must be cuda device")
    return target


def set_current_device_index(kind: str, index: int) -> None:
    """Make ``index`` the device a bare ``kind`` (``"cuda"``) means (checked: the device must exist)."""
    get_device(f"{kind}:{int(index)}")
    _current_index[kind] = int(index)


def current_device_index(kind: str) -> int:
    """The index a bare ``kind`` means (0 unless :func:`set_current_device_index` changed it)."""
    return _current_index.get(kind, 0)


device = Device


def device_or_dtype(target: Any) -> tuple[Device | None, numpy.dtype | None]:
    """``"cuda"``, a Device or a CUDA ordinal (``0``) -> ``(device, None)``; ``"float64"`` or a dtype
    -> ``(None, dtype)``."""
    if isinstance(target, Device) or isinstance(target, int) and not isinstance(target, bool):
        return get_device(target), None
    if isinstance(target, str):
        try:
            return get_device(target), None
        except ValueError:
            if target in _NOT_OFFERED_NAMES:  # a dtype by name, only not one NumPy has
                raise _NOT_OFFERED_NAMES[target].refusal() from None
            try:
                return None, as_dtype(target)
            except TypeError:
                raise UnknownDevice(f"{target!r} is neither a device nor a dtype") from None
    return None, as_dtype(target)


def set_default_device(spec: Any) -> None:
    """Make ``spec`` the device new tensors are created on (per thread); ``None`` puts back the CPU,
    as PyTorch's ``torch.set_default_device(None)`` does (it does not mean "the current default")."""
    if spec is None:
        if hasattr(_default, "device"):
            del _default.device
        return
    _default.device = get_device(spec)


@contextlib.contextmanager
def default_device_set_to(device: Device) -> Iterator[None]:
    """Within the block, ``device`` is the default device (of this thread); restored after.

    The engine runs a recorded backward (``create_graph=True``) and a
    forward-mode rule on Tensors inside this, with the device of the values
    they differentiate -- as PyTorch's engine makes a node's device current
    while it runs: a constant the rule creates with no tensor to follow
    (``xp.eye(n)``, ``xp.zeros(shape)``) then lives beside the tensors it meets.
    """
    previous = getattr(_default, "device", None)
    _default.device = device
    try:
        yield
    finally:
        if previous is None:
            del _default.device
        else:
            _default.device = previous


class CupyNamespace(ArrayNamespace):
    """The array namespace of one CUDA device, filled from CuPy.

    What differs from NumPy lives here: ``cupyx.scatter_add`` for repeated
    indices, ``cupy.asnumpy`` for host copies, device synchronization, and a
    no-op ``errstate`` (GPU arithmetic raises no floating-point warnings).
    Arrays are created on this device: every call runs with it current.
    """

    wraps_bad_indices = True  # CuPy's integer-array indexing, take and scatter_add wrap out-of-range indices

    def __init__(self, cupy: Any, index: int) -> None:
        missing = [n for n in LIBRARY_FUNCTIONS if n != "errstate" and not hasattr(cupy, n)]
        missing += [f"linalg.{n}" for n in LINALG_FUNCTIONS if not hasattr(cupy.linalg, n)]
        missing += [f"fft.{n}" for n in FFT_FUNCTIONS if not hasattr(cupy.fft, n)]
        if missing:
            raise RuntimeError(f"this CuPy ({cupy.__version__}) lacks {missing}; minigrad_ckpt needs CuPy >= 13")
        self.index = index
        self._device = cupy.cuda.Device(index)
        import cupyx
        import cupyx.scipy.special

        self._linalg_errstate = cupyx.errstate  # (read by _function, which the base class's __init__ calls)
        super().__init__(cupy, "cupy")

        self._scatter_add = cupyx.scatter_add
        for name, native in NATIVE_SPECIAL_FUNCTIONS.items():
            if hasattr(cupyx.scipy.special, native):
                self._use_native(name, getattr(cupyx.scipy.special, native))

    def _use_native(self, name: str, native: Any) -> None:
        """``xp.<name>`` of real floats by CuPy's one kernel, where the engine's own (NumPy has none) is
        dozens of array passes, each a launch here: erf is ~75 (GELU's, twice a step per layer in
        nanoGPT on an H200).  Complex and integer inputs keep the engine's kernel."""
        engine = getattr(ArrayNamespace, name, None)
        if engine is None:  # (ops/special.py registers it; not imported yet)
            return
        native = _on_device(native, self._device)

        def call(x: Any) -> Any:
            return native(x) if x.dtype.kind == "f" else engine(self, x)

        call.__name__ = name
        setattr(self, name, call)

    def _function(self, name: str) -> Any:
        if name == "errstate":
            return _no_errstate
        fn = _lookup(self.library, name)
        if name.startswith("linalg.") and name[7:] in RAISING_LINALG_FUNCTIONS:
            fn = linalg_failures_raised(fn, self._linalg_errstate)
        if name == "linalg.solve":
            fn = solve_broadcasting(fn, self.library.broadcast_to)
        return _on_device(truth_of_complex(fn) if name in LOGICAL_FUNCTIONS else fn, self._device)

    def scatter_add(self, target: Any, index: Any, values: Any) -> None:
        with self._device:
            scatter_add_by_parts(self._scatter_add, self, target, index, values)

    def to_host(self, a: Any) -> numpy.ndarray:
        return self.library.asnumpy(a)

    def address(self, a: Any) -> int:
        return int(a.data.ptr)

    def holds(self, a: Any) -> bool:
        return isinstance(a, self.array_type) and a.device.id == self.index

    def synchronize(self) -> None:
        self._device.synchronize()

    def as_strided(self, a: Any, shape: tuple[int, ...], strides: tuple[int, ...], writeable: bool = False) -> Any:
        return self.library.lib.stride_tricks.as_strided(a, shape, strides)  # (CuPy's views are writable)


# What CuPy's kernels lack that NumPy's have, filled in from what they have.  The strict
# stand-in device (testing/strict.py) refuses the same inputs CuPy does and uses these
# helpers too, so they run in the CPU tests.

#: the dtypes ``cupyx.scatter_add`` accumulates (CuPy 13 and 14); others go by parts or widened
SCATTER_ADD_DTYPES = frozenset(["int32", "int64", "uint32", "uint64", "float16", "float32", "float64"])
#: the engine's kernels (ops/special.py, ops/activation.py) that CuPy computes as one ufunc, by their
#: cupyx.scipy.special names: the ones whose values at the edges (0, -0, +-inf, NaN, poles) SciPy's
#: agree with (gamma, gammaln, i0, i1, erfinv and erfcinv give other limits there: they stay the engine's)
NATIVE_SPECIAL_FUNCTIONS = {"erf": "erf", "erfc": "erfc", "erfcx": "erfcx", "sigmoid": "expit"}
#: CuPy's logical ufuncs take no complex input (NumPy's read a complex number's truth as != 0)
LOGICAL_FUNCTIONS = frozenset(["logical_and", "logical_or", "logical_xor", "logical_not"])


def scatter_add_by_parts(scatter: Any, xp: Any, target: Any, index: Any, values: Any) -> None:
    """``target[index] += values`` with a ``scatter`` that takes only :data:`SCATTER_ADD_DTYPES`:
    a complex target by its real and imaginary parts (views into it), a narrow integer or
    bool target through a 64-bit copy (wrapping back as NumPy's ``add.at`` does)."""
    if target.dtype.name in SCATTER_ADD_DTYPES:
        scatter(target, index, values)
        return
    values = xp.asarray(values)
    if target.dtype.kind == "c":
        scatter(xp.real(target), index, xp.real(values))
        if values.dtype.kind == "c":
            scatter(xp.imag(target), index, xp.imag(values))
        return
    wide = target.astype("int64")
    scatter(wide, index, values.astype("int64"))
    target[...] = wide.astype(target.dtype)


#: the ``linalg`` functions that refuse a matrix they cannot factor (a singular one, one not positive
#: definite) with NumPy's ``LinAlgError``, which the engine words as PyTorch's.  CuPy's answer garbage
#: (inf, NaN, a half-done factor) instead, unless ``cupyx.errstate(linalg="raise")`` asks them to read
#: the solver's status (one device-to-host read a call, as PyTorch's checked ``linalg`` functions make)
RAISING_LINALG_FUNCTIONS = frozenset(["inv", "solve", "cholesky"])


def linalg_failures_raised(fn: Any, errstate: Any) -> Any:
    """``fn`` (one of :data:`RAISING_LINALG_FUNCTIONS`) run under ``errstate(linalg="raise")``
    (``cupyx.errstate``): a matrix it cannot factor raises ``LinAlgError`` as NumPy's does."""
    def call(*args: Any, **kwargs: Any) -> Any:
        with errstate(linalg="raise"):
            return fn(*args, **kwargs)

    call.__name__ = getattr(fn, "__name__", "fn")
    return call


def solve_broadcasting(solve: Any, broadcast_to: Any) -> Any:
    """NumPy 2's ``linalg.solve`` from one that wants the batch axes of ``A`` and ``B`` equal.  CuPy's
    refuses ``solve(A[2, M, M], B[M, K])`` and reads a ``B`` of one axis fewer than ``A`` as a stack
    of vectors; NumPy broadcasts the batch axes and reads ``B`` as a vector only when it has one axis.
    So the batch axes are broadcast first (views) and a vector beside a stack is solved as a column."""
    def call(a: Any, b: Any) -> Any:
        if b.ndim == 1:
            return solve(a, b) if a.ndim == 2 else call(a, b[:, None])[..., 0]
        batch = numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        if a.shape[:-2] != batch:
            a = broadcast_to(a, batch + a.shape[-2:])
        if b.shape[:-2] != batch:
            b = broadcast_to(b, batch + b.shape[-2:])
        return solve(a, b)

    call.__name__ = "solve"
    return call


def truth_of_complex(fn: Any) -> Any:
    """``fn`` (a logical ufunc) with each complex argument read as ``a != 0``, as NumPy reads it."""
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*[a != 0 if getattr(getattr(a, "dtype", None), "kind", "") == "c" else a for a in args],
                  **kwargs)

    call.__name__ = getattr(fn, "__name__", "fn")
    return call


def _no_errstate(**kwargs: Any) -> Any:
    """CuPy's stand-in for ``numpy.errstate``: GPU arithmetic raises no warnings."""
    import contextlib

    return contextlib.nullcontext()


def _on_device(fn: Any, device: Any) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        with device:
            return fn(*args, **kwargs)

    call.__name__ = getattr(fn, "__name__", "fn")
    return call


def _cupy() -> Any:
    """CuPy if it is installed and sees a GPU, else None (import never requires CuPy)."""
    try:
        import cupy
    except Exception:
        return None
    try:
        if not cupy.is_available():
            return None
    except Exception:
        return None
    return cupy


def cuda_device_count() -> int:
    """The number of CUDA GPUs CuPy sees (0 without CuPy or a GPU); ``mg.cuda`` and ``mg.amp`` ask here."""
    cupy = _cupy()
    if cupy is None:
        return 0
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        return 0


def cupy_nccl() -> tuple[Any, Any]:
    """CuPy and its NCCL bindings (``cupy.cuda.nccl``), for ``minigrad_ckpt.distributed``;
    an ImportError naming the fix when either is missing."""
    cupy = _cupy()
    if cupy is None:
        raise ImportError("the 'nccl' backend needs CuPy and a CUDA GPU (pip install cupy-cuda12x)")
    try:
        from cupy.cuda import nccl
    except ImportError as exc:
        raise ImportError("the 'nccl' backend needs NCCL for CuPy (pip install nvidia-nccl-cu12)") from exc
    if not getattr(nccl, "available", True):
        raise ImportError("CuPy cannot load NCCL (pip install nvidia-nccl-cu12)")
    return cupy, nccl


class AbsentNamespace:
    """The array namespace of a device this process cannot reach: any use raises ``message``.

    As ``torch.device("cuda:0")`` on a machine without CUDA, naming the device is not an
    error (``device = mg.device("cuda")`` at the top of a script, a device in a config);
    making a tensor there, or moving one there, is -- with the reason and the fix."""

    def __init__(self, message: str) -> None:
        self.message = message

    def holds(self, a: Any) -> bool:  # (asked of every device when the engine meets an array)
        return False

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # (copy/pickle probing for special methods)
            raise AttributeError(name)
        raise RuntimeError(self.__dict__["message"])


def _cuda_device(index: int) -> Device:
    cupy = _cupy()
    if cupy is None:
        return Device.made("cuda", index, AbsentNamespace(
            "device 'cuda' needs CuPy and a CUDA GPU: pip install 'minigrad-ckpt[gpu]' "
            "(CuPy for CUDA 12); mg.cuda.is_available() says whether one is usable"))
    n = cupy.cuda.runtime.getDeviceCount()
    if not 0 <= index < n:
        raise ValueError(f"device 'cuda:{index}' does not exist: {n} CUDA device(s) are visible")
    track_gpu_peaks(cupy)
    return Device.made("cuda", index, CupyNamespace(cupy, index))


#: The most bytes CuPy's default pool has had in use and held, per GPU index, since the engine first
#: made a CUDA device (or ``mg.cuda.reset_peak_memory_stats``): PyTorch's peak statistics, which
#: CuPy's pool does not keep.  The pool's use only grows at an allocation, so a check there is exact.
gpu_peak_bytes: dict[int, dict[str, int]] = {}
_peak_tracking = [False]


def track_gpu_peaks(cupy: Any) -> None:
    """Put an allocator in front of CuPy's default pool that records the peaks (once per process)."""
    if _peak_tracking[0]:
        return
    pool = cupy.get_default_memory_pool()

    def malloc_recording_peaks(size: int) -> Any:
        memory = pool.malloc(size)
        peaks = gpu_peak_bytes.setdefault(int(memory.device_id), {"allocated": 0, "reserved": 0})
        peaks["allocated"] = max(peaks["allocated"], int(pool.used_bytes()))
        peaks["reserved"] = max(peaks["reserved"], int(pool.total_bytes()))
        return memory

    cupy.cuda.set_allocator(malloc_recording_peaks)
    _peak_tracking[0] = True


register_device_type("cuda", _cuda_device)


def is_array(a: Any) -> bool:
    """True for an array of any known backend (NumPy or a registered device's)."""
    if isinstance(a, numpy.ndarray):
        return True
    return any(d.xp.holds(a) for d in list(_devices.values()))


def device_of(array: Any) -> Device:
    """The device whose namespace holds ``array`` (TypeError for anything else)."""
    if isinstance(array, numpy.ndarray):
        return cpu
    for d in list(_devices.values()):
        if d.xp.holds(array):
            return d
    raise TypeError(f"not an array of a known device: {type(array).__name__}")


_PYTHON_SCALARS = (bool, int, float, complex)
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}  # PyTorch's categories: bool < integer < float < complex


def _leaf_dtypes(data: Any, found: set) -> bool:
    """Gather the dtypes of the NumPy scalars and arrays inside nested lists (Python scalars as their
    ``type``); False when a leaf is something else (then NumPy's own inference stands)."""
    kinds = set(map(type, data))  # one C-level pass: a long flat list of floats costs little
    for t in kinds - {list, tuple, numpy.ndarray}:
        if t in _PYTHON_SCALARS:
            found.add(t)
        elif issubclass(t, numpy.generic):
            found.add(numpy.dtype(t))
        else:
            return False
    if kinds & {list, tuple, numpy.ndarray}:
        for item in data:
            if isinstance(item, numpy.ndarray):
                found.add(item.dtype)
            elif isinstance(item, (list, tuple)) and not _leaf_dtypes(item, found):
                return False
    return True


def _past_int64_guess(host: Any) -> bool:
    """Whether NumPy's array of outside data may hold a Python int past int64 (NumPy made it uint64 or
    objects, or floats as large) -- one vectorized look, so float data pays no walk of its leaves."""
    if host.dtype.kind in "uO":
        return True
    return host.dtype.kind == "f" and host.size > 0 and float(numpy.abs(host).max()) >= 2.0**63  # (float16: no cast)


def _python_ints_only(data: Any) -> bool:
    """Whether ``data`` is a Python int or nested lists of integers -- Python ints (one at least), bools,
    NumPy integers -- only: data whose tensor PyTorch makes int64, reading each Python int as one."""
    found: set = set()
    if isinstance(data, (list, tuple)):
        return (_leaf_dtypes(data, found) and int in found
                and all(d in (int, bool) or isinstance(d, numpy.dtype) and d.kind in "biu" for d in found))
    return type(data) is int


def _nested_numpy_dtype(data: Any, numpy_guess: Any) -> Any:
    """The dtype PyTorch infers for a list holding NumPy scalars or arrays, or None (all Python scalars).

    PyTorch gives each leaf its own type (a NumPy ``float64`` is float64, a Python float the default
    float) and promotes them by category, not by size: ``[np.float64(.1), 1.0]`` is float64,
    ``[np.int32(1), np.int32(2)]`` int32, ``[np.float16(1), 2]`` float16 (NumPy's guesses: float64,
    int64 after our Python-int rule, float64)."""
    found: set = set()
    if numpy_guess.kind not in _KIND_RANK or not _leaf_dtypes(data, found):
        return None
    if all(not isinstance(d, numpy.dtype) for d in found):
        return None
    python_as = {bool: numpy.dtype(bool), int: numpy.dtype("int64"), float: numpy.dtype(_default_dtype[0]),
                 complex: numpy.result_type(_default_dtype[0], numpy.complex64)}
    dtypes = [python_as.get(d, d) for d in found]
    top = max(_KIND_RANK[d.kind] for d in dtypes)
    # within the top category sizes promote as NumPy does; a complex result also takes the floats' width
    keep = [d for d in dtypes if _KIND_RANK[d.kind] == top or (top == 3 and d.kind == "f")]
    return as_dtype(numpy.result_type(*keep))


class CannotInferDtype(RuntimeError, TypeError):
    """Data a tensor cannot be made of -- ``None``, a dict, a set, a generator, an arbitrary object,
    at the top or among the numbers of a list: PyTorch's ``RuntimeError`` ("Could not infer dtype of
    NoneType"), and the ``TypeError`` the engine raised before (so handlers of either catch it)."""


def _uninferable(data: Any) -> CannotInferDtype:
    """The error for ``data`` that NumPy could only hold as objects, naming the first leaf that is
    not a number, as PyTorch's does (``[1, None]``: NoneType, not the list)."""
    if isinstance(data, numpy.ndarray):  # (an object array itself: PyTorch's own words for it)
        return CannotInferDtype("can't convert np.ndarray of type numpy.object_: a tensor holds numbers; "
                                "give an array of a numeric dtype (arr.astype(float))")
    leaf, todo = data, [data]
    while todo:
        item = todo.pop(0)
        if isinstance(item, (list, tuple)):
            todo[:0] = list(item)
        elif not isinstance(item, (bool, int, float, complex, numpy.generic, numpy.ndarray)):
            leaf = item
            break
    return CannotInferDtype(f"Could not infer dtype of {type(leaf).__name__}: a tensor is made of numbers, "
                            f"bools, and (nested) lists, tuples, arrays and tensors of them")


def to_array(data: Any, dtype: Any = None, device: Any = None) -> tuple[Any, Device]:
    """``data`` (a number, nested lists, a NumPy or device array) as a fresh array on ``device``.

    The engine's one entry door for outside data, so the dtype rules live in
    one place: Python floats become the default float dtype, Python ints
    ``int64``, Python complex numbers the default float's complex type
    (``complex64`` beside ``float32``), arrays keep their dtype unless ``dtype`` is given; big-endian
    input is converted to native order; another device's array is moved
    explicitly.  The result never aliases ``data``.
    """
    dt = as_dtype(dtype) if dtype is not None else None
    dev = get_device(device)
    if is_array(data) and not isinstance(data, numpy.ndarray):
        # another device's array: an explicit move
        host = to_host(data)
        if dt is not None:
            host = cast_silently(numpy, host, dt)
        return dev.xp.asarray(host).copy(), dev
    host = numpy.array(data, copy=True)
    if host.dtype.byteorder not in ("=", "|") and host.dtype != host.dtype.newbyteorder("="):
        host = host.astype(host.dtype.newbyteorder("="))  # big-endian input: same values, native order
    if (dt is None or dt == numpy.int64) and _python_ints_only(data) and _past_int64_guess(host):  # (cheap first)
        # Python ints that NumPy could not hold in int64 (it chose uint64, float64 or objects): PyTorch's
        # ValueError, where NumPy's choice silently made [2**63, 1] a float tensor (a 64-bit hash id
        # collated as a label, rounded)
        raise _past_int64()
    if host.dtype == object:
        host = _wide_ints_as_floats(data, dt)
    if dt is not None and host.dtype.kind == "c" and dt.kind not in "cb" and isinstance(data, (complex, list, tuple)):
        # Python complex numbers are refused by a real dtype, even 1+0j, as PyTorch's (its error);
        # NumPy's cast would keep the real part and silently drop the rest.  bool takes them, as
        # PyTorch's: True where the number is not 0 (its imaginary part counts)
        raise TypeError(f"must be real number, not complex (the data is complex; the dtype {dt} is not)")
    if dt is None and isinstance(data, (list, tuple)):
        dt = _nested_numpy_dtype(data, host.dtype)
    if dt is None:
        python_data = not isinstance(data, (numpy.ndarray, numpy.generic))
        if python_data and host.dtype.kind == "f":
            dt = _default_dtype[0]  # Python floats: the default dtype, as in PyTorch
        elif python_data and host.dtype.kind == "i":
            dt = numpy.dtype("int64")
        elif python_data and host.dtype.kind == "c":  # the complex type of the default float (PyTorch's rule)
            dt = default_complex_dtype()
        else:
            dt = as_dtype(host.dtype)
    host = cast_silently(numpy, host, dt) if host.dtype != dt else canonical_array(host)
    if dev.xp.name == "numpy":
        return host, dev
    return dev.xp.asarray(host), dev


def _wide_ints_as_floats(data: Any, dt: Any) -> Any:
    """The array of numbers NumPy could only hold as objects, since a Python int among them is past 64
    bits, where a float or a complex number beside it, or a floating (or bool) ``dt``, makes the tensor floating:
    PyTorch reads each number as a double (or a complex double), so ``[2**64, 1.0]`` is float32's
    ``[1.8447e19, 1.0]``.  Data that holds anything else is refused (:func:`_uninferable`)."""
    found: set = set()
    if not (_leaf_dtypes(data, found) if isinstance(data, (list, tuple)) else type(data) is int):
        raise _uninferable(data)
    kinds = {d.kind if isinstance(d, numpy.dtype) else {float: "f", complex: "c"}.get(d, "i") for d in found}
    kinds |= {dt.kind} if dt is not None else set()  # (bool: True where the double is not 0)
    if kinds & {"c", "f", "b"}:
        return numpy.array(data, dtype=numpy.complex128 if "c" in kinds else numpy.float64)
    raise _uninferable(data)


def _past_int64() -> ValueError:
    """PyTorch's error for a Python int it reads as a C long long and cannot (to_array and
    check_python_integers both meet it)."""
    return ValueError("Overflow when unpacking long long: a Python int is outside int64's range (PyTorch's error); "
                      "give dtype=float64 (or uint64) to make such a tensor")


def _python_numbers_only(data: Any) -> bool:
    """Whether ``data`` is a Python number or nested lists of Python numbers only (no NumPy data)."""
    found: set = set()
    if isinstance(data, (list, tuple)):
        return _leaf_dtypes(data, found) and found <= {int, float, bool}
    return type(data) in (int, float, bool)


def check_python_integers(data: Any, dtype: Any) -> None:
    """``torch.tensor``'s check of Python numbers made into a tensor of an integer ``dtype``
    (:func:`_check_integers`); other data and dtypes pass.  Only the creation functions check:
    a scalar operand of arithmetic wraps, as PyTorch's (``uint8_tensor + 300``)."""
    dt = as_dtype(dtype)
    if dt.kind in "iu" and _python_numbers_only(data):
        host = numpy.asarray(data)
        if (host.dtype.kind == "u" or host.dtype == object) and dt != numpy.uint64:
            # Python ints past int64 (NumPy made uint64 or objects): PyTorch reads each as a C long long
            raise _past_int64()
        if host.dtype.kind in "fiu" and host.size:
            _check_integers(host, dt)


def _check_integers(host: Any, dt: Any) -> None:
    """Python numbers going into the integer dtype ``dt``, by PyTorch's checked conversion, where
    NumPy's cast silently wraps (``tensor([300], dtype=uint8)`` was 44): a value outside the range is
    :class:`ValueOverflow` ("value cannot be converted to type uint8 without overflow").  Floats are
    compared before they are truncated (127.9 does not fit int8; a negative float no unsigned dtype;
    NaN and infinities nothing); an int going into an unsigned dtype but uint64 may be negative down to
    ``-max``, wrapped, as C's conversion (``tensor([-1], dtype=uint8)`` is 255)."""
    info = numpy.iinfo(dt)
    if host.dtype.kind == "f":
        with numpy.errstate(invalid="ignore"):
            too_high = host > float(info.max) if info.bits < 64 else host >= float(info.max)  # 2**63, 2**64
            bad = ~numpy.isfinite(host) | (host < (0 if dt.kind == "u" else int(info.min))) | too_high
    elif dt == numpy.uint64 and (host < 0).any():
        raise OverflowError("can't convert negative int to unsigned")
    else:
        low = -int(info.max) if dt.kind == "u" else int(info.min)
        bad = (host < low) | (host > int(info.max))
    if bad.any():
        raise ValueOverflow(f"value cannot be converted to type {dt} without overflow")


class ValueOverflow(RuntimeError, OverflowError):
    """A number a dtype cannot hold, written into it (``fill_``, ``x[i] = v``, ``full``,
    ``masked_fill``, a ``clamp`` bound): an integer out of an integer dtype's range, or a finite
    number beyond a float dtype's largest (``1e300`` into float32): PyTorch's ``RuntimeError``
    ("value cannot be converted to type uint8_t without overflow") and NumPy's ``OverflowError``."""


def checked_int(name: str, value: int, dtype: Any) -> int:
    """A Python int as a value of the integer ``dtype``, by PyTorch's checked conversion: in the
    dtype's range, or -- for uint8 alone, a C habit PyTorch keeps -- down to -255, wrapped
    (``x.fill_(-1)`` of a uint8 ``x`` writes 255); anything else is :class:`ValueOverflow`."""
    info = numpy.iinfo(dtype)
    v = int(value)
    if info.min <= v <= info.max:
        return v
    if numpy.dtype(dtype) == numpy.uint8 and -255 <= v < 0:
        return v + 256
    raise ValueOverflow(f"{overflow_words(numpy.dtype(dtype))} ({name}: the value {v} does not fit "
                        f"{numpy.dtype(dtype)})")


def refuse_alpha(alpha: Any, dtype: Any) -> None:
    """PyTorch's checks of ``add``'s and ``sub``'s ``alpha`` against the dtype of the sum (``alpha_check``):
    a bool alpha scales bools only (``x.add(y, alpha=True)`` of ints is its error, not ``x + y``), a float
    one no integers, a complex one no real numbers."""
    if isinstance(alpha, (bool, numpy.bool_)) and dtype.kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if dtype.kind in "biu" and isinstance(alpha, (float, complex, numpy.inexact)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if dtype.kind != "c" and isinstance(alpha, (complex, numpy.complexfloating)):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


def fill_scalar(name: str, value: Any, dtype: Any) -> Any:
    """A fill value for ``full``-like constructors and writes of ``dtype``, by PyTorch's rule: a
    complex number goes into a real (or integer) dtype only when its imaginary part is 0 (NumPy's
    cast would drop a nonzero one silently: ``full((2,), 1j, dtype=float32)`` would be zeros); an
    int into an integer dtype by :func:`checked_int`."""
    if isinstance(value, (complex, numpy.complexfloating)) and numpy.dtype(dtype).kind != "c":
        if numpy.dtype(dtype).kind == "b":
            return value != 0  # (a bool holds any number: 1j is True, as in PyTorch)
        if value.imag != 0:
            raise RuntimeError(f"{overflow_words(numpy.dtype(dtype))} ({name}: the value {value!r} into "
                               f"{numpy.dtype(dtype)}: its imaginary part would be lost)")
        return value.real
    if numpy.dtype(dtype).kind in "iu" and isinstance(value, (int, numpy.integer)) and not isinstance(
            value, (bool, numpy.bool_)):
        return checked_int(name, value, dtype)
    if numpy.dtype(dtype).kind in "iu" and isinstance(value, (float, numpy.floating)):
        info = numpy.iinfo(dtype)  # a float is truncated, as C's cast: NaN, inf and out of range are errors
        if not info.min <= value <= info.max:  # (NumPy: 0 or garbage, or its own error)
            raise ValueOverflow(f"{overflow_words(numpy.dtype(dtype))} ({name}: the value {value!r} does not "
                                f"fit {numpy.dtype(dtype)})")
    if numpy.dtype(dtype).kind in "fc" and not _float_fits(value, dtype):
        raise ValueOverflow(f"{overflow_words(numpy.dtype(dtype))} ({name}: the value {value!r} does not fit "
                            f"{numpy.dtype(dtype)})")
    return value


def _float_fits(value: Any, dtype: Any) -> bool:
    """Whether the float (or complex) ``dtype`` holds the number, by PyTorch's checked conversion
    (c10's ``overflows``): infinities and NaN convert, a finite part beyond the dtype's largest
    does not (``full((2,), 1e300, dtype=float32)``, ``x.fill_(7e4)`` of float16: NumPy's cast
    would write inf silently)."""
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(
            value, (int, float, complex, numpy.integer, numpy.floating, numpy.complexfloating)):
        return True
    largest = float(numpy.finfo(dtype).max)
    parts = (value.real, value.imag) if isinstance(value, (complex, numpy.complexfloating)) else (value,)
    for part in parts:
        if isinstance(part, (float, numpy.floating)) and not numpy.isfinite(part):
            continue  # inf and NaN convert
        if isinstance(part, numpy.floating):  # a float16 compared with 3.4e38 would cast that to float16
            part = float(part)
        if abs(part) > largest:  # (a Python int compares with a float exactly, however large)
            return False
    return True


def default_complex_dtype() -> Any:
    """The complex dtype of the default float dtype (``complex64`` beside ``float32``): what Python
    complex numbers become, as in PyTorch."""
    return numpy.result_type(_default_dtype[0], numpy.complex64)


def get_default_device() -> Device:
    """The device new tensors go to when none is given (per thread; ``cpu`` unless set)."""
    return getattr(_default, "device", cpu)


class _DLPackCapsule:
    """A bare DLPack capsule (``torch.utils.dlpack.to_dlpack``'s, ``x.__dlpack__()``'s) dressed as
    the object with ``__dlpack__`` that NumPy's and CuPy's ``from_dlpack`` take: they no longer
    accept the capsule itself, PyTorch's ``from_dlpack`` does.  Its device is read from the
    ``DLTensor`` the capsule points to."""

    # byte offset of DLTensor.device in the struct each capsule name points to: DLManagedTensor starts
    # with its DLTensor; DLManagedTensorVersioned with version, manager_ctx, deleter and flags (8 bytes
    # each) before it; in DLTensor the device follows the data pointer
    _DEVICE_OFFSET = {b"dltensor": 8, b"dltensor_versioned": 40}

    def __init__(self, capsule: Any) -> None:
        import ctypes  # (only a capsule needs it)

        api = ctypes.pythonapi
        api.PyCapsule_GetPointer.restype = ctypes.c_void_p
        api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        name = _capsule_name(capsule)
        if name not in self._DEVICE_OFFSET:  # a consumer renames the capsule "used_dltensor"
            raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
                               "consumed only once, so you might have already constructed a tensor from it once.")
        device = (ctypes.c_int32 * 2).from_address(api.PyCapsule_GetPointer(capsule, name) + self._DEVICE_OFFSET[name])
        self.capsule, self.name, self.device = capsule, name, (int(device[0]), int(device[1]))

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device


def _capsule_name(capsule: Any) -> bytes | None:
    import ctypes  # (only a capsule needs it)

    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype, api.PyCapsule_GetName.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return api.PyCapsule_GetName(capsule)


class _WritableView:
    """The memory of a read-only NumPy import, offered writable (``numpy.asarray`` of it); it holds
    the import, and so the capsule that owns the memory, alive."""

    def __init__(self, array: Any) -> None:
        self.array = array
        interface = dict(array.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface


def _writable_alias(array: Any) -> Any:
    return numpy.asarray(_WritableView(array))


def from_dlpack(obj: Any) -> tuple[Any, Device]:
    """Zero-copy import of a DLPack-capable array (NumPy, CuPy, PyTorch...) or of a DLPack capsule:
    ``(array, device)``."""
    if type(obj).__name__ == "PyCapsule":
        obj = _DLPackCapsule(obj)
    legacy = isinstance(obj, _DLPackCapsule) and obj.name == b"dltensor"  # (unversioned: no read-only flag)
    try:
        kind, index = obj.__dlpack_device__()
    except AttributeError:
        raise TypeError(f"{type(obj).__name__} does not support DLPack (__dlpack_device__)") from None
    if int(kind) == 1:  # kDLCPU
        array = numpy.from_dlpack(obj)
        # An unversioned capsule cannot say read-only, and NumPy imports it read-only to be safe;
        # PyTorch's from_dlpack of one (to_dlpack's) is a writable alias: so is this one
        return (_writable_alias(array) if legacy and not array.flags.writeable else array), cpu
    if int(kind) == 2:  # kDLCUDA
        dev = get_device(f"cuda:{int(index)}")
        with dev.xp._device:
            return dev.xp.library.from_dlpack(obj), dev
    raise TypeError(f"DLPack device type {kind} is not supported (CPU and CUDA are)")


def to_host(a: Any) -> numpy.ndarray:
    """Copy any backend array to a NumPy array (no copy for NumPy arrays)."""
    if isinstance(a, numpy.ndarray):
        return a
    for d in list(_devices.values()):
        if d.xp.holds(a):
            return d.xp.to_host(a)
    return numpy.asarray(a)
