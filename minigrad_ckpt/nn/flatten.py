"""``Flatten`` and ``Unflatten``: a range of axes merged into one, and one axis split into several."""

from __future__ import annotations

from typing import Any

from .. import functional as mf
from ..functional.shape_compositions import unflatten
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
        # the function's checks, PyTorch's: a dim out of range, or start_dim after end_dim, is an
        # error, not wrapped around (a list or an array works as it does for the functions)
        return mf.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split axis ``dim`` into ``unflattened_size`` (one entry may be -1)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self.dim, self.unflattened_size = int(dim), tuple(int(s) for s in unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        return unflatten(input, self.dim, self.unflattened_size)  # its checks: a dim out of range is an error

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
