"""PyTorch's ``torch.autograd.grad_mode`` address (``torch.autograd.grad_mode.no_grad``): the
engine's grad-mode switches, which live in :mod:`minigrad_ckpt.grad_mode`; and PyTorch's
per-thread ``set_multithreading_enabled`` switch, kept here and read back."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from ..grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "set_multithreading_enabled"]


class _Multithreading(threading.local):
    enabled = True


_multithreading = _Multithreading()


def is_multithreading_enabled() -> bool:
    """PyTorch's ``torch.autograd.is_multithreading_enabled()``: what :class:`set_multithreading_enabled`
    last set in this thread (True to start, in every thread)."""
    return _multithreading.enabled


class set_multithreading_enabled:
    """PyTorch's ``torch.autograd.set_multithreading_enabled(mode)``: a per-thread switch, set at once,
    that a ``with`` block (or a decorated function) puts back on leaving, as ``set_grad_enabled``.

    PyTorch's engine runs a backward pass on a worker thread per GPU when it is on; here every pass
    runs on the thread that calls it either way, so the switch changes nothing but what
    :func:`is_multithreading_enabled` reads -- code that turns it off (a CUDA stream test, a
    reproducibility guard) runs unchanged.
    """

    def __init__(self, mode: bool) -> None:
        self.prev = _multithreading.enabled
        self.mode = bool(mode)
        _multithreading.enabled = self.mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _multithreading.enabled = self.prev

    def clone(self) -> set_multithreading_enabled:
        """A fresh switch of the same mode (PyTorch's, for decorators)."""
        return type(self)(self.mode)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        _multithreading.enabled = self.prev  # used as a decorator: the switch holds inside each call only

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper
