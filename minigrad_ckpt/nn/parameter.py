"""PyTorch's ``torch.nn.parameter`` path, for code that reaches ``Parameter`` through it
(torchvision's Swin Transformer writes ``nn.parameter.Parameter(...)``) or the uninitialized
parameters of lazy layers (``nn.parameter.is_lazy(p)``). The classes live in
:mod:`minigrad_ckpt.nn.module` and :mod:`minigrad_ckpt.nn.uninitialized`; this module only gives
them PyTorch's address."""

from .module import Buffer, Parameter
from .uninitialized import UninitializedBuffer, UninitializedParameter, UninitializedTensorMixin, is_lazy

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter", "UninitializedTensorMixin",
           "is_lazy"]
