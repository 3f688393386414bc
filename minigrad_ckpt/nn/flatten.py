"""``Flatten`` and ``Unflatten``: a range of axes merged into one, and one axis split into several."""

from __future__ import annotations

from typing import Any

from .. import functional as mf
from ..functional.arguments import as_tensor
from ..tensor import Tensor
from .module import Module

__all__ = [
    "Flatten", "Unflatten",
]


class Flatten(Module):
    """Flatten axes ``start_dim..end_dim`` into one (default: all but the batch axis)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        x = input  # PyTorch's argument name
        x = as_tensor(x)  # a list or an array works as it does for the functions
        s = self.start_dim % x.ndim if x.ndim else 0
        e = self.end_dim % x.ndim if x.ndim else 0
        n = 1
        for d in x.shape[s:e + 1]:
            n *= d
        return mf.reshape(x, x.shape[:s] + (n,) + x.shape[e + 1:])

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split axis ``dim`` into ``unflattened_size`` (one entry may be -1)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self.dim, self.unflattened_size = int(dim), tuple(int(s) for s in unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        x = input  # PyTorch's argument name
        x = as_tensor(x)  # a list or an array works as it does for the functions
        d = self.dim % x.ndim if x.ndim else 0
        return mf.reshape(x, x.shape[:d] + self.unflattened_size + x.shape[d + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
