"""What the layer functions check of their inputs: ``axis=``/``dim=``, and the dtype discipline
(a layer's floating input has its parameters' dtype).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ...backend import cpp_type_name, host_numpy, scalar_type_name
from ...functional.errors import DtypeNotImplemented, LayerDtypeMismatch, NeedsFloatingInput, WrongTensorKind
from ...tensor import Tensor


def _axis(axis: int | None, dim: int | None, default: int = -1) -> int:
    if dim is not None:
        if axis is not None and axis != dim:
            raise TypeError("pass either axis= or dim=, not both")
        return dim
    return default if axis is None else axis


def no_kernel(kernel: str, x: Tensor) -> DtypeNotImplemented:
    """PyTorch's refusal of ``x``'s dtype by a kernel built without it ('"elu_cpu" not implemented for 'Long'')."""
    return DtypeNotImplemented(f"\"{kernel}\" not implemented for '{scalar_type_name(x._data.dtype)}'")


#: ``floating_kernel``'s ``refused`` for a kernel built for real floating types only: PyTorch has no
#: complex kernel for it (``"hardswish_cpu" not implemented for 'ComplexFloat'``), and NumPy's
#: comparisons would answer with an order of the real parts
NO_COMPLEX = "biuc"


def floating_kernel(kernel: str | None = None, refused: Any = "biu", message: str | None = None) -> Callable[..., Any]:
    """A layer function under PyTorch's dtype rule: its kernel is built for floating types (and, for
    some, int64 or complex: ``refused`` names the dtype kinds or names it lacks, :data:`NO_COMPLEX`
    where it has no complex kernel), so an input of a ``refused`` dtype is PyTorch's
    ``NotImplementedError`` naming ``kernel`` -- or, where PyTorch's function reduces with ``mean``
    first, its ``RuntimeError`` ``message`` (``{type}``: the dtype's name) -- where NumPy's promotion
    would answer in a float."""
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def checked(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
            if isinstance(input, Tensor):
                dt = input._data.dtype
                # floats first: no kernel refuses them, and dtype.name is a slow NumPy property (a
                # third of a linear call's extra cost); ~80k instructions an MLP step (three linears)
                if dt.kind != "f" and (dt.kind in refused or dt.name in refused):
                    if kernel is not None:
                        raise no_kernel(kernel, input)
                    raise NeedsFloatingInput(str(message).format(type=scalar_type_name(dt)))
            return fn(input, *args, **kwargs)
        return checked
    return decorate


#: PyTorch's message where a function's first step is a mean (l1_loss, a global adaptive_avg_pool2d)
MEAN_OF_INTEGERS = ("mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
                    "dtype. Got: {type}")


def refuse_average_without_kernel(kernel: str, x: Any, output_size: Any) -> None:
    """PyTorch's adaptive average pools of an integer, bool or complex ``x``: where every output
    size is 1 it computes a global mean, which refuses integers and bools and takes complex
    numbers; else ``kernel``, which has none of them, refuses."""
    if isinstance(x, Tensor) and x._data.dtype.kind in "biuc":
        sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,)
        if all(size == 1 for size in sizes):
            if x._data.dtype.kind == "c":
                return
            raise NeedsFloatingInput(MEAN_OF_INTEGERS.format(type=scalar_type_name(x._data.dtype)))
        raise no_kernel(kernel, x)


def _check_input_dtype(name: str, x: Tensor, param: Tensor | None, role: str = "") -> None:
    """A layer's floating input must have its parameters' dtype (PyTorch raises too).

    NumPy would promote a float32 layer's float64 input and return float64 --
    a silent slow-down and a loss of the model's dtype; integer input would be
    promoted to float. Both are errors here, naming both dtypes and the fix.
    ``role`` (``"weight"``, ``"bias"`` of a convolution, ``"linear"``) puts PyTorch's words first.
    """
    if param is None or x._data.dtype == param._data.dtype:  # (the arrays' dtypes: Tensor.dtype is a property)
        return
    words = _TORCH_DTYPE_WORDS[role](x.dtype, param.dtype) if role else ""
    if x.dtype.kind not in "fc":
        raise LayerDtypeMismatch(f"{words}{name}: got {x.dtype} input, but its parameters are {param.dtype}; "
                                 f"convert the input with x.float() or x.to({param.dtype})")
    raise LayerDtypeMismatch(f"{words}{name}: got {x.dtype} input, but its parameters are {param.dtype}; convert "
                             f"the input with x.to({param.dtype}) (x.float() for float32), or the layer with "
                             f".to({x.dtype})")


# PyTorch's words where an input's dtype is not its parameter's, by the parameter's role (its kernels'
# names for the dtypes: ScalarType's, C++'s)
_TORCH_DTYPE_WORDS = {
    "weight": lambda x, p: f"expected scalar type {scalar_type_name(x)} but found {scalar_type_name(p)}: ",
    "bias": lambda x, p: f"Input type ({cpp_type_name(x)}) and bias type ({cpp_type_name(p)}) should be the same: ",
    "linear": lambda x, p: (f"expected m1 and m2 to have the same dtype, but got: {cpp_type_name(x)} != "
                            f"{cpp_type_name(p)}: "),
}


def check_index_dtype(name: str, t: Tensor, allowed: tuple[str, ...], words: str) -> None:
    """Integer indices of a dtype PyTorch's kernel takes (``allowed``): its RuntimeError otherwise, in its
    ``words`` -- NumPy would index with any integer, so int32 class targets trained here and failed
    when the program ran under PyTorch.  (Floating indices are each caller's own refusal.)"""
    dtype = t._data.dtype
    if dtype.kind in "iu" and dtype not in _dtypes(allowed):  # (a dtype's name is a Python-level property:
        raise WrongTensorKind(f"{name}: {words}, got {t.dtype}")  # compared as dtypes, once a loss call)


@functools.cache
def _dtypes(names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(host_numpy.dtype(n) for n in names)


def _zeros_like(x: Tensor, shape: tuple[int, ...] | None = None) -> Tensor:
    """Zeros of ``x``'s dtype and shape (or ``shape``): a read-only broadcast of one zero.

    A checkpoint keeps the constants its ops read, to replay from, where a run
    without checkpointing keeps none of them: a full array of zeros would make
    checkpointing cost memory; one number costs nothing.
    """
    xp = x.device.xp
    return Tensor.constant(xp.broadcast_to(xp.zeros((), dtype=x.dtype), x.shape if shape is None else shape),
                           x.device)


def written_in_place(name: str, x: Any, fn: Callable[..., Tensor], *args: Any) -> Tensor:
    """PyTorch's ``inplace=True``: ``fn(x, *args)`` written into ``x``, which is returned, as
    ``x.relu_()`` writes (:meth:`Tensor._write_result`): on the tape where ``x`` requires grad,
    PyTorch's refusal for a leaf that requires grad.  ``fn`` computes from a recorded copy where
    the write goes into memory other tensors share (``x`` a view): what ``fn``'s ops save for
    backward is then not what the write overwrites, as PyTorch saves the original input."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: inplace=True needs a Tensor input, got {type(x).__name__}")
    source = x._write_source(*args)
    result = fn(source, *args)
    return x if result is source else x._write_result(result, f"{name}(inplace=True)")
