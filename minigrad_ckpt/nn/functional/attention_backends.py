"""PyTorch's choice of kernel for ``scaled_dot_product_attention``: ``SDPBackend`` and the
``sdpa_kernel(backends)`` context manager (``mg.nn.attention`` offers both, as ``torch.nn.attention``).

The engine has one implementation, the math one, and runs it whichever backends are enabled.  What
the choice changes is whether a call may run at all: as PyTorch's CPU build, an input runs where the
math backend is enabled, or the flash one (4-d query, key and value, no dropout, equal head
dimensions); with neither enabled, or flash alone and an input it does not take, the call is
PyTorch's RuntimeError.  On a GPU any of PyTorch's CUDA kernels (math, flash, memory-efficient,
cuDNN) being enabled lets the call run.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

__all__ = ["SDPBackend", "sdpa_kernel", "check_backend_enabled"]


class SDPBackend(enum.Enum):
    """PyTorch's kernels for scaled dot product attention, with its values."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_ALL = [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
        SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE]
_enabled: list[list[Any]] = [list(_ALL)]  # the backends the innermost sdpa_kernel block enabled
_GPU_KERNELS = (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                SDPBackend.CUDNN_ATTENTION)


@contextlib.contextmanager
def sdpa_kernel(backends: list[SDPBackend] | SDPBackend, set_priority: bool = False) -> Iterator[dict]:
    """Enable only ``backends`` (one or a list) for ``scaled_dot_product_attention`` inside the block,
    as ``torch.nn.attention.sdpa_kernel``: PyTorch's AssertionError for anything but an SDPBackend or
    a list, on entering; the list's other items are not checked (they enable nothing), and
    ``set_priority`` orders kernels this engine does not have."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                             f"got {type(backends).__name__}")
    chosen = [backends] if isinstance(backends, SDPBackend) else list(dict.fromkeys(backends))
    previous = _enabled[0]
    _enabled[0] = chosen
    try:
        yield {}
    finally:
        _enabled[0] = previous


def check_backend_enabled(query: Any, key: Any, value: Any, dropout_p: float) -> None:
    """Refuse, as PyTorch does, an attention call that no enabled backend takes."""
    enabled = _enabled[0]
    if SDPBackend.MATH in enabled:
        return
    if query.device.type == "cuda":
        if any(kernel in enabled for kernel in _GPU_KERNELS):
            return
    elif SDPBackend.FLASH_ATTENTION in enabled:
        if (query.ndim == key.ndim == value.ndim == 4 and not dropout_p > 0.0
                and query.shape[-1] == key.shape[-1] == value.shape[-1]):
            return
        raise RuntimeError("No available kernel.  Aborting execution.")
    raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                       "turning off both the math kernel and the fused kernels.")
