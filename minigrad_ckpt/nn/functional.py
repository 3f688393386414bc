"""Neural-network functions with PyTorch's semantics and defaults.

``import minigrad_ckpt.nn.functional as F`` -- the names and arguments are
PyTorch's (``F.cross_entropy(logits, target, label_smoothing=0.1)``), except
that an axis argument is called ``axis`` (``dim`` is accepted too).

Most functions are compositions of the engine's ops (so they are
differentiable to any order); convolution, pooling, normalization, dropout
and the activations are ops of their own (``minigrad_ckpt/ops``).
"""

from __future__ import annotations

import math
from typing import Any

from .. import functional as mf
from .. import random as _random
from ..backend import host_numpy
from ..functional import _tensor, normalize_axis
from ..grad_mode import no_grad
from ..ops import activation as _act
from ..ops import conv as _conv
from ..ops import dropout as _drop
from ..ops import linalg as _la
from ..ops import loss as _ce
from ..ops import norm as _norm
from ..tape import apply
from ..tensor import Tensor

__all__ = [
    "relu", "leaky_relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax",
    "cross_entropy", "nll_loss", "mse_loss", "binary_cross_entropy_with_logits", "linear",
    "conv2d", "max_pool2d", "avg_pool2d", "layer_norm", "batch_norm", "dropout", "embedding",
    "scaled_dot_product_attention", "one_hot", "pad",
    # issue 16
    "softplus", "logsigmoid", "mish", "elu", "hardtanh", "prelu", "dropout2d", "conv1d", "max_pool1d",
    "avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "conv_transpose2d", "group_norm", "rms_norm",
    "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "kl_div", "cosine_embedding_loss",
]

_RELU = _act.Relu()
_LINEAR = _la.Linear()
_SILU = _act.Silu()
_REDUCTIONS = ("mean", "sum", "none")


def _axis(axis: int | None, dim: int | None, default: int = -1) -> int:
    if dim is not None:
        if axis is not None and axis != dim:
            raise TypeError("pass either axis= or dim=, not both")
        return dim
    return default if axis is None else axis


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return mf.mean(loss)
    if reduction == "sum":
        return mf.sum(loss)
    return loss


# ---------------------------------------------------------------- activations
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
    ax = normalize_axis(_axis(axis, dim), x.ndim)
    return apply(_act.Softmax(axis=ax), x)


def log_softmax(x: Any, axis: int | None = None, *, dim: int | None = None) -> Tensor:
    """``x - logsumexp(x)`` along ``axis`` (default the last), stable for huge logits."""
    x = _tensor(x)
    ax = normalize_axis(_axis(axis, dim), x.ndim)
    return apply(_act.LogSoftmax(axis=ax), x)


# --------------------------------------------------------------------- losses
def _class_last(x: Tensor) -> Tensor:
    """(N, C, d1, ...) -> (N * d1 * ..., C); (C,) -> (1, C); (N, C) unchanged."""
    if x.ndim == 1:
        return mf.reshape(x, (1, x.shape[0]))
    if x.ndim == 2:
        return x
    return mf.reshape(mf.moveaxis(x, 1, -1), (-1, x.shape[1]))


def _check_targets(name: str, x: Tensor, target: Tensor, ignore_index: int,
                   *, all_valid_as_none: bool = False) -> Any:
    """Check class-index targets; return ``(flat targets, valid mask, n_classes)``.

    With ``all_valid_as_none`` the mask is ``None`` when every target is a
    class and none is ``ignore_index`` -- the usual case, found from the
    targets' min and max alone (two reductions instead of five elementwise
    passes), which lets the fused loss skip its masking.
    """
    if target.dtype.kind not in "iu":
        raise TypeError(f"{name}: class-index targets must be integers, got {target.dtype}")
    expected = x.shape[:1] + x.shape[2:] if x.ndim >= 2 else ()
    if target.shape != expected:
        raise ValueError(
            f"{name}: input of shape {x.shape} needs targets of shape {expected}, got {target.shape}"
        )
    t = target.data.reshape(-1)
    n_classes = x.shape[1] if x.ndim >= 2 else x.shape[0]
    xp = x.device.xp
    if all_valid_as_none:
        if t.size == 0:
            return t, None, n_classes
        lo, hi = xp.to_host(xp.stack([t.min(), t.max()])).tolist()  # one device-to-host read
        if 0 <= lo and hi < n_classes and not lo <= ignore_index <= hi:
            return t, None, n_classes
    valid = t != ignore_index
    out_of_range = xp.logical_and(valid, xp.logical_or(t < 0, t >= n_classes))
    if xp.scalar(xp.any(out_of_range)):  # one explicit device-to-host read
        bad = xp.to_host(t[out_of_range])[0]
        raise IndexError(
            f"{name}: target {int(bad)} is out of range for {n_classes} classes "
            f"(ignore_index={ignore_index})"
        )
    return t, valid, n_classes


