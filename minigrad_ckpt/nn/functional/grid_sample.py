"""Spatial transformers: ``affine_grid`` (the sampling grid of an affine map) and
``grid_sample`` (the input read at a grid of normalized coordinates), PyTorch's formulas.

``grid_sample`` on (N, C, H, W) input: each grid point ``(x, y)`` in [-1, 1] becomes a pixel
position (``align_corners`` decides whether -1 and 1 are the corner pixels' centres or their
outer edges), is brought inside by ``padding_mode`` (``"zeros"`` reads 0 outside, ``"border"``
clamps, ``"reflection"`` mirrors), and is read bilinearly (or at the nearest pixel).  A
composition of ``take_along_axis`` and arithmetic: differentiable in the input and, for
bilinear sampling, in the grid.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import host_numpy as np
from ...functional import _tensor
from ...tensor import Tensor

__all__ = [
    "affine_grid", "grid_sample",
]


def _base(n: int, align_corners: bool) -> Any:
    """The normalized coordinates of ``n`` pixel centres."""
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (np.arange(n) * 2.0 + 1.0) / n - 1.0


def affine_grid(theta: Any, size: Any, align_corners: bool | None = None) -> Tensor:
    """The grid ``theta @ [x, y, 1]`` (2-D: ``theta`` (N, 2, 3), ``size`` (N, C, H, W), grid (N, H, W, 2))
    or ``theta @ [x, y, z, 1]`` (3-D: (N, 3, 4), (N, C, D, H, W), grid (N, D, H, W, 3))."""
    theta = _tensor(theta)
    size = tuple(int(s) for s in size)
    ac = bool(align_corners)
    if len(size) == 4 and theta.shape == (size[0], 2, 3):
        h, w = size[2:]
        ys, xs = np.meshgrid(_base(h, ac), _base(w, ac), indexing="ij")
        base = np.stack([xs, ys, np.ones_like(xs)], axis=-1)  # (H, W, 3)
    elif len(size) == 5 and theta.shape == (size[0], 3, 4):
        d, h, w = size[2:]
        zs, ys, xs = np.meshgrid(_base(d, ac), _base(h, ac), _base(w, ac), indexing="ij")
        base = np.stack([xs, ys, zs, np.ones_like(xs)], axis=-1)  # (D, H, W, 4)
    else:
        raise ValueError(f"affine_grid: expected theta (N, 2, 3) with size (N, C, H, W) or (N, 3, 4) with "
                         f"(N, C, D, H, W), got theta {theta.shape} and size {size}")
    if min(size[2:]) < 1:
        raise ValueError(f"affine_grid: the spatial sizes must be positive, got {size}")
    k = base.shape[-1]
    flat = Tensor.constant(theta.device.xp.asarray(base.reshape(-1, k).astype(theta.dtype)), theta.device)
    grid = mf.matmul(flat, mf.swapaxes(theta, -1, -2))  # (N, points, k - 1)
    return mf.reshape(grid, (size[0],) + size[2:] + (k - 1,))


def _reflect(c: Tensor, twice_low: float, twice_high: float) -> Tensor:
    """PyTorch's ``reflect_coordinates``: mirror ``c`` into [low, high] (the interval's halves given)."""
    if twice_low == twice_high:
        return c * 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    a = mf.abs(c - low)
    flips = mf.floor(a / span).detach()
    extra = a - flips * span
    even = mf.fmod(flips, 2.0) == 0
    return mf.where(even, extra + low, span - extra + low)


def _pixel(c: Tensor, n: int, align_corners: bool, padding_mode: str) -> Tensor:
    c = (c + 1) * ((n - 1) / 2) if align_corners else ((c + 1) * n - 1) / 2
    if padding_mode == "border":
        return mf.clip(c, 0, n - 1)
    if padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (n - 1)) if align_corners else _reflect(c, -1, 2 * n - 1)
        return mf.clip(c, 0, n - 1)
    return c


def _read(flat: Tensor, iy: Any, ix: Any, h: int, w: int) -> Tensor:
    """``input[n, :, iy, ix]`` for integer positions (N, P) (host), 0 outside the image: (N, C, P)."""
    inside = (iy >= 0) & (iy < h) & (ix >= 0) & (ix < w)
    pos = np.where(inside, np.clip(iy, 0, h - 1) * w + np.clip(ix, 0, w - 1), 0)
    n, c = flat.shape[:2]
    xp = flat.device.xp
    idx = Tensor.constant(xp.asarray(np.broadcast_to(pos[:, None, :], (n, c, pos.shape[1])).copy()), flat.device)
    vals = mf.take_along_axis(flat, idx, axis=2)
    mask = Tensor.constant(xp.asarray(inside[:, None, :].astype(flat.dtype)), flat.device)
    return vals * mask


def grid_sample(input: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``input`` (N, C, H, W) read at ``grid`` (N, Ho, Wo, 2) of normalized ``(x, y)``: (N, C, Ho, Wo).

    ``mode``: ``"bilinear"`` or ``"nearest"``; ``padding_mode``: ``"zeros"``, ``"border"`` or
    ``"reflection"``.  ``"nearest"`` reads are piecewise constant in the grid: the grid gets no
    gradient (it is not connected; PyTorch returns zeros).  (Bicubic sampling and 5-D input are
    not offered.)
    """
    x = _tensor(input)
    g = _tensor(grid, x)
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest' (bicubic is not offered), got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: padding_mode must be 'zeros', 'border' or 'reflection', got {padding_mode!r}")
    if x.ndim != 4 or g.ndim != 4 or g.shape[0] != x.shape[0] or g.shape[-1] != 2:
        raise ValueError(f"grid_sample: expected input (N, C, H, W) and grid (N, Ho, Wo, 2) (5-D input is not "
                         f"offered), got {x.shape} and {g.shape}")
    n, c, h, w = x.shape
    ho, wo = g.shape[1:3]
    ac = bool(align_corners)
    px = mf.reshape(_pixel(g[..., 0], w, ac, padding_mode), (n, ho * wo))
    py = mf.reshape(_pixel(g[..., 1], h, ac, padding_mode), (n, ho * wo))
    flat = mf.reshape(x, (n, c, h * w))
    xp = x.device.xp
    hx, hy = np.asarray(xp.to_host(px._data)), np.asarray(xp.to_host(py._data))
    if mode == "nearest":
        out = _read(flat, np.round(hy).astype(np.int64), np.round(hx).astype(np.int64), h, w)
        return mf.reshape(out, (n, c, ho, wo))
    x0, y0 = np.floor(hx), np.floor(hy)
    tx = mf.expand_dims(px - Tensor.constant(xp.asarray(x0.astype(x.dtype)), x.device), 1)  # (N, 1, P)
    ty = mf.expand_dims(py - Tensor.constant(xp.asarray(y0.astype(x.dtype)), x.device), 1)
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    out = (_read(flat, y0, x0, h, w) * ((1 - tx) * (1 - ty)) + _read(flat, y0, x0 + 1, h, w) * (tx * (1 - ty))
           + _read(flat, y0 + 1, x0, h, w) * ((1 - tx) * ty) + _read(flat, y0 + 1, x0 + 1, h, w) * (tx * ty))
    return mf.reshape(out, (n, c, ho, wo))
