"""Pooling layers: ``MaxPool1d``/``2d``/``3d``, ``AvgPool1d``/``2d``/``3d``, ``AdaptiveAvgPool2d``,
``AdaptiveMaxPool2d``/``3d``, ``LPPool1d``/``2d``/``3d``, ``FractionalMaxPool2d``/``3d``."""

from __future__ import annotations

from typing import Any

from ..functional.arguments import as_tensor
from ..tensor import Tensor
from . import functional as F
from .function_layer import FunctionLayer
from .functional.conv import _ntuple
from .functional.fractional_pool import _ratios
from .module import Module

__all__ = [
    "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "MaxPool1d", "AvgPool1d", "MaxPool3d",
    "AvgPool3d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
]


class _Pool(FunctionLayer):
    """A window pooling layer: as PyTorch's, ``stride`` is the kernel size where none is given (the attribute
    too), and its ``repr`` shows ``kernel_size``, ``stride`` and ``padding``."""

    def __init__(self, kernel_size: Any, stride: Any = None, **options: Any) -> None:
        super().__init__(kernel_size=kernel_size, stride=kernel_size if stride is None else stride, **options)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _MaxPool(_Pool):
    """Max pooling in any number of dimensions: PyTorch's arguments, ``fn`` picks the dimensions."""

    options = ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
                         return_indices=return_indices, ceil_mode=ceil_mode)

    def extra_repr(self) -> str:  # PyTorch's MaxPool lists dilation and ceil_mode too
        return f"{super().extra_repr()}, dilation={self.dilation}, ceil_mode={self.ceil_mode}"


class MaxPool1d(_MaxPool):
    """1-D max pooling over (N, C, L) or (C, L); ``return_indices=True`` makes it return ``(out, indices)``."""

    fn = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPool):
    """2-D max pooling over (N, C, H, W): the largest value of each window (``F.max_pool2d``);
    ``return_indices=True`` makes it return ``(out, indices)``."""

    fn = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPool):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W) (``F.max_pool3d``); ``return_indices=True``
    makes it return ``(out, indices)``."""

    fn = staticmethod(F.max_pool3d)


class _AvgPool(_Pool):
    """Average pooling in 1 to 3 dimensions: PyTorch's arguments, ``fn`` picks the dimensions."""

    options = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         count_include_pad=count_include_pad, divisor_override=divisor_override)


class AvgPool1d(_AvgPool):
    """1-D average pooling over (N, C, L) or (C, L); as PyTorch's, its sizes are kept as 1-tuples
    (``AvgPool1d(2).kernel_size == (2,)``)."""

    fn = staticmethod(F.avg_pool1d)
    options = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad")

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        def single(v: Any) -> Any:
            return tuple(v) if isinstance(v, (tuple, list)) else (v,)
        # past _AvgPool's constructor: PyTorch's AvgPool1d has no divisor_override (an _AvgPoolNd all the same)
        _Pool.__init__(self, kernel_size=single(kernel_size), stride=None if stride is None else single(stride),
                       padding=single(padding), ceil_mode=ceil_mode, count_include_pad=count_include_pad)


class AvgPool2d(_AvgPool):
    """2-D average pooling over (N, C, H, W): the mean of each window (``F.avg_pool2d``)."""

    fn = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPool):
    """3-D average pooling over (N, C, D, H, W) or (C, D, H, W) (``F.avg_pool3d``)."""

    fn = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPool(FunctionLayer):
    """Average pooling to a fixed ``output_size`` in any number of dimensions, ``fn`` picks them."""

    options = ("output_size",)

    def __init__(self, output_size: Any) -> None:
        super().__init__(output_size=output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPool):
    """Average pooling to a fixed ``output_size`` (int or pair; ``None`` keeps an axis), PyTorch's windows."""

    fn = staticmethod(F.adaptive_avg_pool2d)


class _AdaptiveMaxPool(FunctionLayer):
    """Max pooling to a fixed ``output_size`` in any number of dimensions, ``fn`` picks them."""

    options = ("output_size", "return_indices")
    shown = ("output_size",)  # PyTorch's repr

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size=output_size, return_indices=return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """Max pooling to a fixed ``output_size`` (int or pair; ``None`` keeps an axis), PyTorch's windows;
    ``return_indices=True`` makes it return ``(out, indices)``."""

    fn = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) to a fixed ``output_size`` (int or triple; ``None``
    keeps an axis), PyTorch's windows (``F.adaptive_max_pool3d``); ``return_indices=True`` makes it
    return ``(out, indices)``."""

    fn = staticmethod(F.adaptive_max_pool3d)


class _LPPool(FunctionLayer):
    """Power-average pooling (``F.lp_pool1d``/``2d``/``3d``): the ``norm_type``-norm of each window."""

    options = ("norm_type", "kernel_size", "stride", "ceil_mode")

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> None:
        super().__init__(norm_type=norm_type, kernel_size=kernel_size, stride=stride, ceil_mode=ceil_mode)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's argument name
        # PyTorch's layer hands its function float(norm_type): a tensor's value, never differentiated (the
        # function itself differentiates a tensor norm_type, as PyTorch's F.lp_pool* does)
        norm = self.norm_type
        return type(self).fn(as_tensor(input), float(norm) if isinstance(norm, Tensor) else norm, self.kernel_size,
                             self.stride, self.ceil_mode)


class LPPool1d(_LPPool):
    """1-D power-average pooling over (N, C, L) or (C, L)."""

    fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPool):
    """2-D power-average pooling over (N, C, H, W) or (C, H, W)."""

    fn = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPool):
    """3-D power-average pooling over (N, C, D, H, W) or (C, D, H, W)."""

    fn = staticmethod(F.lp_pool3d)


class _FractionalMaxPool(Module):
    """Fractional max pooling (``F.fractional_max_pool2d``/``3d``) with PyTorch's attributes: tuples of the
    layer's rank, and ``_random_samples`` a buffer (None: drawn at each call)."""

    fn: Any = None
    spatial = 2

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Any = None) -> None:
        super().__init__()
        name, d = type(self).__name__, self.spatial
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        self.kernel_size, self.return_indices = _ntuple(kernel_size, d, "kernel_size", name), return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = None if output_size is None else _ntuple(output_size, d, "output_size", name)
        self.output_ratio = None if output_ratio is None else _ratios(name, output_ratio, d)
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Any) -> Any:
        return type(self).fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                             _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """Max pooling over windows at pseudo-random places of (N, C, H, W) or (C, H, W) (``F.fractional_max_pool2d``)."""

    fn = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPool):
    """``FractionalMaxPool2d`` over (N, C, D, H, W) or (C, D, H, W) (``F.fractional_max_pool3d``)."""

    fn = staticmethod(F.fractional_max_pool3d)
    spatial = 3
