"""Tensor's own methods: its operators, ``backward``, and the conversions ``to``, ``cpu``,
``cuda``, ``float``, ...

Tensor (:mod:`minigrad_ckpt.tensor`) and the ops need each other: ``x + y`` runs an op, and an
op returns Tensors.  The lower layers know nothing of the upper ones, so these functions are
given to Tensor from above: :mod:`~minigrad_ckpt.functional.public_names` declares each one in
the table of public names, and its :func:`~minigrad_ckpt.functional.public_names.bind` (called
once, by the package's ``__init__``) puts them on the class.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..backend import (
    HALF,
    as_dtype,
    check_memory_format,
    cuda_device_count,
    device_or_dtype,
    gpu_target,
    has_layout,
    host_numpy,
    layout_axes,
    preserve_format,
)
from ..backward import backward as _backward_pass
from ..tape import apply
from ..tensor import Tensor, foreign_operand
from ..user_frame import stacklevel_outside_the_engine
from . import complex_numbers as cn
from . import math as mf
from .arguments import _FAST_OPERANDS, binary, float_binary
from .errors import InputMismatch

# PyTorch's operators take a tensor or a number, never a Python sequence: ``t + [1, 2]`` and
# ``t < (1, 2)`` are Python's TypeError, ``t == [1, 2]`` Python's identity test (False), and
# ``t * [1, 2]`` a list repeated by a one-element integer tensor (its ``__index__``) -- NumPy would
# read the sequence as an array, an answer PyTorch's code never meant.
SEQUENCES = (list, tuple)


def operand_method(fn: Callable[[Tensor, Any], Any]) -> Callable[[Tensor, Any], Any]:
    """The operator ``fn`` (``__lt__``, ``__and__``, ...), handing a list or tuple operand, or an
    object that is no tensor, number or array, back to Python (``NotImplemented``), as PyTorch's
    operators do (:func:`~minigrad_ckpt.tensor.foreign_operand`)."""
    def method(self: Tensor, other: Any) -> Any:
        if foreign_operand(other):
            return NotImplemented
        return fn(self, other)
    method.__name__ = method.__qualname__ = fn.__name__
    return method


def _refusing(method: Callable[..., Any], name: str, argument: str, refused: tuple[type, ...]) -> Callable[..., Any]:
    """``method`` whose operand ``argument`` (the first after ``self``) may not be of the types
    ``refused``: PyTorch's ``TypeError`` ("add(): argument 'other' (position 1) must be Tensor, not list")."""
    def checked(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        other = args[0] if args else kwargs.get(argument)
        if isinstance(other, refused):
            raise TypeError(f"{name}(): argument '{argument}' (position 1) must be Tensor, not {type(other).__name__}")
        return method(self, *args, **kwargs)
    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = method.__doc__
    checked.__wrapped__ = method  # (its signature)
    return checked


def refusing_sequence_operand(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    """The method ``name`` of two operands (``x.add(y)``, ``x.eq(y)``) as PyTorch's: its ``other``
    is a tensor or a number, and a list or tuple is a ``TypeError`` ("add(): argument 'other'
    (position 1) must be Tensor, not list"), where ``mg.add``, NumPy's function, reads an array."""
    return _refusing(method, name, "other", SEQUENCES)


_NUMBERS = (bool, int, float, complex, host_numpy.number, host_numpy.bool_)


def refusing_number_operand(method: Callable[..., Any], name: str, argument: str = "other") -> Callable[..., Any]:
    """The method ``name`` whose second operand PyTorch types ``Tensor`` only (``x.maximum(y)``,
    ``x.atan2(y)``, ``x.logical_and(y)``, ``x.lerp(end, w)``): a number there, or a list or tuple, is its
    ``TypeError`` ("maximum(): argument 'other' (position 1) must be Tensor, not int"), where ``mg.maximum``,
    NumPy's function, broadcasts the number -- a port that relies on it would not run under PyTorch."""
    return _refusing(method, name, argument, (*SEQUENCES, *_NUMBERS))


def rpow(x: Any, y: Any, modulo: Any = None) -> Tensor:
    if modulo is not None or foreign_operand(y):  # pow(y, x, m), which Python 3.14 sends
        return NotImplemented                            # here too: see power_method
    return mf.power(y, x)


def rtruediv_method(x: Tensor, y: Any) -> Tensor:
    """``y / x`` for a ``y`` that is not a Tensor (``2.0 / t``): ``reciprocal(x) * y``, as PyTorch's
    ``__rtruediv__`` computes it -- rounded twice, so ``3.0 / t`` differs from one division in the last
    bit for about a quarter of the values, and bitwise equal to torch's in float32 and float64; the graph
    is PyTorch's too (a ``MulBackward0`` over a ``ReciprocalBackward0``).  A complex ``x`` is computed
    the same way, but NumPy's complex ``1 / x`` is not PyTorch's bitwise (a last bit, one value in 13)."""
    if foreign_operand(y):
        return NotImplemented
    with x._device.xp.errstate(over="ignore"):  # ``1e10 / tiny``: inf without a warning, as one division gave
        return mf.reciprocal(x) * y


def remainder_method(x: Tensor, y: Any) -> Tensor:
    """``x % y``: ``mg.remainder``, whose integer modulo zero is PyTorch's error (NumPy: 0)."""
    return NotImplemented if foreign_operand(y) else mf.remainder(x, y)


def rremainder_method(x: Tensor, y: Any) -> Tensor:
    """``y % x`` for a number ``y``."""
    return NotImplemented if foreign_operand(y) else mf.remainder(y, x)


def augmented_assignment(in_place: str) -> Callable[[Tensor, Any], Tensor]:
    """``x <op>= y`` as the in-place method ``in_place`` (``__ifloordiv__`` is ``floor_divide_``):
    without it Python falls back to ``x = x <op> y``, a new tensor bound to the name, and a view's
    base -- every other holder of the memory -- would keep the old values (PyTorch writes)."""

    def method(x: Tensor, y: Any) -> Tensor:
        if foreign_operand(y):
            return NotImplemented
        return getattr(x, in_place)(y)
    method.__name__ = method.__qualname__ = f"augmented_{in_place}"
    return method


def rmatmul(x: Any, y: Any) -> Tensor:
    if foreign_operand(y):
        return NotImplemented
    return mf.matmul(y, x)


def _comparison_or_identity(compare: Any) -> Any:
    """``x == y`` / ``x != y`` by ``compare``, and Python's identity test where ``y`` can be no tensor
    (``mask == None`` and ``x == [1, 2]`` are False, ``x != "a"`` True), as PyTorch's operators,
    which turn that TypeError into ``NotImplemented``."""
    def method(x: Tensor, y: Any) -> Any:
        if y is None or foreign_operand(y):
            return NotImplemented
        try:
            return compare(x, y)
        except TypeError:
            return NotImplemented
    method.__name__ = method.__qualname__ = compare.__name__
    return method


eq_method = _comparison_or_identity(mf.equal)
ne_method = _comparison_or_identity(mf.not_equal)


def subtract_slow_path(op: Any, x: Any, y: Any) -> Tensor:
    """``x - y`` past the operators' fast path: ``mg.subtract``, which refuses a bool operand
    (``f - True``, ``mask - 1``), as PyTorch's."""
    return mf.subtract(x, y)


def operator_method(op: Any, reflected: bool = False, float_valued: bool = False, slow: Any = None) -> Any:
    """``Tensor.__add__`` and friends: ``self`` is known to be a Tensor, so the
    common operands (a Tensor of the same dtype, or a Python number beside a float
    tensor) go straight to ``apply`` -- one call less than ``add(x, y)`` on the
    hottest path of eager code.  Others are promoted as PyTorch's
    (:func:`~.arguments.binary`); a ``float_valued`` op (``/``) computes two integral
    operands in the default float dtype (:func:`~.arguments.float_binary`)."""
    slow = slow or (float_binary if float_valued else binary)
    if reflected:
        def method(self: Tensor, other: Any) -> Tensor:
            if type(other) in _FAST_OPERANDS and (self._requires_grad or self._data.dtype.kind in "fc"):
                return apply(op, other, self)  # ``0.1 * t``: a Python number needs no conversion
            if foreign_operand(other):
                return NotImplemented
            return slow(op, other, self)
    elif float_valued:
        def method(self: Tensor, other: Any) -> Tensor:
            if foreign_operand(other):
                return NotImplemented
            return float_binary(op, self, other)
    else:
        def method(self: Tensor, other: Any) -> Tensor:
            if type(other) in _FAST_OPERANDS:  # a number cannot change a float tensor's dtype
                if self._requires_grad or self._data.dtype.kind in "fc":  # (requiring grad: float)
                    return apply(op, self, other)
            elif isinstance(other, Tensor) and self._data.dtype is other._data.dtype:
                return apply(op, self, other)
            elif foreign_operand(other):
                return NotImplemented
            return slow(op, self, other)
    return method


def scaling_operator_method(op: Any, function: Callable[[Any, Any], Tensor], float_valued: bool = False) -> Any:
    """``Tensor.__mul__``/``__rmul__`` (``float_valued=False``) and ``__truediv__``: :func:`operator_method`,
    except for a float16 ``self``, which goes to ``function`` (``mg.multiply``, ``mg.divide``): a float16
    tensor times or by a number is taken in float32 there, as PyTorch's
    (:func:`~.arguments.beside_number_in_float32`) -- one dtype test more a call."""
    if float_valued:
        def method(self: Tensor, other: Any) -> Tensor:
            if foreign_operand(other):
                return NotImplemented
            if self._data.dtype is HALF:  # (by identity: the cheapest test of a dtype)
                return function(self, other)
            return float_binary(op, self, other)
    else:
        def method(self: Tensor, other: Any) -> Tensor:
            if type(other) in _FAST_OPERANDS:  # a number cannot change a float tensor's dtype
                # float32, float64, complex64, complex128 -- not float16 (requiring grad: a float, so one
                # identity test, ~230 instructions fewer than reading the dtype's letter)
                if self._data.dtype is not HALF if self._requires_grad else self._data.dtype.char in "fdFD":
                    return apply(op, self, other)
            elif isinstance(other, Tensor) and self._data.dtype is other._data.dtype:
                return apply(op, self, other)
            elif foreign_operand(other):
                return NotImplemented
            return function(self, other)
    return method


def power_method(op: Any) -> Any:
    """``Tensor.__pow__``: ``x ** y`` by the operators' fast path, and ``pow(x, y, m)``
    refused as NumPy's arrays and PyTorch's tensors refuse it: returning NotImplemented
    for a modulus makes Python raise its own ``TypeError`` ("unsupported operand type(s)
    for ** or pow(): 'Tensor', 'int', 'int'") instead of one about this method's arity."""
    def method(self: Tensor, other: Any, modulo: Any = None) -> Tensor:
        if modulo is not None or foreign_operand(other):
            return NotImplemented
        if type(other) in _FAST_OPERANDS and (self._requires_grad or self._data.dtype.kind in "fc"):
            return apply(op, self, other)
        return mf.power(self, other)  # an integer base: its checks (a negative exponent refused)
    return method


# ------------------------------------------------------------- autograd
def backward_method(self: Tensor, gradient: Any = None, retain_graph: bool | None = None,
                    create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate the gradient of this tensor into the ``.grad`` of every leaf.

    ``gradient`` is required unless this tensor has one element.  The
    graph's saved values are freed afterwards unless ``retain_graph``.
    PyTorch's ``inputs=``: accumulate into those tensors' ``.grad`` only.
    """
    grads = None if gradient is None else [gradient]
    _backward_pass(self, grads, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)


# ----------------------------------------------------------- conversion
def to_method(self: Tensor, target: Any = None, dtype: Any = None, non_blocking: bool = False, copy: bool = False,
              memory_format: Any = None, *, device: Any = None) -> Tensor:
    """A copy on another device and/or with another dtype (``self`` if nothing changes).

    ``t.to("cuda")``, ``t.to(mg.float64)``, ``t.to("cpu", "float32")``, PyTorch's
    ``t.to(device=d, dtype=dt)``, and ``t.to(other)`` (``other``'s device and dtype).  The
    result is differentiable: gradients flow back across the move or cast.
    PyTorch's keywords: ``copy=True`` returns a new tensor even when nothing changes;
    ``non_blocking`` is accepted and changes nothing here (every copy is synchronous);
    ``memory_format=mg.contiguous_format`` makes the result row-major, ``mg.channels_last`` lays it
    out channels innermost (PyTorch's strides; the values do not change).
    """
    check_memory_format("to", memory_format, self.ndim)
    if device is not None:
        if target is not None:
            raise TypeError("to(): the device is given twice (as the first argument and as device=)")
        target = device
    if isinstance(target, Tensor):
        target, dtype = target.device, target.dtype
    t = _move(self, target, dtype)
    if memory_format not in (None, preserve_format) and not has_layout(t._data, layout_axes(memory_format, t._data)):
        return mf.clone(t, memory_format=memory_format)
    return mf.clone(t) if copy and t is self else t


def type_as_method(self: Tensor, other: Tensor) -> Tensor:
    """PyTorch's ``x.type_as(other)``: ``x`` in ``other``'s dtype *and on its device*
    (``self.to(other.options())``), so ``mg.zeros(n).type_as(x)`` makes a tensor where ``x`` is."""
    if not isinstance(other, Tensor):  # (to() would read a number as a GPU's index)
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return to_method(self, other)


def _move(self: Tensor, target: Any, dtype: Any) -> Tensor:
    dev = None
    if target is not None:
        dev, dtype_target = device_or_dtype(target)
        if dtype_target is not None:
            dtype = dtype_target
    t = self
    to_host = dev is not None and dev is not t._device and dev.type == "cpu"
    if to_host:  # cast on the host: x.to("cpu", float64) makes no float64 array on the device
        t = mf.to_device(t, dev)
    if dtype is not None and as_dtype(dtype) != self.dtype:
        t = mf.astype(t, dtype)
    if dev is not None and dev is not t._device:
        t = mf.to_device(t, dev)
    return t


def cast_method(dtype: str, doc: str) -> Any:
    # PyTorch's casts take to()'s memory_format (x.float(memory_format=torch.channels_last))
    def method(self: Tensor, memory_format: Any = preserve_format) -> Tensor:
        return to_method(self, dtype=dtype, memory_format=memory_format)
    method.__doc__ = doc + "  ``memory_format`` as :func:`to_method`'s."
    return method


def cpu_method(self: Tensor, memory_format: Any = None) -> Tensor:
    """This tensor on the CPU (``self`` if it is there already); PyTorch's ``memory_format`` as ``to``'s."""
    return to_method(self, "cpu", memory_format=memory_format)


def cuda_method(self: Tensor, device: Any = None, non_blocking: bool = False, memory_format: Any = None) -> Tensor:
    """This tensor on GPU ``device`` (an index or ``"cuda:i"``; default: the current GPU, as PyTorch's)
    (differentiable); ``non_blocking`` and ``memory_format`` as :func:`to_method`'s
    (``images.cuda(gpu, non_blocking=True)``).  A CPU device is refused, as PyTorch's."""
    return to_method(self, gpu_target(device), non_blocking=non_blocking, memory_format=memory_format)


def pin_memory_method(self: Tensor, device: Any = None) -> Tensor:
    """PyTorch's ``x.pin_memory()``: a copy of this CPU tensor marked pinned (page-locked) for fast
    copies to a GPU, or ``self`` if it is marked already.  NumPy memory is never page-locked here,
    so the mark only answers ``is_pinned()`` (CuPy copies from pageable memory as it is).  As in
    PyTorch, only a CPU tensor can be pinned, and only where there is a GPU to copy to."""
    if self.device.type != "cpu":
        raise RuntimeError(f"cannot pin a {self.device.type} tensor: only dense CPU tensors can be pinned")
    if cuda_device_count() == 0:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if is_pinned_method(self):
        return self
    out = mf.clone(self)
    out.__dict__["_pinned"] = True
    return out


def is_pinned_method(self: Tensor, device: Any = None) -> bool:
    """Whether :func:`pin_memory_method` made this tensor (PyTorch's ``x.is_pinned()``)."""
    return self.__dict__.get("_pinned", False)


# ----------------------------------------------------------- properties
def _transpose(self: Tensor) -> Tensor:
    """``x.T``: the axes reversed, with PyTorch's deprecation warnings for a 0-d tensor (itself) and for one of
    more than 2 dimensions (``x.mT`` or ``permute`` say which transpose is meant); none for 1 and 2."""
    if self.ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning, stacklevel=stacklevel_outside_the_engine())
    elif self.ndim > 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                      "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                      "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                      "tensor.", UserWarning, stacklevel=stacklevel_outside_the_engine())
    return mf.transpose(self)


transpose_property = property(_transpose, doc="The transpose (axes reversed).")


def _matrices_only(self: Tensor, name: str, conjugate: bool, batches: bool = True) -> Tensor | None:
    """PyTorch's rule for ``mT``/``mH``/``H``/``adjoint()``: matrices (or batches of them, except
    ``H``), else its RuntimeError; a 0-d tensor is itself (conjugated), with PyTorch's deprecation
    warning.  None: ``self`` is a matrix, go on."""
    if self.ndim == 0:
        warnings.warn(f"Tensor.{name} is deprecated on 0-D tensors. "
                      + ("Consider using x.conj()." if conjugate else "This function is the identity in these cases."),
                      UserWarning, stacklevel=stacklevel_outside_the_engine())
        return cn.conj(self) if conjugate else self
    if self.ndim == 2 or (batches and self.ndim > 2):
        return None
    what = "matrices or batches of matrices" if batches else "matrices (2-D tensors)"
    hint = ". For batches of matrices, consider using tensor.mH" if not batches and self.ndim > 2 else "."
    raise InputMismatch(f"tensor.{name} is only supported on {what}. Got {self.ndim}-D tensor{hint}")


def _matrix_transpose(self: Tensor) -> Tensor:
    """PyTorch's ``x.mT``: the transpose of the last two axes."""
    same = _matrices_only(self, "mT", conjugate=False)
    return mf.swapaxes(self, -1, -2) if same is None else same


def _matrix_adjoint(self: Tensor, name: str = "mH") -> Tensor:
    """PyTorch's ``x.mH`` / ``x.adjoint()``: the conjugate transpose of the last two axes (differentiable)."""
    same = _matrices_only(self, name, conjugate=True)
    return cn.conj(mf.swapaxes(self, -1, -2)) if same is None else same


def _adjoint_2d(self: Tensor) -> Tensor:
    same = _matrices_only(self, "H", conjugate=True, batches=False)
    return cn.conj(mf.swapaxes(self, -1, -2)) if same is None else same


def adjoint_method(self: Tensor) -> Tensor:
    """PyTorch's ``x.adjoint()``: the conjugate transpose of the last two axes (``x.mH``)."""
    return _matrix_adjoint(self, "adjoint()")


matrix_transpose_property = property(_matrix_transpose, doc="PyTorch's ``x.mT``: the transpose of the last two axes.")
conj_transpose_property = property(_adjoint_2d, doc="PyTorch's ``x.H``: the conjugate transpose of a matrix.")
matrix_conj_transpose_property = property(_matrix_adjoint, doc="PyTorch's ``x.mH``: the conjugate transpose of "
                                                                "the last two axes.")


def _write_real(self: Tensor, value: Any) -> None:
    cn.real(self).copy_(value)  # a view of a complex tensor (the tensor itself if real): the write reaches it


def _write_imag(self: Tensor, value: Any) -> None:
    if self.dtype.kind != "c":  # its imag is a new tensor of zeros: a write there would be lost
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes (nothing to write into)")
    cn.imag(self).copy_(value)


real_property = property(cn.real, _write_real, doc="The real part (differentiable; the tensor itself if it is "
                         "real); ``x.real = v`` writes ``v`` into it, as PyTorch's.")
imag_property = property(cn.imag, _write_imag, doc="The imaginary part (differentiable; zeros if the tensor is "
                         "real); ``z.imag = v`` writes ``v`` into it (a complex ``z`` only), as PyTorch's.")
