"""``conv3d`` (NCDHW, PyTorch's arguments) as a sum of 2-D convolutions over the kernel's depth.

Output depth slice ``od`` is ``sum_i conv2d(x[:, :, od * sd + i * dd], w[:, :, i])``: for each
kernel depth ``i`` the input's strided depth slices are folded into the batch and convolved
with that slice of the kernel in one ``conv2d`` call -- ``kd`` calls in all, each an op whose
derivatives of every order are convolutions again.  ``adaptive_avg_pool3d`` is
``interpolate(mode="area")``, whose windows are the adaptive ones.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import host_numpy
from ...functional import _tensor
from ...tensor import Tensor
from .conv import conv2d
from .inputs import _check_input_dtype
from .interpolation import interpolate

__all__ = [
    "conv3d", "adaptive_avg_pool3d",
]


def _triple(v: Any, name: str) -> tuple[int, int, int]:
    if isinstance(v, (int, host_numpy.integer)):
        v = (int(v),) * 3
    v = tuple(int(a) for a in v)
    if len(v) != 3:
        raise ValueError(f"conv3d: {name} must be an int or a triple, got {v}")
    return v  # type: ignore[return-value]


def _padding(x: Tensor, padding: Any, stride: tuple[int, ...], dilation: tuple[int, ...],
             kernel: tuple[int, ...]) -> tuple[Tensor, tuple[int, int, int]]:
    """The input padded explicitly (all three axes; ``"same"`` puts an odd extra on the far side)."""
    if padding == "valid":
        return x, (0, 0, 0)
    if padding == "same":
        if stride != (1, 1, 1):
            raise ValueError(f"conv3d: padding='same' needs stride 1, got stride={stride}")
        total = [d * (k - 1) for d, k in zip(dilation, kernel)]
        widths = [(t // 2, t - t // 2) for t in total]
    elif isinstance(padding, str):
        raise ValueError(f"conv3d: padding must be an int, a triple, 'valid' or 'same', got {padding!r}")
    else:
        p = _triple(padding, "padding")
        if min(p) < 0:
            raise ValueError(f"conv3d: padding must be >= 0, got {p}")
        widths = [(a, a) for a in p]
    return mf.pad(x, [(0, 0), (0, 0)] + widths), (0, 0, 0)


def conv3d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> Tensor:
    """3-D cross-correlation: ``x`` (N, C, D, H, W) or (C, D, H, W), ``weight`` (O, C/groups, kd, kh, kw);
    ``padding`` an int, a triple, ``"valid"`` or ``"same"`` (stride 1)."""
    x = _tensor(x)
    w = _tensor(weight, x)
    if w.ndim != 5:
        raise ValueError(f"conv3d: expected a 5-D weight (O, C/groups, kd, kh, kw), got shape {w.shape}")
    unbatched = x.ndim == 4
    if unbatched:
        x = mf.expand_dims(x, 0)
    if x.ndim != 5:
        raise ValueError(f"conv3d: expected a 4-D (C, D, H, W) or 5-D (N, C, D, H, W) input, got shape {x.shape}")
    _check_input_dtype("conv3d", x, w)
    st, dl = _triple(stride, "stride"), _triple(dilation, "dilation")
    if min(st) < 1 or min(dl) < 1:
        raise ValueError(f"conv3d: stride and dilation must be >= 1, got {st}, {dl}")
    if x.shape[1] != w.shape[1] * groups:
        raise ValueError(f"conv3d: input of shape {x.shape} has {x.shape[1]} channels, but weight of shape "
                         f"{w.shape} expects {w.shape[1] * groups}")
    x, _ = _padding(x, padding, st, dl, tuple(w.shape[2:]))
    n, c, d = x.shape[:3]
    kd = w.shape[2]
    depth = (d - dl[0] * (kd - 1) - 1) // st[0] + 1
    if depth < 1:
        raise ValueError(f"conv3d: kernel depth {kd} (dilation {dl[0]}) is larger than the padded input depth {d}")
    out = None
    for i in range(kd):
        start = i * dl[0]
        sl = x[:, :, start:start + st[0] * (depth - 1) + 1:st[0]]  # (N, C, Do, H, W)
        flat = mf.reshape(mf.moveaxis(sl, 2, 1), (n * depth, c) + sl.shape[3:])
        part = conv2d(flat, w[:, :, i], None, st[1:], 0, dl[1:], groups)
        out = part if out is None else out + part
    out = mf.moveaxis(mf.reshape(out, (n, depth) + out.shape[1:]), 1, 2)  # (N, O, Do, Ho, Wo)
    if bias is not None:
        b = _tensor(bias, x)
        if b.shape != (w.shape[0],):
            raise ValueError(f"conv3d: bias must have shape ({w.shape[0]},), got {b.shape}")
        out = out + mf.reshape(b, (1, -1, 1, 1, 1))
    return mf.squeeze(out, 0) if unbatched else out


def adaptive_avg_pool3d(x: Any, output_size: Any) -> Tensor:
    """Average over PyTorch's adaptive windows of (N, C, D, H, W) or (C, D, H, W) so the output is
    ``output_size`` (an int or a triple; ``None`` keeps that axis)."""
    x = _tensor(x)
    unbatched = x.ndim == 4
    if unbatched:
        x = mf.expand_dims(x, 0)
    if x.ndim != 5:
        raise ValueError(f"adaptive_avg_pool3d: expected a 4-D or 5-D input, got shape {x.shape}")
    sizes = (output_size,) * 3 if isinstance(output_size, (int, host_numpy.integer)) or output_size is None \
        else tuple(output_size)
    size = tuple(x.shape[2 + i] if s is None else int(s) for i, s in enumerate(sizes))
    out = interpolate(x, size=size, mode="area")
    return mf.squeeze(out, 0) if unbatched else out
