"""``linear_cross_entropy``: ``cross_entropy(linear(input, linear_weight, linear_bias), target)``
(PyTorch 2.13's), with a chunked path that never holds the ``(N, C)`` logits whole.

``options=None`` is the reference: the logits made, shaped ``(N, C, *out_features)``, and handed to
:func:`cross_entropy` -- every target kind, weight, ``label_smoothing`` and K-dimensional loss.
``options=LinearCrossEntropyOptions(...)`` takes the chunked path where PyTorch's does (class-index
int64 targets, no label smoothing, ``out_features == ()``), and warns and takes the reference
elsewhere, as PyTorch does: the loss of row ``i`` is ``lse_i - logit_i[target_i]``, its log-sum-exp
from :class:`~minigrad_ckpt.ops.linear_cross_entropy.LinearLogSumExp` (``batch_chunk_size`` rows
of logits at a time) and its target's logit ``x_i . w[target_i] + b[target_i]`` (the input's size).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ... import functional as mf
from ...backend import host_numpy as np
from ...functional import _tensor
from ...functional.errors import LayerDtypeMismatch
from ...functional.indexing import getitem_in_range
from ...functional.torch_methods import scalar_type_name
from ...ops.linear_cross_entropy import LinearLogSumExp
from ...tape import apply
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine
from ..linear_cross_entropy_options import LinearCrossEntropyOptions
from .inputs import _check_input_dtype
from .linear import linear
from .loss import cross_entropy

__all__ = ["linear_cross_entropy"]

_CHUNKED_REDUCTIONS = ("mean", "sum", "none")


def linear_cross_entropy(input: Any, linear_weight: Any, target: Any, *, linear_bias: Any = None,  # noqa: A002
                         weight: Any = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: LinearCrossEntropyOptions | None = None) -> Tensor:
    """The cross entropy of ``input @ linear_weight.T + linear_bias`` against ``target``.

    ``input`` is ``(in_features,)`` or ``(N, in_features)``; ``linear_weight`` is ``(C,
    in_features)`` or ``(C, d_1, ..., d_K, in_features)`` for a K-dimensional loss (batched input
    only), ``linear_bias`` its shape without the last axis.  ``target`` holds class indices, or
    class probabilities when it has the logits' shape ``(N, C, d_1, ..., d_K)`` (then
    ``ignore_index`` must stay None).  ``ignore_index=None`` means ``-100`` for class indices.
    ``options`` (:class:`~minigrad_ckpt.nn.LinearCrossEntropyOptions`) computes the same loss a
    chunk of rows at a time, so that the ``(N, C)`` logits are never held whole -- in forward
    or backward.

    >>> head = mg.randn(50257, 768) * 0.02
    >>> loss = F.linear_cross_entropy(hidden, head, tokens,
    ...                               options=nn.LinearCrossEntropyOptions())  # doctest: +SKIP
    """
    x, w = _tensor(input), _tensor(linear_weight, input)
    tgt = _tensor(target, x)
    if x.ndim < 1 or x.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {x.ndim}")
    if w.ndim < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {w.ndim}")
    num_batches, in_features = tuple(x.shape[:-1]), x.shape[-1]
    if in_features != w.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {x.shape[-1]} and {w.shape[-1]}, respectively")
    num_classes, out_features = w.shape[0], tuple(w.shape[1:-1])
    b = None if linear_bias is None else _tensor(linear_bias, x)
    if b is not None and tuple(b.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got {tuple(b.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(w.shape)} requires batched "
                           f"input, (N, {in_features}), got unbatched input with shape {tuple(x.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(tgt.shape) == logits_shape and ignore_index is not None:  # PyTorch's test of probabilities
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        chunkable = (not out_features and reduction in _CHUNKED_REDUCTIONS and label_smoothing == 0.0
                     and tgt.dtype == np.int64)
        if chunkable:
            return _chunked(x, w, b, tgt, weight, reduction, ignore_index, options)
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum','none'}, "
            "label_smoothing == 0, target.dtype == int64, out_features == (). Got "
            f"reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype={_torch_dtype(tgt.dtype)}, "
            f"out_features={out_features}, tracing=False, "
            f"linear_bias.shape={tuple(b.shape) if b is not None else None}.",
            UserWarning, stacklevel=stacklevel_outside_the_engine())
    return _reference(x, w, b, tgt, logits_shape, weight, reduction, ignore_index, label_smoothing)


def _torch_dtype(dtype: Any) -> str:
    """A dtype as PyTorch prints it in the warning (``torch.float32``)."""
    return f"torch.{np.dtype(dtype).name}"


def _reference(x: Tensor, w: Tensor, b: Tensor | None, tgt: Tensor, logits_shape: tuple, weight: Any,
               reduction: str, ignore_index: int, label_smoothing: float) -> Tensor:
    """PyTorch's reference: the logits, shaped as ``linear_weight`` says, into ``cross_entropy``."""
    rows = math.prod(w.shape[:-1])
    if w.ndim > 2:  # K-dimensional: one linear of C * d_1 * ... * d_K outputs, reshaped after
        w = mf.reshape(w, (rows, w.shape[-1]))
        b = None if b is None else mf.reshape(b, (rows,))
    logits = mf.reshape(linear(x, w, b), logits_shape)
    return cross_entropy(logits, tgt, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


def _chunked(x: Tensor, w: Tensor, b: Tensor | None, tgt: Tensor, weight: Any, reduction: str,
             ignore_index: int, options: LinearCrossEntropyOptions) -> Tensor:
    """The chunked path: per row ``(lse - target logit) * weight[target]``, reduced as
    ``cross_entropy`` reduces (``"mean"`` divides by the counted targets' total weight)."""
    batched = x.ndim == 2
    if not batched:
        x, tgt = mf.reshape(x, (1, x.shape[0])), mf.reshape(tgt, (1,) + tuple(tgt.shape))
    n, num_classes = x.shape[0], w.shape[0]
    _check_same_dtypes(x, w, b)
    if tuple(tgt.shape) != (n,):
        raise RuntimeError(f"linear_cross_entropy: expected target of shape {(n,) if batched else ()}, "
                           f"got {tuple(tgt.shape) if batched else tuple(tgt.shape[1:])}")
    opts = options._adjust(num_batches=n, in_features=x.shape[1], num_classes=num_classes, dtype=x.dtype,
                           device=x.device)
    out_dtype = x.dtype
    if _accumulates_wider(x.dtype, opts.acc_dtype):  # float16 in, the loss in float32 (the weight's copy:
        # PyTorch's "accurate" casts it too), one rounding at the end
        x, w, b = x.to(opts.acc_dtype), w.to(opts.acc_dtype), None if b is None else b.to(opts.acc_dtype)
    safe, counted = _counted_targets(x, tgt, ignore_index, num_classes)
    lse = apply(LinearLogSumExp(chunk_rows=opts.batch_chunk_size), x, w, b)
    picked = mf.sum(x * getitem_in_range(w, (safe,)), axis=1)
    if b is not None:
        picked = picked + getitem_in_range(b, (safe,))
    per_row = lse - picked
    row_weight = _row_weights(x, weight, safe, counted, num_classes)
    # an ignored row adds exactly 0 (selected, not multiplied: its logits may be inf)
    losses = mf.where(Tensor.constant(counted, x.device), per_row * row_weight, 0)
    if reduction == "none":
        loss = losses if batched else mf.reshape(losses, ())
    elif reduction == "sum":
        loss = mf.sum(losses)
    else:
        loss = mf.sum(losses) / mf.sum(row_weight)  # every target ignored: 0 / 0, NaN as PyTorch's
    return loss if loss.dtype == out_dtype else loss.to(out_dtype)


def _counted_targets(x: Tensor, tgt: Tensor, ignore_index: int, num_classes: int) -> tuple[Any, Any]:
    """The targets with ``ignore_index`` read as class 0, and the mask of those that count (device
    arrays); an out-of-range target is PyTorch's refusal (its gather's words), not NumPy's read
    from the end -- one host read of one flag."""
    xp, t = x.device.xp, tgt._data
    counted = t != ignore_index
    bad = counted & ((t < 0) | (t >= num_classes))
    if xp.scalar(xp.any(bad)):
        first = int(xp.to_host(t[bad])[0])
        raise RuntimeError(f"index {first} is out of bounds for dimension 1 with size {num_classes}")
    return xp.where(counted, t, 0), counted


def _row_weights(x: Tensor, weight: Any, safe: Any, counted: Any, num_classes: int) -> Tensor:
    """Each row's weight in the loss: its target's class weight (1 without ``weight``), 0 if ignored."""
    mask = Tensor.constant(counted.astype(x.dtype), x.device)
    if weight is None:
        return mask
    cw = _tensor(weight, x)
    if tuple(cw.shape) != (num_classes,):
        raise RuntimeError(f"linear_cross_entropy: expected weight of shape {(num_classes,)}, got {tuple(cw.shape)}")
    return getitem_in_range(cw, (safe,)) * mask


def _check_same_dtypes(x: Tensor, w: Tensor, b: Tensor | None) -> None:
    """The reference's refusals (``linear``'s, PyTorch's words) of an input or bias of another dtype
    than the weight: NumPy would promote them silently."""
    _check_input_dtype("linear", x, w, "linear")
    if b is not None and b.dtype != w.dtype:
        raise LayerDtypeMismatch(f"self and mat2 must have the same dtype, but got {scalar_type_name(b.dtype)} "
                                 f"and {scalar_type_name(w.dtype)} (linear: a bias of {b.dtype} beside a "
                                 f"weight of {w.dtype}; convert it with bias.to({w.dtype}))")


def _accumulates_wider(dtype: Any, acc_dtype: Any) -> bool:
    """Whether the loss is computed in a wider ``acc_dtype``; PyTorch's refusal of the mixes it lacks."""
    if acc_dtype == dtype:
        return False
    if not (dtype == np.float16 and acc_dtype == np.float32):  # (bfloat16 is named here, not computed in)
        raise RuntimeError(f"linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but got "
                           f"{_torch_dtype(acc_dtype)} acc_dtype and {_torch_dtype(dtype)} inputs.")
    return True
