"""Spatial transformers: ``affine_grid`` (the sampling grid of an affine map) and
``grid_sample`` (the input read at a grid of normalized coordinates), PyTorch's formulas.

``grid_sample`` on (N, C, H, W) or (N, C, D, H, W) input: each grid point ``(x, y)`` or
``(x, y, z)`` in [-1, 1] becomes a pixel position (``align_corners`` decides whether -1 and 1
are the corner pixels' centres or their outer edges), and is read from its neighbours:

=============  ==================================================================
mode           taps per axis, each an integer position and a weight
=============  ==================================================================
``nearest``    1: the position rounded (half to even); a weight of 1 whose derivative is 0
``bilinear``   2: ``floor(c)``, ``floor(c) + 1`` with ``1 - t``, ``t`` (``t = c - floor(c)``);
               trilinear on 5-D input
``bicubic``    4: ``floor(c) - 1 .. floor(c) + 2`` with Keys' cubic weights
               (``A = -0.75``); 4-D input only
=============  ==================================================================

and the output is the sum over every combination of one tap per axis of the read value
times the product of the weights.  ``padding_mode`` says what is read outside the input:
``"zeros"`` reads 0, ``"border"`` clamps, ``"reflection"`` mirrors.  As in PyTorch, nearest
and bilinear sampling bring the *position* inside before taking taps (so the grid gradient
is 0 where ``"border"`` or ``"reflection"`` clamps, the edge itself included, as PyTorch's),
while bicubic sampling takes its taps around the raw
position and brings each *tap* inside.  A composition of ``take_along_axis`` and
arithmetic: differentiable in the input to any order and in the grid (through the weights;
the taps' integer positions are constants), where nearest sampling's gradient is 0, as PyTorch's.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

from ... import functional as mf
from ...backend import fused_multiply_add, is_floating
from ...backend import host_numpy as np
from ...creation import linspace
from ...functional import _tensor
from ...functional.indexing import take_along_axis_in_range
from ...functional.torch_methods import scalar_type_name
from ...tape import watch_versions
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine
from .interpolation import cubic_weights

__all__ = [
    "affine_grid", "grid_sample",
]

_MODES = ("bilinear", "nearest", "bicubic")
_PADDING_MODES = ("zeros", "border", "reflection")


def _base(n: int, align_corners: bool, dtype: Any) -> Any:
    """The normalized coordinates of ``n`` pixel centres, in ``dtype`` and to the bit PyTorch's
    (``linspace_from_neg_one``: ``linspace(-1, 1, n)``, times ``(n - 1) / n`` without align_corners,
    each step rounded in ``dtype``): under the identity map these are exact pixel positions or
    a rounding away, and ``grid_sample``'s bilinear gradient in the grid takes its side by them."""
    if n <= 1:
        return np.zeros(1, dtype)
    base = linspace(-1.0, 1.0, n, dtype=dtype).numpy()
    if not align_corners:
        base = base * base.dtype.type(n - 1) / base.dtype.type(n)
    return base


def _default_align_corners(align_corners: bool | None) -> bool:
    """PyTorch's answer to ``align_corners=None`` in ``affine_grid`` and ``grid_sample``: False,
    with its warning (the default changed in 1.3.0)."""
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                      "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                      "documentation of grid_sample for details.", UserWarning,
                      stacklevel=stacklevel_outside_the_engine())
    return bool(align_corners)


def _check_affine(theta: Tensor, size: tuple[int, ...], ac: bool) -> None:
    """PyTorch's checks of ``affine_grid``'s arguments, in its order, with its exception types."""
    if not is_floating(theta.dtype) or theta.dtype.kind == "c":
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) not in (4, 5):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    k = len(size) - 2
    if theta.ndim != 3 or theta.shape[-2:] != (k, k + 1):
        raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} for size {size}. "
                         f"Got {theta.shape}.")
    if ac and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the "
                      "documentation of affine_grid for details.", UserWarning,
                      stacklevel=stacklevel_outside_the_engine())
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {k + 1}] "
                           f"but got: [{theta.shape[0]}, {k + 1}].")


