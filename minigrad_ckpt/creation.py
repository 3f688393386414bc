"""Creating tensors: ``tensor``, ``zeros``, ``ones``, ``full``, ``arange``,
``zeros_like``, ``ones_like``, ``rand``, ``randn``, and the default dtype.

dtype rules (PyTorch's for Python data, NumPy's for arrays):

* Python floats (and lists of them) become the default float dtype,
  ``float32`` unless changed with :func:`set_default_dtype`; Python ints
  become ``int64``; bools ``bool``.
* NumPy arrays and scalars keep their dtype; inside a list they are promoted
  with the Python numbers by PyTorch's categories (``[np.float64(.1), 1.0]`` is float64).
* ``mg.tensor`` always copies: a tensor never aliases the caller's array.

The conversion itself is :func:`minigrad_ckpt.backend.to_array` (the dtype
policy lives in the backend, so ``Tensor._from_data(data)`` needs nothing above it; the public
``Tensor(...)`` is PyTorch's legacy constructor, and so are ``FloatTensor``... at the end of this module).
"""

from __future__ import annotations

import math
import operator
import warnings
from typing import Any

from . import random as _random
from .backend import (
    Device,
    DtypeNotImplemented,
    InvalidShape,
    MetaArray,
    RefusedArgument,
    _default_dtype,
    as_dtype,
    check_layout,
    check_memory_format,
    check_python_integers,
    contiguous_format,
    cuda_device_count,
    default_complex_dtype,
    fill_scalar,
    fused_multiply_add,
    get_default_dtype,
    get_device,
    host_numpy,
    laid_out,
    overflow_words,
    preserve_format,
    set_default_dtype,
    to_host,
)
from .ops import elementwise as _elementwise
from .out_arguments import CREATION, RANGE, SPACED, can_cast, rule, with_out
from .tape import apply
from .tensor import Tensor, check_tensor_number, numbers, requires_grad_flag
from .user_frame import stacklevel_outside_the_engine

__all__ = [
    "tensor", "zeros", "ones", "full", "empty", "arange", "linspace", "zeros_like",
    "ones_like", "full_like", "rand", "randn", "randint", "randperm", "get_default_dtype",
    "set_default_dtype", "empty_like", "rand_like", "randn_like", "randint_like", "logspace", "scalar_tensor",
    "as_tensor", "asarray", "inclusive_range", "bernoulli", "multinomial", "normal", "hann_window", "hamming_window",
    "blackman_window", "bartlett_window", "kaiser_window",
    "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
    "ByteTensor", "BoolTensor",
]

def _dtype_or_default(dtype: Any) -> Any:
    return as_dtype(dtype) if dtype is not None else _default_dtype[0]


def warn_copy_construct(spelling: str) -> None:
    """PyTorch's advice where a tensor is copied by a constructor (``mg.tensor(t)``, ``x.new_tensor(t)``):
    say ``t.detach().clone()``, which reads as the copy it is. At the user's line."""
    warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                  f"sourceTensor.detach().clone().requires_grad_(True), rather than {spelling}.", UserWarning,
                  stacklevel=stacklevel_outside_the_engine())


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, *,
           pin_memory: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (a number, nested lists, an array, a Tensor).
    One-element tensors inside lists are numbers of their dtype, as PyTorch reads them
    (``mg.tensor([r[0], r[1]])``, ``mg.tensor([[x.max()], [2.0]])``).  Python numbers that an
    integer ``dtype`` cannot hold are PyTorch's error, not NumPy's wrapped cast
    (:func:`~minigrad_ckpt.backend.check_python_integers`)."""
    if isinstance(data, Tensor):  # a copy without history, as PyTorch's, and PyTorch's advice with it
        warn_copy_construct("mg.tensor(sourceTensor)")
    if dtype is not None:
        check_python_integers(data, dtype)
    made = Tensor._from_data(data, dtype=dtype, device=device, requires_grad=requires_grad)
    return made if pin_memory is False else pinned_as_asked("tensor", made, pin_memory, none_is_false=False)


def _size_entry(v: Any) -> int:
    """One entry of a shape: an integer (a one-element integer tensor too, as PyTorch's), never a
    float that ``int()`` would truncate (``zeros((2.5, 3))`` was 2 by 3) nor a bool."""
    if isinstance(v, (bool, host_numpy.bool_)) or not hasattr(v, "__index__"):
        raise TypeError(f"size must be a tuple of ints, but found element of type {type(v).__name__}")
    return operator.index(v)


def int_argument(fn: str, name: str, position: int, v: Any) -> int:
    """``v`` read as PyTorch reads an ``int`` argument (``steps``, ``num_classes``): a Python or
    NumPy integer, or a zero-dim integer tensor of any device (by its ``__index__``, one explicit
    read); a bool, a float or any other tensor is PyTorch's TypeError.  (Handed on as it came, a
    device tensor reached the array library, which converts it implicitly -- refused on a GPU --
    and a float was truncated, or counted, where PyTorch refuses it.)"""
    if (isinstance(v, (bool, host_numpy.bool_)) or not hasattr(v, "__index__")
            or isinstance(v, Tensor) and (v.ndim or v.dtype.kind not in "iu")):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not {type(v).__name__}")
    return operator.index(v)


def _shape(args: tuple) -> tuple[int, ...]:
    if len(args) == 1 and not isinstance(args[0], (int, host_numpy.integer, Tensor)):
        # one size or a sequence of them: a lone float (``ones(n / 2)``) is a size, refused by
        # _size_entry in PyTorch's words, not "'float' object is not iterable"
        args = tuple(args[0]) if hasattr(args[0], "__iter__") else args
    shape = tuple(_size_entry(s) for s in args)
    if any(s < 0 for s in shape):  # (PyTorch's RuntimeError, NumPy's ValueError: InvalidShape is both)
        raise InvalidShape(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    return shape


def _torch_name(name: str, own: str, own_value: Any, torch_name: str, torch_value: Any) -> Any:
    """The argument given under NumPy's name ``own`` or PyTorch's ``torch_name`` (``size=`` for
    ``shape``, ``end=`` for ``stop``, ``steps=`` for ``num``): the same argument, so not both."""
    if torch_value is None:
        return own_value
    if own_value is not None and own_value != ():
        raise TypeError(f"{name}: pass either {own} or {torch_name}=, not both (they are the same argument)")
    return torch_value


def _make(arr: Any, dev: Device, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(arr, None, dev)
    if requires_grad_flag(requires_grad):
        t.requires_grad = True
    return t


#: PyTorch's words for ``pin_memory=True`` where no accelerator offers a pinned-memory allocator
NO_PINNED_MEMORY = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is "
                    "available on this system.")


def pinned_as_asked(function: str, made: Tensor, pin_memory: Any, none_is_false: bool = True) -> Tensor:
    """``made``, just made by ``function``, as its ``pin_memory=`` asks (PyTorch's keyword of every
    creation function that takes ``layout=``, and of ``tensor``).  Callers test ``pin_memory is
    not False`` first, so the default costs one identity test.  ``True`` is ``made.pin_memory()``:
    a copy marked pinned where CuPy has a GPU to copy to, else PyTorch's RuntimeError for the
    keyword (:data:`NO_PINNED_MEMORY`); a leaf stays a leaf.  On the meta device there is no
    memory to pin, and PyTorch's ``zeros``, ``eye``, ``zeros_like`` ... ignore it; on a GPU (or the
    strict stand-in) PyTorch refuses it.  ``None`` means False (``tensor``'s is a plain ``bool``:
    ``none_is_false=False``); anything else is PyTorch's TypeError, bool's subclasses and NumPy's
    ``bool_`` too, as its argument parser's."""
    if pin_memory is None and none_is_false:
        return made
    if type(pin_memory) is not bool:
        kind = type(pin_memory)
        name = f"numpy.{kind.__name__}" if kind.__module__ == "numpy" else kind.__name__  # (CPython's tp_name)
        raise TypeError(f"{function}(): argument 'pin_memory' must be bool, not {name}")
    if not pin_memory or made.device.type == "meta":
        return made
    if made.device.type != "cpu":
        raise RuntimeError("Only dense CPU tensors can be pinned")
    if cuda_device_count() == 0:
        raise RuntimeError(NO_PINNED_MEMORY)
    pinned = made.detach().pin_memory()  # (the copy, not a node on the tape: a leaf made pinned)
    return pinned.requires_grad_() if made.requires_grad else pinned


