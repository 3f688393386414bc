"""Convolution layers: ``Conv1d``, ``Conv2d``, ``ConvTranspose2d``, ``ConvTranspose3d``.

Weights and biases are initialised as in PyTorch (Kaiming-uniform with
``a = sqrt(5)``, ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` biases) from the
engine generator.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from ..functional.arguments import as_tensor, number
from ..functional.errors import InputMismatch
from ..tensor import Tensor
from . import functional as F
from . import init
from .functional.conv import _ntuple
from .functional.conv_checks import channels_words, refuse_rank
from .module import Module, _empty

_CONVOLUTIONS = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}  # by the number of spatial axes

__all__ = [
    "Conv2d", "Conv1d", "ConvTranspose2d", "ConvTranspose3d",
]


def size_entry(v: Any, layer: str, param: str) -> Any:
    """A layer's size argument ``param`` (``kernel_size``, ``stride``, ...) or its entry: a tensor as
    PyTorch's convolution reads one -- an integer tensor of one element is its int; a float one, or one
    that requires grad, is its TypeError (``int()`` of it truncated ``1.5`` and dropped a gradient); so
    is a float or a bool, and a NumPy int is its int (``stride=np.int64(2)`` failed as an index)."""
    return number(layer, param, v, "SymInt")


def _pair(v: Any, param: str) -> tuple[int, int]:
    """A Conv2d size argument as two ints (:func:`~.functional.conv._ntuple`: a sequence of another
    length is refused here, where a 1-tuple was silently taken for a square and a 3-tuple cut short)."""
    return _ntuple(v, 2, param, "Conv2d")  # type: ignore[return-value]


def _check_groups(layer: str, in_channels: int, out_channels: int, groups: int) -> int:
    """``groups``, checked against the channels, as an int (a tensor read as PyTorch's ``SymInt``)."""
    groups = number(layer, "groups", groups, "SymInt")
    if int(groups) < 1:
        raise ValueError(f"{layer}: groups must be a positive integer, got {groups}")
    if in_channels % groups:
        raise ValueError(f"{layer}: in_channels must be divisible by groups, got in_channels={in_channels}, "
                         f"groups={groups}")
    if out_channels % groups:
        raise ValueError(f"{layer}: out_channels must be divisible by groups, got out_channels={out_channels}, "
                         f"groups={groups}")
    return groups


PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _checked_padding(layer: str, padding: Any, stride: tuple, as_tuple: Any) -> Any:
    """A plain convolution's ``padding``: a string PyTorch's constructor takes ('same' only unstrided),
    or ints as a tuple (``as_tuple(padding, "padding")``)."""
    if not isinstance(padding, str):
        return as_tuple(padding, "padding")
    if padding not in ("same", "valid"):
        raise ValueError(f"{layer}: Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
    if padding == "same" and any(s != 1 for s in stride):
        raise ValueError(f"{layer}: padding='same' is not supported for strided convolutions")
    return padding


def _check_padding_mode(layer: str, mode: str) -> str:
    if mode not in PADDING_MODES:
        raise ValueError(f"{layer}: padding_mode must be one of {PADDING_MODES}, got {mode!r}")
    return mode


def _pad_by_mode(x: Tensor, padding: Any, kernel: tuple[int, ...], dilation: tuple[int, ...],
                 stride: tuple[int, ...], mode: str) -> tuple[Tensor, Any]:
    """``(x, padding)`` for the convolution: with ``padding_mode`` other than ``"zeros"`` the input is
    padded first by ``F.pad`` in that mode and the convolution pads nothing (PyTorch's order).
    ``"same"`` puts an odd total's extra element after, as zero padding does."""
    if mode == "zeros" or padding == "valid":
        return x, padding
    if padding == "same":
        if any(st != 1 for st in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        pairs = [(t // 2, t - t // 2) for t in totals]
    else:
        pairs = [(p, p) for p in padding]
    widths = tuple(w for pair in reversed(pairs) for w in pair)  # F.pad: the last axis first
    return F.pad(x, widths, mode=mode), (0,) * len(kernel)


def _refuse_rank(layer: Module, x: Tensor, fn: str, n: int, axes: str) -> None:
    """An input neither batched nor unbatched for a layer of ``n`` spatial axes: the words of PyTorch's
    ``fn``, which its layer calls."""
    refuse_rank(layer, fn, x.shape, n, axes)


def _with_batch(x: Tensor, n: int) -> tuple[int, ...]:
    """``x``'s shape with its batch axis, 1 where it has none, as PyTorch shows an input in a refusal."""
    return tuple(x.shape) if x.ndim == n + 2 else (1, *x.shape)


class _ConvNd(Module):
    """What the convolution layers share: PyTorch's initialisation of the weight and the bias."""

    transposed: ClassVar[bool] = False  # PyTorch's attribute: True for the transposed convolutions

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            # the bias bound's fan-in is weight.shape[1] times the kernel: in_channels / groups for a
            # convolution, out_channels / groups for the transpose (PyTorch computes it so)
            fan_in = self.weight.shape[1] * math.prod(self.weight.shape[2:])
            bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        """PyTorch's: the sizes as tuples, and each other setting only where it is not the default
        (``Conv2d(2, 3, kernel_size=(3, 3), stride=(1, 1), bias=False)``)."""
        n = len(self.kernel_size)  # (not the weight's rank: a lazy layer's weight has no shape yet)

        def spelled(v: Any) -> Any:
            return v if isinstance(v, (tuple, str)) else (v,) * n

        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={spelled(self.kernel_size)}, "
             f"stride={spelled(self.stride)}")
        for name, default in (("padding", 0), ("dilation", 1), ("output_padding", 0)):
            value = spelled(getattr(self, name, default))
            if value != (default,) * n:
                s += f", {name}={value}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if getattr(self, "padding_mode", "zeros") != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _PlainConvNd(_ConvNd):
    """A convolution (not transposed): ``forward`` is ``_conv_forward`` with the layer's own
    weight and bias."""

    _spatial_axes: ClassVar[str] = ""  # the input's spatial axes, as error messages name them

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's argument name
        return self._conv_forward(input, self.weight, self.bias)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        """This layer's convolution (its stride, padding and padding mode, dilation and groups) with
        ``weight`` and ``bias`` given: PyTorch's method of the same name, which layers derived from a
        convolution call with a weight they computed (weight standardization, for one)."""
        x = as_tensor(input)  # a list or an array works as it does for the functions
        n = len(self.kernel_size)
        _refuse_rank(self, x, f"conv{n}d", n, self._spatial_axes)
        x, padding = _pad_by_mode(x, self.padding, self.kernel_size, self.dilation, self.stride,
                                  self.padding_mode)
        channels = weight.shape[1] * self.groups  # F.conv's condition: `weight.data = ...` may resize it
        if x.shape[x.ndim - n - 1] != channels:  # (PyTorch shows the input as padded by the padding mode)
            raise InputMismatch(f"{self!r}: " + channels_words(f"groups={self.groups}", tuple(weight.shape),
                                                              _with_batch(x, n), channels))
        return _CONVOLUTIONS[n](x, weight, bias, self.stride, padding, self.dilation, self.groups)


class Conv2d(_PlainConvNd):
    """2-D convolution over NCHW input; weight (out_channels, in_channels/groups, kh, kw)."""

    _spatial_axes = "H, W"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        groups = _check_groups("Conv2d", in_channels, out_channels, groups)
        self.output_padding = (0,) * 2  # PyTorch's attribute of a plain convolution
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.stride, self.dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
        self.padding = _checked_padding("Conv2d", padding, self.stride, _pair)
        self.padding_mode = _check_padding_mode("Conv2d", padding_mode)  # (PyTorch's order of the checks)
        self.groups = int(groups)
        self.weight = _empty(out_channels, in_channels // groups, *self.kernel_size, dtype=dtype,
                             device=device)
        self.bias = _empty(out_channels, dtype=dtype, device=device) if bias else None
        self.reset_parameters()


def _single(v: Any, param: str) -> int:
    """A Conv1d size argument, an int or a 1-tuple, as an int (a 2-tuple is refused, not cut short)."""
    return _ntuple(v, 1, param, "Conv1d")[0]


class Conv1d(_PlainConvNd):
    """1-D convolution over (N, C, L) input; weight (out_channels, in_channels/groups, k)."""

    _spatial_axes = "L"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        groups = _check_groups("Conv1d", in_channels, out_channels, groups)
        self.output_padding = (0,) * 1  # PyTorch's attribute of a plain convolution
        self.in_channels, self.out_channels, self.groups = int(in_channels), int(out_channels), int(groups)
        # one-element tuples, as PyTorch's Conv1d keeps them (conv.kernel_size[0] is how programs read them)
        self.kernel_size, self.stride = (_single(kernel_size, "kernel_size"),), (_single(stride, "stride"),)
        self.dilation = (_single(dilation, "dilation"),)
        self.padding = _checked_padding("Conv1d", padding, self.stride, lambda p, param: (_single(p, param),))
        self.padding_mode = _check_padding_mode("Conv1d", padding_mode)  # (PyTorch's order of the checks)
        self.weight = _empty(out_channels, in_channels // groups, *self.kernel_size, dtype=dtype, device=device)
        self.bias = _empty(out_channels, dtype=dtype, device=device) if bias else None
        self.reset_parameters()


class _ConvTransposeNd(_ConvNd):
    """The transpose of a convolution over ``spatial`` axes (a "deconvolution"); weight
    (in_channels, out_channels/groups, *kernel_size).

    Output size per axis ``(n - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``;
    ``forward(x, output_size=...)`` picks the ``output_padding`` that gives that size, as PyTorch's.
    """

    transposed: ClassVar[bool] = True

    fn: ClassVar[Any] = None
    spatial: ClassVar[int] = 2
    axes: ClassVar[str] = "H, W"

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        name, n = type(self).__name__, self.spatial
        if padding_mode != "zeros":
            raise ValueError(f'{name}: Only "zeros" padding mode is supported for {name}, got {padding_mode!r}')
        self.padding_mode = padding_mode  # PyTorch's attribute
        groups = _check_groups(name, in_channels, out_channels, groups)
        self.in_channels, self.out_channels, self.groups = int(in_channels), int(out_channels), int(groups)
        self.kernel_size = _ntuple(kernel_size, n, "kernel_size", name)
        self.stride, self.padding = _ntuple(stride, n, "stride", name), _ntuple(padding, n, "padding", name)
        self.output_padding = _ntuple(output_padding, n, "output_padding", name)
        self.dilation = _ntuple(dilation, n, "dilation", name)
        self.weight = _empty(in_channels, out_channels // groups, *self.kernel_size, dtype=dtype, device=device)
        self.bias = _empty(out_channels, dtype=dtype, device=device) if bias else None
        self.reset_parameters()

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        x = input  # PyTorch's argument name
        x = as_tensor(x)  # a list or an array works as it does for the functions
        n = self.spatial
        weight = self.weight  # (read once; the input is checked against it, as F.conv_transpose*d does)
        channels = weight.shape[0]
        _refuse_rank(self, x, f"conv_transpose{n}d", n, self.axes)
        if x.shape[x.ndim - n - 1] != channels:
            raise InputMismatch(f"{self!r}: " + channels_words("transposed=1", tuple(weight.shape),
                                                              _with_batch(x, n), channels))
        return type(self).fn(x, weight, self.bias, self.stride, self.padding,
                             self._output_padding(x, output_size), self.groups, self.dilation)

    def _output_padding(self, x: Tensor, output_size: Any) -> tuple[int, ...]:
        """``output_padding`` for the requested ``output_size`` (the spatial sizes, or with the leading
        batch and channel sizes too): each must lie within ``stride - 1`` above the smallest output."""
        if output_size is None:
            return self.output_padding
        n = self.spatial
        sizes = (int(output_size),) if isinstance(output_size, int) else tuple(int(v) for v in output_size)
        sizes = sizes[len(sizes) - n:] if len(sizes) == x.ndim else sizes
        if len(sizes) != n:
            raise ValueError(f"{self!r}: output_size {output_size} must have {n} or {x.ndim} entries")
        smallest = [(size - 1) * s - 2 * p + d * (k - 1) + 1 for size, s, p, d, k in
                    zip(x.shape[-n:], self.stride, self.padding, self.dilation, self.kernel_size)]
        for want, low, s in zip(sizes, smallest, self.stride):
            if not low <= want <= low + s - 1:
                raise ValueError(f"{self!r}: requested an output size of {sizes}, but valid sizes range from "
                                 f"{tuple(smallest)} to {tuple(lo + s - 1 for lo, s in zip(smallest, self.stride))}")
        return tuple(want - low for want, low in zip(sizes, smallest))

class ConvTranspose2d(_ConvTransposeNd):
    """The transpose of Conv2d (a "deconvolution") over (N, C, H, W); weight (in_channels,
    out_channels/groups, kh, kw).  Output size ``(H - 1) * stride - 2 * padding + dilation * (k - 1) +
    output_padding + 1``; ``forward(x, output_size=...)`` as PyTorch's."""

    fn = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """The transpose of Conv3d over (N, C, D, H, W); weight (in_channels, out_channels/groups, kd, kh, kw).
    Output size per axis ``(n - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``;
    ``forward(x, output_size=...)`` as PyTorch's."""

    fn = staticmethod(F.conv_transpose3d)
    spatial = 3
    axes = "D, H, W"
