"""``mg.backends.cudnn``: PyTorch's cuDNN switches, kept as written; the engine has no cuDNN."""

from __future__ import annotations

__all__ = ["is_available", "version", "enabled", "benchmark", "deterministic", "allow_tf32", "benchmark_limit"]

# PyTorch's defaults; writing them changes no computation here.
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10


def is_available() -> bool:
    """False: the engine does not use cuDNN."""
    return False


def version() -> None:
    """None, as PyTorch answers where cuDNN is not available."""
    return None
