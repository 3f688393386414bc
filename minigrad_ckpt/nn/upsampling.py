"""Upsampling layers: ``Upsample``, ``UpsamplingNearest2d``, ``UpsamplingBilinear2d`` (each calls
``F.interpolate``)."""

from __future__ import annotations

from typing import Any

from . import functional as F
from .function_layer import FunctionLayer

__all__ = [
    "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
]


class Upsample(FunctionLayer):
    """Resample the spatial axes to ``size`` or by ``scale_factor`` with ``mode`` (``F.interpolate``)."""

    fn = staticmethod(F.interpolate)
    options = ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor")

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None, recompute_scale_factor: bool | None = None) -> None:
        if scale_factor is not None:  # PyTorch keeps it as floats
            scale_factor = (tuple(float(f) for f in scale_factor) if isinstance(scale_factor, (tuple, list))
                            else float(scale_factor))
        super().__init__(size=size, scale_factor=scale_factor, mode=mode, align_corners=align_corners,
                         recompute_scale_factor=recompute_scale_factor)

    def extra_repr(self) -> str:  # PyTorch's: the scale factor (else the size) and the mode
        first = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{first}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample(size, scale_factor, mode="nearest")`` for (N, C, H, W) input."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, "nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(size, scale_factor, mode="bilinear", align_corners=True)`` for (N, C, H, W) input."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, "bilinear", True)
