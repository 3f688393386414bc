"""Dropout layers: ``Dropout`` (elements) and ``Dropout2d`` (whole channels); identities in eval mode."""

from __future__ import annotations

from ..functional.arguments import as_tensor
from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = [
    "Dropout", "Dropout2d",
]


class Dropout(Module):
    """Zeroes each element with probability ``p`` in training, scaling the rest by ``1/(1-p)``; identity in eval."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be in [0, 1], got {p}")
        self.p = float(p)

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class Dropout2d(Module):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) input with probability ``p`` in training."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout2d: p must be in [0, 1], got {p}")
        if inplace:
            raise ValueError("Dropout2d: inplace=True is not supported (it would change a value the tape may need)")
        self.p = float(p)

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.dropout2d(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"