def zeros(*shape: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          size: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """A tensor of zeros: ``zeros(2, 3)``, ``zeros((2, 3))`` or PyTorch's ``zeros(size=(2, 3))``.
    ``layout``: ``mg.strided`` or None, the one layout here; ``pin_memory=True``: the result's
    ``pin_memory()`` (every creation function takes both, as PyTorch's; :func:`pinned_as_asked`)."""
    check_layout("zeros", layout)
    dev = get_device(device)
    shape = _torch_name("zeros", "a shape", shape, "size", None if size is None else (size,))
    made = _make(dev.xp.zeros(_shape(shape), dtype=_dtype_or_default(dtype)), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("zeros", made, pin_memory)


def ones(*shape: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
         size: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """A tensor of ones (``size=``: PyTorch's name for the shape)."""
    check_layout("ones", layout)
    dev = get_device(device)
    shape = _torch_name("ones", "a shape", shape, "size", None if size is None else (size,))
    made = _make(dev.xp.ones(_shape(shape), dtype=_dtype_or_default(dtype)), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("ones", made, pin_memory)


def empty(*shape: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          size: Any = None, memory_format: Any = contiguous_format, layout: Any = None,
          pin_memory: bool = False) -> Tensor:
    """A tensor with unspecified values (filled with zeros here, so nothing leaks), laid out as
    ``memory_format`` asks (PyTorch's: ``mg.channels_last`` for a 4-d shape, ``channels_last_3d``
    for a 5-d one; ``preserve_format`` refused, as there: there is nothing to preserve)."""
    check_layout("empty", layout)
    made = zeros(*shape, dtype=dtype, device=device, requires_grad=False, size=size)
    if memory_format is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    check_memory_format("empty", memory_format, made.ndim)
    if memory_format is not contiguous_format and made.device.type != "meta":
        made = _make(laid_out(made._data, memory_format), made.device, False)
    made = made.requires_grad_() if requires_grad_flag(requires_grad) else made
    return made if pin_memory is False else pinned_as_asked("empty", made, pin_memory)


def full(shape: Any = None, fill_value: Any = None, dtype: Any = None, device: Any = None,
         requires_grad: bool = False, *, size: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """A tensor filled with ``fill_value`` (dtype inferred from it if not given); ``size=`` is
    PyTorch's name for ``shape``."""
    check_layout("full", layout)
    shape = _torch_name("full", "shape", shape, "size", size)
    if shape is None or fill_value is None:
        raise TypeError("full() needs a shape (size=) and a fill_value")
    dev = get_device(device)
    dtype = as_dtype(dtype) if dtype is not None else _fill_dtype(fill_value)
    arr = dev.xp.full(_shape((shape,)), fill_scalar("full", fill_number("full", fill_value), dtype), dtype=dtype)
    made = _make(arr, dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("full", made, pin_memory)


def fill_number(name: str, fill_value: Any) -> Any:
    """``fill_value`` as a host number: a 0-d tensor of any device is read as PyTorch reads a Scalar
    argument (one explicit transfer, to a NumPy scalar of its dtype, so a float64 value too big for
    the result's dtype is still refused); any other tensor, or one that requires grad, is PyTorch's
    TypeError (:func:`~minigrad_ckpt.tensor.check_tensor_number`).  (Left to NumPy,
    a tensor would be converted implicitly -- which a GPU tensor refuses -- and a 1-d one broadcast.)"""
    if not isinstance(fill_value, Tensor):
        return fill_value
    check_tensor_number(name, "fill_value", fill_value)
    return to_host(fill_value._data)[()]


def _fill_dtype(fill_value: Any) -> Any:
    """PyTorch's dtype for ``full``'s fill value, by its kind alone: a bool's ``bool``, any integer's
    ``int64`` (a NumPy ``int32`` or a 0-d ``int8`` tensor too), a complex number's the default complex
    type, any other the default float (a 0-d float64 tensor too)."""
    if isinstance(fill_value, (int, host_numpy.integer)) and not isinstance(fill_value, (bool, host_numpy.bool_)):
        return host_numpy.dtype("int64")  # (a Python int beyond int64 is then fill_scalar's overflow error)
    kind = fill_value.dtype.kind if isinstance(fill_value, Tensor) else host_numpy.asarray(fill_value).dtype.kind
    if kind == "b":
        return host_numpy.dtype("bool")
    if kind in "iu":
        return host_numpy.dtype("int64")
    return default_complex_dtype() if kind == "c" else _default_dtype[0]


def arange(start: Any = None, stop: Any = None, step: Any = 1, dtype: Any = None,
           device: Any = None, requires_grad: bool = False, *, end: Any = None, layout: Any = None,
           pin_memory: bool = False) -> Tensor:
    """Evenly spaced values in ``[start, stop)`` (ints give int64, floats the default dtype);
    ``end=`` is PyTorch's name for ``stop`` (``arange(end=5)`` starts at 0)."""
    check_layout("arange", layout)
    stop = _torch_name("arange", "stop", stop, "end", end)
    if start is None:
        if end is None:
            raise TypeError("arange() missing its first argument: start (or end=)")
        start = 0
    if stop is None:
        start, stop = 0, start
    if isinstance(start, Tensor) or isinstance(stop, Tensor) or isinstance(step, Tensor):
        start, stop, step = numbers("arange", start=start, end=stop, step=step)
    if dtype is None:  # by kind, as PyTorch's: np.float32(2.5) and a 0-d float tensor are floats too
        is_float = any(_number_kind(v) == "f" for v in (start, stop, step))
        dtype = _default_dtype[0] if is_float else host_numpy.dtype("int64")
    start, stop, step = (v.item() if isinstance(v, (Tensor, host_numpy.generic)) else v for v in (start, stop, step))
    _check_range(start, stop, step, as_dtype(dtype))
    if step and not ((step > 0 and stop >= start) or (step < 0 and stop <= start)) and all(
            math.isfinite(v) for v in (start, stop, step)):  # (PyTorch's words; NumPy's range is empty)
        raise RuntimeError(f"arange: upper bound and lower bound inconsistent with step sign "
                           f"(start={start}, end={stop}, step={step})")
    dev = get_device(device)
    dt = as_dtype(dtype)
    if dt.kind == "f":  # PyTorch's values: start + i * step in double precision, rounded once
        count = len(host_numpy.arange(start, stop, step))  # (NumPy's length is PyTorch's ceil((stop - start) / step))
        host = (start + host_numpy.arange(count, dtype=host_numpy.float64) * step).astype(dt)
    else:  # (NumPy's float arange adds i times the float32 step: 0.1 * 9 is 0.90000004, not 0.9)
        if dt.kind in "iu":  # PyTorch reads start, end and step in the integer dtype first (truncated):
            start, stop, step = int(start), int(stop), int(step)  # arange(0, 10, 1.5, dtype=int64) is 0..9
            if step == 0:  # (a step that truncates to 0: arange(0, 3, 0.5, dtype=int64))
                raise RefusedArgument("step must be nonzero")
            # counted in int64 and cast, as PyTorch's kernel: arange(-1, 2, 2, dtype=uint8) wraps to [255, 1]
            # (NumPy's arange in uint8 refused -1 with an OverflowError)
            host = host_numpy.arange(start, stop, step, dtype=host_numpy.int64).astype(dt)
        else:
            host = host_numpy.arange(start, stop, step, dtype=dt)
    made = _make(dev.xp.asarray(host), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("arange", made, pin_memory)


RANGE_DEPRECATION = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                     "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values "
                     "in [start, end).")


def inclusive_range(start: Any = None, end: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None,
                    requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """PyTorch's deprecated ``torch.range`` (``mg.range``): ``start`` to ``end`` *inclusive*, by ``step``
    -- ``trunc((end - start) / step) + 1`` values -- in the default float dtype whatever the numbers'
    kind (``mg.range(0, 10)`` is eleven float32 values; ``mg.arange(0, 11)`` is the int64 spelling), with
    PyTorch's deprecation warning.  Tutorials still call it; answering it as ``arange`` would drop the
    last value silently, and a missing name stops the program."""
    warnings.warn(RANGE_DEPRECATION, UserWarning, stacklevel=stacklevel_outside_the_engine())
    check_layout("range", layout)
    if start is None or end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    if isinstance(start, Tensor) or isinstance(end, Tensor) or isinstance(step, Tensor):
        start, end, step = numbers("range", start=start, end=end, step=step)
    start, end, step = (v.item() if isinstance(v, (Tensor, host_numpy.generic)) else v for v in (start, end, step))
    dt = _dtype_or_default(dtype)
    if dt.kind in "iu":  # read in the integer dtype first, as arange: range(0, 3, 1.5, dtype=int64) steps by 1
        start, end, step = int(start), int(end), int(step)
    _check_range(start, end, step, dt, "range_cpu")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RefusedArgument("upper bound and lower bound inconsistent with step sign")
    count = math.trunc((end - start) / step) + 1
    if dt.kind == "f":  # start + i * step in double precision, rounded once, as PyTorch's kernel
        host = (start + host_numpy.arange(count, dtype=host_numpy.float64) * step).astype(dt)
    else:
        host = (start + host_numpy.arange(count, dtype=host_numpy.int64) * step).astype(dt)
    dev = get_device(device)
    made = _make(dev.xp.asarray(host), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("range", made, pin_memory)


def _check_range(start: Any, stop: Any, step: Any, dt: Any, kernel: str = "arange_cpu") -> None:
    """PyTorch's refusals of an ``arange`` before any value: a zero or NaN step, an infinite or NaN
    bound, more values than an int64 counts, and bools (it has no bool kernel; NumPy's bool arange
    stops at 2 values).  Each a ``RuntimeError``, as PyTorch's, and the ``ValueError`` NumPy raised."""
    if dt.kind == "b":
        raise DtypeNotImplemented(f"\"{kernel}\" not implemented for 'Bool'")
    if not step or step != step:
        raise RefusedArgument("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(stop)):
        raise RefusedArgument(f"unsupported range: {start} -> {stop}")
    if abs((stop - start) / step) >= 2.0 ** 63:
        raise RefusedArgument("invalid size, possible overflow? (arange of more values than an int64 counts)")


def _number_kind(v: Any) -> str:
    """NumPy's kind letter of a number, a NumPy scalar or a tensor (``'f'`` for any float)."""
    if isinstance(v, (Tensor, host_numpy.generic)):
        return v.dtype.kind
    return "f" if isinstance(v, float) else "c" if isinstance(v, complex) else "i"


def linspace(start: float, stop: float | None = None, num: int | None = None, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, *, end: float | None = None,
             steps: int | None = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """``num`` (default 50) evenly spaced values from ``start`` to ``stop`` inclusive; ``end=`` and
    ``steps=`` are PyTorch's names for ``stop`` and ``num``."""
    check_layout("linspace", layout)
    stop = _torch_name("linspace", "stop", stop, "end", end)
    num = _torch_name("linspace", "num", num, "steps", steps)
    if stop is None:
        raise TypeError("linspace() missing its second argument: stop (or end=)")
    num = 50 if num is None else int_argument("linspace", "steps", 3, num)
    if num < 0:
        raise RuntimeError("number of steps must be non-negative")
    dev = get_device(device)
    (start, stop), dt = _spaced("linspace", (start, stop), dtype)
    if dt in (host_numpy.float32, host_numpy.float64) and num > 1:
        host = _evenly_spaced(start, stop, num, dt)
    elif dt.kind in "iub" and num > 1:
        host = _integer_spaced(start, stop, num, dt)
    elif dt.kind in "iu" and num == 1:  # PyTorch fills the start, read in the dtype (truncated)
        host = host_numpy.array([_in_scalar_type(start, dt)], dtype=dt)
    else:
        host = host_numpy.linspace(start, stop, num).astype(dt)
    made = _make(dev.xp.asarray(host), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("linspace", made, pin_memory)


def _integer_spaced(start: float, stop: float, num: int, dt: Any) -> Any:
    """PyTorch's linspace in an integer dtype (its CPU kernel): the ends read in ``dt`` first
    (truncated toward zero; one that does not fit is refused), the step between them in float64,
    each value one fused multiply-add from the nearer end in float64, truncated toward zero.
    NumPy's linspace of the ends as given, cast afterwards, was one off wherever an end had a
    fraction (``linspace(4.3, 50, 50, dtype=int64)[1]`` was 5, PyTorch's 4) and at values that the
    fused rounding leaves just above an integer (``linspace(21, -64, 146, dtype=int16)[58]``: -12).
    PyTorch has no bool kernel for two or more steps."""
    np = host_numpy
    if dt.kind == "b":
        raise DtypeNotImplemented("\"linspace_cpu\" not implemented for 'Bool'")
    first, last = (_in_scalar_type(v, dt) for v in (start, stop))
    step = (np.float64(last) - np.float64(first)) / np.float64(num - 1)
    i = np.arange(num)
    lower = i < num // 2
    scale = np.where(lower, i, num - 1 - i).astype(np.float64)
    slope = np.where(lower, step, -step)
    base = np.where(lower, np.float64(first), np.float64(last))
    return np.trunc(fused_multiply_add(slope, scale, base, np.float64)).astype(np.int64).astype(dt)


def _evenly_spaced(start: float, stop: float, num: int, dt: Any) -> Any:
    """PyTorch's linspace values to the bit (its CPU kernel): the step ``(stop - start) / (num - 1)``
    in ``dt``, the first half ``start + step * i`` and the second ``stop - step * (num - 1 - i)``,
    each a fused multiply-add rounded once.  NumPy's ``start + i * step`` rounds twice and from
    one end, and the last bits matter where the values are positions that a floor reads (the
    pixel centres of ``F.affine_grid``'s identity grid, which ``grid_sample``'s gradient reads)."""
    np = host_numpy
    kind = dt.type
    with np.errstate(all="ignore"):  # infinite ends make NaN steps, as PyTorch's
        first, last, step = kind(start), kind(stop), (kind(stop) - kind(start)) / kind(num - 1)
    i = np.arange(num)
    lower = i < num // 2
    scale = np.where(lower, i, num - 1 - i).astype(np.float64)
    slope = np.where(lower, np.float64(step), -np.float64(step))
    base = np.where(lower, np.float64(first), np.float64(last))
    return fused_multiply_add(slope, scale, base, dt)


def _spaced(name: str, ends: tuple[Any, Any], dtype: Any) -> tuple[tuple[Any, Any], Any]:
    """The endpoints of ``linspace``/``logspace`` as numbers (0-d tensors read), and the dtype:
    complex endpoints make the default float's complex type, and a real dtype refuses them
    (PyTorch's rule; a cast would drop their imaginary parts)."""
    for param, v in zip(("start", "end"), ends):
        if isinstance(v, Tensor) and v.ndim:  # (one that requires grad is read: its Tensor overloads take it)
            raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got {param} with "
                               f"{v.ndim} dimension(s).")
    ends = tuple(v.item() if isinstance(v, Tensor) else v for v in ends)
    is_complex = any(isinstance(v, (complex, host_numpy.complexfloating)) for v in ends)
    if dtype is None:
        return ends, default_complex_dtype() if is_complex else _default_dtype[0]
    dt = as_dtype(dtype)
    if is_complex and dt.kind != "c":
        raise RuntimeError(f"{name}: inferred dtype {default_complex_dtype()} can't be safely cast to passed "
                           f"dtype {dt}")
    return ends, dt


def _like(x: Tensor, dtype: Any, device: Any, memory_format: Any = None,
          name: str = "zeros_like", layout: Any = None) -> tuple[Any, Device]:
    check_layout(name, layout)
    if not isinstance(x, Tensor):
        x = tensor(x)
    check_memory_format(name, memory_format, x.ndim)
    dt = as_dtype(dtype) if dtype is not None else x.dtype
    dev = get_device(device) if device is not None else x.device
    return (x.shape, dt), dev


def _laid_out_like(t: Tensor, x: Any, memory_format: Any) -> Tensor:
    """``t``, just made row-major, laid out as ``memory_format`` asks for a tensor like ``x``: PyTorch's
    strides (``preserve_format``, the default: in the order of ``x``'s; ``mg.channels_last``: the
    channels innermost).  The values are ``t``'s."""
    if isinstance(x, Tensor) and x.ndim > 1 and memory_format is not contiguous_format:
        t._data = laid_out(t._data, memory_format, like=x._data, copy=False)
    return t


def zeros_like(input: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, *,
               memory_format: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """Zeros with ``input``'s shape, and its dtype and device unless given."""
    (shape, dt), dev = _like(input, dtype, device, memory_format, "zeros_like", layout)
    made = _laid_out_like(_make(dev.xp.zeros(shape, dtype=dt), dev, requires_grad), input, memory_format)
    return made if pin_memory is False else pinned_as_asked("zeros_like", made, pin_memory)


def ones_like(input: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, *,
              memory_format: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """Ones with ``input``'s shape, and its dtype and device unless given."""
    (shape, dt), dev = _like(input, dtype, device, memory_format, "ones_like", layout)
    made = _laid_out_like(_make(dev.xp.ones(shape, dtype=dt), dev, requires_grad), input, memory_format)
    return made if pin_memory is False else pinned_as_asked("ones_like", made, pin_memory)


def full_like(input: Any, fill_value: Any, dtype: Any = None, device: Any = None,
              requires_grad: bool = False, *, memory_format: Any = None, layout: Any = None,
              pin_memory: bool = False) -> Tensor:
    """``fill_value`` everywhere, with ``input``'s shape, and its dtype and device unless given."""
    (shape, dt), dev = _like(input, dtype, device, memory_format, "full_like", layout)
    fill = fill_scalar("full_like", fill_number("full_like", fill_value), dt)
    made = _laid_out_like(_make(dev.xp.full(shape, fill, dtype=dt), dev, requires_grad), input, memory_format)
    return made if pin_memory is False else pinned_as_asked("full_like", made, pin_memory)


def empty_like(input: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               memory_format: Any = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """A tensor with ``input``'s shape, dtype and device unless given, its values unspecified (zeros here)."""
    check_layout("empty_like", layout)
    made = zeros_like(input, dtype, device, requires_grad, memory_format=memory_format)
    return made if pin_memory is False else pinned_as_asked("empty_like", made, pin_memory)


def _check_float(dtype: Any, name: str) -> Any:
    """A window's dtype: a float one.  PyTorch refuses an integer or bool dtype in these words (a
    RuntimeError; DtypeNotImplemented is one, and a TypeError as before) and a complex one with its
    arange kernel's NotImplementedError."""
    dt = _dtype_or_default(dtype)
    if dt.kind == "c":
        raise DtypeNotImplemented(f'{name}: "arange_cpu" not implemented for complex dtype {dt}')
    if dt.kind != "f":
        raise DtypeNotImplemented(f"{name} expects floating point dtypes, got: {dt}")
    return dt


def _sampled(name: str, draw: Any, shape: tuple[int, ...], dtype: Any, dev: Device, generator: Any,
             part_scale: float) -> Any:
    """``draw(xp, key, shape, dtype)`` of a float dtype, or of a complex one as PyTorch samples it:
    the real and imaginary parts drawn as a float pair (one key), each times ``part_scale``."""
    dt = _dtype_or_default(dtype)
    if dt.kind not in "fc":  # (PyTorch has no kernel for it: its NotImplementedError, a TypeError as before)
        raise DtypeNotImplemented(f"{name}: dtype must be a float dtype (or a complex one), got {dt}")
    if dev.type == "meta":  # no values: PyTorch's meta draw takes nothing from the generator either
        return MetaArray(shape, dt)
    key = _random.key_from(generator, name)
    if dt.kind == "f":
        return draw(dev.xp, key, shape, dt)
    part = host_numpy.empty(0, dt).real.dtype  # complex64 -> float32
    pairs = draw(dev.xp, key, shape + (2,), part)
    if part_scale != 1.0:
        pairs = pairs * part.type(part_scale)
    return (pairs[..., 0] + pairs[..., 1] * 1j).astype(dt)


def rand(*shape: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
         generator: _random.Generator | None = None, size: Any = None, layout: Any = None,
         pin_memory: bool = False) -> Tensor:
    """Uniform samples in [0, 1) from the engine generator (see :func:`manual_seed`), or from
    ``generator`` (every sampling function here takes PyTorch's ``generator=``).  A complex
    dtype draws both parts in [0, 1), as PyTorch's.  ``size=``: PyTorch's name for the shape."""
    check_layout("rand", layout)
    dev = get_device(device)
    shape = _torch_name("rand", "a shape", shape, "size", None if size is None else (size,))
    made = _make(_sampled("rand", _random.uniform, _shape(shape), dtype, dev, generator, 1.0), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("rand", made, pin_memory)


def randn(*shape: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
          generator: _random.Generator | None = None, size: Any = None, layout: Any = None,
          pin_memory: bool = False) -> Tensor:
    """Standard-normal samples from the engine generator (or ``generator``).  A complex dtype
    draws PyTorch's complex standard normal: each part of variance 1/2, so ``E|z|^2 = 1``.
    ``size=``: PyTorch's name for the shape."""
    check_layout("randn", layout)
    dev = get_device(device)
    shape = _torch_name("randn", "a shape", shape, "size", None if size is None else (size,))
    arr = _sampled("randn", _random.normal, _shape(shape), dtype, dev, generator, 0.5 ** 0.5)
    made = _make(arr, dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("randn", made, pin_memory)


class _EmptyRange(RuntimeError, ValueError):
    """``randint`` of an empty range: PyTorch's RuntimeError, a ValueError as before."""


def randint(low: int | None = None, high: int | None = None, size: Any = (), dtype: Any = "int64",
            device: Any = None, *, generator: _random.Generator | None = None, requires_grad: bool = False,
            layout: Any = None, pin_memory: bool = False) -> Tensor:
    """Uniform integers in ``[low, high)`` from the engine generator; ``randint(high, size)`` is
    PyTorch's two-argument form (a sequence as the second argument is the size)."""
    check_layout("randint", layout)
    if high is not None and not isinstance(high, (int, host_numpy.integer)) and size == ():
        high, size = None, high  # randint(5, (2, 3))
    if high is None:
        if low is None:
            raise TypeError('randint() missing 1 required positional arguments: "high"')
        low, high = 0, low
    elif low is None:  # randint(high=5, size=...), randint_like(x, high=5): PyTorch's keyword spelling
        low = 0
    low, high = _integer_bound("low", low), _integer_bound("high", high)
    if high <= low:  # PyTorch's RuntimeError and words, a ValueError as before
        raise _EmptyRange(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high} "
                          f"(randint: need low < high)")
    dt = as_dtype(dtype)
    _check_random_bounds(low, high, dt)
    dev = get_device(device)
    shape = _shape((size,))
    n = 1
    for s in shape:
        n *= s
    bits = dev.xp.uniform_bits(_random.key_from(generator, "randint"), n)
    span = high - low  # (low + the offset in int64, wrapping as the uint64 offset does: the full int64 range)
    vals = ((bits % dev.xp.uint64(span)).astype(host_numpy.int64) + low).astype(dt)
    made = _make(vals.reshape(shape), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("randint", made, pin_memory)


def _integer_bound(name: str, v: Any) -> int:
    """``randint``'s ``low``/``high``: an integer, as PyTorch's (a float bound is its TypeError; here
    ``randint(0.5, 10.5, (3,))`` was a float64 tensor)."""
    if not hasattr(v, "__index__"):
        raise TypeError(f"randint(): argument '{name}' must be int, not {type(v).__name__}")
    return operator.index(v)


def _check_random_bounds(low: int, high: int, dt: Any) -> None:
    """PyTorch's ``check_random_bounds``: ``low`` and ``high - 1`` are values of ``dt`` (NumPy's cast
    wrapped them: ``randint(0, 300, (3,), dtype=uint8)`` gave values above 255 mod 256), and a complex
    ``dt`` is refused."""
    if dt.kind == "c":
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    if dt.kind == "f":
        lowest, largest = -float(host_numpy.finfo(dt).max), float(host_numpy.finfo(dt).max)
    else:
        lowest, largest = (0, 1) if dt.kind == "b" else (int(host_numpy.iinfo(dt).min), int(host_numpy.iinfo(dt).max))
    if low < lowest:
        raise RuntimeError(f"from is out of bounds for {dt}")
    if high - 1 > largest:
        raise RuntimeError(f"to - 1 is out of bounds for {dt}")


def randperm(n: int, dtype: Any = "int64", device: Any = None, *,
             generator: _random.Generator | None = None, requires_grad: bool = False, layout: Any = None,
             pin_memory: bool = False) -> Tensor:
    """A random permutation of ``0..n-1`` from the engine generator (one key per call)."""
    check_layout("randperm", layout)
    n = numbers("randperm", "SymInt", n=n)  # (a tensor, a NumPy int; a float or bool: PyTorch's TypeError)
    if not isinstance(n, (int, host_numpy.integer)) or isinstance(n, bool):
        raise ValueError(f"randperm: n must be a non-negative int, got {n!r}")
    if n < 0:  # PyTorch's RuntimeError and words, a ValueError as before
        raise InvalidShape(f"Trying to create tensor with negative dimension {n}: [{n}] "
                           f"(randperm: n must be non-negative)")
    dt = as_dtype(dtype)
    _check_permutation_fits(int(n), dt)
    dev = get_device(device)
    perm = _random.permutation(dev.xp, _random.key_from(generator, "randperm"), int(n))
    made = _make(perm.astype(dt), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("randperm", made, pin_memory)


def _check_permutation_fits(n: int, dt: Any) -> None:
    """PyTorch's refusal of a ``randperm`` whose values ``0..n-1`` the dtype cannot all hold: the cast
    wrapped (``randperm(300, dtype=int8)`` held 256 distinct values) or rounded (float16 past 2049)
    them into something that is not a permutation."""
    if dt.kind == "b":
        raise DtypeNotImplemented("\"randperm\" not implemented for 'Bool'")
    if dt.kind in "iu" and n - 1 > host_numpy.iinfo(dt).max:
        raise RefusedArgument(f"{overflow_words(dt)} (randperm: n - 1 = {n - 1} does not fit {dt})")
    if dt.kind == "f" and n > 2 ** (host_numpy.finfo(dt).nmant + 1) + 1:  # every integer up to 2**(mantissa+1)
        raise RefusedArgument(f"randperm: n cannot be greater than {2 ** (host_numpy.finfo(dt).nmant + 1) + 1} "
                              f"for {dt}, got {n}")


def rand_like(input: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
              memory_format: Any = None, generator: _random.Generator | None = None,
              layout: Any = None, pin_memory: bool = False) -> Tensor:
    """:func:`rand` with ``input``'s shape, and its dtype and device unless given (drawn from
    ``generator`` where given, as PyTorch's)."""
    (shape, dt), dev = _like(input, dtype, device, memory_format, "rand_like", layout)
    made = rand(*shape, dtype=dt, device=dev, requires_grad=requires_grad, generator=generator)
    made = _laid_out_like(made, input, memory_format)
    return made if pin_memory is False else pinned_as_asked("rand_like", made, pin_memory)


def randn_like(input: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               memory_format: Any = None, generator: _random.Generator | None = None,
               layout: Any = None, pin_memory: bool = False) -> Tensor:
    """:func:`randn` with ``input``'s shape, and its dtype and device unless given (drawn from
    ``generator`` where given, as PyTorch's)."""
    (shape, dt), dev = _like(input, dtype, device, memory_format, "randn_like", layout)
    made = randn(*shape, dtype=dt, device=dev, requires_grad=requires_grad, generator=generator)
    made = _laid_out_like(made, input, memory_format)
    return made if pin_memory is False else pinned_as_asked("randn_like", made, pin_memory)


def randint_like(input: Any, low: int | None = None, high: int | None = None, *, dtype: Any = None, device: Any = None,
                 requires_grad: bool = False, memory_format: Any = None,
                 generator: _random.Generator | None = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """:func:`randint` with ``input``'s shape (``randint_like(input, high)`` draws from ``[0, high)``), and its
    dtype and device unless given (drawn from ``generator`` where given, as PyTorch's)."""
    (shape, dt), dev = _like(input, dtype, device, memory_format, "randint_like", layout)
    if dt.kind == "c":
        raise TypeError(f"randint_like: the dtype must be an integer, float or bool dtype, got {dt}")
    made = randint(low, high, shape, dtype=dt, device=dev, requires_grad=requires_grad, generator=generator)
    made = _laid_out_like(made, input, memory_format)
    return made if pin_memory is False else pinned_as_asked("randint_like", made, pin_memory)


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """``steps`` values from ``base ** start`` to ``base ** end``, evenly spaced in the exponent
    (``torch.logspace``)."""
    check_layout("logspace", layout)
    steps = int_argument("logspace", "steps", 3, steps)
    base = numbers("logspace", "float", base=base)
    dev = get_device(device)
    (start, end), dt = _spaced("logspace", (start, end), dtype)
    if dt.kind == "c":
        host = (base ** host_numpy.linspace(start, end, steps)).astype(dt)
    else:
        host = _log_spaced(start, end, steps, base, dt)
    made = _make(dev.xp.asarray(host), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked("logspace", made, pin_memory)


def _log_spaced(start: float, end: float, steps: int, base: float, dt: Any) -> Any:
    """PyTorch's real logspace to the bit (its CPU loop): the ends in ``dt`` (an integer dtype
    truncates them), the step ``(end - start) / (steps - 1)`` in float64 from their difference in
    ``dt``, the exponent ``start + step * i`` for the first half and ``end - step * (steps - 1 - i)``
    for the second, in float64, and ``base ** exponent`` in float64 rounded to ``dt`` once.  NumPy's
    linspace in float64 put a third of float32 values a bit off (``logspace(0, 1, 7)[4]``), and an
    integer dtype's values were far off (its ends were not truncated first)."""
    np = host_numpy
    if steps <= 0:
        if steps < 0:
            raise RuntimeError("number of steps must be non-negative")
        return np.empty(0, dt)
    if dt.kind == "b" and steps > 1:
        raise RuntimeError('"logspace_cpu" not implemented for \'Bool\'')
    if steps == 1:  # PyTorch fills base ** start, the start as given
        value = np.float64(base) ** np.float64(start)
        return np.array([value if dt.kind in "fb" else _in_scalar_type(value, dt)]).astype(dt)
    with np.errstate(all="ignore"):  # infinite or NaN ends give inf and NaN, as PyTorch's
        first, last = (_in_scalar_type(v, dt) for v in (start, end))
        span = last - first if dt.kind == "f" else np.int64(last) - np.int64(first)  # C++ promotes to int
        step = np.float64(span) / np.float64(steps - 1)
        i = np.arange(steps)
        lower = i < steps // 2
        exponent = np.where(lower, np.float64(first) + step * i, np.float64(last) - step * (steps - 1 - i))
        value = _c_pow(float(base), exponent)
        # c10's Half(double) rounds to float first: twice, as PyTorch's
        return (value.astype(np.float32) if dt == np.float16 else value).astype(dt)


def _c_pow(base: float, exponent: Any) -> Any:
    """``base ** exponent`` of a float64 array as C's ``pow`` (``math.pow``), which PyTorch's logspace
    loop calls: NumPy's vectorised float64 power is a unit in the last place off in about 5% of the
    values (``logspace(0, 1, 5, dtype=float64)[3]``), and an integer dtype truncates such a value.
    Where NumPy's is inf or NaN, it stands (``math.pow`` raises for those)."""
    np = host_numpy
    value = np.power(np.float64(base), exponent)
    finite = np.isfinite(value)
    value[finite] = [math.pow(base, e) for e in exponent[finite].tolist()]
    return value


_C_INTEGER_NAMES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t"}


def _in_scalar_type(v: Any, dt: Any) -> Any:
    """PyTorch's ``Scalar.to<scalar_t>()`` of a Python number: float16 by way of float32 (c10's
    ``Half(double)``); an integer dtype truncates a float toward zero and refuses one outside its
    range (a negative one for an unsigned dtype), and wraps a negative Python int into an unsigned one."""
    np = host_numpy
    if dt == np.float16:
        return np.float16(np.float32(v))
    if dt.kind == "f":
        return dt.type(v)
    info = np.iinfo(dt)
    exact = isinstance(v, (int, np.integer)) and not isinstance(v, bool)
    fits = info.min <= v <= info.max or (exact and info.min == 0 and -info.max <= v < 0)
    if not (fits and (exact or math.isfinite(v))):
        name = _C_INTEGER_NAMES.get(str(dt), f"{dt}_t")
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return np.array(math.trunc(v), dtype=np.int64).astype(dt)[()]


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False,
                  layout: Any = None, pin_memory: bool = False) -> Tensor:
    """A 0-d tensor holding ``s``, of the default float dtype unless given (``torch.scalar_tensor``)."""
    check_layout("scalar_tensor", layout)
    if isinstance(s, Tensor):
        s = numbers("scalar_tensor", s=s)
    made = Tensor._from_data(float(s) if dtype is None else s, dtype=_dtype_or_default(dtype), device=device,
                             requires_grad=requires_grad)
    return made if pin_memory is False else pinned_as_asked("scalar_tensor", made, pin_memory)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing memory where it can (``torch.as_tensor``): a Tensor of that dtype
    and device is returned itself, a CPU NumPy array of that dtype is wrapped without a copy;
    anything else is converted (a copy)."""
    dt = as_dtype(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        return data.to(device=device if device is not None else data.device, dtype=dt or data.dtype)
    dev = get_device(device)
    # (``dt in (None, data.dtype)`` would be wrong: a NumPy dtype equals None when it is float64)
    if isinstance(data, host_numpy.ndarray) and dev.type == "cpu" and (dt is None or dt == data.dtype):
        return Tensor.sharing(data, dev)
    return tensor(data, dtype=dt, device=dev)


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool | None = None) -> Tensor:
    """``torch.asarray``: :func:`as_tensor`, or always a copy with ``copy=True``.  A tensor's copy
    (or its conversion to another dtype or device) stays on the tape, as PyTorch's: gradients flow
    back to ``obj``.  ``requires_grad=True`` makes the result a leaf that records; ``False`` one
    that does not (a detached view where ``obj`` requires grad); left out, a tensor's own flag stays."""
    out = as_tensor(obj, dtype, device)
    shared = out is obj or (isinstance(obj, host_numpy.ndarray) and out._data is obj)
    if copy is False and not shared:
        raise ValueError("asarray: copy=False, but the data cannot be shared (another dtype or device)")
    if copy and shared:
        out = out.clone() if isinstance(obj, Tensor) else tensor(obj, dtype=dtype, device=device)
    if requires_grad is None:
        return out
    if requires_grad_flag(requires_grad):
        return out.requires_grad_(True)
    return out.detach() if out.requires_grad else out


# ---- PyTorch's sampling functions: draws from the engine generator, one key per call ----
def bernoulli(input: Any, p: float | None = None, *,  # noqa: A002
              generator: _random.Generator | None = None) -> Tensor:
    """1 with probability ``input`` (or ``p`` everywhere), else 0, in ``input``'s float dtype
    (``torch.bernoulli``; a constant: the draw has no gradient)."""
    x = input if isinstance(input, Tensor) else tensor(input)
    if x.dtype.kind != "f":  # (PyTorch has no kernel for it: its NotImplementedError, a TypeError as before)
        raise DtypeNotImplemented(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{x.dtype}': bernoulli: input "
                                  f"must be floating point")
    xp = x.device.xp
    prob = x._data if p is None else p
    _check_probabilities(xp, prob)
    u = _random.uniform(xp, _random.key_from(generator, "bernoulli"), x.shape, x.dtype)
    return Tensor.constant((u < prob).astype(x.dtype), x.device)


def _check_probabilities(xp: Any, prob: Any) -> None:
    """PyTorch's refusal of a probability outside [0, 1] (NaN too): a draw ``u < p`` would answer
    silently, always 1 above 1 and always 0 below 0.  One read on the host, as PyTorch's check."""
    if isinstance(prob, (int, float)):
        inside = 0.0 <= prob <= 1.0
    else:
        inside = not prob.size or bool(xp.scalar(xp.all((prob >= 0) & (prob <= 1))))
    if not inside:
        raise RefusedArgument("Expected p_in >= 0 && p_in <= 1 to be true, but got false (bernoulli: every "
                              "probability must be in [0, 1])")


class InvalidMultinomial(RuntimeError, ValueError):
    """What ``multinomial`` refuses (weights of another rank or dtype, negative, infinite or NaN weights,
    a row that sums to 0, more samples than categories without replacement): PyTorch's
    ``RuntimeError``, and the ``ValueError`` of NumPy's ``Generator.choice`` for the same mistakes."""


def multinomial(input: Any, num_samples: int, replacement: bool = False, *,  # noqa: A002
                generator: _random.Generator | None = None) -> Tensor:
    """Indices drawn from the categories of each row of ``input`` (1-D or 2-D non-negative weights,
    not necessarily normalized), as ``torch.multinomial``: with ``replacement`` by the inverse of the
    cumulative distribution, without it by an exponential race (each category's ``-log(u) / weight``;
    the ``num_samples`` smallest win, in order), so zero-weight categories come last.  int64."""
    w = input if isinstance(input, Tensor) else tensor(input)
    if w.ndim not in (1, 2) or w.dtype.kind != "f":
        raise InvalidMultinomial(
            ("prob_dist must be 1 or 2 dim" if w.ndim not in (1, 2) else
             f"multinomial only supports floating-point dtypes for input, got: {w.dtype}")
            + f" (multinomial: input must be a 1-D or 2-D float tensor, got {w.ndim}-D {w.dtype})")
    rows = w._data.reshape(-1, w.shape[-1])
    xp, n = w.device.xp, int(num_samples)
    if n <= 0 or (not replacement and n > rows.shape[1]):
        raise InvalidMultinomial(
            ("cannot sample n_sample <= 0 samples" if n <= 0 else
             "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
            + f" (multinomial: cannot draw {n} samples from {rows.shape[1]} categories "
            f"{'with' if replacement else 'without'} replacement)")
    total = rows.sum(axis=1, keepdims=True)
    if bool(xp.scalar(xp.any((rows < 0) | ~xp.isfinite(rows)))):
        raise InvalidMultinomial("probability tensor contains either `inf`, `nan` or element < 0 "
                                 "(multinomial: weights must be finite and non-negative)")
    if bool(xp.scalar(xp.any(total <= 0))):
        raise InvalidMultinomial("invalid multinomial distribution (sum of probabilities <= 0) "
                                 "(multinomial: weights must be non-negative with a positive sum in each row)")
    key = _random.key_from(generator, "multinomial")
    if replacement:
        cdf = xp.cumsum(rows / total, axis=1)
        u = _random.uniform(xp, key, (rows.shape[0], n), w.dtype)
        idx = (u[:, :, None] >= cdf[:, None, :]).sum(axis=2)
        idx = xp.minimum(idx, rows.shape[1] - 1)  # a cdf that rounds below 1 never yields an index past the end
    else:
        u = _random.uniform(xp, key, rows.shape, w.dtype)
        race = xp.where(rows > 0, -xp.log(1 - u) / xp.where(rows > 0, rows, 1), xp.inf)
        idx = xp.argsort(race, axis=1, kind="stable")[:, :n]
    out = idx.astype("int64")
    return Tensor.constant(out.reshape(n) if w.ndim == 1 else out, w.device)


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: _random.Generator | None = None,
           dtype: Any = None, device: Any = None, requires_grad: bool = False, layout: Any = None,
           pin_memory: bool = False) -> Tensor:
    """``mean + std * z`` with ``z`` standard normal (``torch.normal``): tensors ``mean`` and/or ``std``
    broadcast, the result in ``mean``'s dtype (``std``'s for a number ``mean``), as PyTorch's; it
    requires grad where they do, with a derivative of 0 in both, as PyTorch's (the draw is not
    reparameterized; ``Normal(...).rsample()`` is); a negative or NaN ``std`` is refused, as
    PyTorch does; two numbers need ``size`` (the default dtype unless given).  A complex ``mean`` tensor (or a
    complex ``dtype`` for numbers) draws PyTorch's complex normal: each part ``N(Re/Im mean,
    std^2 / 2)`` -- a number ``mean`` is the location of both parts, as PyTorch's."""
    check_layout("normal", layout)
    if isinstance(std, Tensor) and std.dtype.kind == "c":
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal: with a number mean and std, give size")
        check_normal_std(std)
        z = randn(*_shape((size,)), dtype=dtype, device=device, generator=generator)
        both = z.dtype.kind == "c" and not isinstance(mean, complex)  # (PyTorch fills the real view)
        out = z * std + (complex(mean, mean) if both else mean)
        out = out.requires_grad_(True) if requires_grad_flag(requires_grad) else out
        return out if pin_memory is False else pinned_as_asked("normal", out, pin_memory)
    _refuse_factory_keywords(mean, std, size=size, dtype=dtype, device=device, requires_grad=requires_grad,
                             pin_memory=pin_memory)
    like = mean if isinstance(mean, Tensor) else std
    shape = host_numpy.broadcast_shapes(getattr(mean, "shape", ()), getattr(std, "shape", ()))
    check_normal_std(std)
    if like.dtype.kind != "f":  # complex: PyTorch's complex normal (PyTorch has no derivative of it)
        drawn = _sampled("normal", _random.normal, shape, like.dtype, like.device, generator, 0.5 ** 0.5)
        return mean + std * Tensor.constant(drawn, like.device)
    drawn = _sampled("normal", _random.normal, shape, like.dtype, like.device, generator, 1.0)
    loc, scale = (v.detach() if isinstance(v, Tensor) else v for v in (mean, std))
    value = (loc + scale * Tensor.constant(drawn, like.device)).to(like.dtype)
    # Recorded with a derivative of exactly 0 in both, as PyTorch's NormalBackward (the draw is not
    # reparameterized): the value is selected whole, so the operands' branch gets Where's zero share
    # (never 0 * inf), in backward and under the transforms, and the result requires grad where an
    # operand does, as PyTorch's
    everywhere = Tensor.constant(like.device.xp.ones(value.shape, dtype=bool), like.device)
    return apply(_elementwise.Where(), everywhere, value, mean + std).to(like.dtype)


def _refuse_factory_keywords(mean: Any, std: Any, **given: Any) -> None:
    """PyTorch's TypeError where a tensor ``mean`` or ``std`` comes with a factory keyword: its tensor
    forms take ``generator=`` and ``out=`` only, the result's dtype and device being the operands'
    (a ``dtype=`` taken and ignored answered float32 where float64 was asked)."""
    named = [k for k, v in given.items() if v is not None and v is not False]
    if named:
        kinds = ", ".join(("Tensor" if isinstance(v, Tensor) else type(v).__name__) for v in (mean, std))
        raise TypeError(f"normal() received an invalid combination of arguments - got ({kinds}, "
                        f"{', '.join(k + '=...' for k in named)}): with a tensor mean or std, normal takes "
                        f"generator= and out= only (its result has their dtype and device)")


def check_normal_std(std: Any) -> None:
    """PyTorch's refusal of a negative (or NaN) standard deviation, in ``normal``, ``x.normal_`` and
    ``nn.init.normal_`` alike."""
    if isinstance(std, Tensor):
        data = std._data
        if data.size and not bool(std.device.xp.scalar(std.device.xp.all(data >= 0))):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")


# ---- PyTorch's window functions (signal processing): formulas of the position, computed in float64 ----
def _window(name: str, length: int, periodic: bool, formula: Any, dtype: Any, device: Any,
            requires_grad: bool, layout: Any, pin_memory: Any) -> Tensor:
    """``formula(n, N)`` at ``n = 0..length-1`` over a window of ``N`` points (``length + 1`` when
    ``periodic``: the symmetric window one longer, its last point dropped, as PyTorch's)."""
    check_layout(name, layout)
    if not isinstance(length, (int, host_numpy.integer)):
        raise ValueError(f"{name}: window_length must be a non-negative int, got {length!r}")
    if length < 0:  # PyTorch's RuntimeError and words, a ValueError as before
        raise RefusedArgument(f"{name} requires non-negative window_length, got window_length={length}")
    dt = _check_float(dtype, name)
    if length <= 1:
        host = host_numpy.ones(length)
    else:
        n = host_numpy.arange(length, dtype=host_numpy.float64)
        host = formula(n, length + 1 if periodic else length)
    dev = get_device(device)
    made = _make(dev.xp.asarray(host.astype(dt)), dev, requires_grad)
    return made if pin_memory is False else pinned_as_asked(name, made, pin_memory)


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None, device: Any = None,
                requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """``0.5 - 0.5 cos(2 pi n / (N - 1))`` (``torch.hann_window``)."""
    return _window("hann_window", window_length, periodic,
                   lambda n, N: 0.5 - 0.5 * host_numpy.cos(2 * host_numpy.pi * n / (N - 1)), dtype, device,
                   requires_grad, layout, pin_memory)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype: Any = None, device: Any = None, requires_grad: bool = False, layout: Any = None,
                   pin_memory: bool = False) -> Tensor:
    """``alpha - beta cos(2 pi n / (N - 1))`` (``torch.hamming_window``)."""
    return _window("hamming_window", window_length, periodic,
                   lambda n, N: alpha - beta * host_numpy.cos(2 * host_numpy.pi * n / (N - 1)), dtype, device,
                   requires_grad, layout, pin_memory)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None, device: Any = None,
                    requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))`` (``torch.blackman_window``)."""
    def formula(n: Any, N: int) -> Any:  # noqa: N803
        x = 2 * host_numpy.pi * n / (N - 1)
        return 0.42 - 0.5 * host_numpy.cos(x) + 0.08 * host_numpy.cos(2 * x)
    return _window("blackman_window", window_length, periodic, formula, dtype, device, requires_grad, layout,
                   pin_memory)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None, device: Any = None,
                    requires_grad: bool = False, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """The triangle ``1 - |2 n / (N - 1) - 1|`` (``torch.bartlett_window``)."""
    return _window("bartlett_window", window_length, periodic,
                   lambda n, N: 1 - host_numpy.abs(2 * n / (N - 1) - 1), dtype, device, requires_grad, layout,
                   pin_memory)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Any = None,
                  device: Any = None, requires_grad: bool = False, layout: Any = None,
                  pin_memory: bool = False) -> Tensor:
    """``I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta)`` (``torch.kaiser_window``)."""
    return _window("kaiser_window", window_length, periodic,
                   lambda n, N: host_numpy.i0(beta * host_numpy.sqrt(1 - (2 * n / (N - 1) - 1) ** 2))
                   / host_numpy.i0(beta), dtype, device, requires_grad, layout, pin_memory)


class _LegacyTensorType(type):
    """PyTorch's legacy typed constructors (``torch.LongTensor``): calling one makes a CPU tensor of
    its dtype -- ``LongTensor([1.7, 2])`` casts the data (``[1, 2]``), ``LongTensor(2, 3)`` is an
    uninitialised 2 x 3 (zeros here) -- and ``isinstance(t, FloatTensor)`` asks whether ``t`` is a
    float32 CPU tensor.  They are not classes of the tensors they make (``type(t)`` is ``Tensor``),
    as in PyTorch; ``t.type(LongTensor)`` casts."""

    dtype: Any

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:  # type: ignore[override]
        t = Tensor.__new__(Tensor)
        t._init_legacy(args, cls.dtype, device)
        return t


def _legacy_type(name: str, dtype: str) -> Any:
    return _LegacyTensorType(name, (), {"dtype": as_dtype(dtype), "__module__": __name__,
                                        "__doc__": f"PyTorch's ``torch.{name}``: a {dtype} CPU tensor."})


FloatTensor = _legacy_type("FloatTensor", "float32")
DoubleTensor = _legacy_type("DoubleTensor", "float64")
HalfTensor = _legacy_type("HalfTensor", "float16")
LongTensor = _legacy_type("LongTensor", "int64")
IntTensor = _legacy_type("IntTensor", "int32")
ShortTensor = _legacy_type("ShortTensor", "int16")
CharTensor = _legacy_type("CharTensor", "int8")
ByteTensor = _legacy_type("ByteTensor", "uint8")
BoolTensor = _legacy_type("BoolTensor", "bool")


# PyTorch's out= on the creation functions that take it: made in out's dtype and device, written into it
empty, zeros, ones, full, rand, randn, randint, randperm = (
    with_out(f"aten::{f.__name__}", f, CREATION)
    for f in (empty, zeros, ones, full, rand, randn, randint, randperm))
linspace, logspace = (with_out(f"aten::{f.__name__}", f, SPACED) for f in (linspace, logspace))
arange = with_out("aten::arange", arange, RANGE)
inclusive_range = with_out("aten::range", inclusive_range, RANGE)
# normal's result takes its dtype from mean and std: cast into out's, as PyTorch's kernel (not for an integer out)
normal = with_out("normal", normal,
                  rule("\"normal_kernel_cpu\" not implemented for '{out}'", can_cast, NotImplementedError))
