"""PyTorch's ``torch.__future__``: two process-wide switches that choose how ``nn.Module`` puts a
converted or loaded tensor in place of a parameter.

By default ``model.double()``, ``model.to(...)`` and ``model.to_empty(...)`` give each parameter its
new values in place (PyTorch's ``param.data = new``), and ``load_state_dict`` copies into it
(``param.copy_(value)``) or, with ``assign=True``, puts the state dict's tensor in its place.

- ``set_swap_module_params_on_conversion(True)``: every one of them goes through
  ``mg.utils.swap_tensors`` instead -- the parameter object keeps its identity (an optimizer built
  before still holds it) and takes the new contents whole, class and attributes included; and
  ``load_state_dict`` asks ``param.module_load(value, assign=...)`` what to swap in (a Tensor
  subclass may override it: the engine has no ``__torch_function__``, so the override is the method).
  With ``assign=True`` the parameter keeps its identity too, and so holds the state dict's memory.
- ``set_overwrite_module_params_on_conversion(True)``: a conversion makes new ``Parameter`` objects
  (an optimizer built before keeps the old ones).  The swap switch takes precedence.

Both are off to start, as PyTorch's.
"""

from __future__ import annotations

__all__ = ["set_swap_module_params_on_conversion", "get_swap_module_params_on_conversion",
           "set_overwrite_module_params_on_conversion", "get_overwrite_module_params_on_conversion"]

_switches = {"swap": False, "overwrite": False}


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Whether ``nn.Module``'s conversions and ``load_state_dict`` swap tensors (see the module)."""
    _switches["swap"] = bool(value)


def get_swap_module_params_on_conversion() -> bool:
    """What :func:`set_swap_module_params_on_conversion` last set (False to start)."""
    return _switches["swap"]


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Whether ``nn.Module``'s conversions make new parameter objects (see the module)."""
    _switches["overwrite"] = bool(value)


def get_overwrite_module_params_on_conversion() -> bool:
    """What :func:`set_overwrite_module_params_on_conversion` last set (False to start)."""
    return _switches["overwrite"]