def nll_loss(input: Any, target: Any, weight: Any = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class ``target`` under log-probabilities ``input``.

    ``input`` is (N, C) or (N, C, d1, ...) (or (C,) for one sample); ``target``
    holds class indices, (N,) or (N, d1, ...).  Targets equal to
    ``ignore_index`` contribute nothing; ``"mean"`` divides by the total weight
    of the targets that count, as in PyTorch.
    """
    _check_reduction(reduction)
    x = _tensor(input)
    tgt = _tensor(target, x)
    t, valid, n_classes = _check_targets("nll_loss", x, tgt, ignore_index)
    xp = x.device.xp
    safe_t = xp.where(valid, t, 0)
    rows = xp.arange(safe_t.shape[0])
    picked = mf.getitem(_class_last(x), (rows, safe_t))
    if weight is not None:
        w = _tensor(weight, x)
        if w.shape != (n_classes,):
            raise ValueError(f"nll_loss: weight must have shape ({n_classes},), got {w.shape}")
        wt = mf.getitem(w, (safe_t,)) * Tensor.constant(valid, x.device)
    else:
        wt = Tensor.constant(valid.astype(x.dtype), x.device)
    losses = -(picked * wt)
    if reduction == "none":
        return mf.reshape(losses, tgt.shape)
    if reduction == "sum":
        return mf.sum(losses)
    return mf.sum(losses) / mf.sum(wt)


def cross_entropy(input: Any, target: Any, weight: Any = None, reduction: str = "mean",
                  ignore_index: int = -100, label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy between ``softmax(input)`` and class indices (or class probabilities).

    ``label_smoothing`` mixes the one-hot target with the uniform distribution
    (``(1 - e) * nll + e * mean_c(-log p_c)``), as PyTorch does.  With float
    ``target`` of ``input``'s shape, targets are probabilities.
    """
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
    x = _tensor(input)
    if x.ndim == 0:
        raise ValueError("cross_entropy: input must have a class axis, got a 0-d tensor")
    axis = 1 if x.ndim >= 2 else 0
    tgt = _tensor(target, x)
    n_classes = x.shape[axis]
    w_shape = (1, n_classes) + (1,) * (x.ndim - 2) if x.ndim >= 2 else (n_classes,)
    if x.dtype.kind != "f":
        hint = " (did you swap input and target?)" if tgt.dtype.kind == "f" else ""
        raise TypeError(f"cross_entropy: input must be float logits of shape (N, C, ...), got dtype {x.dtype}{hint}")
    if tgt.dtype.kind == "f":
        logp = log_softmax(x, axis=axis)
        if tgt.shape != x.shape:
            if tgt.ndim == x.ndim - 1:  # the shape of class indices, in a float dtype
                raise TypeError(
                    f"cross_entropy: target has dtype {tgt.dtype} and shape {tgt.shape}: class indices must be "
                    f"integers (convert with target.astype('int64')); a float target means class "
                    f"probabilities, of the input's shape {x.shape}")
            raise ValueError(f"cross_entropy: probability targets need shape {x.shape}, got {tgt.shape}")
        probs = tgt
        if label_smoothing:
            probs = probs * (1 - label_smoothing) + label_smoothing / n_classes
        terms = logp * probs
        if weight is not None:
            terms = terms * mf.reshape(_tensor(weight, x), w_shape)
        return _reduce(-mf.sum(terms, axis=axis), reduction)
    if weight is None and not label_smoothing:
        # the common case as one fused op: softmax(x) - onehot in backward
        t, valid, _ = _check_targets("cross_entropy", x, tgt, ignore_index, all_valid_as_none=True)
        xp = x.device.xp
        flat = _class_last(x)
        if valid is not None:
            t, valid = xp.where(valid, t, 0), valid.astype(x.dtype)
        else:
            t = t.copy()  # the op keeps its own targets: the caller may refill theirs before backward
        op = _ce.SoftmaxCrossEntropy(rows=xp.arange(t.shape[0]), target=t, valid=valid,
                                     reduction=reduction)
        out = apply(op, flat)
        return mf.reshape(out, tgt.shape) if reduction == "none" else out
    logp = log_softmax(x, axis=axis)
    nll = nll_loss(logp, tgt, weight=weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    t, valid, _ = _check_targets("cross_entropy", x, tgt, ignore_index)
    xp = x.device.xp
    terms = logp
    if weight is not None:
        terms = terms * mf.reshape(_tensor(weight, x), w_shape)
    smooth = -mf.reshape(mf.sum(terms, axis=axis), (-1,)) * Tensor.constant(
        valid.astype(x.dtype), x.device)
    if reduction == "none":
        smooth = mf.reshape(smooth, tgt.shape)
    elif reduction == "sum":
        smooth = mf.sum(smooth)
    else:
        if weight is not None:
            wt = mf.getitem(_tensor(weight, x), (xp.where(valid, t, 0),)) * Tensor.constant(
                valid, x.device)
            denom = mf.sum(wt)
        else:
            denom = mf.sum(Tensor.constant(valid.astype(x.dtype), x.device))
        smooth = mf.sum(smooth) / denom
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / n_classes)


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Tensor:
    """Mean squared error ``(input - target) ** 2``; the shapes must be equal.

    PyTorch only warns when they differ and then broadcasts, which silently
    computes something else; here it is an error.
    """
    _check_reduction(reduction)
    x = _tensor(input)
    y = _tensor(target, x)
    if x.shape != y.shape:
        raise ValueError(f"mse_loss: input shape {x.shape} and target shape {y.shape} differ")
    d = x - y
    return _reduce(d * d, reduction)


def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None) -> Tensor:
    """``-[y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))]``, computed stably from logits.

    Uses ``log sigmoid(x) = -softplus(-x)`` with ``softplus(z) = logsumexp(0, z)``,
    so logits of ±1e4 are fine and the gradient at ``x = 0`` is exact (``-1/2``;
    ``max(z, 0) + log1p(exp(-|z|))`` would give 0 there).
    """
    _check_reduction(reduction)
    x = _tensor(input)
    y = _tensor(target, x)
    if x.shape != y.shape:
        raise ValueError(f"binary_cross_entropy_with_logits: input shape {x.shape} and target "
                         f"shape {y.shape} differ")
    zero = Tensor.constant(x.device.xp.zeros_like(x.data), x.device)
    softplus_neg = mf.logsumexp(mf.stack([zero, -x]), axis=0)  # -log sigmoid(x)
    if pos_weight is not None:
        pw = _tensor(pos_weight, x)
        loss = (1 - y) * x + (1 + (pw - 1) * y) * softplus_neg
    else:
        loss = (1 - y) * x + softplus_neg
    if weight is not None:
        loss = loss * _tensor(weight, x)
    return _reduce(loss, reduction)


