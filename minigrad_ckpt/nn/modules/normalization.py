"""PyTorch's ``torch.nn.modules.normalization``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..blocks import LocalResponseNorm
from ..normalization import GroupNorm, LayerNorm, RMSNorm

__all__ = ["LocalResponseNorm", "LayerNorm", "GroupNorm", "RMSNorm"]
