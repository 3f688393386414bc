"""``pixel_shuffle`` and ``pixel_unshuffle``: channels to space and back, each one reshape,
one transpose and one reshape (so exact in every mode, to any order)."""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...functional import _tensor
from ...tensor import Tensor

__all__ = [
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
]


def _factor(name: str, r: Any) -> int:
    r = int(r)
    if r < 1:
        raise ValueError(f"{name}: the factor must be >= 1, got {r}")
    return r


def pixel_shuffle(x: Any, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r): output pixel ``(c, h r + i, w r + j)`` is input
    channel ``c r^2 + i r + j`` at ``(h, w)``."""
    x = _tensor(x)
    r = _factor("pixel_shuffle", upscale_factor)
    if x.ndim < 3 or x.shape[-3] % (r * r):
        raise ValueError(f"pixel_shuffle: expected (*, C * {r * r}, H, W), got shape {x.shape}")
    *lead, c, h, w = x.shape
    nd = len(lead)
    y = mf.reshape(x, (*lead, c // (r * r), r, r, h, w))
    y = mf.transpose(y, tuple(range(nd)) + tuple(nd + a for a in (0, 3, 1, 4, 2)))
    return mf.reshape(y, (*lead, c // (r * r), h * r, w * r))


def pixel_unshuffle(x: Any, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of ``pixel_shuffle``."""
    x = _tensor(x)
    r = _factor("pixel_unshuffle", downscale_factor)
    if x.ndim < 3 or x.shape[-1] % r or x.shape[-2] % r:
        raise ValueError(f"pixel_unshuffle: expected (*, C, H * {r}, W * {r}), got shape {x.shape}")
    *lead, c, h, w = x.shape
    nd = len(lead)
    y = mf.reshape(x, (*lead, c, h // r, r, w // r, r))
    y = mf.transpose(y, tuple(range(nd)) + tuple(nd + a for a in (0, 2, 4, 1, 3)))
    return mf.reshape(y, (*lead, c * r * r, h // r, w // r))


def channel_shuffle(x: Any, groups: int) -> Tensor:
    """Interleave the channels (axis 1) of ``groups`` groups: (N, g * k, *) viewed as (N, g, k, *),
    the two swapped, viewed back (PyTorch's ``F.channel_shuffle``, ShuffleNet's)."""
    x = _tensor(x)
    g = int(groups)
    if x.ndim < 3 or g <= 0 or x.shape[1] % g:
        raise ValueError(f"channel_shuffle: expected (N, C, *) input with C divisible by groups > 0, got shape "
                         f"{x.shape} and groups={groups}")
    n, c, rest = x.shape[0], x.shape[1], x.shape[2:]
    y = mf.swapaxes(mf.reshape(x, (n, g, c // g, *rest)), 1, 2)
    return mf.reshape(y, x.shape)
