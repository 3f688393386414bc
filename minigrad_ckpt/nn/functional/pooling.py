"""Pooling: ``max_pool1d``/``2d``, ``avg_pool1d``/``2d``, ``adaptive_avg_pool2d``, ``adaptive_max_pool2d``."""

from __future__ import annotations

import itertools
import math
from typing import Any

from ... import functional as mf
from ...backend import channels_last, channels_last_3d, host_numpy
from ...functional import _tensor
from ...functional.arguments import in_float32_if_half, refuse_complex
from ...functional.errors import InputMismatch, first_out_of_range
from ...functional.indexing import take_along_axis_in_range
from ...functional.scatter import scatter
from ...ops import conv as _conv
from ...tape import apply
from ...tensor import Tensor
from .conv import _AXES, _as_2d, _batched, _from_2d, _ntuple, _pair, _single, no_stride, on_a_height_of_1
from .inputs import _zeros_like, check_index_dtype, floating_kernel, refuse_average_without_kernel

__all__ = [
    "max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "max_unpool1d", "max_unpool2d",
]


def _pool_args(x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any, name: str,
               ceil_mode: bool = False):
    k, p, d = (_pair(v, which, name, one_for_all=True) for v, which in (
        (kernel_size, "kernel_size"), (padding, "padding"), (dilation, "dilation")))
    s = k if no_stride(stride) else _pair(stride, "stride", name, one_for_all=True)
    if min(k) < 1 or min(s) < 1 or min(d) < 1:
        raise InputMismatch(window_refusal(name, k, s, d))
    if p[0] > k[0] // 2 or p[1] > k[1] // 2 or min(p) < 0:
        raise InputMismatch(padding_refusal(name, p, k, d))
    _check_pooled_sizes(name, x.shape, k, s, p, d, ceil_mode)
    return k, s, p, d


def window_refusal(name: str, k: Any, s: Any, d: Any) -> str:
    """Why a pool refuses a kernel, stride or dilation below 1, in PyTorch's words (its tests match them):
    a zero stride first (PyTorch's default stride is the kernel, so ``max_pool2d(x, 0)`` says it), then
    the first of the three with a value below 1, each dim named (``kH: 2 kW: 0``).  Ours follow."""
    ours = f" ({name}: kernel_size, stride and dilation must be >= 1)"
    if 0 in s:
        return f"stride should not be zero{ours}"
    letters = "THW"[-len(k):]
    for what, prefix, values in (("kernel size", "k", k), ("stride", "d", s), ("dilation", "dilation", d)):
        if min(values) < 1:
            got = " ".join(f"{prefix}{letter}: {v}" for letter, v in zip(letters, values))
            return f"{what} should be greater than zero, but got {got}{ours}"
    raise AssertionError("window_refusal called for a valid window")


def padding_refusal(name: str, p: Any, k: Any, d: Any) -> str:
    """Why a pool refuses its padding ``p``, in PyTorch's words (its tests match them): dim after dim, a
    negative pad, then one past half the *dilated* kernel; a pad within that but past half the kernel itself
    is refused by PyTorch's later shape check, in its words.  The engine's own words follow."""
    ours = f" (padding {p} must be between 0 and half the kernel size {k})"
    for pad, kernel, dilation in zip(p, k, d):
        if pad < 0:
            return f"{name}: pad must be non-negative, but got pad: {pad}{ours}"
        if pad > ((kernel - 1) * dilation + 1) // 2:
            return (f"{name}: pad should be at most half of effective kernel size, but got pad={pad}, "
                    f"kernel_size={kernel} and dilation={dilation}{ours}")
    if len(p) == 3:
        return (f"{name}: pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} kW: {k[2]} "
                f"kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}{ours}")
    return (f"{name}: pad should be smaller than or equal to half of kernel size, but got padW = {p[1]}, "
            f"padH = {p[0]}, kW = {k[1]}, kH = {k[0]}{ours}")


