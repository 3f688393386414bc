"""``scaled_dot_product_attention`` with PyTorch's semantics (masks, causal, dropout)."""

from __future__ import annotations

import math
from typing import Any

from ... import functional as mf
from ...backend import host_numpy
from ...functional import _tensor
from ...ops.activation import ScaledSoftmax
from ...ops.shape import TrilFill
from ...tape import apply
from ...tensor import Tensor
from .dropout import dropout

__all__ = [
    "scaled_dot_product_attention",
]


def scaled_dot_product_attention(query: Any, key: Any, value: Any, attn_mask: Any = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, *,
                                 scale: float | None = None, enable_gqa: bool = False,
                                 training: bool = True) -> Tensor:
    """``softmax(q k^T * scale + mask) v`` over the last two axes, PyTorch's semantics and
    argument order (``attn_mask, dropout_p, is_causal``; ``scale`` and ``enable_gqa`` by keyword).

    ``attn_mask`` is boolean (True = attend) or additive float; ``is_causal``
    masks future positions (query i attends to keys 0..i, aligned at the top
    left, as in PyTorch).  ``scale`` defaults to ``1 / sqrt(head_dim)``.
    ``enable_gqa``: grouped-query attention, a key and value with fewer heads (dim -3) than the
    query, each repeated for its group of ``query_heads // kv_heads`` query heads.
    ``training=False`` (an extension) turns the dropout off.
    """
    q, k, v = _tensor(query), _tensor(key, query), _tensor(value, query)
    if enable_gqa:
        k, v = _grouped(q, k), _grouped(q, v)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"scaled_dot_product_attention: query {q.shape} and key {k.shape} "
                         f"have different head dimensions")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"scaled_dot_product_attention: key {k.shape} and value {v.shape} "
                         f"have different sequence lengths")
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention: pass attn_mask or is_causal, not both")
    s = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    mask = None if attn_mask is None else _tensor(attn_mask, q)
    attn = _attention_weights(mf.matmul(q, mf.swapaxes(k, -1, -2)), s, bool(is_causal), mask)
    if dropout_p > 0.0 and training:
        attn = dropout(attn, dropout_p)
    return mf.matmul(attn, v)


def _grouped(q: Tensor, kv: Tensor) -> Tensor:
    """A key or value of ``h`` heads repeated for ``q``'s ``H`` heads (``H`` a multiple of ``h``):
    head ``j`` serves query heads ``j * H/h`` to ``(j + 1) * H/h - 1``, as PyTorch's grouped-query
    attention (``repeat_interleave`` over dim -3)."""
    if q.ndim < 3 or kv.ndim < 3 or q.shape[-3] % kv.shape[-3]:
        raise ValueError(f"scaled_dot_product_attention: enable_gqa needs the query's heads (dim -3) to be "
                         f"a multiple of the key's and value's, got {q.shape} and {kv.shape}")
    group = q.shape[-3] // kv.shape[-3]
    lead, (h, t, d) = kv.shape[:-3], kv.shape[-3:]
    spread = mf.broadcast_to(mf.reshape(kv, lead + (h, 1, t, d)), lead + (h, group, t, d))
    return mf.reshape(spread, lead + (h * group, t, d))


def _attention_weights(scores: Tensor, scale: float, causal: bool, mask: Tensor | None,
                       zero_empty_rows: bool = True) -> Tensor:
    """``softmax(scores * scale)`` over the last axis, future keys left out when ``causal`` (by
    the op: no mask array is made or kept), then a ``mask``: boolean (True = attend) or added.
    One op, :class:`~minigrad_ckpt.ops.activation.ScaledSoftmax`, after the mask if there is one.

    A query whose keys are all masked gets weights 0 (PyTorch's ``scaled_dot_product_attention``
    and its gradient); ``zero_empty_rows=False`` leaves softmax's NaN there (PyTorch's
    ``MultiheadAttention`` with ``need_weights=True``)."""
    if mask is None:
        return apply(ScaledSoftmax(scale=scale, causal=causal, zero_empty_rows=zero_empty_rows), scores)
    scores = scores * scale
    if causal:
        scores = apply(TrilFill(k=0, value=-math.inf), scores)
    scores = mf.where(mask, scores, -math.inf) if mask.dtype == host_numpy.bool_ else scores + mask
    # scale 1 is exact: the softmax's own bits (Softmax's operations in Softmax's order)
    return apply(ScaledSoftmax(scale=1.0, causal=False, zero_empty_rows=zero_empty_rows), scores)
