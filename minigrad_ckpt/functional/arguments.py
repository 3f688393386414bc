"""Argument normalization for the public math API.

What every function in :mod:`minigrad_ckpt.functional` does before it runs
an op: turn tensor-likes into Tensors (on the right device), keep Python and
NumPy scalars weakly typed, and turn ``axis=``/``shape=`` arguments into the
canonical static attributes an op records (sorted tuples of ints in range).
Errors name the function and the bad argument.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable, Sequence
from typing import Any

from ..backend import (
    CannotInferDtype,
    device_of,
    get_default_dtype,
    host_numpy,
    is_array,
    number_beside_half,
    python_number,
)
from ..ops.shape import AsType
from ..tape import apply, on_one_device
from ..tensor import Tensor, number, numbers, real_numbers
from .errors import (
    DimensionOutOfRange,
    DtypeNotImplemented,
    InputMismatch,
    RefusedArgument,
    dimension_out_of_range,
    empty_reduction,
)
from .promotion import promoted, promoted_pair

__all__ = [
    "as_tensor", "operand", "binary", "normalize_axis", "one_axis", "shape_arg", "broadcast_shapes",
    "tensor_list", "check_nonempty", "int_tuple", "paired_axes", "complex_operand", "refuse_complex", "refuse_bool",
    "in_default_float", "is_integral", "in_default_float_pair", "float_binary", "promoted_operands", "same_dtype",
    "one_device", "as_index", "in_float32_if_half", "beside_number_in_float32", "is_half_tensor", "number",
    "numbers", "real_numbers",
]

_PY_SCALARS = (int, float, bool)

def as_tensor(x: Any, like: Tensor | None = None) -> Tensor:
    """``x`` as a Tensor: Tensors pass through, anything else is converted
    (host data goes to ``like``'s device when one is given; a device's array stays on its
    device, so ``cpu_lr * gpu_array`` meets the CPU-scalar rule instead of a copy to the host)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, host_numpy.ndarray) or like is None:
        return Tensor._from_data(x)
    if not like._device.xp.holds(x) and is_array(x):
        return Tensor._from_data(x, device=device_of(x))
    return Tensor._from_data(x, device=like.device)


def one_device(name: str, x: Any, y: Any) -> tuple[Any, Any]:
    """Two operands of a function that computes on their arrays itself rather than through
    ``tape.apply`` (``mg.isclose``, ``&``), under ``apply``'s device rule: a zero-dim CPU tensor
    moves to the other's device, as PyTorch lets it meet a GPU tensor; two devices otherwise
    are an error naming ``name``."""
    if isinstance(x, Tensor) and isinstance(y, Tensor) and x._device is not y._device:
        x, y = on_one_device(name, (x, y))
    return x, y


def in_default_float(x: Any) -> Tensor:
    """``x`` as a Tensor, integers and bools cast to the default float dtype: the input of a
    float-valued function of one tensor (``exp``, ``sqrt``, ``erf``, ...), as PyTorch's
    (``torch.sqrt(uint8 tensor)`` is float32; NumPy's ``sqrt`` would give float16, and float64
    for int32/int64).  Float and complex tensors pass through untouched.  The cast records
    nothing: an integer tensor never requires grad."""
    x = as_tensor(x)
    if x._data.dtype.kind in "biu":
        return apply(AsType(dtype=get_default_dtype().name), x)
    return x


