"""Fractional max pooling: ``fractional_max_pool2d`` and ``fractional_max_pool3d`` (PyTorch's,
after Graham's "Fractional Max-Pooling").

Windows of a fixed ``kernel_size`` start at pseudo-random, increasing places.  Along an axis of
length ``n`` pooled to ``m`` outputs, with ``alpha = (n - k) / (m - 1)`` and one sample ``u`` in
[0, 1), output ``i`` starts at ``int((i + u) alpha) - int(u alpha)`` and the last at ``n - k``
(in the input's float dtype, as PyTorch computes it).  The samples are ``_random_samples``
(N, C, axes): given, or drawn uniform from the engine's generator.  Each output is its window's
maximum (the first one, or the last NaN, as PyTorch's kernel picks), gathered from the input,
so the gradient goes to that place and derivatives of every order follow from the gather.
"""

from __future__ import annotations

import math
from typing import Any

from ... import functional as mf
from ...backend import host_numpy as np
from ...creation import rand
from ...functional import _tensor
from ...functional.arguments import refuse_complex
from ...functional.errors import InputMismatch
from ...functional.indexing import take_along_axis_in_range
from ...tensor import Tensor
from .conv import _ntuple

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]


def _starts(u: Any, n_in: int, n_out: int, k: int) -> Any:
    """Each window's first index along one axis, (N, C, n_out), from the samples ``u`` (N, C)."""
    starts = np.empty(u.shape + (n_out,), dtype=np.int64)
    if n_out == 0:  # an empty output axis (PyTorch's output_size 0): no windows
        return starts
    if n_out > 1:
        alpha = u.dtype.type(n_in - k) / u.dtype.type(n_out - 1)
        i = np.arange(n_out - 1, dtype=u.dtype)
        starts[..., :-1] = ((i + u[..., None]) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)[..., None]
    starts[..., n_out - 1] = n_in - k
    return starts


def _window_positions(u: Any, sizes: tuple, out: tuple, k: tuple) -> Any:
    """The flat input positions each output reads: (N, C, *out, prod(k))."""
    d = len(sizes)
    flat = np.zeros(u.shape[:2] + (1,) * (2 * d), dtype=np.int64)
    for a in range(d):
        pos = _starts(u[:, :, a], sizes[a], out[a], k[a])[..., None] + np.arange(k[a])  # (N, C, out_a, k_a)
        shape = [u.shape[0], u.shape[1]] + [1] * (2 * d)
        shape[2 + a], shape[2 + d + a] = out[a], k[a]
        flat = flat * sizes[a] + pos.reshape(shape)
    return flat.reshape(u.shape[:2] + tuple(out) + (math.prod(k),))  # (no -1: N may be 0)


def _fractional_max_pool(fn: str, d: int, input: Any, kernel_size: Any, output_size: Any, output_ratio: Any,
                         return_indices: bool, samples: Any) -> Any:
    refuse_complex(fn, input)
    x = _tensor(input)
    if x.ndim not in (d + 1, d + 2):
        raise InputMismatch(f"{fn}: expected a {d + 1}-D or {d + 2}-D input, got shape {x.shape}")
    unbatched = x.ndim == d + 1
    if unbatched:
        x = mf.expand_dims(x, 0)
    if 0 in x.shape[1:]:  # (an empty batch pools to an empty batch; an empty plane has no window)
        raise InputMismatch(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but got "
                            f"{list(x.shape)}")
    k, sizes = _ntuple(kernel_size, d, "kernel_size", fn), x.shape[2:]
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fn} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratio = _ratios(fn, output_ratio, d)
        output_size = tuple(int(n * r) for n, r in zip(sizes, ratio))
    out = _ntuple(output_size, d, "output_size", fn)
    _check_fit(fn, d, sizes, k, out)
    if samples is None:
        samples = rand(x.shape[0], x.shape[1], d, dtype=x.dtype, device=x.device)
    samples = _tensor(samples, x)
    _check_samples(fn, samples.shape, x.shape, d)
    # PyTorch reads the first N rows: more samples than batch rows are allowed (an unbatched input takes row 0)
    u = np.asarray(samples.device.xp.to_host(samples._data), dtype=x.dtype)[:x.shape[0]]
    # PyTorch's sample order: the width's first (2-D: width, height; 3-D: depth, height, width)
    u = u[:, :, ::-1] if d == 2 else u
    positions = _window_positions(u, sizes, out, k)
    planes = mf.reshape(x, x.shape[:2] + (math.prod(sizes),))
    xp = x.device.xp
    per_plane = x.shape[:2] + (math.prod(out) * math.prod(k),)  # (no -1 in these reshapes: N may be 0)
    windows = xp.take_along_axis(planes._data, xp.asarray(positions.reshape(per_plane)), axis=2)
    windows = windows.reshape(positions.shape)
    pick = xp.to_host(_first_max_or_last_nan(xp, windows))
    chosen = np.take_along_axis(positions, pick[..., None], axis=-1)[..., 0]
    flat_chosen = Tensor.constant(xp.asarray(chosen.reshape(x.shape[:2] + (math.prod(out),))), x.device)
    # like=x: the gradient stays on x's graph, as PyTorch's fractional_max_pool backward that takes the input
    result = mf.reshape(take_along_axis_in_range(planes, flat_chosen, axis=2, like=x), x.shape[:2] + out)
    indices = Tensor.constant(xp.asarray(chosen), x.device)
    if unbatched:
        result, indices = mf.squeeze(result, 0), mf.squeeze(indices, 0)
    return (result, indices) if return_indices else result


