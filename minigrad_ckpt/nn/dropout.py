"""Dropout layers: ``Dropout`` (elements), ``Dropout1d``/``2d``/``3d`` (whole channels), ``AlphaDropout``;
identities in eval mode."""

from __future__ import annotations

from . import functional as F
from .function_layer import FunctionLayer

__all__ = [
    "Dropout", "Dropout2d", "Dropout1d", "Dropout3d", "AlphaDropout",
]


def _probability(layer: str, p: float) -> float:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{layer}: p must be in [0, 1], got {p}")
    return float(p)


class Dropout(FunctionLayer):
    """Zeroes each element with probability ``p`` in training, scaling the rest by ``1/(1-p)``; identity in eval."""

    fn = staticmethod(F.dropout)
    options = ("p", "training")
    shown = ("p",)

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = _probability("Dropout", p)


class Dropout2d(FunctionLayer):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) input with probability ``p`` in training."""

    fn = staticmethod(F.dropout2d)
    options = ("p", "training")
    shown = ("p",)

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.p = _probability("Dropout2d", p)
        if inplace:
            raise ValueError("Dropout2d: inplace=True is not supported (it would change a value the tape may need)")


class Dropout1d(FunctionLayer):
    """Zeroes whole channels of (N, C, L) or (C, L) input with probability ``p`` in training."""

    fn = staticmethod(F.dropout1d)
    options = ("p", "training")
    shown = ("p",)

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = _probability("Dropout1d", p)


class Dropout3d(FunctionLayer):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability ``p`` in training."""

    fn = staticmethod(F.dropout3d)
    options = ("p", "training")
    shown = ("p",)

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = _probability("Dropout3d", p)


class AlphaDropout(FunctionLayer):
    """Dropout that keeps SELU activations' mean and variance (``F.alpha_dropout``); identity in eval."""

    fn = staticmethod(F.alpha_dropout)
    options = ("p", "training")
    shown = ("p",)

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = _probability("AlphaDropout", p)
