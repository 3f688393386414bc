"""Convolutions: ``conv1d``, ``conv2d``, ``conv_transpose2d`` (NCHW, PyTorch's arguments).

``conv2d`` is an op of its own (:mod:`minigrad_ckpt.ops.conv`); ``conv1d``
runs it on a height of 1 and ``conv_transpose2d`` is built from registered
ops (zero insertion, padding, the flipped kernel).
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import host_numpy
from ...functional import _tensor
from ...ops import conv as _conv
from ...tape import apply
from ...tensor import Tensor
from .inputs import _check_input_dtype

__all__ = [
    "conv2d", "conv1d", "conv_transpose2d", "conv_transpose1d",
]


def _pair(v: Any, name: str) -> tuple[int, int]:
    if isinstance(v, (int, host_numpy.integer)):
        v = (int(v), int(v))
    v = tuple(int(a) for a in v)
    if len(v) != 2:
        raise ValueError(f"{name} must be an int or a pair, got {v}")
    return v  # type: ignore[return-value]


def _batched(x: Tensor, name: str) -> tuple[Tensor, bool]:
    """An image input as (N, C, H, W): a (C, H, W) input gets a batch axis of 1,
    and the flag says so, so that the caller can remove it from the result."""
    if x.ndim == 3:
        return mf.expand_dims(x, 0), True
    if x.ndim != 4:
        raise ValueError(f"{name}: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape {x.shape}")
    return x, False


def _string_padding(x: Tensor, padding: str, stride: tuple[int, int], dilation: tuple[int, int],
                    kernel: tuple[int, ...]) -> tuple[Tensor, tuple[int, int]]:
    """``padding="valid"`` (none) or ``"same"`` (the output as large as the input, stride 1):
    ``dilation * (k - 1)`` places per axis, half on each side and, when that is odd, the
    extra one on the right/bottom (PyTorch's rule).  Returns the input, padded here where
    the two sides differ, and the symmetric padding left for the convolution."""
    if padding == "valid":
        return x, (0, 0)
    if padding != "same":
        raise ValueError(f"conv2d: padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
    if stride != (1, 1):
        raise ValueError(f"conv2d: padding='same' needs stride 1, got stride={stride}")
    total = [d * (k - 1) for d, k in zip(dilation, kernel)]
    left = (total[0] // 2, total[1] // 2)
    if total[0] % 2 or total[1] % 2:
        x = mf.pad(x, [(0, 0), (0, 0), (0, total[0] % 2), (0, total[1] % 2)])
    return x, left


def conv2d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D cross-correlation, NCHW: ``x`` (N, C, H, W) or (C, H, W), ``weight`` (O, C/groups, KH, KW).

    ``padding`` is an int, a pair, ``"valid"`` (0) or ``"same"`` (stride 1 only; with an even
    effective kernel the extra row/column of zeros goes on the bottom/right, as in PyTorch).
    """
    x, unbatched = _batched(_tensor(x), "conv2d")
    w = _tensor(weight, x)
    if w.ndim != 4:
        raise ValueError(f"conv2d: expected a 4-D weight (O, C/groups, KH, KW), got shape {w.shape}")
    _check_input_dtype("conv2d", x, w)
    st, dl = _pair(stride, "stride"), _pair(dilation, "dilation")
    if isinstance(padding, str):
        x, pd = _string_padding(x, padding, st, dl, w.shape[2:])
    else:
        pd = _pair(padding, "padding")
    if min(st) < 1 or min(dl) < 1 or min(pd) < 0:
        raise ValueError(f"conv2d: stride and dilation must be >= 1 and padding >= 0, got "
                         f"stride={st}, dilation={dl}, padding={pd}")
    if groups < 1 or x.shape[1] % groups or w.shape[0] % groups:
        raise ValueError(f"conv2d: groups={groups} must divide the input channels {x.shape[1]} "
                         f"and the output channels {w.shape[0]}")
    if x.shape[1] != w.shape[1] * groups:
        raise ValueError(
            f"conv2d: input of shape {x.shape} has {x.shape[1]} channels, but weight of shape "
            f"{w.shape} expects {w.shape[1] * groups} (in_channels / groups = {w.shape[1]})"
        )
    for size, k, p, d in zip(x.shape[2:], w.shape[2:], pd, dl):
        if size + 2 * p < d * (k - 1) + 1:
            raise ValueError(f"conv2d: kernel {tuple(w.shape[2:])} (dilation {dl}) is larger than "
                             f"the padded input {tuple(x.shape[2:])} + padding {pd}")
    out = apply(_conv.Conv2d(stride=st, padding=pd, dilation=dl, groups=int(groups)), x, w)
    if bias is not None:
        b = _tensor(bias, x)
        if b.shape != (w.shape[0],):
            raise ValueError(f"conv2d: bias must have shape ({w.shape[0]},), got {b.shape}")
        out = out + mf.reshape(b, (1, -1, 1, 1))
    return mf.squeeze(out, 0) if unbatched else out


def _single(v: Any, name: str) -> int:
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise ValueError(f"{name} must be an int or a 1-tuple, got {v}")
        v = v[0]
    return int(v)


def _as_2d(x: Tensor, name: str) -> tuple[Tensor, bool]:
    """(N, C, L) or (C, L) as (N, C, 1, L): the 1-D layers run the 2-D ops on a height of 1."""
    if x.ndim == 2:
        return mf.expand_dims(mf.expand_dims(x, 0), 2), True
    if x.ndim != 3:
        raise ValueError(f"{name}: expected a 2-D (C, L) or 3-D (N, C, L) input, got shape {x.shape}")
    return mf.expand_dims(x, 2), False


def _from_2d(out: Tensor, unbatched: bool) -> Tensor:
    out = mf.squeeze(out, 2)
    return mf.squeeze(out, 0) if unbatched else out


def conv1d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> Tensor:
    """1-D cross-correlation: ``x`` (N, C, L) or (C, L), ``weight`` (O, C/groups, K).

    Runs ``conv2d`` on a height of 1 (``padding`` is an int, ``"valid"`` or ``"same"``).
    """
    x = _tensor(x)
    w = _tensor(weight, x)
    if w.ndim != 3:
        raise ValueError(f"conv1d: expected a 3-D weight (O, C/groups, K), got shape {w.shape}")
    x2, unbatched = _as_2d(x, "conv1d")
    pad2 = padding if isinstance(padding, str) else (0, _single(padding, "padding"))
    out = conv2d(x2, mf.expand_dims(w, 2), bias, (1, _single(stride, "stride")), pad2,
                 (1, _single(dilation, "dilation")), groups)
    return _from_2d(out, unbatched)


def conv_transpose2d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transpose (gradient) of ``conv2d``: ``x`` (N, C_in, H, W), ``weight`` (C_in, C_out/groups, KH, KW).

    Built from registered ops: zeros are inserted between input pixels
    (``stride - 1`` of them), the result is padded by ``dilation * (k - 1) - padding``
    (plus ``output_padding`` at the end), and convolved with the flipped kernel.
    """
    x, unbatched = _batched(_tensor(x), "conv_transpose2d")
    w = _tensor(weight, x)
    _check_input_dtype("conv_transpose2d", x, w)
    if w.ndim != 4:
        raise ValueError(f"conv_transpose2d: expected a 4-D weight (C_in, C_out/groups, KH, KW), got {w.shape}")
    st, pd = _pair(stride, "stride"), _pair(padding, "padding")
    op, dl = _pair(output_padding, "output_padding"), _pair(dilation, "dilation")
    if min(st) < 1 or min(dl) < 1 or min(pd) < 0 or min(op) < 0:
        raise ValueError(f"conv_transpose2d: invalid stride={st}, padding={pd}, dilation={dl}, "
                         f"output_padding={op}")
    if any(o >= max(s, d) for o, s, d in zip(op, st, dl)):
        raise ValueError(f"conv_transpose2d: output_padding {op} must be smaller than stride {st} or dilation {dl}")
    cin = x.shape[1]
    if groups < 1 or cin % groups or w.shape[0] != cin:
        raise ValueError(f"conv_transpose2d: input of shape {x.shape} needs a weight with {cin} input channels "
                         f"divisible by groups={groups}, got weight {w.shape}")
    n, _, h, wd = x.shape
    kh, kw = w.shape[2:]
    # 1. insert stride-1 zeros between pixels (pad a new axis after each pixel, fold it in, trim
    # the tail): padding, not a concatenated array of zeros, which a checkpoint would keep
    if st[1] > 1:
        x = mf.pad(mf.expand_dims(x, -1), [(0, 0)] * 4 + [(0, st[1] - 1)])
        x = mf.reshape(x, (n, cin, h, wd * st[1]))[:, :, :, :(wd - 1) * st[1] + 1]
        wd = x.shape[3]
    if st[0] > 1:
        x = mf.pad(mf.expand_dims(x, 3), [(0, 0)] * 3 + [(0, st[0] - 1), (0, 0)])
        x = mf.reshape(x, (n, cin, h * st[0], wd))[:, :, :(h - 1) * st[0] + 1, :]
    # 2. pad (or crop, where padding exceeds the kernel's reach)
    widths = []
    for k, d, p, o in zip((kh, kw), dl, pd, op):
        widths.append((d * (k - 1) - p, d * (k - 1) - p + o))
    crop = [(max(0, -a), max(0, -b)) for a, b in widths]
    x = mf.pad(x, [(0, 0), (0, 0)] + [(max(0, a), max(0, b)) for a, b in widths])
    if any(c for pair in crop for c in pair):
        x = x[:, :, crop[0][0]:x.shape[2] - crop[0][1], crop[1][0]:x.shape[3] - crop[1][1]]
    # 3. the flipped kernel with in/out swapped within each group: (C_out, C_in/groups, KH, KW)
    cog = w.shape[1]
    wg = mf.reshape(w, (groups, cin // groups, cog, kh, kw))
    wg = mf.reshape(mf.swapaxes(wg, 1, 2), (groups * cog, cin // groups, kh, kw))
    wf = mf.flip(wg, axis=(2, 3))
    out = conv2d(x, wf, bias, 1, 0, dl, groups)
    return mf.squeeze(out, 0) if unbatched else out


def conv_transpose1d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transpose of ``conv1d``: ``x`` (N, C_in, L) or (C_in, L), ``weight`` (C_in, C_out/groups, K);
    ``conv_transpose2d`` on a height of 1."""
    x = _tensor(x)
    w = _tensor(weight, x)
    if w.ndim != 3:
        raise ValueError(f"conv_transpose1d: expected a 3-D weight (C_in, C_out/groups, K), got shape {w.shape}")
    x2, unbatched = _as_2d(x, "conv_transpose1d")
    out = conv_transpose2d(x2, mf.expand_dims(w, 2), bias, (1, _single(stride, "stride")),
                           (0, _single(padding, "padding")), (0, _single(output_padding, "output_padding")),
                           groups, (1, _single(dilation, "dilation")))
    return _from_2d(out, unbatched)
