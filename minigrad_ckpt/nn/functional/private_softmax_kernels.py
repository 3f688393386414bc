"""PyTorch's private softmax kernels: ``torch._softmax``, ``torch._log_softmax`` and their backward
kernels ``torch._softmax_backward_data`` and ``torch._log_softmax_backward_data``.

The forward kernels take ``(input, dim, half_to_float)``: with ``half_to_float`` a float16 input's
softmax is computed and returned in float32 (PyTorch's CUDA kernel; its CPU kernel refuses the flag,
the engine takes it on every device), any other input with the flag set is refused, as PyTorch does.

The backward kernels are ATen's backward kernels of ``softmax`` and ``log_softmax``, called by hand from custom
``autograd.Function`` s that recompute a softmax in float32 to save memory: NVlabs/edm's
``AttentionOp.backward`` (``training/networks.py``) and DeBERTa's ``XSoftmax`` call
``_softmax_backward_data(grad_output, output, dim, input_dtype)``. Each is the closed form of its
vector-Jacobian product written with the engine's recorded ops, so the result is differentiable
again (PyTorch's is too):

* softmax:     ``output * (grad_output - (grad_output * output).sum(dim, keepdim=True))``
* log_softmax: ``grad_output - exp(output) * grad_output.sum(dim, keepdim=True)``

``input_dtype`` is the dtype the forward's input had. PyTorch's CPU kernel answers in
``grad_output``'s dtype and refuses a narrower ``input_dtype`` than the gradient's; its CUDA kernel
takes that case (a float16 input whose softmax ran in float32) and answers in ``input_dtype``.
The engine answers as CUDA does on every device, so one script gives one answer everywhere.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import as_dtype, is_floating, scalar_type_name
from ...functional.arguments import normalize_axis
from ...functional.errors import InputMismatch, LayerDtypeMismatch
from ...tensor import Tensor
from .activation import log_softmax as _f_log_softmax
from .activation import softmax as _f_softmax


def _softmax(input: Tensor, dim: int, half_to_float: bool) -> Tensor:  # noqa: A002
    """``softmax(input, dim)``; with ``half_to_float``, a float16 input's in float32
    (PyTorch's private ATen function, what ``F.softmax(x, dim, dtype=float32)`` calls on a half)."""
    return _f_softmax(_half_as_float(input, half_to_float, "softmax"), dim=dim)


def _log_softmax(input: Tensor, dim: int, half_to_float: bool) -> Tensor:  # noqa: A002
    """``log_softmax(input, dim)``; with ``half_to_float``, a float16 input's in float32."""
    return _f_log_softmax(_half_as_float(input, half_to_float, "log_softmax"), dim=dim)


def _half_as_float(input: Tensor, half_to_float: bool, name: str) -> Tensor:  # noqa: A002
    """``input`` in float32 where ``half_to_float`` asks for it; PyTorch's refusal for a non-half."""
    if not half_to_float:
        return input
    if input.dtype != as_dtype("float16"):
        raise LayerDtypeMismatch(f"conversion is supported for Half type only: {name} got {input.dtype} "
                                 "with half_to_float=True")
    return input.to(as_dtype("float32"))


def _softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: Any) -> Tensor:
    """The gradient of ``softmax(x, dim)`` with respect to ``x``, given the softmax's ``output``
    and the gradient ``grad_output`` of its result (PyTorch's private ATen function)."""
    axis = _checked("softmax_backward", grad_output, output, dim)
    inner = mf.sum(grad_output * output, axis=axis, keepdims=True)
    return _in_input_dtype(output * (grad_output - inner), input_dtype)


def _log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: Any) -> Tensor:
    """The gradient of ``log_softmax(x, dim)`` with respect to ``x``, given its ``output`` and the
    gradient ``grad_output`` of its result (PyTorch's private ATen function)."""
    axis = _checked("log_softmax_backward", grad_output, output, dim)
    total = mf.sum(grad_output, axis=axis, keepdims=True)
    return _in_input_dtype(grad_output - mf.exp(output) * total, input_dtype)


def _checked(name: str, grad_output: Tensor, output: Tensor, dim: int) -> int:
    """``dim`` in range, after refusing what ATen refuses: different shapes or dtypes (its kernel
    reads both arrays as one element type, so it cannot mix float32 and float64)."""
    if tuple(grad_output.shape) != tuple(output.shape):
        raise InputMismatch(f"Expected tensor for argument #1 'grad' to have same size as tensor for argument #2 "
                            f"'output'; but {list(grad_output.shape)} does not equal {list(output.shape)} "
                            f"(while checking arguments for {name})")
    if grad_output.dtype != output.dtype:
        raise LayerDtypeMismatch(f"expected scalar type {scalar_type_name(grad_output.dtype)} but found "
                                 f"{scalar_type_name(output.dtype)}: {name}'s grad_output is {grad_output.dtype} "
                                 f"and its output {output.dtype}; convert one to the other's dtype")
    (axis,) = normalize_axis(dim, max(output.ndim, 1), allow_none=False)
    return axis if output.ndim else None


def _in_input_dtype(result: Tensor, input_dtype: Any) -> Tensor:
    """``result`` in ``input_dtype`` where that is a narrower float (the forward's half input), else
    as it is: a wider ``input_dtype`` never widens the gradient (PyTorch's kernels do not)."""
    wanted = as_dtype(input_dtype)
    if is_floating(wanted) and wanted.itemsize < as_dtype(result.dtype).itemsize:
        return result.to(wanted)
    return result
