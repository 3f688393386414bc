"""PyTorch's ``torch.nn.modules.upsampling``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]
