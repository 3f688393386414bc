"""``mg.compile``: PyTorch's ``torch.compile``, which the engine answers by running the model as
it is -- there is no graph compiler here, and ``torch.compile`` promises the same results, so a
ported ``model = torch.compile(model)`` (or ``@torch.compile``) keeps working unchanged.

One visible difference: PyTorch wraps a compiled module (its ``state_dict`` keys gain an
``_orig_mod.`` prefix); here the module itself comes back, so its keys stay as they were.

``mg.compiler`` also answers the questions model code asks of ``torch.compiler`` -- nothing is ever
being compiled or exported, so ``is_compiling()`` is False and the eager branch runs (litgpt's
sampler takes ``torch.multinomial`` there) -- and its markers, ``disable`` and ``allow_in_graph``,
give back what they mark.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["allow_in_graph", "compile", "disable", "is_compiling", "is_dynamo_compiling", "is_exporting",
           "reset"]


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


def is_compiling() -> bool:
    """False: no code runs under a compiler here (PyTorch's ``torch.compiler.is_compiling()``)."""
    return False


def is_dynamo_compiling() -> bool:
    """False, as :func:`is_compiling`: there is no TorchDynamo tracing."""
    return False


def is_exporting() -> bool:
    """False: nothing is being exported (``torch.export``) here."""
    return False


def disable(fn: Callable[..., Any] | None = None, recursive: bool = True, *, reason: str | None = None) -> Any:
    """``fn`` itself: it already runs eagerly. Without ``fn``, a decorator that returns its argument
    (``@mg.compiler.disable(recursive=False)``)."""
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` itself: there is no graph to allow it into."""
    return fn


def reset() -> None:
    """Nothing to clear: no compiled code is cached."""
