"""PyTorch's ``torch.nn.modules.container``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]
