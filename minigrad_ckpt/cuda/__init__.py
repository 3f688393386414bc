"""``mg.cuda``: is a GPU usable, how many, wait for one.

Everything here works without CuPy installed (it reports no GPU).
"""

from __future__ import annotations

from typing import Any

from ..backend import _cupy, cuda_device_count, get_device

__all__ = ["is_available", "device_count", "synchronize", "memory_used_bytes", "amp"]


def is_available() -> bool:
    """True if CuPy is installed and sees at least one CUDA GPU."""
    return cuda_device_count() > 0


def device_count() -> int:
    """The number of visible CUDA GPUs (0 without CuPy or a GPU)."""
    return cuda_device_count()


def synchronize(device: Any = None) -> None:
    """Wait until queued GPU work on ``device`` (default ``cuda:0``) has finished."""
    get_device(device if device is not None else "cuda:0").xp.synchronize()


def memory_used_bytes(device: Any = None) -> int:
    """Bytes in use in CuPy's default memory pool (the GPU cross-check for the memory ledger)."""
    cupy = _cupy()
    if cupy is None:
        raise RuntimeError("no CUDA GPU: CuPy is not installed or sees no device")
    dev = get_device(device if device is not None else "cuda:0")
    with cupy.cuda.Device(dev.index):
        return int(cupy.get_default_memory_pool().used_bytes())


from . import amp  # noqa: E402  (PyTorch's torch.cuda.amp; it reads is_available above)
