"""``pixel_shuffle`` and ``pixel_unshuffle``: channels to space and back, each one reshape,
one transpose and one reshape (so exact in every mode, to any order)."""

from __future__ import annotations

import operator
from typing import Any

from ... import functional as mf
from ...functional import _tensor
from ...functional.arguments import number
from ...functional.errors import InputMismatch
from ...tensor import Tensor

__all__ = [
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
]


def _factor(name: str, r: Any) -> int:
    what = "upscale_factor" if name == "pixel_shuffle" else "downscale_factor"
    r = number(name, what, r, "int", position=2)  # (a float or a bool is its TypeError: int() took 1.5 as 1)
    if not hasattr(r, "__index__"):
        raise TypeError(f"{name}(): argument '{what}' (position 2) must be int, not {type(r).__name__}")
    r = operator.index(r)
    if r < 1:
        raise InputMismatch(f"{name}: the factor must be >= 1, got {r}")
    return r


def pixel_shuffle(input: Any, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r): output pixel ``(c, h r + i, w r + j)`` is input
    channel ``c r^2 + i r + j`` at ``(h, w)``."""
    input = _tensor(input)
    r = _factor("pixel_shuffle", upscale_factor)
    if input.ndim < 3 or input.shape[-3] % (r * r):
        raise InputMismatch(f"pixel_shuffle: expected (*, C * {r * r}, H, W), got shape {input.shape}")
    *lead, c, h, w = input.shape
    nd = len(lead)
    y = mf.reshape(input, (*lead, c // (r * r), r, r, h, w))
    y = mf.transpose(y, tuple(range(nd)) + tuple(nd + a for a in (0, 3, 1, 4, 2)))
    return mf.reshape(y, (*lead, c // (r * r), h * r, w * r))


def pixel_unshuffle(input: Any, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of ``pixel_shuffle``."""
    input = _tensor(input)
    r = _factor("pixel_unshuffle", downscale_factor)
    if input.ndim < 3 or input.shape[-1] % r or input.shape[-2] % r:
        raise InputMismatch(f"pixel_unshuffle: expected (*, C, H * {r}, W * {r}), got shape {input.shape}")
    *lead, c, h, w = input.shape
    nd = len(lead)
    y = mf.reshape(input, (*lead, c, h // r, r, w // r, r))
    y = mf.transpose(y, tuple(range(nd)) + tuple(nd + a for a in (0, 2, 4, 1, 3)))
    return mf.reshape(y, (*lead, c * r * r, h // r, w // r))


def channel_shuffle(input: Any, groups: int) -> Tensor:
    """Interleave the channels (axis 1) of ``groups`` groups: (N, g * k, *) viewed as (N, g, k, *),
    the two swapped, viewed back (PyTorch's ``F.channel_shuffle``, ShuffleNet's)."""
    groups = number("channel_shuffle", "groups", groups, "SymInt")
    input = _tensor(input)
    g = int(groups)
    if input.ndim < 3 or g <= 0 or input.shape[1] % g:  # (PyTorch's words first, in its order)
        torchs = (f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}"
                  if input.ndim < 3 else f"Number of groups to divide channels in must be positive. Value of "
                  f"groups:{g}" if g <= 0 else f"Number of channels must be divisible by groups. Got "
                  f"{input.shape[1]} channels and {g} groups.")
        raise InputMismatch(f"{torchs} (channel_shuffle: expected (N, C, *) input with C divisible by groups > 0, "
                            f"got shape {input.shape} and groups={groups})")
    n, c, rest = input.shape[0], input.shape[1], input.shape[2:]
    y = mf.swapaxes(mf.reshape(input, (n, g, c // g, *rest)), 1, 2)
    return mf.reshape(y, input.shape)