def affine_grid(theta: Any, size: Any, align_corners: bool | None = None) -> Tensor:
    """The grid ``theta @ [x, y, 1]`` (2-D: ``theta`` (N, 2, 3), ``size`` (N, C, H, W), grid (N, H, W, 2))
    or ``theta @ [x, y, z, 1]`` (3-D: (N, 3, 4), (N, C, D, H, W), grid (N, D, H, W, 3))."""
    ac = _default_align_corners(align_corners)
    theta = _tensor(theta)
    size = tuple(int(s) for s in size)
    _check_affine(theta, size, ac)
    axes = [_base(n, ac, theta.dtype) for n in size[:1:-1]]  # x (the width) first
    grids = np.meshgrid(*axes[::-1], indexing="ij")  # (D,) H, W
    base = np.stack([*grids[::-1], np.ones_like(grids[0])], axis=-1)  # ((D,) H, W, k + 1): x, y, (z,) 1
    k = base.shape[-1]
    flat = Tensor.constant(theta.device.xp.asarray(base.reshape(-1, k).astype(theta.dtype)), theta.device)
    grid = mf.matmul(flat, mf.swapaxes(theta, -1, -2))  # (N, points, k - 1)
    return mf.reshape(grid, (size[0],) + size[2:] + (k - 1,))


def _reflect(c: Any, twice_low: float, twice_high: float, lib: Any) -> Any:
    """PyTorch's ``reflect_coordinates``: mirror ``c`` into [low, high] (the interval's halves given);
    ``lib`` is ``minigrad_ckpt.functional`` for a Tensor, NumPy for host tap positions."""
    if twice_low == twice_high:
        return c * 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    a = lib.abs(c - low)
    flips = lib.floor(a / span)  # piecewise constant: no derivative
    extra = a - flips * span
    even = lib.fmod(flips, 2.0) == 0
    return lib.where(even, extra + low, span - extra + low)


def _unnormalize(c: Tensor, n: int, align_corners: bool, fused: bool) -> Tensor:
    """Grid coordinates to pixel positions, rounded as PyTorch's CPU kernels round them: without
    align_corners its 2-D kernel computes ``(c + 1) * (n / 2) - 1/2`` as one fused multiply-add
    (``fused``), its 3-D kernel ``((c + 1) * n - 1) / 2`` in plain steps.  The last bit decides the
    side a bilinear gradient takes at a pixel centre (the identity grid's points).  The value is
    the fused one, the derivative the plain formula's (the difference is a constant)."""
    if align_corners:
        return (c + 1) * ((n - 1) / 2)
    plain = ((c + 1) * n - 1) / 2
    if not fused:
        return plain
    xp = c.device.xp
    host = xp.to_host(c._data)
    exact = fused_multiply_add(host + host.dtype.type(1), n / 2, -0.5, host.dtype)
    with np.errstate(invalid="ignore"):  # an infinite position needs no correction (inf - inf)
        correction = np.where(np.isfinite(exact), exact - xp.to_host(plain._data), 0)
    return plain + Tensor.constant(xp.asarray(correction.astype(host.dtype)), c.device)


def _clip(c: Any, n: int, lib: Any, volume: bool = False) -> Any:
    """``c`` clamped to [0, n - 1], and a NaN where PyTorch's kernels put it: its 2-D kernel orders
    its clamp to send a NaN to 0, its 3-D (``volume``) kernel's ``min(n - 1, max(c, 0))`` sends it
    to n - 1 (an infinite position reflected is NaN too).  For a Tensor with PyTorch's
    ``clip_coordinates_set_grad`` derivative: 1 strictly inside, 0 from the edges on (the edges
    count as outside; a NaN is outside)."""
    clipped = lib.clip(c, 0, n - 1)
    clipped = lib.where(lib.isnan(clipped), n - 1.0 if volume else 0.0, clipped)
    if lib is np:
        return clipped
    return mf.where((c > 0) & (c < n - 1), c, clipped.detach())


