"""Dropout: ``dropout`` (elements), ``dropout1d``/``2d``/``3d`` (whole channels), ``alpha_dropout``.

The randomness is one key drawn from the engine generator and stored on the
op, so a checkpoint replay regenerates the same mask.
"""

from __future__ import annotations

import warnings
from typing import Any

from ... import random as _random
from ...backend import scalar_type_name
from ...functional import _tensor
from ...functional.arguments import number
from ...ops import dropout as _drop
from ...tape import apply
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine
from .inputs import written_in_place

__all__ = [
    "dropout", "dropout2d", "dropout1d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
]


def _tensor_and_probability(name: str, x: Any, p: float) -> tuple[Tensor, float]:
    """``x`` as a tensor and ``p`` as a number (PyTorch's ``float``:
    :func:`~minigrad_ckpt.functional.arguments.number`), once ``p`` is checked to be a probability (a
    ValueError naming ``name``)."""
    p = number(name, "p", p, "float")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name}: p must be in [0, 1], got {p}")
    return _tensor(x), p


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``.

    The randomness is one key drawn from the engine generator and stored on
    the op, so a checkpoint replay regenerates the same mask.
    """
    if inplace:
        return written_in_place("dropout", input, dropout, p, training)
    input, p = _tensor_and_probability("dropout", input, p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        if input._data.dtype.kind in "fc":
            return input * 0.0
        return Tensor.constant(input.device.xp.zeros_like(input._data), input.device)  # (PyTorch's keep the dtype)
    if input._data.dtype.kind in "biu":  # PyTorch's scaled mask is float; it cannot land in an integer
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{scalar_type_name(input._data.dtype)}")
    return apply(_drop.Dropout(p=float(p), key=_random.next_key()), input)


def _draws_a_mask(x: Tensor, p: float, training: bool) -> bool:
    """Whether a dropout draws a mask: in training, at ``0 < p < 1``, for a non-empty input. Only then
    does PyTorch check a feature dropout's dims (elsewhere any input passes, or ``p = 1`` zeroes it)."""
    return training and 0.0 < p < 1.0 and x.numel() > 0


def _channel_mask_shape(x: Tensor, batched: bool) -> tuple[int, ...]:
    """The shape of a feature dropout's mask: ``x``'s (N, C) axes (axis 0 of an unbatched input), 1 for
    the rest. PyTorch's refusal of fewer than 2 dims counts the batch axis it adds to an unbatched input."""
    kept = 2 if batched else 1
    if x.ndim + (2 - kept) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return x.shape[:kept] + (1,) * (x.ndim - kept)


def _feature_dropout(x: Tensor, p: float, training: bool, batched: bool) -> Tensor:
    """PyTorch's ``feature_dropout``: zero whole channels, the mask drawn per (N, C) pair of a batched
    input (per index of axis 0 of an unbatched one) and broadcast over the other axes; a dropout of
    ones (one key on the tape, so a checkpoint replay regenerates it)."""
    if not _draws_a_mask(x, p, training):
        return dropout(x, p, training)  # the input itself, or zeros at p = 1
    shape = _channel_mask_shape(x, batched)
    ones = Tensor.constant(x.device.xp.ones(shape, dtype=x.dtype), x.device)
    return x * dropout(ones, p, True)


def _warn_dims(name: str, ndim: int, spatial: int) -> None:
    """PyTorch's deprecation warning for an input of other than ``spatial + 1`` or ``+ 2`` dims."""
    warnings.warn(
        f"{name}: Received a {ndim}-D input to {name}, which is deprecated "
        "and will result in an error in a future release. To retain the behavior "
        f"and silence this warning, please use dropout instead. Note that {name} "
        f"exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, "
        f"a channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        stacklevel=stacklevel_outside_the_engine(),
    )


def dropout1d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels (axis 1 of (N, C, L), axis 0 of (C, L)) with probability ``p``."""
    if inplace:
        return written_in_place("dropout1d", input, dropout1d, p, training)
    x, p = _tensor_and_probability("dropout1d", input, p)
    if x.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {x.ndim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs).")
    return _feature_dropout(x, p, training, batched=x.ndim == 3)


def dropout2d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels (axis 1 of (N, C, H, W)) with probability ``p``.

    As PyTorch's: a 3-D input is read as (N, C, L) -- batched 1-D, each (n, c) row zeroed whole --
    not as an unbatched (C, H, W), with PyTorch's warning (``dropout1d`` says so without one, and
    ``dropout2d(x.unsqueeze(0)).squeeze(0)`` drops the channels of one (C, H, W)); other than 3-D or
    4-D input is deprecated (a warning) and dropped per (axis 0, axis 1) pair.
    """
    if inplace:
        return written_in_place("dropout2d", input, dropout2d, p, training)
    x, p = _tensor_and_probability("dropout2d", input, p)
    if x.ndim not in (3, 4):
        _warn_dims("dropout2d", x.ndim, 2)
    if x.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=stacklevel_outside_the_engine(),
        )
    return _feature_dropout(x, p, training, batched=True)


def dropout3d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels (axis 1 of (N, C, D, H, W), axis 0 of (C, D, H, W)) with probability ``p``;
    other input is deprecated (PyTorch's warning) and read as unbatched, dropped per index of axis 0."""
    if inplace:
        return written_in_place("dropout3d", input, dropout3d, p, training)
    x, p = _tensor_and_probability("dropout3d", input, p)
    if x.ndim not in (4, 5):
        _warn_dims("dropout3d", x.ndim, 3)
    return _feature_dropout(x, p, training, batched=x.ndim == 5)


# -alpha * scale of SELU: the value SELU gives very negative inputs, which alpha dropout drops to
_ALPHA_PRIME = 1.7580993408473766


def alpha_dropout(input: Any, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements become SELU's negative saturation value
    and an affine map ``a * y + b`` restores zero mean and unit variance (PyTorch's formula,
    ``a = ((1 - p) (1 + p alpha'^2))^(-1/2)``); identity outside training."""
    if inplace:
        return written_in_place("alpha_dropout", input, alpha_dropout, p, training)
    input, p = _tensor_and_probability("alpha_dropout", input, p)
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
    input, p = _tensor_and_probability("feature_alpha_dropout", input, p)
    if inplace:
        return written_in_place("feature_alpha_dropout", input, feature_alpha_dropout, p, training)
    if not _draws_a_mask(input, p, training):
        return alpha_dropout(input, p, training)  # the input itself, or zeros at p = 1
    a = 1.0 / ((_ALPHA_PRIME ** 2 * p + 1) * (1 - p)) ** 0.5
    ones = Tensor.constant(input.device.xp.ones(_channel_mask_shape(input, True), dtype=input.dtype), input.device)
    return (input + _ALPHA_PRIME) * dropout(ones, p, True) * (a * (1 - p)) - _ALPHA_PRIME * a * (1 - p)
