"""``pad`` with PyTorch's argument order (pairs from the last axis backwards)."""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...functional import _tensor
from ...tensor import Tensor

__all__ = [
    "pad",
]


def pad(x: Any, pad: Any, value: float = 0.0) -> Tensor:
    """PyTorch-style padding: ``pad`` lists (before, after) pairs from the *last* axis backwards."""
    x = _tensor(x)
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError(f"pad: expected an even number of values, at most 2 * ndim, got {pad}")
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return mf.pad(x, widths, constant_values=value)
