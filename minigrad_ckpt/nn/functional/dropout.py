"""Dropout: ``dropout`` (elements) and ``dropout2d`` (whole channels).

The randomness is one key drawn from the engine generator and stored on the
op, so a checkpoint replay regenerates the same mask.
"""

from __future__ import annotations

from typing import Any

from ... import random as _random
from ...functional import _tensor
from ...ops import dropout as _drop
from ...tape import apply
from ...tensor import Tensor

__all__ = [
    "dropout", "dropout2d",
]


def dropout(x: Any, p: float = 0.5, training: bool = True) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``.

    The randomness is one key drawn from the engine generator and stored on
    the op, so a checkpoint replay regenerates the same mask.
    """
    x = _tensor(x)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    return apply(_drop.Dropout(p=float(p), key=_random.next_key()), x)


def dropout2d(x: Any, p: float = 0.5, training: bool = True) -> Tensor:
    """Zero whole channels (axis 1 of (N, C, H, W), axis 0 of (C, H, W)) with probability ``p``.

    The channel mask is a dropout of ones (one key on the tape), broadcast over
    the spatial axes: a checkpoint replay regenerates it exactly.
    """
    x = _tensor(x)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout2d: p must be in [0, 1], got {p}")
    if x.ndim not in (3, 4):
        raise ValueError(f"dropout2d: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape {x.shape}")
    if not training or p == 0.0:
        return x
    shape = x.shape[:x.ndim - 2] + (1, 1)
    ones = Tensor.constant(x.device.xp.ones(shape, dtype=x.dtype), x.device)
    return x * dropout(ones, p, True)
