"""Activation functions: ``relu``, ``gelu``, ``softmax``, ``softplus``, ``elu``, ``prelu``, ...

ReLU, GELU, SiLU and the softmaxes are ops of their own
(:mod:`minigrad_ckpt.ops.activation`); the others are compositions of the
engine's ops, written so that large inputs neither overflow nor leak a NaN
into the gradient.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...functional import _tensor, normalize_axis
from ...ops import activation as _act
from ...tape import apply
from ...tensor import Tensor
from .inputs import _axis, _check_input_dtype

__all__ = [
    "relu", "leaky_relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "softplus", "logsigmoid",
    "mish", "elu", "hardtanh", "prelu",
]


_RELU = _act.Relu()
_SILU = _act.Silu()


def relu(x: Any) -> Tensor:
    """``max(x, 0)``; the gradient at 0 is 0."""
    return apply(_RELU, x)


def leaky_relu(x: Any, negative_slope: float = 0.01) -> Tensor:
    """``x`` for positive inputs, ``negative_slope * x`` otherwise."""
    return apply(_act.LeakyRelu(negative_slope=float(negative_slope)), _tensor(x))


def gelu(x: Any, approximate: str = "none") -> Tensor:
    """GELU, exact (``approximate="none"``, with ``erf``) or the ``"tanh"`` approximation."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return apply(_act.Gelu(approximate=approximate), _tensor(x))


def silu(x: Any) -> Tensor:
    """``x * sigmoid(x)``."""
    return apply(_SILU, x)


sigmoid = mf.sigmoid
tanh = mf.tanh


def softmax(x: Any, axis: int | None = None, *, dim: int | None = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis`` (default the last)."""
    x = _tensor(x)
    if x.ndim == 0:  # PyTorch: a 0-d tensor is its own (one-element) slice
        return mf.reshape(softmax(mf.reshape(x, (1,))), ())
    ax = normalize_axis(_axis(axis, dim), x.ndim)
    return apply(_act.Softmax(axis=ax), x)


def log_softmax(x: Any, axis: int | None = None, *, dim: int | None = None) -> Tensor:
    """``x - logsumexp(x)`` along ``axis`` (default the last), stable for huge logits."""
    x = _tensor(x)
    if x.ndim == 0:
        return mf.reshape(log_softmax(mf.reshape(x, (1,))), ())
    ax = normalize_axis(_axis(axis, dim), x.ndim)
    return apply(_act.LogSoftmax(axis=ax), x)


def softplus(x: Any, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``.

    Computed as ``logaddexp(0, beta * x)``: stable for any ``x``, exact
    gradient ``sigmoid(beta * x)`` (1/2 at 0).  The 0 is a Python number, not
    an array: a checkpoint keeps nothing for it.
    """
    x = _tensor(x)
    z = x * beta if beta != 1.0 else x
    soft = mf.logaddexp(0.0, z)
    if beta != 1.0:
        soft = soft * (1.0 / beta)
    return mf.where(z > threshold, x, soft)


def logsigmoid(x: Any) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``."""
    x = _tensor(x)
    return -mf.logaddexp(0.0, -x)


def mish(x: Any) -> Tensor:
    """``x * tanh(softplus(x))``."""
    x = _tensor(x)
    return x * mf.tanh(softplus(x))


def elu(x: Any, alpha: float = 1.0) -> Tensor:
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``; the derivative at 0 is ``alpha`` (PyTorch)."""
    x = _tensor(x)
    pos = x > 0
    neg = mf.where(pos, 0.0, x)  # the exp only ever sees x <= 0: no overflow, no inf * 0
    return mf.where(pos, x, mf.expm1(neg) * alpha)


def hardtanh(x: Any, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``x`` clamped to ``[min_val, max_val]``; the gradient is 0 at and beyond the bounds (PyTorch)."""
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val={min_val} is greater than max_val={max_val}")
    x = _tensor(x)
    inside = (x > min_val) & (x < max_val)
    return mf.where(inside, x, mf.clip(x, min_val, max_val).detach())


def prelu(x: Any, weight: Any) -> Tensor:
    """``x`` for ``x > 0``, else ``weight * x``; ``weight`` has one value or one per channel (axis 1)."""
    x = _tensor(x)
    w = _tensor(weight, x)
    _check_input_dtype("prelu", x, w)
    if w.size == 1 and w.ndim <= 1:  # one slope, 0-d or (1,): the output keeps the input's shape
        w = mf.reshape(w, ())
    elif w.ndim != 1 or x.ndim < 2 or x.shape[1] != w.shape[0]:
        raise ValueError(f"prelu: weight of shape {w.shape} needs one value (a 0-d or 1-element weight) or one "
                         f"per channel (dim 1) of input {x.shape}")
    else:
        w = mf.reshape(w, (1, -1) + (1,) * (x.ndim - 2))
    return mf.where(x > 0, x, w * x)