def _inside(c: Any, n: int, align_corners: bool, padding_mode: str, lib: Any = mf, volume: bool = False) -> Any:
    """PyTorch's ``compute_coordinates``: a pixel position brought inside by ``padding_mode``."""
    if padding_mode == "border":
        return _clip(c, n, lib, volume)
    if padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (n - 1), lib) if align_corners else _reflect(c, -1, 2 * n - 1, lib)
        return _clip(c, n, lib, volume)
    return c


def _taps(mode: str, c: Tensor, n: int, align_corners: bool, padding_mode: str,
          volume: bool = False) -> list[tuple[Any, Any]]:
    """``[(positions, weight or None), ...]`` along one axis for pixel positions ``c`` (N, P):
    host int positions (N, P) and weights (N, 1, P)."""
    if mode != "bicubic":
        c = _inside(c, n, align_corners, padding_mode, volume=volume)
    xp = c.device.xp
    host = np.asarray(xp.to_host(c._data))
    if mode == "nearest":
        # a NaN or infinite position reads 0 (outside); -1 says so without NumPy's cast warning
        return [(np.round(np.where(np.isfinite(host), host, -1)).astype(np.int64), _zero_slope_one(c))]
    start = np.floor(host)
    t = mf.expand_dims(c - Tensor.constant(xp.asarray(start.astype(c.dtype)), c.device), 1)
    if mode == "bilinear":
        return [(_outside_if_not_finite(start), 1 - t), (_outside_if_not_finite(start) + 1, t)]
    taps = (_inside(start + k, n, align_corners, padding_mode, np) for k in (-1, 0, 1, 2))
    return [(_outside_if_not_finite(tap), w) for tap, w in zip(taps, cubic_weights(t))]


def _outside_if_not_finite(positions: Any) -> Any:
    """Host integer positions; a non-finite one (a NaN or infinite grid point under ``"zeros"``)
    becomes -2, outside with its right neighbour, without NumPy's cast warning."""
    return np.where(np.isfinite(positions), positions, -2).astype(np.int64)


def _zero_slope_one(c: Tensor) -> Tensor:
    """Ones (N, 1, P) whose derivative in ``c`` is 0: nearest sampling is piecewise constant in the
    grid, and PyTorch's grid still gets a gradient (zeros) and makes the output require grad.
    ``floor(c) - floor(c)`` is exactly 0 for a finite position; a non-finite one is read as 0 first
    (its tap is outside, its read already 0), so the weight never turns a read into NaN."""
    finite = mf.where(mf.isfinite(c), c, 0.0)
    return mf.expand_dims(1 + (mf.floor(finite) - mf.floor(finite)), 1)


def _read(flat: Tensor, positions: list[Any], sizes: tuple[int, ...]) -> Tensor:
    """``input[n, :, i_1, ..., i_k]`` for integer positions (N, P) per axis (host), 0 outside: (N, C, P),
    and the (N, C, P) mask of the reads inside."""
    inside = np.logical_and.reduce([(i >= 0) & (i < s) for i, s in zip(positions, sizes)])
    pos = np.ravel_multi_index(tuple(np.clip(i, 0, s - 1) for i, s in zip(positions, sizes)), sizes)
    pos = np.where(inside, pos, 0)
    n, c = flat.shape[:2]
    xp = flat.device.xp
    idx = Tensor.constant(xp.asarray(np.broadcast_to(pos[:, None, :], (n, c, pos.shape[1])).copy()), flat.device)
    vals = take_along_axis_in_range(flat, idx, axis=2)
    # a read outside is 0 by selection, not by a product: its weight may be NaN (a NaN grid point),
    # and PyTorch's input gradient is 0 there, not NaN at the pixel the index was clipped to
    mask = Tensor.constant(xp.asarray(np.broadcast_to(inside[:, None, :], vals.shape).copy()), flat.device)
    return mf.where(mask, vals, 0.0), mask


