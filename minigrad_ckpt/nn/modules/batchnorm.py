"""PyTorch's ``torch.nn.modules.batchnorm``: its layers at PyTorch's address (``_BatchNorm``: ``isinstance(m,
nn.modules.batchnorm._BatchNorm)``, the usual test for every batch norm).
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm  # noqa: F401

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]
