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
    "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_", "orthogonal_", "eye_", "dirac_",
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


def trunc_normal_(t: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Any = None) -> Tensor:
    """Fill with N(mean, std^2) conditioned on ``[a, b]`` (absolute bounds, as PyTorch's; ViT-style
    initialisation). Drawn by rejection: values outside are drawn again with fresh keys, so the law is
    exactly the truncated normal (PyTorch inverts the CDF instead: the same law, other numbers)."""
    if not a < b:
        raise ValueError(f"trunc_normal_: a={a} must be below b={b}")
    gen = generator or _random.default_generator
    xp = t.device.xp
    values = _random.normal(xp, gen.next_key(), t.shape, t.dtype) * std + mean
    outside = (values < a) | (values > b)
    for _ in range(1000):  # a bound an std or more from the mean rejects few; [a, b] far out needs more
        if not bool(xp.scalar(outside.any())):
            return _fill(t, values)
        fresh = _random.normal(xp, gen.next_key(), t.shape, t.dtype) * std + mean
        values = xp.where(outside, fresh, values)
        outside = (values < a) | (values > b)
    raise ValueError(f"trunc_normal_: [{a}, {b}] holds too little of N({mean}, {std}^2) to draw from")


def orthogonal_(t: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix (the trailing axes flattened), times ``gain``: PyTorch's
    recipe, the Q of a Gaussian matrix's QR with R's diagonal signs folded in (a uniform draw)."""
    if t.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if t.numel() == 0:
        return t
    rows, cols = t.shape[0], t.numel() // t.shape[0]
    xp = t.device.xp
    gen = generator or _random.default_generator
    flat = _random.normal(xp, gen.next_key(), (rows, cols), "float64" if t.dtype.itemsize == 8 else "float32")
    if rows < cols:
        flat = flat.T
    q, r = xp.linalg.qr(flat)
    q = q * xp.sign(xp.diagonal(r))
    if rows < cols:
        q = q.T
    return _fill(t, (q * gain).reshape(t.shape).astype(t.dtype))


def eye_(t: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity (ones on the diagonal), as PyTorch's ``eye_``."""
    if t.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(t, t.device.xp.eye(*t.shape, dtype=t.dtype))


def dirac_(t: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: the convolution passes its input
    channels through (per group), as PyTorch's ``dirac_``."""
    if t.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_per_group = t.shape[0] // groups
    if t.shape[0] % groups:
        raise ValueError("dim 0 must be divisible by groups")
    xp = t.device.xp
    values = xp.zeros(t.shape, dtype=t.dtype)
    centre = tuple(k // 2 for k in t.shape[2:])
    for g in range(groups):
        for d in range(min(out_per_group, t.shape[1])):
            values[(g * out_per_group + d, d, *centre)] = 1
    return _fill(t, values)
