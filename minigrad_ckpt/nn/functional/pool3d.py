"""3-D pooling: ``max_pool3d``, ``avg_pool3d``, ``adaptive_max_pool3d`` and ``max_unpool3d`` over
(N, C, D, H, W), PyTorch's keywords.

The first two read the ``kd * kh * kw`` strided slices of the padded input -- one per kernel offset,
in row-major offset order -- stacked on a new leading axis.  ``avg_pool3d`` sums them and
divides by PyTorch's divisor (``count_include_pad``, ``ceil_mode``'s clipped windows,
``divisor_override``); ``max_pool3d`` takes, per output, the slice holding the window's
first maximum (``take_along_axis`` at the host-found argmax, so the gradient goes to that
one element, as PyTorch's).  ``adaptive_max_pool3d`` and ``max_unpool3d`` are the 2-D ones'
code (:mod:`.pooling`) run over three axes.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import host_numpy as np
from ...functional import _tensor
from ...functional.arguments import refuse_complex
from ...functional.errors import InputMismatch
from ...functional.indexing import take_along_axis_in_range
from ...ops import conv as _conv
from ...tensor import Tensor
from .conv import _ntuple, no_stride
from .inputs import floating_kernel
from .pooling import (
    _adaptive_max_pool,
    _channels_last_like,
    _check_pooled_sizes,
    _max_unpool,
    _pooled_size,
    _truncated_integer_mean,
    _window_counts,
    padding_refusal,
    pool_batched,
    window_refusal,
)

__all__ = [
    "max_pool3d", "avg_pool3d", "adaptive_max_pool3d", "max_unpool3d",
]


def _triple(v: Any, name: str, fn: str) -> tuple[int, int, int]:
    return _ntuple(v, 3, name, fn, one_for_all=True)  # type: ignore[return-value]


def _geometry(fn: str, x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool):
    k = _triple(kernel_size, "kernel_size", fn)
    s = k if no_stride(stride) else _triple(stride, "stride", fn)
    p, d = _triple(padding, "padding", fn), _triple(dilation, "dilation", fn)
    if min(k) < 1 or min(s) < 1 or min(d) < 1:
        raise InputMismatch(window_refusal(fn, k, s, d))
    if any(pp < 0 or pp > kk // 2 for pp, kk in zip(p, k)):
        raise InputMismatch(padding_refusal(fn, p, k, d))
    _check_pooled_sizes(fn, x.shape, k, s, p, d, ceil_mode)
    return k, s, p, d, tuple(_pooled_size(*args, ceil_mode) for args in zip(x.shape[2:], k, s, p, d))


def _slices(x: Tensor, k: Any, s: Any, p: Any, d: Any, out: Any, fill: float) -> Tensor:
    """The padded input's strided slices, one per kernel offset: (kd*kh*kw, N, C, Do, Ho, Wo)."""
    widths = [(pp, max(pp, (o - 1) * ss + dd * (kk - 1) + 1 - n - pp))
              for n, kk, ss, pp, dd, o in zip(x.shape[2:], k, s, p, d, out)]
    xp_ = mf.pad(x, [(0, 0), (0, 0)] + widths, constant_values=fill)
    parts = []
    for i in range(k[0]):
        for j in range(k[1]):
            for m in range(k[2]):
                a, b, c = i * d[0], j * d[1], m * d[2]
                parts.append(xp_[:, :, a:a + s[0] * (out[0] - 1) + 1:s[0], b:b + s[1] * (out[1] - 1) + 1:s[1],
                                 c:c + s[2] * (out[2] - 1) + 1:s[2]])
    return mf.stack(parts)


def _past_the_padding(x: Tensor, stacked: Any, first: Any, lowest: float, geometry: tuple) -> Any:
    """``first`` with each window whose input taps all hold ``lowest`` (-inf, or an integer's minimum) sent
    to its first input tap: ``argmax`` ties such a window with the padding (filled with ``lowest``) and
    may pick a padding tap, an index outside the input; PyTorch's loop starts at the first input tap and
    keeps it.  Only where a pick holds ``lowest``; a window wholly in the padding keeps its pick."""
    xp = x.device.xp
    picked = xp.take_along_axis(stacked, first[None], axis=0)[0]
    if not bool(xp.scalar((picked == lowest).any())):
        return first
    inside = _slices(Tensor.constant(xp.ones(x.shape, dtype=x.dtype), x.device), *geometry, 0)._data != 0
    on_input = xp.take_along_axis(inside, first[None], axis=0)[0]
    return xp.where(on_input, first, xp.argmax(inside, axis=0))


def _batched5(fn: str, x: Any) -> tuple[Tensor, bool]:
    return pool_batched(_tensor(x), fn, 3)


