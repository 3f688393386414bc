"""Distance, similarity and rearranging layers: ``CosineSimilarity``, ``PairwiseDistance``,
``PixelShuffle``, ``PixelUnshuffle`` (each calls its function in :mod:`minigrad_ckpt.nn.functional`)."""

from __future__ import annotations

from typing import Any

from ..functional.arguments import number
from ..tensor import Tensor
from . import functional as F
from .function_layer import FunctionLayer
from .module import Module

__all__ = [
    "CosineSimilarity", "PairwiseDistance", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
]


class CosineSimilarity(Module):
    """The cosine similarity of two inputs along ``dim`` (``F.cosine_similarity``)."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The ``p``-norm distance of two inputs over the last axis (``F.pairwise_distance``)."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class PixelShuffle(FunctionLayer):
    """(*, C r^2, H, W) -> (*, C, H r, W r) (``F.pixel_shuffle``)."""

    fn = staticmethod(F.pixel_shuffle)
    options = ("upscale_factor",)

    def __init__(self, upscale_factor: Any) -> None:
        super().__init__(upscale_factor=int(number("PixelShuffle", "upscale_factor", upscale_factor, "int")))


class PixelUnshuffle(FunctionLayer):
    """(*, C, H r, W r) -> (*, C r^2, H, W) (``F.pixel_unshuffle``)."""

    fn = staticmethod(F.pixel_unshuffle)
    options = ("downscale_factor",)

    def __init__(self, downscale_factor: Any) -> None:
        super().__init__(downscale_factor=int(number("PixelUnshuffle", "downscale_factor", downscale_factor, "int")))


class ChannelShuffle(FunctionLayer):
    """Interleave the channels of ``groups`` groups (``F.channel_shuffle``)."""

    fn = staticmethod(F.channel_shuffle)
    options = ("groups",)

    def __init__(self, groups: int) -> None:
        super().__init__(groups=int(number("ChannelShuffle", "groups", groups, "SymInt")))
