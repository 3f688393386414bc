"""``mg.fx``: the ``torch.fx`` marker that model code carries, so that it imports and runs here.

Model libraries mark helper functions ``@torch.fx.wrap`` at the top of a module (timm's ``layers/attention.py``
and ``pos_embed.py``): for PyTorch's symbolic tracer the call becomes one leaf node instead of being traced
through. The decorator runs as the module is imported, so without it the import itself failed -- all of timm's
layers with it -- though nothing is ever traced. ``wrap`` gives back what it marks, as PyTorch's does, and keeps
PyTorch's two refusals (a marker that is neither a function nor a name; a call outside a module's top level).

There is no tracer here (the engine runs eagerly on NumPy and records no graph to rewrite):
:func:`symbolic_trace` refuses, naming what still works -- the module itself.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["symbolic_trace", "wrap"]


def wrap(fn_or_name: Callable[..., Any] | str) -> Callable[..., Any] | str:
    """``fn_or_name`` itself: a function (or a global function's name) PyTorch's tracer would keep as a leaf.

    Called, as in PyTorch, at a module's top level only (``@torch.fx.wrap`` above a ``def``)."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    caller = inspect.currentframe().f_back  # type: ignore[union-attr]
    if caller is not None and caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    return fn_or_name


def symbolic_trace(root: Any, concrete_args: dict[str, Any] | None = None) -> Any:
    """Refused: the engine records no graph to trace into a ``GraphModule``. Call the module itself."""
    raise NotImplementedError("mg.fx.symbolic_trace: the engine has no graph tracer (it runs eagerly); call the "
                              "module itself")
