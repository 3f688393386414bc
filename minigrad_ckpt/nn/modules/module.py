"""PyTorch's ``torch.nn.modules.module``: ``Module`` and the hooks of every module
(``register_module_forward_pre_hook``, ``register_module_forward_hook``,
``register_module_full_backward_pre_hook``, ``register_module_full_backward_hook``, the deprecated
``register_module_backward_hook``, and ``register_module_{parameter,buffer,module}_registration_hook``),
defined in :mod:`minigrad_ckpt.nn.module`; and ``_IncompatibleKeys``, the named pair
``load_state_dict`` returns, which a layer that overrides ``load_state_dict`` (Opacus's
``RenameParamsMixin``) imports from here to return the same kind of answer."""

from ..module import (
    Module,
    _IncompatibleKeys,
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)

__all__ = ["Module", "_IncompatibleKeys", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]
