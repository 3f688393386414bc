"""Dropout layers: ``Dropout`` (elements), ``Dropout1d``/``2d``/``3d`` (whole channels), ``AlphaDropout``;
identities in eval mode."""

from __future__ import annotations

from ..functional.arguments import number
from . import functional as F
from .function_layer import FunctionLayer

__all__ = [
    "Dropout", "Dropout2d", "Dropout1d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
]


class _Dropout(FunctionLayer):
    """What every dropout layer is: its function called with the probability ``p`` (in ``[0, 1]``)
    of dropping, and whether the module is training."""

    options = ("p", "training", "inplace")
    shown = ("p",)

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        p = number(type(self).__name__, "p", p, "float")  # (float() read a tensor's value, its gradient lost)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{type(self).__name__}: p must be in [0, 1], got {p}")
        super().__init__(p=p, inplace=bool(inplace))  # p kept as given: PyTorch's repr shows Dropout(p=0, ...)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"  # PyTorch's


class Dropout(_Dropout):
    """Zeroes each element with probability ``p`` in training, scaling the rest by ``1/(1-p)``; identity in eval."""

    fn = staticmethod(F.dropout)


class Dropout2d(_Dropout):
    """Zeroes whole channels of (N, C, H, W) input with probability ``p`` in training; a 3-D input is
    (N, C, L), as PyTorch reads it (with its warning): see ``F.dropout2d``."""

    fn = staticmethod(F.dropout2d)


class Dropout1d(_Dropout):
    """Zeroes whole channels of (N, C, L) or (C, L) input with probability ``p`` in training."""

    fn = staticmethod(F.dropout1d)


class Dropout3d(_Dropout):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability ``p`` in training."""

    fn = staticmethod(F.dropout3d)


class AlphaDropout(_Dropout):
    """Dropout that keeps SELU activations' mean and variance (``F.alpha_dropout``); identity in eval."""

    fn = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_Dropout):
    """Alpha dropout of whole channels (``F.feature_alpha_dropout``); identity in eval."""

    fn = staticmethod(F.feature_alpha_dropout)
