"""Weight initialisation, PyTorch's formulas, driven by the engine generator.

Every function fills a tensor in place (no gradient is recorded) and returns
it.  Randomness comes from :func:`minigrad_ckpt.manual_seed`'s generator, so a
seed reproduces a model exactly, on the CPU and on a GPU alike.
"""

from __future__ import annotations

import math
from typing import Any

from .. import random as _random
from ..grad_mode import no_grad
from ..tensor import Tensor

__all__ = [
    "calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "xavier_uniform_",
    "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table)."""
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else float(param)
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"unsupported nonlinearity {nonlinearity!r}")


def _fans(t: Tensor) -> tuple[int, int]:
    if t.ndim < 2:
        raise ValueError(f"fan in/out need a tensor with at least 2 dimensions, got shape {t.shape}")
    receptive = 1
    for s in t.shape[2:]:
        receptive *= s
    return t.shape[1] * receptive, t.shape[0] * receptive


# PyTorch's private name, which custom reset_parameters() copied from torch's layers call
# (fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)).
_calculate_fan_in_and_fan_out = _fans


def _fill(t: Tensor, values: Any) -> Tensor:
    with no_grad():
        t.copy_(Tensor.constant(values, t.device))
    return t


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    """Fill with samples from U(a, b)."""
    u = _random.uniform(t.device.xp, _random.next_key(), t.shape, t.dtype)
    return _fill(t, u * (b - a) + a)


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fill with samples from N(mean, std^2)."""
    z = _random.normal(t.device.xp, _random.next_key(), t.shape, t.dtype)
    return _fill(t, z * std + mean)


def constant_(t: Tensor, value: float) -> Tensor:
    """Fill ``t`` with ``value`` in place (not recorded on the tape); returns ``t``."""
    with no_grad():
        t.fill_(value)
    return t


def zeros_(t: Tensor) -> Tensor:
    """Fill ``t`` with zeros in place; returns ``t``."""
    return constant_(t, 0.0)


def ones_(t: Tensor) -> Tensor:
    """Fill ``t`` with ones in place; returns ``t``."""
    return constant_(t, 1.0)


def xavier_uniform_(t: Tensor, gain: float = 1.0) -> Tensor:
    """Glorot uniform: ``U(-b, b)`` with ``b = gain * sqrt(6 / (fan_in + fan_out))``, in place."""
    fan_in, fan_out = _fans(t)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(t, -bound, bound)


def xavier_normal_(t: Tensor, gain: float = 1.0) -> Tensor:
    """Glorot normal: ``N(0, std)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``, in place."""
    fan_in, fan_out = _fans(t)
    return normal_(t, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def kaiming_uniform_(t: Tensor, a: float = 0.0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu") -> Tensor:
    """He initialisation: U(-b, b) with ``b = gain * sqrt(3 / fan)``."""
    fan_in, fan_out = _fans(t)
    fan = fan_in if mode == "fan_in" else fan_out
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan) if fan else 0.0
    return uniform_(t, -bound, bound)


def kaiming_normal_(t: Tensor, a: float = 0.0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu") -> Tensor:
    """He normal: ``N(0, gain / sqrt(fan))`` for the ``nonlinearity``'s gain and ``mode``'s fan, in place."""
    fan_in, fan_out = _fans(t)
    fan = fan_in if mode == "fan_in" else fan_out
    return normal_(t, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan) if fan else 0.0)
