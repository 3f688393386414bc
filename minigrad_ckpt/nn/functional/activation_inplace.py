"""PyTorch's in-place spellings of the activations: ``F.relu_(x)`` is ``F.relu(x, inplace=True)``.

Model code writes them (``F.relu_``, ``torch.relu_``, ``F.leaky_relu_``); each is the activation
with ``inplace=True``, so the write follows the in-place rules of ``written_in_place`` (refused on
a leaf that requires grad, recorded otherwise) and returns ``input`` itself.
"""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from . import activation as act

__all__ = ["relu_", "elu_", "celu_", "selu_", "leaky_relu_", "hardtanh_", "rrelu_", "threshold_"]


def relu_(input: Tensor) -> Tensor:  # noqa: A002
    """``relu(input, inplace=True)``."""
    return act.relu(input, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """``elu(input, alpha, inplace=True)``."""
    return act.elu(input, alpha, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    """``celu(input, alpha, inplace=True)``."""
    return act.celu(input, alpha, inplace=True)


def selu_(input: Tensor) -> Tensor:  # noqa: A002
    """``selu(input, inplace=True)``."""
    return act.selu(input, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    """``leaky_relu(input, negative_slope, inplace=True)``."""
    return act.leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:  # noqa: A002
    """``hardtanh(input, min_val, max_val, inplace=True)``."""
    return act.hardtanh(input, min_val, max_val, inplace=True)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:  # noqa: A002
    """``rrelu(input, lower, upper, training, inplace=True)``."""
    return act.rrelu(input, lower, upper, training, inplace=True)


def threshold_(input: Tensor, threshold: float, value: Any) -> Tensor:  # noqa: A002
    """``threshold(input, threshold, value, inplace=True)``."""
    return act.threshold(input, threshold, value, inplace=True)
