"""PyTorch's ``torch.nn.modules.linear``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..linear import Bilinear, Identity, Linear

__all__ = ["Bilinear", "Identity", "Linear"]
