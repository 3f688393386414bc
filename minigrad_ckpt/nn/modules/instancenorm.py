"""PyTorch's ``torch.nn.modules.instancenorm``: its layers at PyTorch's address (``_InstanceNorm``: the base
of the three).
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..blocks import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm  # noqa: F401

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
