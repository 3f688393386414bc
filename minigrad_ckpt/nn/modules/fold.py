"""PyTorch's ``torch.nn.modules.fold``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..blocks import Fold, Unfold

__all__ = ["Fold", "Unfold"]