def in_float32_if_half(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run the composition ``fn`` of float16 tensors in float32 and round its result to float16
    once, as PyTorch's half kernels (whose "opmath" type is float) do.  Step by step in float16,
    an intermediate overflows 65504 or rounds away what the result keeps: ``lerp(65504, -65504,
    0.5)`` was inf (PyTorch: 0), ``addcmul(-65504, 300, 301)`` inf (24800), a float16 ``renorm``
    zeroed rows whose squared norm overflowed.  Only where every float tensor argument is float16
    (a wider one promotes the result anyway); the casts are recorded, so gradients come back
    in float16."""

    def half(a: Any) -> bool:
        return isinstance(a, Tensor) and a._data.dtype == host_numpy.float16

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        floats = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor) and a._data.dtype.kind in "fc"]
        if not floats or not all(half(a) for a in floats):
            return fn(*args, **kwargs)
        wide = [apply(AsType(dtype="float32"), a) if half(a) else a for a in args]
        kw = {k: apply(AsType(dtype="float32"), v) if half(v) else v for k, v in kwargs.items()}
        return apply(AsType(dtype="float16"), fn(*wide, **kw))

    return wrapped


_HALF = host_numpy.dtype(host_numpy.float16)


def is_half_tensor(a: Any) -> bool:
    """Whether ``a`` is a float16 tensor: the one first operand :func:`beside_number_in_float32` changes
    (one test by identity, where comparing dtypes costs several times more on the hot path)."""
    return isinstance(a, Tensor) and a._data.dtype is _HALF


#: what may stand for a number beside a float16 tensor (:func:`~minigrad_ckpt.backend.number_beside_half`)
_REAL_NUMBERS = (int, float, host_numpy.integer, host_numpy.floating)


def beside_number_in_float32(fn: Callable[[Any, Any], Tensor], x: Any, y: Any, op: Any = None) -> Tensor:
    """``fn(x, y)`` (a product, a quotient), and where a float16 tensor meets a number, computed as
    PyTorch's half kernels compute it: in float32 (their "opmath" type) with the number as it is,
    rounded to float16 once.  NumPy rounds the number to float16 first: ``x / 65536.0`` was 0 and
    ``x * 70000`` inf (65536 is past float16's 65504), ``x * 0.1`` a last bit off in a third of the
    values (0.1 is 0.09998 in float16).  PyTorch's number is the second operand (``1.3 * x`` is
    ``x.mul(1.3)`` there, ``1.3 / x`` ``x.reciprocal().mul(1.3)``): a Python or NumPy real number, a
    0-d tensor of another dtype (``x * mg.tensor(1e5)``), or an integer tensor of one element, whatever
    its dims (``x * mg.tensor([70000])``); a first one is rounded to float16, as there.
    Beside a number, ``op`` (``MulInFloat32``, ``DivInFloat32``: one node, PyTorch's ``MulBackward0``) where
    given; else, and beside such a tensor, ``fn`` between recorded casts.  Either way the gradient is
    PyTorch's too, ``g * 1.3`` in float32 rounded once."""
    if is_half_tensor(x):
        if isinstance(y, _REAL_NUMBERS) and op is not None:
            return apply(op, x, python_number(y) if isinstance(y, host_numpy.generic) else y)  # (weak)
        if isinstance(y, _REAL_NUMBERS) or (isinstance(y, Tensor) and number_beside_half(y._data, x.ndim)):
            return apply(AsType(dtype="float16"), fn(apply(AsType(dtype="float32"), x), y))
    return fn(x, y)


def is_integral(v: Any) -> bool:
    """Whether ``v`` is an integer or bool tensor or number (Python's or NumPy's)."""
    if isinstance(v, Tensor):
        return v.dtype.kind in "biu"
    return isinstance(v, (int, host_numpy.integer, host_numpy.bool_))


def in_default_float_pair(x: Any, y: Any) -> tuple[Any, Any]:
    """The operands of a float-valued function of two (``arctan2``, ``hypot``, ``xlogy``, ``/``,
    ...) in the dtype PyTorch computes them in: promoted (:func:`binary`), and when both are
    integral (tensors or numbers), the tensors among them cast to the default float dtype, a
    number kept as it is (``torch.atan2`` of two uint8 tensors and ``int_tensor / 2`` are
    float32, ``uint8_tensor / -3`` divides by -3; NumPy gives float16, float64 and an error)."""
    x, y = _operands(x, y)
    if is_integral(x) and is_integral(y):
        return (in_default_float(x) if isinstance(x, Tensor) else x,
                in_default_float(y) if isinstance(y, Tensor) else y)
    return promoted_pair(x, y)


def operand(x: Any, like: Tensor) -> Any:
    """A binary op's operand: a Tensor, or a Python scalar kept weakly typed."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, host_numpy.generic):
        # NumPy scalars are weak too (as in PyTorch): f32 * np.float64(.5) stays f32
        # (checked first: np.float64 is a subclass of Python float)
        return python_number(x)
    if isinstance(x, _PY_SCALARS):
        return x
    if isinstance(x, complex):  # weak as well: float32 * 1j is complex64, as in NumPy and PyTorch
        return x
    return as_tensor(x, like)


_FAST_OPERANDS = (float, int)  # exact types: np.float64 subclasses float and must go through _operand


def _operands(x: Any, y: Any) -> tuple[Any, Any]:
    """Two operands, at most one of them a Python number, as Tensors (on the other's device) and
    weak numbers; two non-tensors make the first a Tensor."""
    if isinstance(x, Tensor):
        return x, operand(y, x)
    if isinstance(y, Tensor):
        return operand(x, y), y
    x = as_tensor(x)
    return x, operand(y, x)


def tensor_operands(x: Any, y: Any) -> tuple[Any, Any]:
    """:func:`_operands` for the functions that look at their operands before :func:`binary` does
    (an integer divisor's zeros, two bools): a NumPy array among them is then the tensor it
    stands for, as ``x + array`` reads it, not a number that :func:`result_type` refuses."""
    return _operands(x, y)


def promoted_operands(x: Any, y: Any) -> tuple[Any, Any]:
    """:func:`_operands` in the dtype PyTorch computes them in
    (:mod:`~minigrad_ckpt.functional.promotion`)."""
    return promoted_pair(*_operands(x, y))


def binary(op: Any, x: Any, y: Any) -> Tensor:
    """Run a binary op on two operands, at most one of them a Python number, in the dtype PyTorch
    computes them in (:func:`promoted_operands`: ``float32 * int64`` is float32)."""
    if isinstance(x, Tensor):  # the common cases, checked cheaply: nothing to promote
        if isinstance(y, Tensor):
            if x._data.dtype is y._data.dtype:
                return apply(op, x, y)
        elif type(y) in _FAST_OPERANDS and (x._requires_grad or x._data.dtype.kind in "fc"):
            return apply(op, x, y)  # a number cannot change a float tensor's dtype
    return apply(op, *promoted_operands(x, y))


def float_binary(op: Any, x: Any, y: Any) -> Tensor:
    """:func:`binary` for a float-valued op (``/``, ``arctan2``, ``hypot``, ...): two integral
    operands computed in the default float dtype (:func:`in_default_float_pair`)."""
    if isinstance(x, Tensor) and (x._requires_grad or x._data.dtype.kind in "fc"):
        if type(y) in _FAST_OPERANDS or (isinstance(y, Tensor) and x._data.dtype is y._data.dtype):
            return apply(op, x, y)
    return apply(op, *in_default_float_pair(x, y))


def ordered_binary(name: str, op: Any, x: Any, y: Any) -> Tensor:
    """:func:`binary` for an op that orders its operands (``<``, ``maximum``): complex ones are
    refused (:func:`refuse_complex`)."""
    refuse_complex(name, x, y)
    return binary(op, x, y)


def numpy_keywords(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, of PyTorch's signature (``dim``, ``keepdim``), also taking NumPy's ``axis=`` and ``keepdims=``,
    which PyTorch's argument parser reads as ``dim`` and ``keepdim`` wherever those are parameters
    (``x.amax(1, keepdims=True)``, ``x.unbind(axis=1)``, ``torch.mode(x, axis=1)``); both spellings of one
    argument are a TypeError."""
    takes = inspect.signature(fn).parameters
    aliases = tuple((numpy, torch) for numpy, torch in (("keepdims", "keepdim"), ("axis", "dim"))
                    if torch in takes and numpy not in takes)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not kwargs:  # (the common call: x.unsqueeze(1), F.softmax(x, 1) -- nothing to read)
            return fn(*args)
        for numpy, torch in aliases:
            if numpy in kwargs:
                if torch in kwargs:
                    raise TypeError(f"{fn.__name__}() got multiple values for argument '{torch}' ({numpy}= is its "
                                    f"other spelling)")
                kwargs[torch] = kwargs.pop(numpy)
        return fn(*args, **kwargs)
    return wrapper


def as_index(v: Any) -> Any:
    """A zero-dim integer tensor as its int, as PyTorch reads one where it takes an int (a dim, a
    size, a shift: ``x.sum(torch.tensor(1))``, ``x.repeat(n)``); anything else as it is."""
    if isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in "iu":
        return v.__index__()
    return v


def int_tuple(v: Any) -> tuple:
    """An int (Python's or NumPy's, or a zero-dim integer tensor) as a 1-tuple, a sequence as a
    tuple: ``axis=3`` or ``axis=(1, 3)``."""
    v = as_index(v)
    return (v,) if isinstance(v, (int, host_numpy.integer)) else tuple(as_index(a) for a in v)


def normalize_axis(axis: Any, ndim: int, *, allow_none: bool = True) -> tuple[int, ...]:
    """``axis`` (None, an int or a sequence of ints) as a sorted tuple of axes in range."""
    if axis is None:
        if not allow_none:
            raise TypeError("axis may not be None here")
        return tuple(range(ndim))
    try:
        axes = int_tuple(axis)
    except TypeError:  # a float or another non-iterable: say what is wrong
        raise TypeError(f"axis must be an int or a tuple of ints, got {axis!r}") from None
    out = []
    for a in axes:
        if not isinstance(a, (int, host_numpy.integer)) or isinstance(a, bool):
            raise TypeError(f"axis must be an int or a tuple of ints, got {axis!r}")
        a = int(a)
        if not -ndim <= a < ndim:
            raise dimension_out_of_range(a, ndim)
        out.append(a % ndim)
    if len(set(out)) != len(out):  # PyTorch's RuntimeError, NumPy's ValueError: both
        repeated = next(a for a in out if out.count(a) > 1)
        raise RefusedArgument(f"repeated axis in {axis!r}: dim {repeated} appears multiple times in the list of dims")
    return tuple(sorted(out))


def reduction_dims(dim: Any) -> Any:
    """PyTorch's ``dim`` of a reduction (``sum``, ``mean``, ``std``, ``norm``...): an empty list
    or tuple means every dim, as None does (``x.sum(dim=())`` is the total).  NumPy's
    ``axis=()`` means no axis at all; the ``dim=`` spellings call this, ``axis=`` ones do not."""
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        return None
    return dim


def one_axis(axis: Any, ndim: int) -> int:
    """One ``axis`` as an int in ``range(ndim)``."""
    axis = as_index(axis)
    if not isinstance(axis, (int, host_numpy.integer)) or isinstance(axis, bool):
        raise TypeError(f"axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise dimension_out_of_range(int(axis), ndim)
    return int(axis) % ndim


def torch_dim(axis: Any, ndim: int) -> int:
    """:func:`one_axis` with PyTorch's rule for a 0-d tensor: dims 0 and -1 name its one element
    (the answer is 0), any other is out of range."""
    if ndim:
        return one_axis(axis, ndim)
    try:
        return one_axis(axis, 1)
    except DimensionOutOfRange:
        raise dimension_out_of_range(int(as_index(axis)), 0) from None


def paired_axes(first: Any, second: Any, ndim_first: int, ndim_second: int,
                mismatch: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two lists of axes of equal length (each an int or a sequence), each in range of its tensor:
    ``moveaxis``'s source and destination, ``tensordot``'s axes.  ``mismatch`` is the error's text
    when the lengths differ."""
    a, b = int_tuple(first), int_tuple(second)
    if len(a) != len(b):
        raise ValueError(mismatch)
    return tuple(one_axis(i, ndim_first) for i in a), tuple(one_axis(i, ndim_second) for i in b)


def shape_arg(shape: Any) -> tuple[int, ...]:
    """A shape (an int or a sequence of ints) as a tuple of ints."""
    if isinstance(shape, (int, host_numpy.integer)):
        return (int(shape),)
    return int_sizes(shape)


def int_sizes(sizes: Any) -> tuple[int, ...]:
    """Sizes as ints: each an int or what stands for one (a NumPy integer, an integer tensor of one
    element: ``__index__``).  A float is PyTorch's TypeError: ``int()`` truncated it, so
    ``x.reshape(3.5, 2)`` answered a (3, 2) tensor where PyTorch refuses.  (``operator.index`` by
    ``map``: C all the way, no slower than the ``int()`` it replaces on reshape's path.)"""
    sizes = tuple(sizes)
    try:
        return tuple(map(operator.index, sizes))
    except TypeError:
        for i, s in enumerate(sizes):
            if not hasattr(s, "__index__"):
                raise TypeError(f"size must be tuple of ints, but found element of type {type(s).__name__} at pos "
                                f"{i}") from None
        raise


def broadcast_shapes(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy's broadcast shape of ``shapes``, or an error that names ``name`` (PyTorch's
    ``RuntimeError``, also the ``ValueError`` NumPy's is)."""
    try:
        return tuple(host_numpy.broadcast_shapes(*shapes))
    except ValueError:
        raise InputMismatch(
            f"{name}: shapes {' and '.join(str(tuple(s)) for s in shapes)} cannot be broadcast together"
        ) from None


def same_dtype(tensors: list[Tensor]) -> list[Tensor]:
    """Tensors joined into one (``cat``, ``stack``) in the dtype PyTorch joins them in: ``cat`` of
    an int64 and a float32 tensor is float32 (NumPy's ``concatenate``: float64)."""
    first = tensors[0]._data.dtype
    for t in tensors:  # a loop, not all(...): a generator costs ~1k instructions per join
        if t._data.dtype is not first:
            return list(promoted(*tensors))
    return tensors


def tensor_list(name: str, tensors: Sequence[Any]) -> list[Tensor]:
    """A list or tuple of tensor-likes as Tensors (on the first Tensor's device)."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__} ({name} takes a list or tuple of tensors)")
    if not tensors:
        raise RefusedArgument(f"{name} expects a non-empty TensorList (it needs at least one tensor)")
    if all(type(t) is Tensor for t in tensors):  # the common case: nothing to convert
        return list(tensors)
    like = next((t for t in tensors if isinstance(t, Tensor)), None)
    return [_list_entry(t, like, i) for i, t in enumerate(tensors)]


def _list_entry(t: Any, like: Tensor | None, i: int) -> Tensor:
    """Entry ``i`` of a tensor list as a Tensor; one that can be none (``None``, a dict) is refused in
    PyTorch's words, naming its place, then the engine's."""
    try:
        return as_tensor(t, like)
    except CannotInferDtype as exc:
        raise CannotInferDtype(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}: "
                               f"{exc}") from None


def check_nonempty(name: str, x: Tensor, axis: Any) -> None:
    """A reduction with no identity (max, argmin, ...) refuses an empty axis, naming the first empty
    one as the caller wrote it (PyTorch's amax says dim -1 where -1 was given; max normalizes first)."""
    axes = normalize_axis(axis, x.ndim)
    if axis is not None and any(x.shape[a] == 0 for a in axes):
        given = axis if isinstance(axis, (tuple, list)) else (axis,)
        raise empty_reduction(name, x.shape, next(g for g in given if x.shape[normalize_axis(g, x.ndim)[0]] == 0))
    if x.size == 0 and (axis is None or not axes):
        raise empty_reduction(name, x.shape, None)


def complex_operand(a: Any) -> bool:
    """Whether an operand (a Tensor or a Python number) is complex."""
    return isinstance(a, complex) or (isinstance(a, Tensor) and a._data.dtype.kind == "c")


def refuse_complex(name: str, *args: Any) -> None:
    """An error naming ``name`` if any argument is complex: complex numbers have no order.

    The ordering functions (``<``, ``maximum``, ``max``, ``sort``, ``clip``, ...) call
    this, as PyTorch refuses them too; NumPy's lexicographic order (real part first)
    is not offered.  ``==`` and ``!=`` work.  PyTorch's error is a ``RuntimeError`` (its
    ``NotImplementedError``: "lt_cpu" has no complex kernel), the engine's was a ``TypeError``:
    :class:`DtypeNotImplemented` is both.
    """
    for a in args:
        if complex_operand(a):
            raise DtypeNotImplemented(
                f"{name}: complex numbers have no order, so {name} is not defined for complex input "
                f"(compare mg.abs(z), z.real or mg.angle(z) instead; == and != work)"
            )


def refuse_bool(name: str, x: Tensor) -> Tensor:
    """``x``, if it is not bool: PyTorch's CPU kernels of ``topk`` and ``kthvalue`` refuse bools
    (``kthvalue``'s with ``NotImplementedError``, a ``RuntimeError`` too)."""
    if x.dtype.kind == "b":
        raise DtypeNotImplemented(f"{name} does not support bool tensors (PyTorch's rule); convert first: x.int()")
    return x
