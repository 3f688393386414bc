"""``mg.cuda``: is a GPU usable, how many, wait for one.

Everything here works without CuPy installed (it reports no GPU).
"""

from __future__ import annotations

from typing import Any

from .. import random as _random
from ..backend import _cupy, cuda_device_count, get_device

__all__ = ["is_available", "device_count", "synchronize", "memory_used_bytes", "amp", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed"]


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


# The seeds.  Every device draws from the engine's one generator (a value is a pure function
# of its key, so a GPU draws what the CPU would), which ``mg.manual_seed`` seeds; PyTorch's CUDA
# generators are separate.  So these seed it when a GPU is there to draw from it, and are
# silently ignored without one, as PyTorch's are ("safe to call if CUDA is not available").
def manual_seed(seed: int) -> None:
    """Seed the generator GPU draws come from (the engine's one: ``mg.manual_seed``); without a GPU,
    nothing (PyTorch's ``torch.cuda.manual_seed``)."""
    if is_available():
        _random.manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """:func:`manual_seed` for every GPU: they share the one generator."""
    manual_seed(seed)


def seed() -> None:
    """Reseed the generator GPU draws come from non-deterministically (``mg.seed``); without a GPU,
    nothing."""
    if is_available():
        _random.seed()


def seed_all() -> None:
    """:func:`seed` for every GPU."""
    seed()


def initial_seed() -> int:
    """The seed of the generator GPU draws come from (``mg.initial_seed``)."""
    return _random.initial_seed()


from . import amp  # noqa: E402  (PyTorch's torch.cuda.amp; it reads is_available above)
