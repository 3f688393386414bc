"""PyTorch's ``torch.nn.modules.conv``: its layers at PyTorch's address (``_ConvNd``: the base of every
convolution, ``_ConvTransposeNd`` of the transposed ones).
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..blocks import Conv3d, ConvTranspose1d
from ..conv import Conv1d, Conv2d, ConvTranspose2d, ConvTranspose3d, _ConvNd, _ConvTransposeNd  # noqa: F401

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]