def _check_fit(fn: str, d: int, sizes: tuple, k: tuple, out: tuple) -> None:
    """PyTorch's checks that each axis's windows fit the input, in its words (a RuntimeError there; the
    engine's InputMismatch is one); an output size of 0 fits (an empty output, as PyTorch's)."""
    for n, kk, o, axis in zip(sizes, k, out, ("time", "height", "width")[3 - d:]):
        if kk < 1 or o < 0:
            raise InputMismatch(f"{fn}(): expected a positive pool {axis} and a non-negative output {axis}, "
                                f"got {kk} and {o}")
        if o + kk - 1 > n - (d == 3):  # PyTorch's 3-D check is one stricter than its 2-D one
            raise InputMismatch(f"{fn}(): pool {axis} {kk} too large relative to input {axis} {n}")


def _check_samples(fn: str, shape: tuple, input_shape: tuple, d: int) -> None:
    """PyTorch's checks of ``_random_samples`` (N', C, d): N' may exceed the input's batch N, not fall short."""
    if len(shape) != 3:
        raise InputMismatch(f"{fn}: expected _random_samples to have 3 dimensions, got {len(shape)}")
    if shape[0] < input_shape[0]:
        raise InputMismatch(f"{fn}: expected _random_samples.size(0) no less than the input's batch size "
                            f"{input_shape[0]}, got shape {tuple(shape)}")
    if shape[1] != input_shape[1] or shape[2] != d:
        raise InputMismatch(f"{fn}: expected _random_samples of shape (N, {input_shape[1]}, {d}) for "
                            f"{input_shape[1]} channels and {d} axes, got {tuple(shape)}")


def _ratios(fn: str, output_ratio: Any, d: int) -> tuple[float, ...]:
    ratio = tuple(float(r) for r in output_ratio) if isinstance(output_ratio, (tuple, list)) \
        else (float(output_ratio),) * d
    if len(ratio) != d:
        raise ValueError(f"{fn}: output_ratio must be a number or {d} numbers, got {output_ratio}")
    return ratio


def _first_max_or_last_nan(xp: Any, windows: Any) -> Any:
    """Per window (last axis), PyTorch's pick: ``val > best or isnan(val)`` scanning in order."""
    pick = xp.argmax(windows, axis=-1)  # the first maximum (or the first NaN)
    nan = xp.isnan(windows)
    last_nan = windows.shape[-1] - 1 - xp.argmax(nan[..., ::-1], axis=-1)
    return xp.where(nan.any(axis=-1), last_nan, pick)


def fractional_max_pool2d(input: Any, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Any = None) -> Any:
    """Max over ``kernel_size`` windows at pseudo-random places of (N, C, H, W) or (C, H, W), to
    ``output_size`` (or ``int(size * output_ratio)``); ``_random_samples`` (N, C, 2) in [0, 1) fixes
    the places (PyTorch's; drawn when not given).  ``return_indices=True`` also returns each maximum's
    flat position ``row * W + col`` (for ``max_unpool2d``)."""
    return _fractional_max_pool("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio,
                                return_indices, _random_samples)


def fractional_max_pool3d(input: Any, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                          return_indices: bool = False, _random_samples: Any = None) -> Any:
    """``fractional_max_pool2d`` over (N, C, D, H, W) or (C, D, H, W); ``_random_samples`` is (N, C, 3)."""
    return _fractional_max_pool("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio,
                                return_indices, _random_samples)
