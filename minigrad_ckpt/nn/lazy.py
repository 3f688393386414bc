"""PyTorch's ``LazyModuleMixin``: a layer whose weights get their shapes from its first input.

``nn.LazyLinear(10)`` needs no ``in_features``: it holds
:class:`~.uninitialized.UninitializedParameter` s until its first call, when a forward pre-hook asks
the layer's ``initialize_parameters(input)`` to materialize them with the shapes the input implies
and to initialize them as the eager layer would (its ``reset_parameters``).  The hook then removes
itself and the module takes the class ``cls_to_become`` (``type(m) is nn.Linear``), so from then on
it *is* the eager layer, with the same parameter objects: an optimizer built before the first call
(d2l's ``Trainer`` builds it first) steps them.

Before that call the layer can be converted (``.to(dtype)``, ``.double()``: the dtype and device its
weights will be made with), saved (``state_dict()`` holds the uninitialized parameters themselves) and
loaded: ``load_state_dict`` of a materialized state first materializes each uninitialized parameter
with the shape it loads, then copies.
"""

from __future__ import annotations

import itertools
from typing import Any

from .uninitialized import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Put before the eager layer's class: ``class LazyLinear(LazyModuleMixin, Linear)``, with
    ``initialize_parameters(*args)`` materializing the weights and ``cls_to_become`` the eager class."""

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        """Module's, except that an uninitialized tensor is saved itself (it has nothing to detach)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict: Any, prefix: str, local_metadata: Any, strict: bool,
                        missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        """Load pre-hook: each uninitialized parameter or buffer that the state dict holds a value of
        is materialized with that value's shape first, so the copy that follows fits."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value) and hasattr(value, "shape"):
                    param.materialize(tuple(value.shape))

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialize and initialize the parameters from the first call's arguments (each layer's own)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module (not its children) is still uninitialized."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module: Any, args: tuple, kwargs: dict | None = None) -> None:
        """The forward pre-hook of the first call: initialize, then stop being lazy."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self) -> Any:
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
