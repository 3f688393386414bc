"""The affine map ``linear(x, weight, bias) = x @ weight.T + bias`` (one fused op)."""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import scalar_type_name
from ...functional import _tensor
from ...functional.errors import InputMismatch, LayerDtypeMismatch
from ...ops import linalg as _la
from ...tape import apply
from ...tensor import Tensor
from .inputs import _check_input_dtype, floating_kernel

__all__ = [
    "linear", "bilinear",
]


_LINEAR = _la.Linear()


@floating_kernel("addmm_impl_cpu_", "b")
def linear(input: Any, weight: Any, bias: Any = None) -> Tensor:
    """``x @ weight.T + bias`` (weight is (out_features, in_features))."""
    input = _tensor(input)
    w = _tensor(weight, input)
    xs, ws = input._data.shape, w._data.shape  # (read once: Tensor.shape is a property call each time)
    if not xs or xs[-1] != ws[-1]:
        raise InputMismatch(
            f"linear: input of shape {xs} does not match weight of shape {ws} "
            f"(expects in_features={ws[-1]} as the input's last axis)"
        )
    if len(ws) == 1 and bias is None:  # PyTorch's matmul: one output feature, its axis dropped
        _check_input_dtype("linear", input, w)
        return mf.matmul(input, w)
    if len(ws) != 2:
        raise InputMismatch(f"linear: weight must be 2-D (out_features, in_features), or 1-D without a bias, "
                            f"got {ws}")
    _check_input_dtype("linear", input, w, "linear")
    b = None
    if bias is not None:
        b = _tensor(bias, input)
        if b._data.shape != ws[:1]:
            raise InputMismatch(f"linear: bias of shape {b.shape} does not match weight of shape {ws}")
        if b._data.dtype != w._data.dtype:  # (NumPy would promote the output: a float64 bias made it float64)
            raise LayerDtypeMismatch(f"self and mat2 must have the same dtype, but got {scalar_type_name(b.dtype)} "
                                     f"and {scalar_type_name(w.dtype)} (linear: a bias of {b.dtype} beside a "
                                     f"weight of {w.dtype}; convert it with bias.to({w.dtype}))")
    return apply(_LINEAR, input, w, b)


def bilinear(input1: Any, input2: Any, weight: Any, bias: Any = None) -> Tensor:
    """``y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]`` (PyTorch's
    ``F.bilinear``; ``weight`` is (out_features, in1_features, in2_features)): one einsum."""
    x1 = _tensor(input1)
    x2, w = _tensor(input2, x1), _tensor(weight, x1)
    if w.ndim != 3 or x1.shape[-1:] != w.shape[1:2] or x2.shape[-1:] != w.shape[2:] or x1.shape[:-1] != x2.shape[:-1]:
        raise InputMismatch(f"bilinear: inputs of shapes {x1.shape} and {x2.shape} do not match weight of shape "
                            f"{w.shape} (expects (..., in1), (..., in2) and (out, in1, in2))")
    _check_input_dtype("bilinear", x1, w)
    _check_input_dtype("bilinear", x2, w)
    y = mf.einsum("...i,oij,...j->...o", x1, w, x2)
    return y if bias is None else y + _tensor(bias, x1)