# --------------------------------------------------------------------- layers
def linear(x: Any, weight: Any, bias: Any = None) -> Tensor:
    """``x @ weight.T + bias`` (weight is (out_features, in_features))."""
    x = _tensor(x)
    w = _tensor(weight, x)
    if x.ndim == 0 or x.shape[-1] != w.shape[-1]:
        raise ValueError(
            f"linear: input of shape {x.shape} does not match weight of shape {w.shape} "
            f"(expects in_features={w.shape[-1]} as the input's last axis)"
        )
    if w.ndim != 2:
        raise ValueError(f"linear: weight must be 2-D (out_features, in_features), got {w.shape}")
    _check_input_dtype("linear", x, w)
    b = None
    if bias is not None:
        b = _tensor(bias, x)
        if b.shape != (w.shape[0],):
            raise ValueError(f"linear: bias of shape {b.shape} does not match weight of shape {w.shape}")
    return apply(_LINEAR, x, w, b)


def _pair(v: Any, name: str) -> tuple[int, int]:
    if isinstance(v, (int, host_numpy.integer)):
        v = (int(v), int(v))
    v = tuple(int(a) for a in v)
    if len(v) != 2:
        raise ValueError(f"{name} must be an int or a pair, got {v}")
    return v  # type: ignore[return-value]


def _batched(x: Tensor, name: str) -> tuple[Tensor, bool]:
    """An image input as (N, C, H, W): a (C, H, W) input gets a batch axis of 1,
    and the flag says so, so that the caller can remove it from the result."""
    if x.ndim == 3:
        return mf.expand_dims(x, 0), True
    if x.ndim != 4:
        raise ValueError(f"{name}: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape {x.shape}")
    return x, False


