"""PyTorch's ``torch.nn.modules.flatten``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..flatten import Flatten, Unflatten

__all__ = ["Flatten", "Unflatten"]