def pool_batched(x: Tensor, name: str, spatial: int = 2) -> tuple[Tensor, bool]:
    """:func:`_batched` for a pool, refusing an input of another rank in PyTorch's words."""
    if x.ndim != spatial + 1 and x.ndim != spatial + 2:
        axes = _AXES[spatial]
        ours = (f"expected a {spatial + 1}-D (C, {axes}) or {spatial + 2}-D (N, C, {axes}) input, got shape "
                f"{x.shape}")
        if name == "avg_pool2d":  # (PyTorch's avg_pool2d says it in the words of its shape check)
            raise InputMismatch(f"{name}: Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                                f"input, but got:{list(x.shape)} ({ours})")
        raise InputMismatch(f"{name}: non-empty {spatial + 1}D or {spatial + 2}D (batch mode) tensor expected for "
                            f"input ({ours})")
    return _batched(x, name, spatial)


def refuse_empty_planes(name: str, shape: Any) -> None:
    """PyTorch's pools take an empty batch (N = 0) but refuse an empty channel or spatial dim of
    the batched (N, C, ...) ``shape`` (``max_pool2d`` of (2, 0, 4, 4) or of an unbatched (0, 4, 4)).
    Its adaptive pools check every dim after the first of the input *as given*: the ``shape`` passed
    here is then the unbatched one, so an unbatched (0, ...) answers (``adaptive_max_pool2d`` of
    (0, 4, 4) is (0, 2, 2)); its ``adaptive_avg_pool1d``/``2d`` answer an empty channel either way."""
    if 0 in shape[1:]:
        raise InputMismatch(f"{name}: expected the input's non-batch dims to have positive length, got "
                            f"{tuple(shape)}")


def _check_pooled_sizes(name: str, shape: Any, k: Any, s: Any, p: Any, d: Any, ceil_mode: bool) -> None:
    """PyTorch's rule: every output length must be at least 1.  A kernel longer than the padded
    input is refused unless ``ceil_mode`` keeps one partial window (then it is pooled)."""
    refuse_empty_planes(name, shape)
    sizes = shape[2:]
    out = tuple(_pooled_size(*args, ceil_mode) for args in zip(sizes, k, s, p, d))
    if min(out) < 1:  # PyTorch's words (its tests match them), counting the channels; ours after them
        given, computed = ("x".join(str(n) for n in (shape[1], *ns)) for ns in (sizes, out))
        raise InputMismatch(f"Given input size: ({given}). Calculated output size: ({computed}). Output size is too "
                            f"small ({name}: kernel {k} (dilation {d}, padding {p}) is larger than the input "
                            f"{tuple(sizes)}: the output size {out} would be empty)")


def _pooled_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's output length: the windows that fit (``ceil_mode``: also a last partial
    window, as long as it starts inside the input or its left padding)."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _ceil_extra(sizes: Any, k: Any, s: Any, p: Any, d: Any, ceil_mode: bool) -> tuple[int, ...]:
    """How far the last window of each axis reaches past the right padding (0 without ``ceil_mode``)."""
    extra = []
    for size, kk, ss, pp, dd in zip(sizes, k, s, p, d):
        out = _pooled_size(size, kk, ss, pp, dd, ceil_mode)
        extra.append(max(0, (out - 1) * ss + dd * (kk - 1) + 1 - (size + 2 * pp)))
    return tuple(extra)


def _pad_right(x: Tensor, extra: tuple[int, int], value: float) -> Tensor:
    return mf.pad(x, [(0, 0), (0, 0), (0, extra[0]), (0, extra[1])], constant_values=value)