def conv2d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D cross-correlation, NCHW: ``x`` (N, C, H, W) or (C, H, W), ``weight`` (O, C/groups, KH, KW).

    ``padding`` is an int, a pair, ``"valid"`` (0) or ``"same"`` (stride 1 only).
    """
    x, unbatched = _batched(_tensor(x), "conv2d")
    w = _tensor(weight, x)
    if w.ndim != 4:
        raise ValueError(f"conv2d: expected a 4-D weight (O, C/groups, KH, KW), got shape {w.shape}")
    _check_input_dtype("conv2d", x, w)
    st, dl = _pair(stride, "stride"), _pair(dilation, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            pd = (0, 0)
        elif padding == "same":
            if st != (1, 1):
                raise ValueError("conv2d: padding='same' needs stride 1")
            total = [d * (k - 1) for d, k in zip(dl, w.shape[2:])]
            if any(t % 2 for t in total):
                raise ValueError("conv2d: padding='same' with an even effective kernel is not supported")
            pd = (total[0] // 2, total[1] // 2)
        else:
            raise ValueError(f"conv2d: padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
    else:
        pd = _pair(padding, "padding")
    if min(st) < 1 or min(dl) < 1 or min(pd) < 0:
        raise ValueError(f"conv2d: stride and dilation must be >= 1 and padding >= 0, got "
                         f"stride={st}, dilation={dl}, padding={pd}")
    if groups < 1 or x.shape[1] % groups or w.shape[0] % groups:
        raise ValueError(f"conv2d: groups={groups} must divide the input channels {x.shape[1]} "
                         f"and the output channels {w.shape[0]}")
    if x.shape[1] != w.shape[1] * groups:
        raise ValueError(
            f"conv2d: input of shape {x.shape} has {x.shape[1]} channels, but weight of shape "
            f"{w.shape} expects {w.shape[1] * groups} (in_channels / groups = {w.shape[1]})"
        )
    for size, k, p, d in zip(x.shape[2:], w.shape[2:], pd, dl):
        if size + 2 * p < d * (k - 1) + 1:
            raise ValueError(f"conv2d: kernel {tuple(w.shape[2:])} (dilation {dl}) is larger than "
                             f"the padded input {tuple(x.shape[2:])} + padding {pd}")
    out = apply(_conv.Conv2d(stride=st, padding=pd, dilation=dl, groups=int(groups)), x, w)
    if bias is not None:
        b = _tensor(bias, x)
        if b.shape != (w.shape[0],):
            raise ValueError(f"conv2d: bias must have shape ({w.shape[0]},), got {b.shape}")
        out = out + mf.reshape(b, (1, -1, 1, 1))
    return mf.squeeze(out, 0) if unbatched else out


def _pool_args(x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any, name: str):
    k = _pair(kernel_size, "kernel_size")
    s = k if stride is None else _pair(stride, "stride")
    p = _pair(padding, "padding")
    d = _pair(dilation, "dilation")
    if min(k) < 1 or min(s) < 1 or min(d) < 1:
        raise ValueError(f"{name}: kernel_size, stride and dilation must be >= 1")
    if p[0] > k[0] // 2 or p[1] > k[1] // 2 or min(p) < 0:
        raise ValueError(f"{name}: padding {p} must be between 0 and half the kernel size {k}")
    for size, kk, pp, dd in zip(x.shape[2:], k, p, d):
        if size + 2 * pp < dd * (kk - 1) + 1:
            raise ValueError(f"{name}: kernel {k} is larger than the padded input {x.shape[2:]}")
    return k, s, p, d


def max_pool2d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1) -> Tensor:
    """Max over windows; the gradient goes to the first maximum of each window (PyTorch)."""
    x, unbatched = _batched(_tensor(x), "max_pool2d")
    k, s, p, d = _pool_args(x, kernel_size, stride, padding, dilation, "max_pool2d")
    out = apply(_conv.MaxPool2d(kernel=k, stride=s, padding=p, dilation=d), x, x.detach())
    return mf.squeeze(out, 0) if unbatched else out


def avg_pool2d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               count_include_pad: bool = True) -> Tensor:
    """Mean over windows (a depthwise convolution with a constant kernel).

    With ``count_include_pad=False`` the divisor at the border counts only real
    input elements, as in PyTorch.
    """
    x, unbatched = _batched(_tensor(x), "avg_pool2d")
    k, s, p, _ = _pool_args(x, kernel_size, stride, padding, 1, "avg_pool2d")
    n, c, h, w = x.shape
    xp = x.device.xp
    ones = Tensor.constant(xp.full((1, 1) + k, 1.0, dtype=x.dtype), x.device)
    flat = mf.reshape(x, (n * c, 1, h, w))
    conv = _conv.Conv2d(stride=s, padding=p, dilation=(1, 1), groups=1)
    sums = apply(conv, flat, ones)
    if count_include_pad or p == (0, 0):
        out = sums * (1.0 / (k[0] * k[1]))
    else:
        counts = xp.conv2d(xp.ones((1, 1, h, w), dtype=x.dtype), ones.data, s, p, (1, 1), 1)
        out = sums / Tensor.constant(counts, x.device)
    out = mf.reshape(out, (n, c) + out.shape[2:])
    return mf.squeeze(out, 0) if unbatched else out


def layer_norm(x: Any, normalized_shape: Any, weight: Any = None, bias: Any = None,
               eps: float = 1e-5) -> Tensor:
    """Normalize over the trailing ``normalized_shape`` axes, then ``* weight + bias``."""
    x = _tensor(x)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or x.shape[x.ndim - k:] != shape:
        raise ValueError(
            f"layer_norm: input of shape {x.shape} does not end with normalized_shape {shape}"
        )
    axes = tuple(range(x.ndim - k, x.ndim))
    _check_input_dtype("layer_norm", x, weight if isinstance(weight, Tensor) else None)
    out = apply(_norm.Normalize(axes=axes, eps=float(eps)), x)
    if weight is not None:
        out = out * _tensor(weight, x)
    if bias is not None:
        out = out + _tensor(bias, x)
    return out


def batch_norm(x: Any, running_mean: Any, running_var: Any, weight: Any = None, bias: Any = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Batch normalization over every axis but the channel axis 1.

    In training, normalize with the batch statistics and update
    ``running_mean`` / ``running_var`` in place (unbiased variance, PyTorch's
    ``momentum`` convention: ``new = (1 - momentum) * old + momentum * batch``).
    In evaluation, normalize with the running statistics.
    """
    x = _tensor(x)
    if x.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2-D input (N, C, ...), got {x.shape}")
    c = x.shape[1]
    for t in (weight, running_mean):
        _check_input_dtype("batch_norm", x, t if isinstance(t, Tensor) else None)
    axes = (0,) + tuple(range(2, x.ndim))
    bshape = (1, c) + (1,) * (x.ndim - 2)
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (c,):
            raise ValueError(f"batch_norm: {name} must have shape ({c},) for input {x.shape}, "
                             f"got {tuple(t.shape)}")
    if training:
        n = x.size // c
        if n <= 1:
            raise ValueError(f"batch_norm: expected more than 1 value per channel when training, "
                             f"got input of shape {x.shape}")
        out = apply(_norm.Normalize(axes=axes, eps=float(eps)), x)
        if running_mean is not None and running_var is not None:
            with no_grad():
                xp = x.device.xp
                mean = xp.mean(x.data, axis=axes)
                var = xp.var(x.data, axis=axes) * (n / (n - 1))
                running_mean.mul_(1 - momentum).add_(
                    Tensor.constant(mean.astype(running_mean.dtype), x.device) * momentum)
                running_var.mul_(1 - momentum).add_(
                    Tensor.constant(var.astype(running_var.dtype), x.device) * momentum)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: running statistics are required when training=False")
        rm = mf.reshape(running_mean.detach(), bshape)
        rv = mf.reshape(running_var.detach(), bshape)
        out = (x - rm) * (1 / mf.sqrt(rv + eps))
    if weight is not None:
        out = out * mf.reshape(_tensor(weight, x), bshape)
    if bias is not None:
        out = out + mf.reshape(_tensor(bias, x), bshape)
    return out


def dropout(x: Any, p: float = 0.5, training: bool = True) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``.

    The randomness is one key drawn from the engine generator and stored on
    the op, so a checkpoint replay regenerates the same mask.
    """
    x = _tensor(x)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    return apply(_drop.Dropout(p=float(p), key=_random.next_key()), x)


def embedding(input: Any, weight: Any, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` (num_embeddings, dim) selected by integer ``input``.

    Repeated ids accumulate their gradients into the same row.  The row
    ``padding_idx`` gets no gradient (its value is looked up as usual).  With
    ``max_norm``, the looked-up rows whose ``norm_type``-norm exceeds it are
    first rescaled **in place** (outside the tape) to norm ``max_norm``, as in
    PyTorch.
    """
    if scale_grad_by_freq or sparse:
        raise ValueError("embedding: scale_grad_by_freq and sparse gradients are not supported")
    w = _tensor(weight)
    ids = _tensor(input, w)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"embedding: ids must be integers, got {ids.dtype}")
    n = w.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise ValueError(f"embedding: padding_idx={padding_idx} is out of range for {n} embeddings")
        padding_idx %= n
    xp = ids.device.xp
    if ids.size:
        lo, hi = xp.scalar(xp.min(ids.data)), xp.scalar(xp.max(ids.data))
        if lo < 0 or hi >= n:
            raise IndexError(f"embedding: id {lo if lo < 0 else hi} is out of range for "
                             f"{n} embeddings")
    if max_norm is not None and ids.size:
        _embedding_renorm_(w, ids, float(max_norm), float(norm_type))
    out = mf.getitem(w, (ids,))
    if padding_idx is not None and w.requires_grad:
        # the padding rows' values pass through detached: no gradient reaches weight[padding_idx]
        pad = Tensor.constant((ids.data == padding_idx)[..., None], ids.device)
        out = mf.where(pad, out.detach(), out)
    return out


