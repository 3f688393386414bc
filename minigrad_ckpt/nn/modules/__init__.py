"""PyTorch's ``torch.nn.modules`` path, for code that reaches ``Module`` or the hooks of every module
through it: ``torch.nn.modules.module.register_module_forward_hook(hook)`` is
``mg.nn.modules.module.register_module_forward_hook(hook)``.  The names live in
:mod:`minigrad_ckpt.nn.module`; this package only gives them PyTorch's address.
``mg.nn.modules.utils`` holds PyTorch's helpers of that path (``_pair``,
``consume_prefix_in_state_dict_if_present``)."""

from . import module, utils  # noqa: F401
from .module import Module

__all__ = ["Module"]
