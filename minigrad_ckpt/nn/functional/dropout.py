"""Dropout: ``dropout`` (elements), ``dropout1d``/``2d``/``3d`` (whole channels), ``alpha_dropout``.

The randomness is one key drawn from the engine generator and stored on the
op, so a checkpoint replay regenerates the same mask.
"""

from __future__ import annotations

from typing import Any

from ... import random as _random
from ...functional import _tensor
from ...ops import dropout as _drop
from ...tape import apply
from ...tensor import Tensor
from .inputs import written_in_place

__all__ = [
    "dropout", "dropout2d", "dropout1d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
]


def _tensor_and_probability(name: str, x: Any, p: float) -> Tensor:
    """``x`` as a tensor, once ``p`` is checked to be a probability (a ValueError naming ``name``)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name}: p must be in [0, 1], got {p}")
    return _tensor(x)


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``.

    The randomness is one key drawn from the engine generator and stored on
    the op, so a checkpoint replay regenerates the same mask.
    """
    if inplace:
        return written_in_place("dropout", input, dropout(input, p, training))
    input = _tensor_and_probability("dropout", input, p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    return apply(_drop.Dropout(p=float(p), key=_random.next_key()), input)


def _channel_dropout(x: Any, p: float, training: bool, name: str, spatial: int) -> Tensor:
    """Zero whole channels of (N, C, *spatial) or (C, *spatial) input: a dropout of ones (one key
    on the tape, so a checkpoint replay regenerates it) broadcast over the ``spatial`` axes."""
    x = _tensor_and_probability(name, x, p)
    if x.ndim not in (spatial + 1, spatial + 2):
        raise ValueError(f"{name}: expected a {spatial + 1}-D (C, ...) or {spatial + 2}-D (N, C, ...) input, "
                         f"got shape {x.shape}")
    if not training or p == 0.0:
        return x
    shape = x.shape[:x.ndim - spatial] + (1,) * spatial
    ones = Tensor.constant(x.device.xp.ones(shape, dtype=x.dtype), x.device)
    return x * dropout(ones, p, True)


def dropout1d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels (axis 1 of (N, C, L), axis 0 of (C, L)) with probability ``p``."""
    if inplace:
        return written_in_place("dropout1d", input, dropout1d(input, p, training))
    return _channel_dropout(input, p, training, "dropout1d", 1)


def dropout2d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels (axis 1 of (N, C, H, W), axis 0 of (C, H, W)) with probability ``p``.

    The channel mask is a dropout of ones (one key on the tape), broadcast over
    the spatial axes: a checkpoint replay regenerates it exactly.
    """
    if inplace:
        return written_in_place("dropout2d", input, dropout2d(input, p, training))
    return _channel_dropout(input, p, training, "dropout2d", 2)


def dropout3d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels (axis 1 of (N, C, D, H, W), axis 0 of (C, D, H, W)) with probability ``p``."""
    if inplace:
        return written_in_place("dropout3d", input, dropout3d(input, p, training))
    return _channel_dropout(input, p, training, "dropout3d", 3)


# -alpha * scale of SELU: the value SELU gives very negative inputs, which alpha dropout drops to
_ALPHA_PRIME = 1.7580993408473766


def alpha_dropout(input: Any, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements become SELU's negative saturation value
    and an affine map ``a * y + b`` restores zero mean and unit variance (PyTorch's formula,
    ``a = ((1 - p) (1 + p alpha'^2))^(-1/2)``); identity outside training."""
    if inplace:
        return written_in_place("alpha_dropout", input, alpha_dropout(input, p, training))
    input = _tensor_and_probability("alpha_dropout", input, p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    a = 1.0 / ((_ALPHA_PRIME ** 2 * p + 1) * (1 - p)) ** 0.5
    # a (keep x + (keep - 1) alpha') + alpha' a p  =  a (1 - p) dropout(x + alpha') - alpha' a (1 - p):
    # one dropout of a value computed from x, so a checkpoint replays the mask from its key
    return dropout(input + _ALPHA_PRIME, p, True) * (a * (1 - p)) - _ALPHA_PRIME * a * (1 - p)


def feature_alpha_dropout(input: Any, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels: the mask is drawn per ``(N, C)`` pair (axes 0 and 1, as
    PyTorch's, also for a 2-D input) and broadcast over the rest; :func:`alpha_dropout`'s affine
    map."""
    input = _tensor_and_probability("feature_alpha_dropout", input, p)
    if inplace:
        return written_in_place("feature_alpha_dropout", input, feature_alpha_dropout(input, p, training))
    if input.ndim < 2:
        raise ValueError(f"feature_alpha_dropout: expected at least a 2-D (N, C, ...) input, got shape {input.shape}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    a = 1.0 / ((_ALPHA_PRIME ** 2 * p + 1) * (1 - p)) ** 0.5
    mask_shape = input.shape[:2] + (1,) * (input.ndim - 2)
    ones = Tensor.constant(input.device.xp.ones(mask_shape, dtype=input.dtype), input.device)
    return (input + _ALPHA_PRIME) * dropout(ones, p, True) * (a * (1 - p)) - _ALPHA_PRIME * a * (1 - p)
