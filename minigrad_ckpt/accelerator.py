"""``mg.accelerator``: PyTorch's device-agnostic questions, answered for this engine.

``mg.accelerator.is_available()`` is true where a CUDA GPU is usable (through CuPy), and
``current_accelerator()`` is then that device (``None`` otherwise), so the device-agnostic
idiom of pytorch/examples runs unchanged::

    device = mg.accelerator.current_accelerator() if mg.accelerator.is_available() else mg.device("cpu")
"""

from __future__ import annotations

from . import cuda
from .backend import Device, get_device

__all__ = ["is_available", "current_accelerator", "device_count"]


def is_available() -> bool:
    """Whether an accelerator (a CUDA GPU that CuPy sees) is usable."""
    return cuda.is_available()


def current_accelerator() -> Device | None:
    """The accelerator device (``cuda:0``), or ``None`` when there is none."""
    return get_device("cuda:0") if cuda.is_available() else None


def device_count() -> int:
    """How many accelerators there are (0 without a GPU)."""
    return cuda.device_count()
