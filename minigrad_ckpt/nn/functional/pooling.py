"""Pooling: ``max_pool1d``/``2d``, ``avg_pool1d``/``2d``, ``adaptive_avg_pool2d``, ``adaptive_max_pool2d``."""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import host_numpy
from ...functional import _tensor
from ...ops import conv as _conv
from ...tape import apply
from ...tensor import Tensor
from .conv import _as_2d, _batched, _from_2d, _pair, _single

__all__ = [
    "max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d",
]


def _pool_args(x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any, name: str):
    k = _pair(kernel_size, "kernel_size")
    s = k if stride is None else _pair(stride, "stride")
    p = _pair(padding, "padding")
    d = _pair(dilation, "dilation")
    if min(k) < 1 or min(s) < 1 or min(d) < 1:
        raise ValueError(f"{name}: kernel_size, stride and dilation must be >= 1")
    if p[0] > k[0] // 2 or p[1] > k[1] // 2 or min(p) < 0:
        raise ValueError(f"{name}: padding {p} must be between 0 and half the kernel size {k}")
    for size, kk, pp, dd in zip(x.shape[2:], k, p, d):
        if size + 2 * pp < dd * (kk - 1) + 1:
            raise ValueError(f"{name}: kernel {k} is larger than the padded input {x.shape[2:]}")
    return k, s, p, d


def max_pool2d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1) -> Tensor:
    """Max over windows; the gradient goes to the first maximum of each window (PyTorch)."""
    x, unbatched = _batched(_tensor(x), "max_pool2d")
    k, s, p, d = _pool_args(x, kernel_size, stride, padding, dilation, "max_pool2d")
    out = apply(_conv.MaxPool2d(kernel=k, stride=s, padding=p, dilation=d), x, x.detach())
    return mf.squeeze(out, 0) if unbatched else out


def avg_pool2d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               count_include_pad: bool = True) -> Tensor:
    """Mean over windows (a depthwise convolution with a constant kernel).

    With ``count_include_pad=False`` the divisor at the border counts only real
    input elements, as in PyTorch.
    """
    x, unbatched = _batched(_tensor(x), "avg_pool2d")
    k, s, p, _ = _pool_args(x, kernel_size, stride, padding, 1, "avg_pool2d")
    n, c, h, w = x.shape
    xp = x.device.xp
    ones = Tensor.constant(xp.full((1, 1) + k, 1.0, dtype=x.dtype), x.device)
    flat = mf.reshape(x, (n * c, 1, h, w))
    conv = _conv.Conv2d(stride=s, padding=p, dilation=(1, 1), groups=1)
    sums = apply(conv, flat, ones)
    if count_include_pad or p == (0, 0):
        out = sums * (1.0 / (k[0] * k[1]))
    else:
        counts = xp.conv2d(xp.ones((1, 1, h, w), dtype=x.dtype), ones._data, s, p, (1, 1), 1)
        out = sums / Tensor.constant(counts, x.device)
    out = mf.reshape(out, (n, c) + out.shape[2:])
    return mf.squeeze(out, 0) if unbatched else out


def max_pool1d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1) -> Tensor:
    """Max over windows of the last axis of (N, C, L) or (C, L)."""
    x2, unbatched = _as_2d(_tensor(x), "max_pool1d")
    k = _single(kernel_size, "kernel_size")
    s = k if stride is None else _single(stride, "stride")
    out = max_pool2d(x2, (1, k), (1, s), (0, _single(padding, "padding")), (1, _single(dilation, "dilation")))
    return _from_2d(out, unbatched)


def avg_pool1d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               count_include_pad: bool = True) -> Tensor:
    """Mean over windows of the last axis of (N, C, L) or (C, L)."""
    x2, unbatched = _as_2d(_tensor(x), "avg_pool1d")
    k = _single(kernel_size, "kernel_size")
    s = k if stride is None else _single(stride, "stride")
    out = avg_pool2d(x2, (1, k), (1, s), (0, _single(padding, "padding")), count_include_pad)
    return _from_2d(out, unbatched)


def _adaptive_windows(size: int, out: int) -> list[tuple[int, int]]:
    # PyTorch's windows: [floor(i * size / out), ceil((i + 1) * size / out))
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_pool2d(x: Any, output_size: Any, name: str, reduce: Any) -> Tensor:
    x, unbatched = _batched(_tensor(x), name)
    if isinstance(output_size, (int, host_numpy.integer)) or output_size is None:
        output_size = (output_size, output_size)
    oh, ow = (x.shape[2] if output_size[0] is None else int(output_size[0]),
              x.shape[3] if output_size[1] is None else int(output_size[1]))
    if oh < 1 or ow < 1:
        raise ValueError(f"{name}: output_size must be positive, got {output_size}")
    rows = []
    for h0, h1 in _adaptive_windows(x.shape[2], oh):
        cols = [reduce(x[:, :, h0:h1, w0:w1], axis=(2, 3)) for w0, w1 in _adaptive_windows(x.shape[3], ow)]
        rows.append(mf.stack(cols, axis=-1))
    out = mf.stack(rows, axis=-2)
    return mf.squeeze(out, 0) if unbatched else out


def adaptive_avg_pool2d(x: Any, output_size: Any) -> Tensor:
    """Average over PyTorch's adaptive windows so the output is ``output_size`` (an int, a pair,
    ``None`` keeps that axis); evenly dividing sizes are one ``avg_pool2d``."""
    xt = _tensor(x)
    if xt.ndim in (3, 4):
        h, w = xt.shape[-2:]
        size = (output_size, output_size) if isinstance(output_size, (int, host_numpy.integer)) else output_size
        oh, ow = (h if size[0] is None else int(size[0])), (w if size[1] is None else int(size[1]))
        if oh >= 1 and ow >= 1 and h % oh == 0 and w % ow == 0:
            return avg_pool2d(xt, (h // oh, w // ow))
    return _adaptive_pool2d(xt, output_size, "adaptive_avg_pool2d", mf.mean)


def adaptive_max_pool2d(x: Any, output_size: Any, return_indices: bool = False) -> Tensor:
    """Max over PyTorch's adaptive windows so the output is ``output_size``."""
    if return_indices:
        raise ValueError("adaptive_max_pool2d: return_indices=True is not supported")
    return _adaptive_pool2d(x, output_size, "adaptive_max_pool2d", mf.max)
