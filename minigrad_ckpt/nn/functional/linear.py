"""The affine map ``linear(x, weight, bias) = x @ weight.T + bias`` (one fused op)."""

from __future__ import annotations

from typing import Any

from ...functional import _tensor
from ...ops import linalg as _la
from ...tape import apply
from ...tensor import Tensor
from .inputs import _check_input_dtype

__all__ = [
    "linear",
]


_LINEAR = _la.Linear()


def linear(x: Any, weight: Any, bias: Any = None) -> Tensor:
    """``x @ weight.T + bias`` (weight is (out_features, in_features))."""
    x = _tensor(x)
    w = _tensor(weight, x)
    if x.ndim == 0 or x.shape[-1] != w.shape[-1]:
        raise ValueError(
            f"linear: input of shape {x.shape} does not match weight of shape {w.shape} "
            f"(expects in_features={w.shape[-1]} as the input's last axis)"
        )
    if w.ndim != 2:
        raise ValueError(f"linear: weight must be 2-D (out_features, in_features), got {w.shape}")
    _check_input_dtype("linear", x, w)
    b = None
    if bias is not None:
        b = _tensor(bias, x)
        if b.shape != (w.shape[0],):
            raise ValueError(f"linear: bias of shape {b.shape} does not match weight of shape {w.shape}")
    return apply(_LINEAR, x, w, b)