@floating_kernel("max_pool3d", "b")
def max_pool3d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max over 3-D windows; the gradient goes to each window's first maximum (the last NaN in a
    window with one, as PyTorch's).  ``return_indices`` also returns the flat positions
    ``(d * H + h) * W + w`` in the input volume."""
    refuse_complex("max_pool3d", input)
    input, unbatched = _batched5("max_pool3d", input)
    k, s, p, d, out = _geometry("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode)
    lowest = -float("inf") if input.dtype.kind == "f" else np.iinfo(input.dtype).min  # (an integer has no -inf)
    stacked = _slices(input, k, s, p, d, out, lowest)
    xp = input.device.xp
    # row-major offset order: the first maximum, or the last NaN of a window with one (PyTorch's)
    first = _conv.last_nan_picks(xp, stacked._data, xp.argmax(stacked._data, axis=0), 0)
    first = _past_the_padding(input, stacked._data, first, lowest, (k, s, p, d, out))
    # like=input: the gradient stays on the input's graph, as PyTorch's max_pool3d backward that takes it
    result = take_along_axis_in_range(stacked, Tensor.constant(first[None], input.device), axis=0, like=input)[0]
    result = _channels_last_like(input, result)  # (a channels-last-3d input's result is one, as PyTorch's)
    if unbatched:
        result = mf.squeeze(result, 0)
    if not return_indices:
        return result
    offsets = np.stack(np.meshgrid(*(np.arange(kk) * dd for kk, dd in zip(k, d)), indexing="ij"), -1).reshape(-1, 3)
    grids = np.meshgrid(*(np.arange(o) * ss - pp for o, ss, pp in zip(out, s, p)), indexing="ij")
    host_first = np.asarray(xp.to_host(first))
    pos = [grids[a] + offsets[host_first, a] for a in range(3)]
    dd_, hh, ww = input.shape[2:]
    flat = Tensor.constant(xp.asarray(((pos[0] * hh + pos[1]) * ww + pos[2]).astype(np.int64)), input.device)
    flat = _channels_last_like(input, flat)
    return result, (mf.squeeze(flat, 0) if unbatched else flat)


@floating_kernel("avg_pool3d_out_frame", ('b', 'int8', 'int16', 'int32', 'uint8', 'c'))
def avg_pool3d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Mean over 3-D windows with PyTorch's divisors (``count_include_pad``, ``ceil_mode``'s clipped
    windows, ``divisor_override``; an integer tensor keeps its dtype, each mean truncated toward 0)."""
    input = _tensor(input)
    if input.dtype.kind in "iu":
        return _truncated_integer_mean(avg_pool3d, input, kernel_size, stride, padding, ceil_mode,
                                      count_include_pad, divisor_override)
    input, unbatched = _batched5("avg_pool3d", input)
    if divisor_override is not None and int(divisor_override) == 0:
        raise InputMismatch("avg_pool3d: divisor_override must be non-zero")
    k, s, p, d, out = _geometry("avg_pool3d", input, kernel_size, stride, padding, 1, ceil_mode)
    if any(n < kk for n, kk in zip(input.shape[2:], k)):  # PyTorch's 3-D kernel (not the 2-D one) checks this
        raise InputMismatch(f"avg_pool3d: input {input.shape[2:]} is smaller than the kernel {k} (padding not counted)")
    sums = mf.sum(_slices(input, k, s, p, d, out, 0.0), axis=0)
    if divisor_override is not None:
        result = sums * (1.0 / int(divisor_override))
    else:
        counts = [_window_counts(n, kk, ss, pp, o, count_include_pad)
                  for n, kk, ss, pp, o in zip(input.shape[2:], k, s, p, out)]
        div = counts[0][:, None, None] * counts[1][None, :, None] * counts[2][None, None, :]
        result = sums / Tensor.constant(input.device.xp.asarray(div.astype(input.dtype)), input.device)
    return mf.squeeze(result, 0) if unbatched else result


@floating_kernel("adaptive_max_pool3d_cpu")  # (integers refused, as by adaptive_max_pool1d/2d and PyTorch's)
def adaptive_max_pool3d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    """Max over PyTorch's adaptive windows of (N, C, D, H, W) or (C, D, H, W) so the output is
    ``output_size`` (an int or a triple; ``None`` keeps that axis); the gradient goes to each
    window's first maximum (the last NaN in a window with one, as PyTorch's).  ``return_indices=True``
    also returns the flat positions ``(d * H + h) * W + w`` in the input volume (for ``max_unpool3d``)."""
    return _adaptive_max_pool("adaptive_max_pool3d", input, output_size, return_indices, 3)


def max_unpool3d(input: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The partial inverse of ``max_pool3d``: each value of ``input`` (N, C, D, H, W) or (C, D, H, W)
    placed at its ``indices`` (flat positions in the output volume, ``max_pool3d(...,
    return_indices=True)``'s) in zeros of ``(n - 1) * stride - 2 * padding + kernel_size`` per
    axis (or ``output_size``)."""
    return _max_unpool("max_unpool3d", input, indices, kernel_size, stride, padding, output_size, 3)
