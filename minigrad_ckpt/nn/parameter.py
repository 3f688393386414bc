"""PyTorch's ``torch.nn.parameter`` path, for code that reaches ``Parameter`` through it
(torchvision's Swin Transformer writes ``nn.parameter.Parameter(...)``). The class lives in
:mod:`minigrad_ckpt.nn.module`; this module only gives it PyTorch's address."""

from .module import Buffer, Parameter

__all__ = ["Buffer", "Parameter"]
