"""PyTorch's ``torch.nn.modules.module``: ``Module`` and the hooks of every module
(``register_module_forward_pre_hook``, ``register_module_forward_hook``,
``register_module_full_backward_pre_hook``, ``register_module_full_backward_hook``), defined in
:mod:`minigrad_ckpt.nn.module`."""

from ..module import (
    Module,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook"]
