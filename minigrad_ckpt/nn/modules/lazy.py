"""PyTorch's ``torch.nn.modules.lazy``: ``LazyModuleMixin`` at PyTorch's address (the class:
:mod:`minigrad_ckpt.nn.lazy`)."""

from ..lazy import LazyModuleMixin

__all__ = ["LazyModuleMixin"]
