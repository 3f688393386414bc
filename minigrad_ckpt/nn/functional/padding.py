"""``pad`` with PyTorch's argument order (pairs from the last axis backwards) and modes."""

from __future__ import annotations

import operator
from typing import Any

from ... import functional as mf
from ...backend import host_numpy
from ...functional import _tensor
from ...functional.arguments import number
from ...functional.errors import DtypeNotImplemented, InputMismatch, ModeNotImplemented
from ...tensor import Tensor
from .result_layout import as_pytorch_lays_out

__all__ = [
    "pad",
]

# PyTorch's mode names and NumPy's ``pad`` modes that give the same indices
_INDEX_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(input: Any, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """PyTorch's ``F.pad``: ``pad`` lists (before, after) pairs from the *last* axis backwards.

    ``mode``: ``"constant"`` (``value``, default 0), ``"reflect"`` (mirrored, the edge not
    repeated), ``"replicate"`` (the edge repeated) or ``"circular"`` (wrapped around).  A
    negative width crops.  The gradient of a repeated element is the sum over its copies.
    The index modes' result is a new tensor laid out as PyTorch's (row-major; channels-last for a
    channels-last input, but for ``"circular"``).
    """
    input = _tensor(input)
    if not isinstance(mode, str):  # pad(x, pad, 1.5): the value, as this function once took it third
        mode, value = "constant", mode
    value = number("pad", "value", value, "float", position=4)
    pad = _widths(pad)
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise InputMismatch(f"pad: expected an even number of values, at most 2 * ndim, got {pad}")
    if mode != "constant" and mode not in _INDEX_MODES:
        raise ModeNotImplemented(f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}")
    if mode != "constant":
        _check_index_mode(mode, value, len(pad), input.ndim)
    if mode in ("reflect", "replicate"):
        _refuse_empty_planes(input.shape, len(pad) // 2)
    if mode in ("reflect", "replicate") and input.dtype.kind == "b":  # PyTorch's kernels have no bool version
        kernel = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{len(pad) // 2}d"
        raise DtypeNotImplemented(f"\"{kernel}\" not implemented for 'Bool'")
    widths = [(0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        widths[input.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode == "reflect":  # PyTorch mirrors about the edges of the uncropped input, then crops
        return as_pytorch_lays_out(input, _reflect(input, widths))
    if mode == "replicate":
        return as_pytorch_lays_out(input, _replicate(input, widths))
    cropped = _crop(input, widths)
    grow = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    if mode == "constant":
        return mf.pad(cropped, grow, constant_values=0.0 if value is None else value)
    out = cropped
    for axis, (lo, hi) in enumerate(grow):
        if lo or hi:
            out = mf.take(out, _indices(mode, out.shape[axis], lo, hi), axis=axis)
    return as_pytorch_lays_out(input, out, keeps_channels_last=False)  # (PyTorch's circular pad: cat of slices)


def _check_index_mode(mode: str, value: Any, size: int, ndim: int) -> None:
    """PyTorch's refusals for the modes that repeat elements: a fill value other than 0 (it would be
    ignored), and a padding that is not of the last 1, 2 or 3 dims of an input with one or two more
    (batch, channels) -- reflect, replicate and circular padding are 1-, 2- and 3-d operations there."""
    if value is not None and value != 0:
        raise InputMismatch(f'Padding mode "{mode}" doesn\'t take in value argument')
    if not (size in (2, 4, 6) and ndim in (size // 2 + 1, size // 2 + 2)):
        raise unsupported_padding_size(size, ndim)


def unsupported_padding_size(size: int, ndim: int, ours: str = "") -> ModeNotImplemented:
    """PyTorch's refusal of a reflect/replicate/circular padding of ``size`` numbers for an ``ndim``-D
    input (``F.pad``'s, and the ``ReflectionPad``/``ReplicationPad`` layers' of an input of another
    rank), with the engine's ``ours`` after it."""
    return ModeNotImplemented(
        f"Padding size {size} is not supported for {ndim}D input tensor.\n"
        "Supported combinations for non-constant padding:\n"
        "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
        "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
        f"  - 4D or 5D input: padding size = 6 (pads last 3 dimensions){ours}")


def _refuse_empty_planes(shape: tuple[int, ...], k: int) -> None:
    """PyTorch's reflection and replication kernels take an empty batch only: a dim of length 0 among the
    channels and the ``k`` padded dims is refused, padded or not (mirroring nothing answered an empty
    tensor here)."""
    lead = 1 if len(shape) == k + 2 else 0
    if 0 in shape[lead:]:
        raise InputMismatch(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other "
                            f"non-zero dimensions for input, but got: {list(shape)}")


def _widths(pad: Any) -> tuple[int, ...]:
    """``pad`` as ints: PyTorch's argument parser takes integers only (int() took 1.5 as 1)."""
    for i, p in enumerate(pad):
        if isinstance(p, bool) or not hasattr(p, "__index__"):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of "
                            f"type {type(p).__name__} at pos {i}")
    return tuple(operator.index(p) for p in pad)


def _crop(x: Tensor, widths: list[tuple[int, int]]) -> Tensor:
    """The negative widths as a slice (PyTorch crops there)."""
    if all(lo >= 0 and hi >= 0 for lo, hi in widths):
        return x
    index = []
    for n, (lo, hi) in zip(x.shape, widths):
        start, stop = max(-lo, 0), n - max(-hi, 0)
        if stop < start:
            raise InputMismatch(f"pad: cropping {-lo} and {-hi} from a dim of length {n} leaves nothing")
        index.append(slice(start, stop))
    return x[tuple(index)]


def _reflect(x: Tensor, widths: list[tuple[int, int]]) -> Tensor:
    """Reflect padding with PyTorch's meaning of a negative width: the output is the input mirrored
    about its own edges and then cropped, so a reflection on one side may show what the other side's
    negative width crops away (``(-2, 3)`` of ``0 1 2 3 4`` is ``2 3 4 3 2 1``)."""
    for axis, (lo, hi) in enumerate(widths):
        if lo or hi:
            index = _indices("reflect", x.shape[axis], max(lo, 0), max(hi, 0))
            start, stop = max(-lo, 0), len(index) - max(-hi, 0)
            _refuse_no_output(x.shape[axis], stop - start)
            x = mf.take(x, index[start:stop], axis=axis)
    return x


def _replicate(x: Tensor, widths: list[tuple[int, int]]) -> Tensor:
    """Replicate padding with PyTorch's meaning of a negative width: output place ``j`` holds the input's
    element ``clamp(j - before, 0, n - 1)``, so a crop past an edge repeats the nearest element left
    (``(-4, 5)`` of ``0 1 2 3`` is ``3 3 3 3 3``) -- cropping first left nothing to repeat."""
    for axis, (lo, hi) in enumerate(widths):
        if lo or hi:
            n = x.shape[axis]
            _refuse_no_output(n, n + lo + hi)
            x = mf.take(x, host_numpy.clip(host_numpy.arange(n + lo + hi) - lo, 0, n - 1), axis=axis)
    return x


def _refuse_no_output(n: int, out: int) -> None:
    if out < 1:  # (PyTorch's words; an empty result answered here)
        raise InputMismatch(f"pad: input (W: {n}) is too small. Calculated output W: {out}")


def _indices(mode: str, n: int, lo: int, hi: int) -> Any:
    if n == 0:
        raise InputMismatch(f"pad: mode {mode!r} needs a non-empty dim to repeat from")  # (PyTorch's RuntimeError)
    if mode == "reflect" and (lo >= n or hi >= n):
        raise InputMismatch(f"pad: reflect padding ({lo}, {hi}) must be less than the dim's length {n}")
    if mode == "circular" and (lo > n or hi > n):
        # (PyTorch's RuntimeError "Padding value causes wrapping around more than once.")
        raise InputMismatch(f"pad: circular padding ({lo}, {hi}) of a dim of length {n} would wrap around more "
                            f"than once")
    return host_numpy.pad(host_numpy.arange(n), (lo, hi), mode=_INDEX_MODES[mode])