def _check(x: Tensor, g: Tensor, mode: str, padding_mode: str) -> None:
    """PyTorch's checks of ``grid_sample``'s arguments, in its order, with its exception types."""
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    sizes = f"input with sizes {list(x.shape)} and grid with sizes {list(g.shape)}"
    if x.shape[:1] != g.shape[:1]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}")
    if g.shape[-1:] != (x.ndim - 2,):
        raise RuntimeError(f"grid_sampler(): expected grid to have size {x.ndim - 2} in last dimension, but got "
                           f"grid with sizes {list(g.shape)}")
    for i in range(2, x.ndim):
        if x.shape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                               f"has sizes {list(x.shape)} with dimension {i} being empty")
    k = 2 if x.ndim == 4 else 3
    if x.ndim != k + 2 or g.ndim != x.ndim:
        raise RuntimeError(f"grid_sampler(): expected {k + 2}D input and grid with same number of dimensions, "
                           f"but got {sizes}")
    if mode == "bicubic" and k != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not is_floating(x.dtype) or x.dtype.kind == "c":  # (before the grids' dtype, as PyTorch's dispatch)
        kernel = "grid_sampler_2d_cpu_kernel_impl" if k == 2 else "grid_sampler3d_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(x.dtype)}\'')
    if x.dtype != g.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(x.dtype)} but found {scalar_type_name(g.dtype)}")


def grid_sample(input: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """``input`` (N, C, H, W) read at ``grid`` (N, Ho, Wo, 2) of normalized ``(x, y)``: (N, C, Ho, Wo);
    or (N, C, D, H, W) at (N, Do, Ho, Wo, 3) of ``(x, y, z)``: (N, C, Do, Ho, Wo).

    ``mode``: ``"bilinear"`` (trilinear on 5-D input), ``"nearest"`` or ``"bicubic"`` (4-D only);
    ``padding_mode``: ``"zeros"``, ``"border"`` or ``"reflection"`` (the module docstring
    says how each mode reads).  ``"nearest"`` reads are piecewise constant in the grid: its
    gradient is zeros, as PyTorch's.
    """
    x = _tensor(input)
    g = _tensor(grid, x)
    _check(x, g, mode, padding_mode)
    ac = _default_align_corners(align_corners)
    n, c = x.shape[:2]
    sizes, out_sizes = x.shape[2:], g.shape[1:-1]
    k, points = len(sizes), math.prod(out_sizes)
    # grid component j is the position along spatial axis k - 1 - j (x is the width)
    per_axis = [_taps(mode, mf.reshape(_unnormalize(g[..., k - 1 - a], sizes[a], ac, fused=k == 2), (n, points)),
                      sizes[a], ac, padding_mode, volume=k == 3) for a in range(k)]
    flat = mf.reshape(x, (n, c, math.prod(sizes)))
    out = None
    for combination in itertools.product(*per_axis):
        term, inside = _read(flat, [pos for pos, _ in combination], sizes)
        weights = [w for _, w in combination if w is not None]
        if weights:
            term = term * math.prod(weights[1:], start=weights[0])
            if k == 3:  # PyTorch's 3-D kernel adds in-bound taps only: a NaN weight outside adds nothing
                term = mf.where(inside, term, 0.0)
        out = term if out is None else out + term
    # backward reads copies -- the taps' weights (made from the grid), the values read (from the input,
    # for the grid's gradient) -- so a write into the grid, or into the input when the grid needs its
    # gradient (a learned feature volume stepped before the loss's backward), is watched, as PyTorch's
    # one op saves both; the input alone is not read by the input's gradient
    return watch_versions(mf.reshape(out, (n, c) + out_sizes), (g, x) if g.requires_grad else (g,))
