"""PyTorch's ``F.max_pool2d_with_indices`` and its kin: the pooling functions that always return
``(values, indices)``, whatever ``return_indices`` says (PyTorch's ``max_pool2d`` is one of them with
the indices dropped).  Each is its pooling function with ``return_indices=True``."""

from __future__ import annotations

from typing import Any

from .fractional_pool import fractional_max_pool2d, fractional_max_pool3d
from .pool3d import adaptive_max_pool3d, max_pool3d
from .pooling import adaptive_max_pool1d, adaptive_max_pool2d, max_pool1d, max_pool2d

__all__ = ["max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]


def _always_indices(pool: Any, name: str) -> Any:
    def with_indices(*args: Any, return_indices: bool = False, **kwargs: Any) -> Any:
        return pool(*args, return_indices=True, **kwargs)

    with_indices.__name__ = with_indices.__qualname__ = name
    with_indices.__doc__ = f"``{pool.__name__}`` returning ``(values, indices)`` always (PyTorch's ``F.{name}``)."
    return with_indices


max_pool1d_with_indices = _always_indices(max_pool1d, "max_pool1d_with_indices")
max_pool2d_with_indices = _always_indices(max_pool2d, "max_pool2d_with_indices")
max_pool3d_with_indices = _always_indices(max_pool3d, "max_pool3d_with_indices")
adaptive_max_pool1d_with_indices = _always_indices(adaptive_max_pool1d, "adaptive_max_pool1d_with_indices")
adaptive_max_pool2d_with_indices = _always_indices(adaptive_max_pool2d, "adaptive_max_pool2d_with_indices")
adaptive_max_pool3d_with_indices = _always_indices(adaptive_max_pool3d, "adaptive_max_pool3d_with_indices")
fractional_max_pool2d_with_indices = _always_indices(fractional_max_pool2d, "fractional_max_pool2d_with_indices")
fractional_max_pool3d_with_indices = _always_indices(fractional_max_pool3d, "fractional_max_pool3d_with_indices")