def _embedding_renorm_(w: Tensor, ids: Tensor, max_norm: float, norm_type: float) -> None:
    """Rescale the rows ``ids`` of ``w`` in place to norm ``max_norm`` where larger (PyTorch's
    ``embedding_renorm_``: ``scale = max_norm / (norm + 1e-7)``)."""
    xp = w.device.xp
    with no_grad():
        rows = ids.data.reshape(-1)  # a repeated id rescales its row once: every copy writes the same value
        sel = w.data[rows]
        norms = xp.sum(xp.abs(sel) ** norm_type, axis=1) ** (1.0 / norm_type)
        scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(w.dtype)
        w[rows] = sel * scale[:, None]  # in place under no_grad: restamps the version


def one_hot(t: Any, num_classes: int = -1) -> Tensor:
    """Integer class indices to a one-hot int64 tensor with a new last axis."""
    t = _tensor(t)
    if t.dtype.kind not in "iu":
        raise TypeError(f"one_hot: expects integers, got {t.dtype}")
    xp = t.device.xp
    lo = xp.scalar(xp.min(t.data)) if t.size else 0
    hi = xp.scalar(xp.max(t.data)) if t.size else -1
    n = hi + 1 if num_classes < 0 else num_classes
    if t.size and (lo < 0 or hi >= n):
        raise IndexError(f"one_hot: class values must be in [0, {n})")
    out = (t.data[..., None] == xp.arange(n)).astype(xp.int64)
    return Tensor.constant(out, t.device)


def pad(x: Any, pad: Any, value: float = 0.0) -> Tensor:
    """PyTorch-style padding: ``pad`` lists (before, after) pairs from the *last* axis backwards."""
    x = _tensor(x)
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError(f"pad: expected an even number of values, at most 2 * ndim, got {pad}")
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return mf.pad(x, widths, constant_values=value)


def scaled_dot_product_attention(query: Any, key: Any, value: Any, attn_mask: Any = None,
                                 is_causal: bool = False, dropout_p: float = 0.0,
                                 scale: float | None = None, training: bool = True) -> Tensor:
    """``softmax(q k^T * scale + mask) v`` over the last two axes, PyTorch's semantics.

    ``attn_mask`` is boolean (True = attend) or additive float; ``is_causal``
    masks future positions (query i attends to keys 0..i, aligned at the top
    left, as in PyTorch).  ``scale`` defaults to ``1 / sqrt(head_dim)``.
    """
    q, k, v = _tensor(query), _tensor(key, query), _tensor(value, query)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"scaled_dot_product_attention: query {q.shape} and key {k.shape} "
                         f"have different head dimensions")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"scaled_dot_product_attention: key {k.shape} and value {v.shape} "
                         f"have different sequence lengths")
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention: pass attn_mask or is_causal, not both")
    s = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    scores = mf.matmul(q, mf.swapaxes(k, -1, -2)) * s
    xp = q.device.xp
    lq, lk = q.shape[-2], k.shape[-2]
    if is_causal:
        allowed = xp.tril(xp.ones((lq, lk), dtype=bool))
        scores = mf.where(Tensor.constant(allowed, q.device), scores, -math.inf)
    elif attn_mask is not None:
        m = _tensor(attn_mask, q)
        if m.dtype == host_numpy.bool_:
            scores = mf.where(m, scores, -math.inf)
        else:
            scores = scores + m
    attn = softmax(scores, axis=-1)
    if dropout_p > 0.0 and training:
        attn = dropout(attn, dropout_p)
    return mf.matmul(attn, v)


# ------------------------------------------------------------- dtype discipline
def _check_input_dtype(name: str, x: Tensor, param: Tensor | None) -> None:
    """A layer's floating input must have its parameters' dtype (PyTorch raises too).

    NumPy would promote a float32 layer's float64 input and return float64 --
    a silent slow-down and a loss of the model's dtype; integer input would be
    promoted to float. Both are errors here, naming both dtypes and the fix.
    """
    if param is None or x.dtype == param.dtype:
        return
    if x.dtype.kind not in "fc":
        raise TypeError(f"{name}: got {x.dtype} input, but its parameters are {param.dtype}; convert the input "
                        f"with x.float() or x.to({param.dtype})")
    raise TypeError(f"{name}: got {x.dtype} input, but its parameters are {param.dtype}; convert the input "
                    f"with x.to({param.dtype}) (x.float() for float32), or the layer with .to({x.dtype})")


# ------------------------------------------------------------ more activations
def _zeros_like(x: Tensor) -> Tensor:
    return Tensor.constant(x.device.xp.zeros_like(x.data), x.device)


