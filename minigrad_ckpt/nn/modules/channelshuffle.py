"""PyTorch's ``torch.nn.modules.channelshuffle``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..distance import ChannelShuffle

__all__ = ["ChannelShuffle"]
