"""``mg.compile``: PyTorch's ``torch.compile``, which the engine answers by running the model as
it is -- there is no graph compiler here, and ``torch.compile`` promises the same results, so a
ported ``model = torch.compile(model)`` (or ``@torch.compile``) keeps working unchanged.

One visible difference: PyTorch wraps a compiled module (its ``state_dict`` keys gain an
``_orig_mod.`` prefix); here the module itself comes back, so its keys stay as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["compile"]


def compile(model: Callable[..., Any] | None = None, *, fullgraph: bool = False,  # noqa: A001
            dynamic: bool | None = None, backend: Any = "inductor", mode: str | None = None,
            options: dict[str, Any] | None = None, disable: bool = False) -> Any:
    """``model`` itself (a Module or a function); without ``model``, a decorator that returns
    its argument (``@mg.compile(mode="max-autotune")``). PyTorch's options are accepted and
    have no effect."""
    if model is None:
        return lambda fn: fn
    if not callable(model):
        raise TypeError(f"compile: expected a Module or a function, got {type(model).__name__}")
    return model
