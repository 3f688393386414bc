"""``Identity`` and ``Linear`` (``y = x @ weight.T + bias``).

Initialisation follows PyTorch (Kaiming-uniform with ``a = sqrt(5)`` for the
weight, ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` for the bias) and draws from
the engine generator, so ``mg.manual_seed`` reproduces a model.
"""

from __future__ import annotations

import math
from typing import Any

from ..functional.arguments import as_tensor
from ..functional.errors import InputMismatch
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module, _empty

__all__ = [
    "Identity", "Linear", "Bilinear",
]


class Identity(Module):
    """Returns its input unchanged (a placeholder, e.g. where a block has no projection); any
    arguments are accepted and ignored, as PyTorch's (``nn.Identity(54, unused_argument=0.1)``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        del args, kwargs

    def forward(self, input: Any) -> Any:
        x = input  # PyTorch's argument name
        return x


class Linear(Module):
    """``y = x @ weight.T + bias`` with weight (out_features, in_features)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = _empty(out_features, in_features, dtype=dtype, device=device)
        self.bias = _empty(out_features, dtype=dtype, device=device) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features else 0.0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        x = input  # PyTorch's argument name
        x = as_tensor(x)  # a list or an array works as it does for the functions
        shape = x._data.shape
        weight = self.weight  # (read once: a parametrized weight is computed once per call, as PyTorch's)
        # checked against the weight, as PyTorch's F.linear: ``weight.data = ...`` may have resized it
        if not shape or shape[-1] != weight.shape[-1]:
            raise InputMismatch(
                f"{self!r}: input of shape {tuple(x.shape)} does not match weight of shape "
                f"{weight.shape}: the input's last dimension must be in_features={weight.shape[-1]}"
            )
        return F.linear(x, weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """PyTorch's class of ``MultiheadAttention.out_proj``: a Linear (PyTorch's dynamic quantization skips
    it), so a printed model and ``type(m).__name__`` read as PyTorch's."""


class Bilinear(Module):
    """``y = x1^T A x2 + b`` for each output feature: weight (out_features, in1_features, in2_features)
    (``F.bilinear``); weight and bias drawn from ``U(-1/sqrt(in1_features), 1/sqrt(in1_features))``."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features, self.in2_features = int(in1_features), int(in2_features)
        self.out_features = int(out_features)
        self.weight = _empty(out_features, in1_features, in2_features, dtype=dtype, device=device)
        self.bias = _empty(out_features, dtype=dtype, device=device) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(as_tensor(input1), as_tensor(input2), self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
