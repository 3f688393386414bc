"""``conv3d`` (NCDHW, PyTorch's arguments) as a sum of 2-D convolutions over the kernel's depth,
and its transpose ``conv_transpose3d``.

Output depth slice ``od`` is ``sum_i conv2d(x[:, :, od * sd + i * dd], w[:, :, i])``: for each
kernel depth ``i`` the input's strided depth slices are folded into the batch and convolved
with that slice of the kernel in one ``conv2d`` call -- ``kd`` calls in all, each an op whose
derivatives of every order are convolutions again.  ``adaptive_avg_pool3d`` is
``interpolate(mode="area")``, whose windows are the adaptive ones.  ``conv_transpose3d`` is
``conv3d`` on the input spread out by the stride, as ``conv_transpose2d`` is ``conv2d``.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...functional import _tensor
from ...functional.arguments import in_float32_if_half, number
from ...functional.errors import InputMismatch
from ...tensor import Tensor
from .conv import _batched, _conv_transpose, _ntuple, conv2d, conv_batched, string_padding
from .conv_checks import check_convolution
from .inputs import _check_input_dtype, refuse_average_without_kernel
from .interpolation import interpolate
from .pooling import _adaptive_sizes, empty_adaptive_output, refuse_empty_planes

__all__ = [
    "conv3d", "adaptive_avg_pool3d", "conv_transpose3d",
]


def _triple(v: Any, name: str) -> tuple[int, int, int]:
    return _ntuple(v, 3, name, "conv3d", one_for_all=True)  # type: ignore[return-value]


def conv3d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> Tensor:
    """3-D cross-correlation: ``input`` (N, C, D, H, W) or (C, D, H, W), ``weight`` (O, C/groups, kd, kh, kw);
    ``padding`` an int, a triple, ``"valid"`` or ``"same"`` (stride 1)."""
    groups = number("conv3d", "groups", groups, "SymInt")
    input = _tensor(input)
    w = _tensor(weight, input)
    if w.ndim != 5:
        raise InputMismatch(f"conv3d: expected a 5-D weight (O, C/groups, kd, kh, kw), got shape {w.shape}")
    input, unbatched = conv_batched(input, "conv3d", 3)
    st, dl = _triple(stride, "stride"), _triple(dilation, "dilation")
    if isinstance(padding, str):
        input, pd = string_padding("conv3d", input, padding, st, dl, tuple(w.shape[2:]), groups)
    else:
        pd = _triple(padding, "padding")
    check_convolution("conv3d", input.shape, w.shape, groups, st, pd, dl)
    _check_input_dtype("conv3d", input, w, "weight")
    b = None
    if bias is not None:
        b = _tensor(bias, input)
        _check_input_dtype("conv3d", input, b, "bias")
        if b.shape != (w.shape[0],):
            raise InputMismatch(f"conv3d: bias must have shape ({w.shape[0]},), got {b.shape}")
    out = _depth_sum(input, w, b, st, pd, dl, groups)
    return mf.squeeze(out, 0) if unbatched else out


@in_float32_if_half
def _depth_sum(input: Tensor, w: Tensor, b: Tensor | None, st: tuple[int, int, int], pd: tuple[int, int, int],  # noqa: A002
               dl: tuple[int, int, int], groups: int) -> Tensor:
    """The convolution of checked arguments: a sum of ``conv2d`` calls over the kernel's depth,
    plus the bias.  Float16 is summed in float32 and rounded once, as PyTorch's half convolution:
    each depth's products rounded to float16 and added there, then the bias, were hundreds of
    units in the last place off where the terms cancelled (PyTorch's: 0.5)."""
    if max(pd):  # (all three axes padded here: the 2-D convolutions below pad nothing)
        input = mf.pad(input, [(0, 0), (0, 0)] + [(p, p) for p in pd])
    n, c, d = input.shape[:3]
    kd = w.shape[2]
    depth = (d - dl[0] * (kd - 1) - 1) // st[0] + 1
    out = None
    for i in range(kd):
        start = i * dl[0]
        sl = input[:, :, start:start + st[0] * (depth - 1) + 1:st[0]]  # (N, C, Do, H, W)
        flat = mf.reshape(mf.moveaxis(sl, 2, 1), (n * depth, c) + sl.shape[3:])
        part = conv2d(flat, w[:, :, i], None, st[1:], 0, dl[1:], groups)
        out = part if out is None else out + part
    # (N, O, Do, Ho, Wo), row-major as PyTorch's result: view() reads the layout
    out = mf.moveaxis(mf.reshape(out, (n, depth) + out.shape[1:]), 1, 2).contiguous()
    return out if b is None else out + mf.reshape(b, (1, -1, 1, 1, 1))


def conv_transpose3d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transpose (gradient) of ``conv3d``: ``input`` (N, C_in, D, H, W) or (C_in, D, H, W), ``weight``
    (C_in, C_out/groups, kd, kh, kw); output size per axis ``(n - 1) * stride - 2 * padding +
    dilation * (k - 1) + output_padding + 1``.  As ``conv_transpose2d``: zeros inserted between the
    input's elements, padding, and ``conv3d`` with the flipped kernel."""
    return _conv_transpose("conv_transpose3d", conv3d, input, weight, bias, stride, padding, output_padding,
                           groups, dilation, 3)


def adaptive_avg_pool3d(input: Any, output_size: Any) -> Tensor:
    """Average over PyTorch's adaptive windows of (N, C, D, H, W) or (C, D, H, W) so the output is
    ``output_size`` (an int or a triple; ``None`` keeps that axis)."""
    refuse_average_without_kernel("adaptive_avg_pool3d_cpu", input, output_size)
    refuse_empty_planes("adaptive_avg_pool3d", _tensor(input).shape)  # (as given: an unbatched (0, ...) answers)
    input, unbatched = _batched(_tensor(input), "adaptive_avg_pool3d", 3)
    if input.dtype.kind == "c":  # an output of ones (refused otherwise): PyTorch's complex global mean
        out = mf.mean(input, axis=(-3, -2, -1), keepdims=True)
    else:
        sizes = _adaptive_sizes(input, output_size, "adaptive_avg_pool3d")
        empty = 0 in sizes  # (PyTorch's forward answers an output size with a 0, empty)
        out = empty_adaptive_output(input, sizes) if empty else interpolate(input, size=sizes, mode="area")
    return mf.squeeze(out, 0) if unbatched else out