def _window_argmax(routing: Tensor, k: Any, s: Any, p: Any, d: Any, width: int) -> Tensor:
    """PyTorch's ``return_indices``: the flat position ``row * W + col`` in the (unpadded)
    input plane of each window's first maximum (or last NaN), int64."""
    xp = routing.device.xp
    idx, (ho, wo) = _conv._argmax_in_windows(xp, routing._data, k, s, p, d)
    rows = xp.arange(ho).reshape(ho, 1) * s[0] - p[0] + (idx // k[1]) * d[0]
    cols = xp.arange(wo).reshape(1, wo) * s[1] - p[1] + (idx % k[1]) * d[1]
    return Tensor.constant(xp.asarray(rows * width + cols, dtype=xp.int64), routing.device)


@floating_kernel("max_pool2d", "b")
def max_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max over windows; the gradient goes to the first maximum of each window (the last NaN in a
    window with one), as PyTorch's.

    ``ceil_mode=True`` keeps a last partial window (one that starts inside the input or
    its left padding); ``return_indices=True`` returns ``(out, indices)``, the flat
    position ``row * W + col`` of each maximum in its input plane (for ``max_unpool2d``).
    """
    refuse_complex("max_pool2d", input)
    input, unbatched = pool_batched(_tensor(input), "max_pool2d")
    k, s, p, d = _pool_args(input, kernel_size, stride, padding, dilation, "max_pool2d", ceil_mode)
    extra = _ceil_extra(input.shape[2:], k, s, p, d, ceil_mode)
    # the routing is the input itself (its own edge, whose gradient is 0): the backward stays on the input's
    # graph, as PyTorch's max_pool2d_with_indices_backward, so a second derivative is zeros, not None
    values, routing = input, input
    if any(extra):  # the partial windows' missing places: never the maximum, no gradient
        lowest = -float("inf") if input.dtype.kind == "f" else host_numpy.iinfo(input.dtype).min  # (int(-inf) failed)
        values, routing = _pad_right(input, extra, 0.0), _pad_right(input, extra, lowest)
    out = apply(_conv.MaxPool2d(kernel=k, stride=s, padding=p, dilation=d, own_max=values is input), values, routing)
    # only a dilated window can lie wholly in the padding: PyTorch's max there is -inf
    off = _windows_off_the_input(input.shape[2:], k, s, p, d, out.shape[2:]) if max(d) > 1 else None
    if off is not None:
        out = mf.where(Tensor.constant(input.device.xp.asarray(off), input.device), -float("inf"), out)
    out = _channels_last_like(input, out)
    if unbatched:
        out = mf.squeeze(out, 0)
    if not return_indices:
        return out
    indices = _channels_last_like(input, _window_argmax(routing, k, s, p, d, input.shape[3]))
    return out, (mf.squeeze(indices, 0) if unbatched else indices)


def _windows_off_the_input(sizes: Any, k: Any, s: Any, p: Any, d: Any, outs: Any) -> Any:
    """The (H_out, W_out) outputs whose window reads no input element (every tap in the padding or
    past the end), or None when there are none."""
    hits = []
    for size, kk, ss, pp, dd, o in zip(sizes, k, s, p, d, outs):
        taps = host_numpy.arange(o)[:, None] * ss - pp + host_numpy.arange(kk) * dd
        hits.append(((taps >= 0) & (taps < size)).any(axis=1))
    off = ~(hits[0][:, None] & hits[1][None, :])
    return off if off.any() else None


def _window_counts(size: int, k: int, s: int, p: int, out: int, include_pad: bool) -> Any:
    """Per output position along one axis, PyTorch's divisor: the window's length clipped to
    the padded input (``include_pad``) or to the input itself."""
    start = host_numpy.arange(out) * s - p
    end = host_numpy.minimum(start + k, size + p)
    if include_pad:
        return end - start
    return host_numpy.minimum(end, size) - host_numpy.maximum(start, 0)


def _truncated_integer_mean(pool: Any, input: Tensor, *args: Any) -> Tensor:
    """PyTorch's average pooling of an integer tensor: its dtype, each window's mean truncated toward 0
    (``pool`` runs on a float64 copy)."""
    return mf.astype(mf.trunc(pool(mf.astype(input, "float64"), *args)), input.dtype)


@floating_kernel("avg_pool2d", ('b', 'int8', 'int16', 'int32', 'uint8', 'c'))
@in_float32_if_half  # window sums of float16 overflow (two 65504s): PyTorch's half kernel sums in float
def avg_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Mean over windows (a depthwise convolution with a constant kernel), PyTorch's divisors.

    ``count_include_pad=False`` divides by the number of real input elements in a window;
    ``ceil_mode=True`` keeps a last partial window, whose divisor counts only the places
    inside the padded input; ``divisor_override`` divides every window's sum by that number.
    """
    input = _tensor(input)
    if input.dtype.kind in "iu":
        return _truncated_integer_mean(avg_pool2d, input, kernel_size, stride, padding, ceil_mode,
                                      count_include_pad, divisor_override)
    input, unbatched = pool_batched(input, "avg_pool2d")
    k, s, p, _ = _pool_args(input, kernel_size, stride, padding, 1, "avg_pool2d", ceil_mode)
    if divisor_override is not None and int(divisor_override) == 0:
        raise InputMismatch("avg_pool2d: divisor_override must be non-zero")
    n, c, h, w = input.shape
    extra = _ceil_extra((h, w), k, s, p, (1, 1), ceil_mode)
    xp = input.device.xp
    ones = Tensor.constant(xp.full((1, 1) + k, 1.0, dtype=input.dtype), input.device)
    flat = mf.reshape(input, (n * c, 1, h, w))
    if any(extra):
        flat = _pad_right(flat, extra, 0.0)
    sums = apply(_conv.Conv2d(stride=s, padding=p, dilation=(1, 1), groups=1), flat, ones)
    if divisor_override is not None:
        out = sums * (1.0 / int(divisor_override))
    else:
        ch, cw = (_window_counts(size, kk, ss, pp, o, count_include_pad)
                  for size, kk, ss, pp, o in zip((h, w), k, s, p, sums.shape[2:]))
        counts = host_numpy.outer(ch, cw)
        if (counts == counts.flat[0]).all():  # one divisor for every window: a scalar
            out = sums * (1.0 / int(counts.flat[0]))
        else:
            out = sums / Tensor.constant(xp.asarray(counts.astype(input.dtype)), input.device)
    out = _channels_last_like(input, mf.reshape(out, (n, c) + out.shape[2:]))
    return mf.squeeze(out, 0) if unbatched else out


def _channels_last_like(input: Tensor, out: Tensor) -> Tensor:
    """``out`` channels-last where the (N, C, H, W) ``input`` is (channels-last-3d for an
    (N, C, D, H, W) one), as PyTorch's pools return it (their channels-last kernels; the indices
    of the max pools too); ``out`` itself otherwise.  The windows are summed on a row-major copy
    either way, so the values are the same bits: only the layout is copied, and only for a
    channels-last input."""
    layout = channels_last if input.ndim == 4 else channels_last_3d
    if input.is_contiguous() or not input.is_contiguous(memory_format=layout):
        return out
    return out.contiguous(memory_format=layout)


@floating_kernel("max_pool1d_impl")
def max_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max over windows of the last axis of (N, C, L) or (C, L); the keywords as ``max_pool2d``'s
    (``return_indices`` gives positions along L)."""
    refuse_complex("max_pool1d", input)
    x2, unbatched = _as_2d(_tensor(input), "max_pool1d")
    k = _single(kernel_size, "kernel_size", "max_pool1d")
    s = k if no_stride(stride) else _single(stride, "stride", "max_pool1d")
    p, d = _single(padding, "padding", "max_pool1d"), _single(dilation, "dilation", "max_pool1d")
    # PyTorch's max_pool1d has its own kernel and checks (with return_indices it runs max_pool2d's, as here)
    if not return_indices and (min(k, s, d) < 1 or not 0 <= p <= k // 2 or
                               _pooled_size(x2.shape[-1], k, s, p, d, ceil_mode) < 1):
        raise InputMismatch(_max_pool1d_refusal(k, s, p, d, x2.shape[-1], ceil_mode))
    with on_a_height_of_1("max_pool1d", "max_pool2d"):
        out = max_pool2d(x2, (1, k), (1, s), (0, p), (1, d), ceil_mode=ceil_mode, return_indices=return_indices)
    if return_indices:
        return _from_2d(out[0], unbatched), _from_2d(out[1], unbatched)
    return _from_2d(out, unbatched)


def _max_pool1d_refusal(k: int, s: int, p: int, d: int, length: int, ceil_mode: bool) -> str:
    """Why PyTorch's own ``max_pool1d`` refuses its arguments, in its words and order; ours after them."""
    ours = f" (max_pool1d: kernel_size {k}, stride {s}, padding {p}, dilation {d} for a length of {length})"
    for what, v in (("kernel_size", k), ("stride", s), ("dilation", d)):
        if v < 1:
            return f"max_pool1d() {what} must be greater than zero, but got {v}{ours}"
    if p < 0:
        return f"max_pool1d() padding must be non-negative, but got {p}{ours}"
    if p > k // 2:
        return (f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
                f"kernel_size={k}{ours}")
    return f"max_pool1d() Invalid computed output size: {_pooled_size(length, k, s, p, d, ceil_mode)}{ours}"


@floating_kernel("avg_pool2d", ('b', 'int8', 'int16', 'int32', 'uint8', 'c'))
@in_float32_if_half
def avg_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Mean over windows of the last axis of (N, C, L) or (C, L); the keywords as ``avg_pool2d``'s."""
    x2, unbatched = _as_2d(_tensor(input), "avg_pool1d")
    k = _single(kernel_size, "kernel_size", "avg_pool1d")
    s = k if no_stride(stride) else _single(stride, "stride", "avg_pool1d")
    with on_a_height_of_1("avg_pool1d", "avg_pool2d"):
        out = avg_pool2d(x2, (1, k), (1, s), (0, _single(padding, "padding", "avg_pool1d")), ceil_mode=ceil_mode,
                         count_include_pad=count_include_pad)
    return _from_2d(out, unbatched)


def _adaptive_windows(size: int, out: int) -> list[tuple[int, int]]:
    # PyTorch's windows: [floor(i * size / out), ceil((i + 1) * size / out))
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


_INT64_MAX = 2 ** 63 - 1


def refuse_output_size_arity(name: str, output_size: Any, spatial: int) -> None:
    """An adaptive pool's ``output_size`` of another length than its spatial axes, in PyTorch's words
    (the average pools' and the max pools' differ); ``(2, 2, 2)`` for a 2-D pool was answered silently
    by the evenly-dividing fast path, ``(2,)`` an IndexError."""
    if not isinstance(output_size, (int, host_numpy.integer)) and output_size is not None \
            and len(output_size) != spatial:
        raise InputMismatch(f"{name}(): internal error: output_size.size() must be {spatial} (got {output_size})"
                            if "max" in name else f"{name}: output_size must be {spatial} (got {output_size})")


def _adaptive_sizes(x: Tensor, output_size: Any, name: str) -> tuple[int, ...]:
    """The output's spatial sizes: ``output_size`` is an int or one entry per spatial axis of the
    batched ``x``, ``None`` keeping that axis's size."""
    spatial = x.ndim - 2
    if isinstance(output_size, (int, host_numpy.integer)) or output_size is None:
        output_size = (output_size,) * spatial
    refuse_output_size_arity(name, output_size, spatial)
    sizes = tuple(n if o is None else int(o) for n, o in zip(x.shape[2:], output_size))
    if min(sizes) < 0:  # PyTorch's words (a 0 is an empty output there, and here)
        raise InputMismatch(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                            f"{{{', '.join(map(str, sizes))}}}")
    # PyTorch's refusal of an output it cannot count; here the window loop would run until memory ran out
    if max(x.shape[0], 1) * max(x.shape[1], 1) * math.prod(sizes) > _INT64_MAX:
        raise InputMismatch(f"Storage size calculation overflowed with sizes={list(x.shape[:2]) + list(sizes)}")
    return sizes


def empty_adaptive_output(x: Tensor, sizes: tuple[int, ...]) -> Tensor:
    """PyTorch's forward answer to an adaptive pool's ``output_size`` holding a 0: the empty
    ``(N, C) + sizes``, on ``x``'s graph, so that its gradient is x's zeros (PyTorch's backward
    refuses an empty ``grad_output``; see docs/from-pytorch.md)."""
    n, c = x.shape[:2]
    rows = mf.reshape(x, (n, c, math.prod(x.shape[2:])))
    return mf.reshape(rows[:, :, :0], (n, c) + tuple(sizes))


def _adaptive_pool2d(x: Any, output_size: Any, name: str, reduce: Any) -> Tensor:
    x, unbatched = _batched(_tensor(x), name)
    oh, ow = _adaptive_sizes(x, output_size, name)
    if not oh or not ow:
        out = empty_adaptive_output(x, (oh, ow))
        return mf.squeeze(out, 0) if unbatched else out
    rows = []
    for h0, h1 in _adaptive_windows(x.shape[2], oh):
        cols = [reduce(x[:, :, h0:h1, w0:w1], axis=(2, 3)) for w0, w1 in _adaptive_windows(x.shape[3], ow)]
        rows.append(mf.stack(cols, axis=-1))
    out = _channels_last_like(x, mf.stack(rows, axis=-2))
    return mf.squeeze(out, 0) if unbatched else out


def _adaptive_argmax(x: Tensor, sizes: tuple[int, ...]) -> Any:
    """The flat position (row-major over the spatial axes: ``row * W + col`` in a plane) of each
    adaptive window's maximum, an int64 array of shape ``(N, C) + sizes``: the first maximum, or
    the last NaN where the window has one (PyTorch's kernels replace the running maximum by every
    NaN they meet, here as in ``max_pool``: ``conv.last_nan_picks``)."""
    xp = x.device.xp
    data, spatial = x._data, x.shape[2:]
    places = host_numpy.cumprod((1,) + spatial[:0:-1])[::-1]  # the flat step of each spatial axis
    flat = []
    for window in itertools.product(*(_adaptive_windows(n, o) for n, o in zip(spatial, sizes))):
        part = data[(slice(None),) * 2 + tuple(slice(a, b) for a, b in window)]
        lengths = [stop - start for start, stop in window]
        part = xp.reshape(part, data.shape[:2] + (int(host_numpy.prod(lengths)),))  # (no -1: N may be 0)
        nan = xp.isnan(part)
        last_nan = part.shape[-1] - 1 - xp.argmax(nan[..., ::-1], axis=-1)
        best = xp.where(xp.any(nan, axis=-1), last_nan, xp.argmax(part, axis=-1))
        pos = 0
        for i, ((start, _), place) in enumerate(zip(window, places)):
            inner = int(host_numpy.prod(lengths[i + 1:]))  # a step along this axis in the window
            pos = pos + (start + (best // inner) % lengths[i]) * int(place)
        flat.append(pos)
    return xp.reshape(xp.asarray(xp.stack(flat, axis=-1), dtype=xp.int64), data.shape[:2] + tuple(sizes))


def _adaptive_max_pool(name: str, x: Any, output_size: Any, return_indices: bool, spatial: int) -> Any:
    """Max over PyTorch's adaptive windows of ``spatial`` axes: a gather at each window's maximum
    (:func:`_adaptive_argmax` picks it)."""
    refuse_complex(name, x)
    given = _tensor(x).shape
    x, unbatched = _batched(_tensor(x), name, spatial)
    sizes = _adaptive_sizes(x, output_size, name)
    n, c = x.shape[:2]
    volume = int(host_numpy.prod(x.shape[2:]))
    if volume == 0:
        raise InputMismatch(f"{name}: the input {'plane' if spatial == 2 else 'volume'} {x.shape[2:]} is empty")
    refuse_empty_planes(name, given)  # (the input as given: an unbatched (0, ...) answers, as PyTorch's)
    if 0 in sizes:
        out = empty_adaptive_output(x, sizes)
        idx = Tensor.constant(x.device.xp.zeros(out.shape, dtype=x.device.xp.int64), x.device)
        out, idx = (mf.squeeze(out, 0), mf.squeeze(idx, 0)) if unbatched else (out, idx)
        return (out, idx) if return_indices else out
    idx = Tensor.constant(_adaptive_argmax(x, sizes), x.device)
    # like=x: the gradient stays on x's graph, as PyTorch's adaptive_max_pool backward that takes the input
    flat_idx = mf.reshape(idx, (n, c, int(host_numpy.prod(sizes))))
    out = take_along_axis_in_range(mf.reshape(x, (n, c, volume)), flat_idx, axis=-1, like=x)
    out = mf.reshape(out, (n, c) + sizes)
    if spatial == 2:  # (PyTorch's 3-D one answers row-major)
        out, idx = _channels_last_like(x, out), _channels_last_like(x, idx)
    if unbatched:
        out, idx = mf.squeeze(out, 0), mf.squeeze(idx, 0)
    return (out, idx) if return_indices else out


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Tensor:
    """Average over PyTorch's adaptive windows so the output is ``output_size`` (an int, a pair,
    ``None`` keeps that axis); evenly dividing sizes are one ``avg_pool2d``."""
    refuse_average_without_kernel("adaptive_avg_pool2d", input, output_size)
    refuse_output_size_arity("adaptive_avg_pool2d", output_size, 2)
    xt = _tensor(input)
    if xt.ndim in (3, 4) and 0 in xt.shape[-2:]:  # an empty plane is refused; an empty channel dim answers
        raise InputMismatch(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                            f"dimensions, but input has sizes {list(xt.shape)} with dimension "
                            f"{xt.ndim - 2 + list(xt.shape[-2:]).index(0)} being empty")
    if xt.ndim in (3, 4) and xt.dtype.kind != "c":  # (complex: a global mean, not avg_pool2d's kernel)
        h, w = xt.shape[-2:]
        size = (output_size, output_size) if isinstance(output_size, (int, host_numpy.integer)) else output_size
        oh, ow = (h if size[0] is None else int(size[0])), (w if size[1] is None else int(size[1]))
        if oh >= 1 and ow >= 1 and h % oh == 0 and w % ow == 0 and 0 not in xt.shape[-3:]:
            return avg_pool2d(xt, (h // oh, w // ow))  # (an empty channel dim is PyTorch's answer here, not an error)
    return _adaptive_pool2d(xt, output_size, "adaptive_avg_pool2d", mf.mean)


@floating_kernel("adaptive_max_pool2d")
def adaptive_max_pool2d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    """Max over PyTorch's adaptive windows so the output is ``output_size``; the gradient goes to
    each window's first maximum (the last NaN in a window that has one, as PyTorch's).
    ``return_indices=True`` returns ``(out, indices)`` (flat positions ``row * W + col``, as
    ``max_pool2d``'s)."""
    return _adaptive_max_pool("adaptive_max_pool2d", input, output_size, return_indices, 2)


def _adaptive_1d(x: Any, output_size: Any, name: str) -> tuple[Tensor, bool, tuple[int, int]]:
    x2, unbatched = _as_2d(_tensor(x), name)
    if output_size is None:  # (the 2-D and 3-D pools' None keeps an axis; PyTorch's 1-D ones refuse it)
        raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, not NoneType")
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != 1:  # a second size was silently dropped
            raise InputMismatch(f"{name}() argument 'output_size' should contain one int (got {len(output_size)})")
        output_size = output_size[0]
        if output_size is None:  # (None inside the tuple is refused too: a 1-D pool has no axis to keep)
            raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, but found "
                            "element of type NoneType at pos 0")
    return x2, unbatched, (1, output_size)


def adaptive_avg_pool1d(input: Any, output_size: Any) -> Tensor:
    """Average over PyTorch's adaptive windows of the last axis of (N, C, L) or (C, L)."""
    x2, unbatched, size = _adaptive_1d(input, output_size, "adaptive_avg_pool1d")
    with on_a_height_of_1("adaptive_avg_pool1d", "adaptive_avg_pool2d"):
        return _from_2d(adaptive_avg_pool2d(x2, size), unbatched)


@floating_kernel("adaptive_max_pool2d")
def adaptive_max_pool1d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    """Max over PyTorch's adaptive windows of the last axis of (N, C, L) or (C, L);
    ``return_indices=True`` also returns the positions along L."""
    refuse_complex("adaptive_max_pool1d", input)
    x2, unbatched, size = _adaptive_1d(input, output_size, "adaptive_max_pool1d")
    if unbatched:  # (C, 1, L), the 2-D pool's unbatched input: it checks the dims after C, as PyTorch's 1-D one
        with on_a_height_of_1("adaptive_max_pool1d", "adaptive_max_pool2d"):
            out = adaptive_max_pool2d(mf.squeeze(x2, 0), size, return_indices=return_indices)
        return tuple(mf.squeeze(o, 1).contiguous() for o in out) if return_indices else mf.squeeze(out, 1).contiguous()
    with on_a_height_of_1("adaptive_max_pool1d", "adaptive_max_pool2d"):
        out = adaptive_max_pool2d(x2, size, return_indices=return_indices)
    if return_indices:
        return _from_2d(out[0], unbatched), _from_2d(out[1], unbatched)
    return _from_2d(out, unbatched)


def _unpool(name: str, x: Any, indices: Any, spatial_out: tuple[int, ...]) -> Tensor:
    """Zeros of ``(N, C) + spatial_out`` with each ``x`` value put at its flat ``indices``
    position in its plane (``max_pool``'s ``return_indices``); the gradient reads ``x``'s places back."""
    x = _tensor(x)
    idx = _tensor(indices, x)
    if idx.shape != x.shape or idx.dtype.kind not in "iu":
        raise InputMismatch(f"{name}: indices must be integers of the input's shape {x.shape}, got {idx.shape} "
                            f"{idx.dtype}")
    check_index_dtype(name, idx, ("int64",), "elements in indices should be type int64")
    plane = int(host_numpy.prod(spatial_out))
    lead = x.shape[:x.ndim - len(spatial_out)]
    rows = int(host_numpy.prod(lead))
    # each plane's count spelled out: a -1 cannot be inferred from an empty batch's 0 elements
    per_row = (rows, int(host_numpy.prod(x.shape[len(lead):])))
    zeros = _zeros_like(x, (rows, plane))
    # written, not added: overlapping windows may pick one position twice (with one value)
    try:
        out = scatter(zeros, 1, mf.reshape(idx, per_row), mf.reshape(x, per_row))
    except IndexError:  # scatter's check of the positions (its one read), in PyTorch's words for unpooling
        bad = first_out_of_range(x.device.xp.to_host(idx._data), 0, plane)
        volume = "x".join(str(n) for n in (spatial_out if len(spatial_out) > 1 else (*spatial_out, 1)))
        raise InputMismatch(f"Found an invalid max index: {bad} (output volumes are of size {volume})") from None
    return mf.reshape(out, lead + tuple(spatial_out))


def _unpool_size(name: str, in_sizes: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
                 padding: tuple[int, ...], output_size: Any) -> tuple[int, ...]:
    """The unpooled spatial sizes: pooling's input sizes, which its floor division left ambiguous by
    less than a stride; a given ``output_size`` (the spatial sizes, or with (N, C) before them) must be
    one of them, PyTorch's ValueError otherwise (a wider plane would put the indices in wrong rows)."""
    default = tuple((n - 1) * s - 2 * p + k for n, k, s, p in zip(in_sizes, kernel, stride, padding))
    if output_size is None:
        return default
    spatial = len(in_sizes)
    if len(output_size) == spatial + 2:
        output_size = output_size[2:]
    if len(output_size) != spatial:
        raise ValueError(f"output_size should be a sequence containing {spatial} or {spatial + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d, (size, s) in enumerate(zip(output_size, stride)):
        if not default[d] - s < size < default[d] + s:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {default[d] - s} '
                             f"and {default[d] + s})")
    return tuple(int(v) for v in output_size)


def _max_unpool(name: str, x: Any, indices: Any, kernel_size: Any, stride: Any, padding: Any, output_size: Any,
                spatial: int) -> Tensor:
    """``max_unpool`` over the last ``spatial`` axes of a batched or unbatched input."""
    x = _tensor(x)
    if x.ndim not in (spatial + 1, spatial + 2):
        raise InputMismatch(f"{name}: expected a {spatial + 1}-D or {spatial + 2}-D input, got shape {x.shape}")
    k = _ntuple(kernel_size, spatial, "kernel_size", name)
    s = k if stride is None else _ntuple(stride, spatial, "stride", name)
    size = _unpool_size(name, x.shape[-spatial:], k, s, _ntuple(padding, spatial, "padding", name), output_size)
    out = _unpool(name, x, indices, size)
    # PyTorch's max_unpool2d lays its result out as the pooled input is (its max_unpool3d: row-major)
    return _channels_last_like(x, out) if spatial == 2 and x.ndim == 4 else out


def max_unpool2d(input: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The partial inverse of ``max_pool2d``: each value of ``input`` (N, C, H, W) placed at its
    ``indices`` (``max_pool2d(..., return_indices=True)``'s) in a zero plane of
    ``(H - 1) * stride - 2 * padding + kernel_size`` (or ``output_size``)."""
    return _max_unpool("max_unpool2d", input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool1d(input: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 output_size: Any = None) -> Tensor:
    """The partial inverse of ``max_pool1d`` on (N, C, L) or (C, L) (see ``max_unpool2d``)."""
    return _max_unpool("max_unpool1d", input, indices, kernel_size, stride, padding, output_size, 1)
