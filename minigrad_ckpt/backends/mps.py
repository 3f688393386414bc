"""``mg.backends.mps``: Apple's Metal backend, which the engine does not have."""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: there is no MPS device here (``mg.device("mps")`` is refused)."""
    return False


def is_built() -> bool:
    """False, as a PyTorch built without MPS answers."""
    return False