def softplus(x: Any, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``.

    Computed as ``logsumexp(0, beta * x)``: stable for any ``x``, exact
    gradient ``sigmoid(beta * x)`` (1/2 at 0).
    """
    x = _tensor(x)
    z = x * beta if beta != 1.0 else x
    soft = mf.logsumexp(mf.stack([_zeros_like(z), z]), axis=0)
    if beta != 1.0:
        soft = soft * (1.0 / beta)
    return mf.where(z > threshold, x, soft)


def logsigmoid(x: Any) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``."""
    x = _tensor(x)
    return -mf.logsumexp(mf.stack([_zeros_like(x), -x]), axis=0)


def mish(x: Any) -> Tensor:
    """``x * tanh(softplus(x))``."""
    x = _tensor(x)
    return x * mf.tanh(softplus(x))


def elu(x: Any, alpha: float = 1.0) -> Tensor:
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``; the derivative at 0 is ``alpha`` (PyTorch)."""
    x = _tensor(x)
    pos = x > 0
    neg = mf.where(pos, _zeros_like(x), x)  # the exp only ever sees x <= 0: no overflow, no inf * 0
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
    if w.ndim != 1 or (w.shape[0] != 1 and (x.ndim < 2 or x.shape[1] != w.shape[0])):
        raise ValueError(f"prelu: weight of shape {w.shape} needs 1 value or one per channel of input {x.shape}")
    if w.shape[0] != 1:
        w = mf.reshape(w, (1, -1) + (1,) * (x.ndim - 2))
    return mf.where(x > 0, x, w * x)


def dropout2d(x: Any, p: float = 0.5, training: bool = True) -> Tensor:
    """Zero whole channels (axis 1 of (N, C, H, W), axis 0 of (C, H, W)) with probability ``p``.

    The channel mask is a dropout of ones (one key on the tape), broadcast over
    the spatial axes: a checkpoint replay regenerates it exactly.
    """
    x = _tensor(x)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout2d: p must be in [0, 1], got {p}")
    if x.ndim not in (3, 4):
        raise ValueError(f"dropout2d: expected a 3-D (C, H, W) or 4-D (N, C, H, W) input, got shape {x.shape}")
    if not training or p == 0.0:
        return x
    shape = x.shape[:x.ndim - 2] + (1, 1)
    ones = Tensor.constant(x.device.xp.ones(shape, dtype=x.dtype), x.device)
    return x * dropout(ones, p, True)


# ------------------------------------------------------------- 1-D and pooling
def _single(v: Any, name: str) -> int:
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise ValueError(f"{name} must be an int or a 1-tuple, got {v}")
        v = v[0]
    return int(v)


def _as_2d(x: Tensor, name: str) -> tuple[Tensor, bool]:
    """(N, C, L) or (C, L) as (N, C, 1, L): the 1-D layers run the 2-D ops on a height of 1."""
    if x.ndim == 2:
        return mf.expand_dims(mf.expand_dims(x, 0), 2), True
    if x.ndim != 3:
        raise ValueError(f"{name}: expected a 2-D (C, L) or 3-D (N, C, L) input, got shape {x.shape}")
    return mf.expand_dims(x, 2), False


def _from_2d(out: Tensor, unbatched: bool) -> Tensor:
    out = mf.squeeze(out, 2)
    return mf.squeeze(out, 0) if unbatched else out


def conv1d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> Tensor:
    """1-D cross-correlation: ``x`` (N, C, L) or (C, L), ``weight`` (O, C/groups, K).

    Runs ``conv2d`` on a height of 1 (``padding`` is an int, ``"valid"`` or ``"same"``).
    """
    x = _tensor(x)
    w = _tensor(weight, x)
    if w.ndim != 3:
        raise ValueError(f"conv1d: expected a 3-D weight (O, C/groups, K), got shape {w.shape}")
    x2, unbatched = _as_2d(x, "conv1d")
    pad2 = padding if isinstance(padding, str) else (0, _single(padding, "padding"))
    out = conv2d(x2, mf.expand_dims(w, 2), bias, (1, _single(stride, "stride")), pad2,
                 (1, _single(dilation, "dilation")), groups)
    return _from_2d(out, unbatched)


def max_pool1d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1) -> Tensor:
    """Max over windows of the last axis of (N, C, L) or (C, L)."""
    x2, unbatched = _as_2d(_tensor(x), "max_pool1d")
    k = _single(kernel_size, "kernel_size")
    s = k if stride is None else _single(stride, "stride")
    out = max_pool2d(x2, (1, k), (1, s), (0, _single(padding, "padding")), (1, _single(dilation, "dilation")))
    return _from_2d(out, unbatched)


def avg_pool1d(x: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               count_include_pad: bool = True) -> Tensor:
    """Mean over windows of the last axis of (N, C, L) or (C, L)."""
    x2, unbatched = _as_2d(_tensor(x), "avg_pool1d")
    k = _single(kernel_size, "kernel_size")
    s = k if stride is None else _single(stride, "stride")
    out = avg_pool2d(x2, (1, k), (1, s), (0, _single(padding, "padding")), count_include_pad)
    return _from_2d(out, unbatched)


def _adaptive_windows(size: int, out: int) -> list[tuple[int, int]]:
    # PyTorch's windows: [floor(i * size / out), ceil((i + 1) * size / out))
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_pool2d(x: Any, output_size: Any, name: str, reduce: Any) -> Tensor:
    x, unbatched = _batched(_tensor(x), name)
    if isinstance(output_size, (int, host_numpy.integer)) or output_size is None:
        output_size = (output_size, output_size)
    oh, ow = (x.shape[2] if output_size[0] is None else int(output_size[0]),
              x.shape[3] if output_size[1] is None else int(output_size[1]))
    if oh < 1 or ow < 1:
        raise ValueError(f"{name}: output_size must be positive, got {output_size}")
    rows = []
    for h0, h1 in _adaptive_windows(x.shape[2], oh):
        cols = [reduce(x[:, :, h0:h1, w0:w1], axis=(2, 3)) for w0, w1 in _adaptive_windows(x.shape[3], ow)]
        rows.append(mf.stack(cols, axis=-1))
    out = mf.stack(rows, axis=-2)
    return mf.squeeze(out, 0) if unbatched else out


def adaptive_avg_pool2d(x: Any, output_size: Any) -> Tensor:
    """Average over PyTorch's adaptive windows so the output is ``output_size`` (an int, a pair,
    ``None`` keeps that axis); evenly dividing sizes are one ``avg_pool2d``."""
    xt = _tensor(x)
    if xt.ndim in (3, 4):
        h, w = xt.shape[-2:]
        size = (output_size, output_size) if isinstance(output_size, (int, host_numpy.integer)) else output_size
        oh, ow = (h if size[0] is None else int(size[0])), (w if size[1] is None else int(size[1]))
        if oh >= 1 and ow >= 1 and h % oh == 0 and w % ow == 0:
            return avg_pool2d(xt, (h // oh, w // ow))
    return _adaptive_pool2d(xt, output_size, "adaptive_avg_pool2d", mf.mean)


def adaptive_max_pool2d(x: Any, output_size: Any, return_indices: bool = False) -> Tensor:
    """Max over PyTorch's adaptive windows so the output is ``output_size``."""
    if return_indices:
        raise ValueError("adaptive_max_pool2d: return_indices=True is not supported")
    return _adaptive_pool2d(x, output_size, "adaptive_max_pool2d", mf.max)


def conv_transpose2d(x: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transpose (gradient) of ``conv2d``: ``x`` (N, C_in, H, W), ``weight`` (C_in, C_out/groups, KH, KW).

    Built from registered ops: zeros are inserted between input pixels
    (``stride - 1`` of them), the result is padded by ``dilation * (k - 1) - padding``
    (plus ``output_padding`` at the end), and convolved with the flipped kernel.
    """
    x, unbatched = _batched(_tensor(x), "conv_transpose2d")
    w = _tensor(weight, x)
    _check_input_dtype("conv_transpose2d", x, w)
    if w.ndim != 4:
        raise ValueError(f"conv_transpose2d: expected a 4-D weight (C_in, C_out/groups, KH, KW), got {w.shape}")
    st, pd = _pair(stride, "stride"), _pair(padding, "padding")
    op, dl = _pair(output_padding, "output_padding"), _pair(dilation, "dilation")
    if min(st) < 1 or min(dl) < 1 or min(pd) < 0 or min(op) < 0:
        raise ValueError(f"conv_transpose2d: invalid stride={st}, padding={pd}, dilation={dl}, "
                         f"output_padding={op}")
    if any(o >= max(s, d) for o, s, d in zip(op, st, dl)):
        raise ValueError(f"conv_transpose2d: output_padding {op} must be smaller than stride {st} or dilation {dl}")
    cin = x.shape[1]
    if groups < 1 or cin % groups or w.shape[0] != cin:
        raise ValueError(f"conv_transpose2d: input of shape {x.shape} needs a weight with {cin} input channels "
                         f"divisible by groups={groups}, got weight {w.shape}")
    n, _, h, wd = x.shape
    kh, kw = w.shape[2:]
    # 1. insert stride-1 zeros between pixels (interleave with zeros, then trim the tail)
    if st[1] > 1:
        z = Tensor.constant(x.device.xp.zeros((n, cin, h, wd, st[1] - 1), dtype=x.dtype), x.device)
        x = mf.reshape(mf.concatenate([mf.expand_dims(x, -1), z], axis=-1), (n, cin, h, wd * st[1]))
        x = x[:, :, :, :(wd - 1) * st[1] + 1]
        wd = x.shape[3]
    if st[0] > 1:
        z = Tensor.constant(x.device.xp.zeros((n, cin, h, st[0] - 1, wd), dtype=x.dtype), x.device)
        x = mf.reshape(mf.concatenate([mf.expand_dims(x, 3), z], axis=3), (n, cin, h * st[0], wd))
        x = x[:, :, :(h - 1) * st[0] + 1, :]
    # 2. pad (or crop, where padding exceeds the kernel's reach)
    widths = []
    for k, d, p, o in zip((kh, kw), dl, pd, op):
        widths.append((d * (k - 1) - p, d * (k - 1) - p + o))
    crop = [(max(0, -a), max(0, -b)) for a, b in widths]
    x = mf.pad(x, [(0, 0), (0, 0)] + [(max(0, a), max(0, b)) for a, b in widths])
    if any(c for pair in crop for c in pair):
        x = x[:, :, crop[0][0]:x.shape[2] - crop[0][1], crop[1][0]:x.shape[3] - crop[1][1]]
    # 3. the flipped kernel with in/out swapped within each group: (C_out, C_in/groups, KH, KW)
    cog = w.shape[1]
    wg = mf.reshape(w, (groups, cin // groups, cog, kh, kw))
    wg = mf.reshape(mf.swapaxes(wg, 1, 2), (groups * cog, cin // groups, kh, kw))
    wf = mf.flip(wg, axis=(2, 3))
    out = conv2d(x, wf, bias, 1, 0, dl, groups)
    return mf.squeeze(out, 0) if unbatched else out


# ------------------------------------------------------------- normalization
def group_norm(x: Any, num_groups: int, weight: Any = None, bias: Any = None, eps: float = 1e-5) -> Tensor:
    """Normalize over groups of channels (axis 1) and all spatial axes, then ``* weight + bias`` per channel."""
    x = _tensor(x)
    if x.ndim < 2 or x.shape[1] % num_groups:
        raise ValueError(f"group_norm: input of shape {x.shape} needs channels (axis 1) divisible by "
                         f"num_groups={num_groups}")
    _check_input_dtype("group_norm", x, weight if isinstance(weight, Tensor) else None)
    n, c = x.shape[0], x.shape[1]
    g = mf.reshape(x, (n, num_groups, -1))
    out = mf.reshape(apply(_norm.Normalize(axes=(2,), eps=float(eps)), g), x.shape)
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = out * mf.reshape(_tensor(weight, x), bshape)
    if bias is not None:
        out = out + mf.reshape(_tensor(bias, x), bshape)
    return out


def rms_norm(x: Any, normalized_shape: Any, weight: Any = None, eps: float | None = None) -> Tensor:
    """``x / sqrt(mean(x^2 over the trailing normalized_shape axes) + eps) * weight``.

    ``eps=None`` is the dtype's machine epsilon, as in PyTorch.
    """
    x = _tensor(x)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or x.shape[x.ndim - k:] != shape:
        raise ValueError(f"rms_norm: input of shape {x.shape} does not end with normalized_shape {shape}")
    _check_input_dtype("rms_norm", x, weight if isinstance(weight, Tensor) else None)
    e = float(host_numpy.finfo(x.dtype).eps) if eps is None else float(eps)
    axes = tuple(range(x.ndim - k, x.ndim))
    out = x * (1 / mf.sqrt(mf.mean(x * x, axis=axes, keepdims=True) + e))
    if weight is not None:
        out = out * _tensor(weight, x)
    return out


# ------------------------------------------------------------------ more losses
def _same_shape(name: str, x: Tensor, y: Tensor) -> None:
    if x.shape != y.shape:
        raise ValueError(f"{name}: input shape {x.shape} and target shape {y.shape} differ")


def l1_loss(input: Any, target: Any, reduction: str = "mean") -> Tensor:
    """Mean absolute error ``|input - target|`` (the shapes must be equal)."""
    _check_reduction(reduction)
    x = _tensor(input)
    y = _tensor(target, x)
    _same_shape("l1_loss", x, y)
    return _reduce(mf.abs(x - y), reduction)


def smooth_l1_loss(input: Any, target: Any, reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input - target``)."""
    _check_reduction(reduction)
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be >= 0, got {beta}")
    x = _tensor(input)
    y = _tensor(target, x)
    _same_shape("smooth_l1_loss", x, y)
    d = x - y
    a = mf.abs(d)
    if beta == 0:
        return _reduce(a, reduction)
    return _reduce(mf.where(a < beta, d * d * (0.5 / beta), a - 0.5 * beta), reduction)


def huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    """``0.5 d^2`` where ``|d| <= delta``, else ``delta (|d| - 0.5 delta)``."""
    _check_reduction(reduction)
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be > 0, got {delta}")
    x = _tensor(input)
    y = _tensor(target, x)
    _same_shape("huber_loss", x, y)
    d = x - y
    a = mf.abs(d)
    return _reduce(mf.where(a <= delta, d * d * 0.5, (a - 0.5 * delta) * delta), reduction)


def _clamped_log(p: Tensor) -> Tensor:
    """``max(log p, -100)``, and where ``p == 0`` the constant -100 with a zero gradient
    (``log`` never sees the 0, so no ``0 * inf`` NaN reaches the gradient)."""
    pos = p > 0
    ones = Tensor.constant(p.device.xp.ones_like(p.data), p.device)
    return mf.maximum(mf.where(pos, mf.log(mf.where(pos, p, ones)), -100.0), -100.0)


def binary_cross_entropy(input: Any, target: Any, weight: Any = None, reduction: str = "mean") -> Tensor:
    """``-[y log p + (1 - y) log(1 - p)]`` on probabilities ``p`` in [0, 1]; each log is clamped
    at -100, as in PyTorch (prefer ``binary_cross_entropy_with_logits`` on logits)."""
    _check_reduction(reduction)
    p = _tensor(input)
    y = _tensor(target, p)
    _same_shape("binary_cross_entropy", p, y)
    if p.size:
        xp = p.device.xp
        lo, hi = xp.scalar(xp.min(p.data)), xp.scalar(xp.max(p.data))
        if not (0.0 <= lo and hi <= 1.0):
            raise ValueError(f"binary_cross_entropy: input values must be in [0, 1], got [{lo}, {hi}]")
    log_p = _clamped_log(p)
    log_q = _clamped_log(1 - p)
    loss = -(y * log_p + (1 - y) * log_q)
    if weight is not None:
        loss = loss * _tensor(weight, p)
    return _reduce(loss, reduction)


def kl_div(input: Any, target: Any, reduction: str = "mean", log_target: bool = False) -> Tensor:
    """``target * (log target - input)`` with ``input`` log-probabilities (``log_target``: the
    target is log-probabilities too). ``reduction="batchmean"`` divides the sum by the batch size
    (the mathematically right KL divergence); ``"mean"`` averages over every element, as in PyTorch."""
    if reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"kl_div: reduction must be one of {_REDUCTIONS + ('batchmean',)}, got {reduction!r}")
    x = _tensor(input)
    t = _tensor(target, x)
    _same_shape("kl_div", x, t)
    if log_target:
        loss = mf.exp(t) * (t - x)
    else:
        # 0 * log 0 = 0: xlogy; where t == 0 neither the value nor the gradient may see log(0)
        pos = t > 0
        safe = mf.where(pos, t, Tensor.constant(t.device.xp.ones_like(t.data), t.device))
        loss = mf.where(pos, t * (mf.log(safe) - x), -(t * x))
    if reduction == "batchmean":
        return mf.sum(loss) * (1.0 / x.shape[0]) if x.ndim else mf.sum(loss)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                          reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where ``target == -1``.

    The cosine is over the last axis, with PyTorch's ``eps = 1e-12`` guard on each squared norm.
    """
    _check_reduction(reduction)
    a = _tensor(input1)
    b = _tensor(input2, a)
    y = _tensor(target, a)
    if a.shape != b.shape or a.ndim not in (1, 2):
        raise ValueError(f"cosine_embedding_loss: inputs must be 1-D or 2-D of one shape, got {a.shape} and {b.shape}")
    if y.shape != a.shape[:-1]:
        raise ValueError(f"cosine_embedding_loss: target of shape {y.shape} must have shape {a.shape[:-1]}")
    eps = 1e-12
    dot = mf.sum(a * b, axis=-1)
    m1 = mf.sum(a * a, axis=-1) + eps
    m2 = mf.sum(b * b, axis=-1) + eps
    cos = dot / mf.sqrt(m1 * m2)
    zero = _zeros_like(cos)
    loss = mf.where(y == 1, 1 - cos, mf.where(y == -1, mf.maximum(cos - margin, zero), zero))
    return _reduce(loss, reduction)
