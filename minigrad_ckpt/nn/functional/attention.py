"""``scaled_dot_product_attention`` and ``multi_head_attention_forward`` with PyTorch's
semantics (masks, causal, dropout); ``nn.MultiheadAttention`` is the second with its parameters."""

from __future__ import annotations

import math
import warnings
from typing import Any

from ... import functional as mf
from ...backend import cpp_type_name, host_numpy
from ...functional import _tensor
from ...functional.arguments import in_float32_if_half, numbers
from ...functional.errors import (
    AttentionShapeError,
    ComplexNotImplemented,
    InputMismatch,
    MaskDtypeError,
    NeedsFloatingInput,
)
from ...ops.activation import ScaledSoftmax
from ...ops.shape import TrilFill
from ...tape import apply
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine
from .attention_backends import check_backend_enabled
from .attention_bias import CausalBias
from .dropout import dropout
from .inputs import _check_input_dtype
from .linear import linear

__all__ = [
    "scaled_dot_product_attention", "multi_head_attention_forward",
]


@in_float32_if_half  # PyTorch's half attention computes in float: q k^T of entries ~60 overflowed float16
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
    ``training=False`` (an extension) turns the dropout off.  float16 computes in float32 and
    rounds once, as PyTorch's half kernel: step by step the scores of entries ~60 (head dim 64)
    overflowed float16 and the whole output was NaN, and smaller ones lost about 1%.
    """
    dropout_p, scale = numbers("scaled_dot_product_attention", "float", dropout_p=dropout_p, scale=scale)
    q, k, v = _tensor(query), _tensor(key, query), _tensor(value, query)
    check_backend_enabled(q, k, v, dropout_p if training else 0.0)  # mg.nn.attention.sdpa_kernel's choice
    if enable_gqa:
        k, v = _grouped(q, k), _grouped(q, v)
    _check_sdpa_inputs(q, k, v)
    if q.shape[-1] != k.shape[-1]:
        raise InputMismatch(f"scaled_dot_product_attention: query {q.shape} and key {k.shape} "
                            f"have different head dimensions")
    if k.shape[-2] != v.shape[-2]:
        raise InputMismatch(f"scaled_dot_product_attention: key {k.shape} and value {v.shape} "
                            f"have different sequence lengths")
    if is_causal and isinstance(attn_mask, CausalBias):  # PyTorch's words for this case (its tests match them)
        raise InputMismatch("CausalBias should not be used with causal=True")
    if is_causal and attn_mask is not None:
        raise InputMismatch("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                            "is_causal=True (pass attn_mask or is_causal, not both)")  # PyTorch's words, its tests
    # head dim 0: every score is an empty sum, 0 at any scale (PyTorch's uniform weights, not 1 / sqrt(0))
    s = 1.0 / math.sqrt(q.shape[-1] or 1) if scale is None else float(scale)
    if isinstance(attn_mask, CausalBias):  # mg.nn.attention.bias's: the boolean mask it stands for
        attn_mask = attn_mask._materialize(q.device)
    mask = None if attn_mask is None else _tensor(attn_mask, q)
    if mask is not None:
        _check_mask_fits_scores(mask, q, k)
    if mask is not None and mask.dtype.kind != "b" and mask.dtype != q.dtype:
        _check_sdpa_mask_dtype(mask.dtype, q.dtype)
        if q.dtype == host_numpy.float16:  # PyTorch's half kernel reads the float mask in its float math
            wide = [mf.astype(t, "float32") for t in (q, k, v)]
            out = scaled_dot_product_attention(*wide, mask, dropout_p, is_causal, scale=s, training=training)
            return mf.astype(out, "float16")
        mask = mf.astype(mask, q.dtype)  # a float32 mask beside a float64 query: exact, the query's dtype kept
    attn = _attention_weights(mf.matmul(q, mf.swapaxes(k, -1, -2)), s, bool(is_causal), mask)
    dropping = dropout_p > 0.0 and training
    if dropping:
        attn = dropout(attn, dropout_p)
    return _laid_out_as_query(mf.matmul(attn, v), q, dropping)


def _laid_out_as_query(out: Tensor, q: Tensor, dropping: bool) -> Tensor:
    """``out`` in the memory order PyTorch's CPU kernel gives it: a 4-d query whose heads lie
    closer in memory than its positions (``x.view(B, L, H, E).transpose(1, 2)``, how a multi-head
    layer splits its heads, ``x`` a chunk of a projection or not) gives an output laid out
    ``(B, L, H, E)`` in memory, so the usual
    ``y.transpose(1, 2).view(B, L, H * E)`` that merges the heads is a view, as there; with dropout
    PyTorch computes step by step and the output is row-major."""
    if dropping or q.ndim != 4 or q.shape[1] == 1 or q.shape[2] == 1 or q.stride(1) >= q.stride(2):
        return out
    return out.transpose(1, 2).contiguous().transpose(1, 2)


def _check_sdpa_inputs(q: Tensor, k: Tensor, v: Tensor) -> None:
    """PyTorch's refusals of query, key and value themselves: fewer than 2 dims (a 1-D query is one
    vector, not a sequence of them), dtypes that differ (NumPy would promote: the output's dtype would
    change silently), integer or bool ones (NumPy would compute; PyTorch has no integer kernel)."""
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise InputMismatch(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                            f"{q.ndim} key.dim: {k.ndim} and value.dim: {v.ndim} instead.")
    if not q.dtype == k.dtype == v.dtype:
        raise InputMismatch(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                            f"{cpp_type_name(q.dtype)} key.dtype: {cpp_type_name(k.dtype)} and value.dtype: "
                            f"{cpp_type_name(v.dtype)} instead.")
    if q.dtype.kind not in "fc":
        raise NeedsFloatingInput(f"scaled_dot_product_attention: expected floating-point query, key and value, got "
                                 f"{cpp_type_name(q.dtype)} (PyTorch: expected scalar type Float but found "
                                 f"{cpp_type_name(q.dtype)})")


def _check_mask_fits_scores(mask: Tensor, q: Tensor, k: Tensor) -> None:
    """The mask is added to the scores ``(*batch, L, S)`` in place in PyTorch: it may broadcast to their
    shape, not widen it (a mask of more dims or a larger batch would give a larger output).  Compared
    dim by dim in Python: NumPy's ``broadcast_shapes`` costs a third of a small call."""
    batch = q.shape[:-2]
    if batch != k.shape[:-2]:
        try:
            batch = host_numpy.broadcast_shapes(batch, k.shape[:-2])
        except ValueError:  # query and key that do not broadcast: the product's own error follows
            return
    scores = (*batch, q.shape[-2], k.shape[-2])
    if mask.ndim > len(scores) or any(m != 1 and m != s for m, s in zip(mask.shape[::-1], scores[::-1])):
        raise InputMismatch(f"scaled_dot_product_attention: attn_mask of shape {tuple(mask.shape)} does not broadcast "
                            f"to the scores' shape {scores} (PyTorch: output with shape {list(scores)} doesn't "
                            f"match the broadcast shape)")


def _check_sdpa_mask_dtype(mask_dtype: Any, query_dtype: Any) -> None:
    """PyTorch's rule for a mask beside the query: bool, float32 or the query's dtype; another float
    (a float64 mask beside a float32 query) would change the output's dtype, an integer one be added."""
    if mask_dtype.kind != "b" and mask_dtype not in (host_numpy.float32, query_dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {cpp_type_name(mask_dtype)} and  query.dtype: "
                           f"{cpp_type_name(query_dtype)} instead.")


def _grouped(q: Tensor, kv: Tensor) -> Tensor:
    """A key or value of ``h`` heads repeated for ``q``'s ``H`` heads (``H`` a multiple of ``h``):
    head ``j`` serves query heads ``j * H/h`` to ``(j + 1) * H/h - 1``, as PyTorch's grouped-query
    attention (``repeat_interleave`` over dim -3)."""
    if q.ndim < 3 or kv.ndim < 3 or q.shape[-3] % kv.shape[-3]:
        raise InputMismatch(f"scaled_dot_product_attention: enable_gqa needs the query's heads (dim -3) to "
                            f"be a multiple of the key's and value's, got {q.shape} and {kv.shape}")
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
    ``MultiheadAttention`` with ``need_weights=True``).  Complex scores are refused, as PyTorch's
    softmax refuses them (``mg.softmax`` too: a softmax needs an order)."""
    if scores.dtype.kind == "c":
        raise ComplexNotImplemented(f"attention: complex queries and keys are not supported (as PyTorch's: "
                                    f"its softmax has no complex kernel); got scores of {scores.dtype}")
    if mask is None:
        return apply(ScaledSoftmax(scale=scale, causal=causal, zero_empty_rows=zero_empty_rows), scores)
    scores = scores * scale
    if causal:
        scores = apply(TrilFill(k=0, value=-math.inf), scores)
    scores = mf.where(mask, scores, -math.inf) if mask.dtype == host_numpy.bool_ else scores + mask
    # scale 1 is exact: the softmax's own bits (Softmax's operations in Softmax's order)
    return apply(ScaledSoftmax(scale=1.0, causal=False, zero_empty_rows=zero_empty_rows), scores)


def multi_head_attention_forward(
        query: Any, key: Any, value: Any, embed_dim_to_check: int, num_heads: int, in_proj_weight: Tensor | None,
        in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool,
        dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None, training: bool = True,
        key_padding_mask: Any = None, need_weights: bool = True, attn_mask: Any = None,
        use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
        k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """PyTorch's ``F.multi_head_attention_forward``: what ``nn.MultiheadAttention`` computes, its
    parameters passed in.  Inputs are ``(L, N, E)`` (time first) or unbatched ``(L, E)``.

    The in-projection is ``in_proj_weight`` split in three (or, ``use_separate_proj_weight``,
    ``q/k/v_proj_weight``); ``bias_k``/``bias_v`` ``(1, 1, E)`` and ``add_zero_attn`` add one source
    position each that no mask hides; ``static_k``/``static_v`` ``(N * num_heads, S, E / num_heads)``
    replace the projected keys/values.  A boolean mask marks what may **not** be attended (True =
    masked), a float one is added to the scores; ``attn_mask`` is ``(L, S)`` or ``(N * num_heads, L, S)``.
    Returns ``(output, weights)``, the weights averaged over the heads if ``average_attn_weights``
    (None without ``need_weights``).  ``is_causal=True`` with no mask masks the future (PyTorch
    needs the mask given too).  ``is_causal=True`` is PyTorch's hint that ``attn_mask`` is the causal
    mask: without ``need_weights`` and ``key_padding_mask`` the mask is not read and query ``i`` attends
    to keys ``0..i`` of all of them -- the ``bias_k`` and ``add_zero_attn`` positions appended at the
    end too, which a given mask's padding would let every query see (PyTorch's answer).
    """
    q_in, k_in, v_in = _tensor(query), _tensor(key, query), _tensor(value, query)
    _check_mha_shapes(q_in, k_in, v_in, key_padding_mask, attn_mask, num_heads)
    _warn_of_mismatched_masks(key_padding_mask, attn_mask)
    unbatched = q_in.ndim == 2
    if unbatched:  # one batch element, and the masks that go with it
        q_in, k_in, v_in = _each_input(lambda t: mf.expand_dims(t, 1), q_in, k_in, v_in)
        if key_padding_mask is not None:  # (a 3-D attn_mask is (num_heads, L, S): (N * num_heads, L, S) for N = 1)
            key_padding_mask = mf.expand_dims(_tensor(key_padding_mask, q_in), 0)
    name = "multi_head_attention_forward"
    _check_widths(name, q_in, k_in, v_in, embed_dim_to_check, num_heads, use_separate_proj_weight)
    _check_parameters(name, use_separate_proj_weight, in_proj_weight, (q_proj_weight, k_proj_weight, v_proj_weight),
                      bias_k, bias_v)
    heads = _MHAHeads(num_heads, q_in.shape[0], q_in.shape[1], embed_dim_to_check // num_heads)
    weights = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else in_proj_weight
    for t in (q_in, k_in, v_in):
        _check_input_dtype(name, t, q_proj_weight if use_separate_proj_weight else in_proj_weight)
    q, k, v = _in_projection(q_in, k_in, v_in, weights, in_proj_bias)
    if bias_k is not None:  # one more source position: the learned key and value
        k = mf.concatenate([k, mf.broadcast_to(bias_k, (1,) + k.shape[1:])], axis=0)
        v = mf.concatenate([v, mf.broadcast_to(bias_v, (1,) + v.shape[1:])], axis=0)
    q, k, v = heads.split(q), _static_or(heads, static_k, k, "k", bias_k), _static_or(heads, static_v, v, "v", bias_v)
    add_zero_attn = bool(add_zero_attn)
    if add_zero_attn:  # and a zero key and value in every head
        zero = mf.zeros_like(k[:, :, :1])
        k, v = mf.concatenate([k, zero], axis=2), mf.concatenate([v, zero], axis=2)
    if not need_weights:  # PyTorch computes this case with scaled_dot_product_attention: sdpa_kernel's choice
        check_backend_enabled(q, k, v, dropout_p if training else 0.0)
        if is_causal and key_padding_mask is None:  # PyTorch trusts the hint: sdpa's is_causal, the mask unread
            attn_mask = None
    scores = mf.matmul(q, mf.swapaxes(k, -1, -2))                 # (N, H, L, S')
    mask = _mha_mask(name, attn_mask, key_padding_mask, heads, k.shape[2] - add_zero_attn - (bias_k is not None),
                     scores, need_weights)
    if mask is not None and mask.shape[-1] < k.shape[2]:          # the added positions are never masked
        extra = mf.zeros_like(mask[..., :1])
        mask = mf.concatenate([mask] + [extra] * (k.shape[2] - mask.shape[-1]), axis=-1)
    attn = _attention_weights(scores, 1.0 / math.sqrt(heads.dim), attn_mask is None and bool(is_causal), mask,
                              zero_empty_rows=not need_weights)   # PyTorch: NaN rows only with the weights
    if dropout_p > 0.0 and training:
        attn = dropout(attn, dropout_p)
    out = linear(heads.merge(mf.matmul(attn, v)), out_proj_weight, out_proj_bias)
    w = (mf.mean(attn, axis=1) if average_attn_weights else attn) if need_weights else None
    if unbatched:
        out, w = mf.squeeze(out, 1), (mf.squeeze(w, 0) if w is not None else None)
    return out, w


def _warn_of_mismatched_masks(key_padding_mask: Any, attn_mask: Any, names: tuple[str, str] = (
        "key_padding_mask", "attn_mask")) -> bool:
    """PyTorch's deprecation warning for two masks of different dtypes (a boolean padding mask with a
    float attention mask: fairseq's encoder layer), naming them as the caller's arguments; the answer
    is the same, the warning says PyTorch may stop taking them. At the user's line (PyTorch's points
    into torch). Whether it warned."""
    kpm_dtype, mask_dtype = getattr(key_padding_mask, "dtype", None), getattr(attn_mask, "dtype", None)
    if kpm_dtype is None or mask_dtype is None or kpm_dtype == mask_dtype:
        return False
    warnings.warn(f"Support for mismatched {names[0]} and {names[1]} is deprecated. Use same type for both instead.",
                  UserWarning, stacklevel=stacklevel_outside_the_engine())
    return True


def masks_of_one_type(key_padding_mask: Any, attn_mask: Any, names: tuple[str, str], like: Tensor) -> tuple[Any, Any]:
    """The two masks as ``nn.TransformerEncoder`` and ``nn.TransformerEncoderLayer`` hand them down
    (PyTorch's ``_canonical_mask`` there): masks of two dtypes warn once, in the module's own names
    (``src_key_padding_mask`` and ``mask``), and a boolean one goes on as the additive float mask in
    ``like``'s dtype, so that the layers and the attention below do not warn again, as PyTorch's."""
    if not _warn_of_mismatched_masks(key_padding_mask, attn_mask, names):
        return key_padding_mask, attn_mask
    kpm, mask = (_additive(t, like) if t.dtype.kind == "b" else t for t in (key_padding_mask, attn_mask))
    return kpm, mask


def _check_mha_shapes(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Any, attn_mask: Any,
                     num_heads: int) -> None:
    """PyTorch's ``_mha_shape_check``, its words and its ``AssertionError``: a batched (3-D) query
    takes 3-D keys and values and a 2-D ``key_padding_mask``, an unbatched (2-D) one 2-D keys and
    values, a 1-D ``key_padding_mask`` and a 3-D ``attn_mask`` of ``(num_heads, L, S)`` only; the
    ``attn_mask`` is 2-D or 3-D."""
    if query.ndim not in (2, 3):
        raise AttentionShapeError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D "
                                  f"query tensor")
    dims = query.ndim
    kind = "For batched (3-D) `query`" if dims == 3 else "For unbatched (2-D) `query`"
    if key.ndim != dims or value.ndim != dims:
        raise AttentionShapeError(f"{kind}, expected `key` and `value` to be {dims}-D but found {key.ndim}-D and "
                                  f"{value.ndim}-D tensors respectively")
    if key_padding_mask is not None and len(_shape(key_padding_mask)) != dims - 1:
        raise AttentionShapeError(f"{kind}, expected `key_padding_mask` to be `None` or {dims - 1}-D but found "
                                  f"{len(_shape(key_padding_mask))}-D tensor instead")
    if attn_mask is None:
        return
    mask_shape = _shape(attn_mask)
    if len(mask_shape) not in (2, 3):
        raise AttentionShapeError(f"{kind}, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                  f"{len(mask_shape)}-D tensor instead")
    expected = (num_heads, query.shape[0], key.shape[0])
    if dims == 2 and len(mask_shape) == 3 and mask_shape != expected:
        raise AttentionShapeError(f"Expected `attn_mask` shape to be {expected} but got {mask_shape}")


def _shape(t: Any) -> tuple[int, ...]:
    """The shape of a mask given as a Tensor, an array or nested lists."""
    return tuple(t.shape) if hasattr(t, "shape") else tuple(host_numpy.shape(t))


def _each_input(f: Any, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """``f`` of each of query, key and value, keeping which of them are the same tensor: self-attention
    stays one packed in-projection (as in PyTorch, which takes the same care), and f runs once."""
    if query is key and key is value:
        query = key = value = f(query)
        return query, key, value
    if key is value:
        key = value = f(key)
        return f(query), key, value
    return f(query), f(key), f(value)


def _check_widths(name: str, query: Tensor, key: Tensor, value: Tensor, embed_dim: int, num_heads: int,
                  separate: bool) -> None:
    """(L, N, E) inputs: the query ``embed_dim`` wide, key and value of one length and batch (of one
    shape with the packed weight), PyTorch's assertions in its words."""
    if query.shape[-1] != embed_dim:
        raise AttentionShapeError(f"was expecting embedding dimension of {embed_dim}, but got {query.shape[-1]} "
                                  f"({name}: query of shape {tuple(query.shape)})")
    if embed_dim % num_heads:
        raise AttentionShapeError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if separate and key.shape[:2] != value.shape[:2]:
        raise AttentionShapeError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                  f"{tuple(value.shape[:2])}")
    if not separate and key.shape != value.shape:
        raise AttentionShapeError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
    if key.shape[1] != query.shape[1]:  # (PyTorch fails in a reshape: RuntimeError)
        raise InputMismatch(f"{name}: key {tuple(key.shape)} and value {tuple(value.shape)} must be (S, N, *) with "
                            f"the query's batch of {query.shape[1]}")


def _check_parameters(name: str, separate: bool, in_proj_weight: Any, proj_weights: tuple[Any, Any, Any],
                      bias_k: Any, bias_v: Any) -> None:
    """The parameters the options need are there (PyTorch's assertions and messages)."""
    if not separate and in_proj_weight is None:
        raise AttentionShapeError(f"{name}: use_separate_proj_weight is False but in_proj_weight is None")
    for label, w in zip("qkv", proj_weights):
        if separate and w is None:
            raise AttentionShapeError(f"{name}: use_separate_proj_weight is True but {label}_proj_weight is None")
    if (bias_k is None) != (bias_v is None):
        given, missing = ("bias_k", "bias_v") if bias_v is None else ("bias_v", "bias_k")
        raise AttentionShapeError(f"{name}: {given} is set but {missing} is None (got only {given}: they go "
                                  f"together)")


class _MHAHeads:
    """Heads in and out: ``(T, N, E)`` <-> ``(N, H, T, E / H)``."""

    def __init__(self, num_heads: int, tgt_len: int, batch: int, head_dim: int) -> None:
        self.num, self.tgt_len, self.batch, self.dim = num_heads, tgt_len, batch, head_dim

    def split(self, t: Tensor) -> Tensor:
        return mf.transpose(mf.reshape(t, (t.shape[0], self.batch, self.num, self.dim)), (1, 2, 0, 3))

    def merge(self, t: Tensor) -> Tensor:
        return mf.reshape(mf.transpose(t, (2, 0, 1, 3)), (t.shape[2], self.batch, self.num * self.dim))


def _static_or(heads: _MHAHeads, static: Tensor | None, projected: Tensor, which: str, bias: Tensor | None
               ) -> Tensor:
    """The projected keys (``which`` "k") or values ("v") in heads, or the ``static`` ones
    ``(N * H, S, E / H)`` given instead.  A static one beside ``bias_k``/``bias_v`` is refused, as
    PyTorch refuses it: the bias is appended to the projection the static tensor replaces, so it
    would be dropped without a word."""
    if static is None:
        return heads.split(projected)
    label = {"k": "key", "v": "value"}[which]
    if bias is not None:
        raise AttentionShapeError(f"bias cannot be added to static {label}.")
    if static.ndim != 3 or static.shape[0] != heads.batch * heads.num:
        raise AttentionShapeError(f"expecting static_{which}.size(0) of {heads.batch * heads.num}, but got "
                                  f"{static.shape[0] if static.ndim else static.shape}")
    if static.shape[2] != heads.dim:
        raise AttentionShapeError(f"expecting static_{which}.size(2) of {heads.dim}, but got {static.shape[2]}")
    return mf.reshape(static, (heads.batch, heads.num, static.shape[1], heads.dim))


def _in_projection(query: Tensor, key: Tensor, value: Tensor, weights: Any, bias: Tensor | None
                   ) -> tuple[Tensor, Tensor, Tensor]:
    """The in-projections of query, key and value, (T, N, E) each, as PyTorch computes them:
    ``weights`` is the packed ``(3E, E)`` matrix or the three separate ones."""
    if not isinstance(weights, tuple):
        e = weights.shape[0] // 3
        if query is key and key is value:  # self-attention: one projection (PyTorch's packed path)
            q, k, v = mf.split(linear(query, weights, bias), 3, axis=-1)
            return q, k, v
        if key is value:  # encoder-decoder: key and value projected together
            wq, wkv = mf.split(weights, [e], axis=0)
            bq, bkv = mf.split(bias, [e], axis=0) if bias is not None else (None, None)
            k, v = mf.split(linear(key, wkv, bkv), 2, axis=-1)
            return linear(query, wq, bq), k, v
        weights = tuple(mf.split(weights, 3, axis=0))
    bq, bk, bv = mf.split(bias, 3, axis=0) if bias is not None else (None, None, None)
    wq, wk, wv = weights
    return linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)


def _mha_mask(name: str, attn_mask: Any, key_padding_mask: Any, heads: _MHAHeads, src_len: int,
              like: Tensor, need_weights: bool) -> Tensor | None:
    """The masks given, as one additive float tensor broadcasting to ``(N, H, L, S)`` (-inf where masked)."""
    tgt_len, bsz = heads.tgt_len, heads.batch
    m = None if attn_mask is None else _tensor(attn_mask, like)
    kpm = None if key_padding_mask is None else _tensor(key_padding_mask, like)
    if m is not None and m.shape not in ((tgt_len, src_len), (bsz * heads.num, tgt_len, src_len)):
        raise InputMismatch(f"{name}: attn_mask of shape {m.shape} must be ({tgt_len}, {src_len}) "
                            f"or ({bsz * heads.num}, {tgt_len}, {src_len})")
    for axis, size in enumerate((bsz, src_len)):  # PyTorch's _check_key_padding_mask, its words
        if kpm is not None and kpm.shape[axis] != size:
            raise AttentionShapeError(f"Expected key_padded_mask.shape[{axis}] to be {size}, but got "
                                      f"{kpm.shape[axis]} ({name}: key_padding_mask of shape {kpm.shape} must be "
                                      f"({bsz}, {src_len}))")
    masks = [(label, t) for label, t in (("attn_mask", m), ("key_padding_mask", kpm)) if t is not None]
    for label, t in masks:
        if t.dtype.kind not in "bf":  # (an integer 0/1 mask would be added, not masked)
            raise MaskDtypeError(f"only bool and floating types of {label} are supported, got {t.dtype}")
    if masks:
        _check_mha_mask_dtype([t.dtype for _, t in masks], like.dtype, need_weights)
    add = None
    if m is not None:
        add = _additive(m, like)
        if add.ndim == 3:
            add = mf.reshape(add, (bsz, heads.num, tgt_len, src_len))
    if kpm is not None:
        kadd = mf.reshape(_additive(kpm, like), (bsz, 1, 1, src_len))
        add = kadd if add is None else add + kadd
    return add


def _check_mha_mask_dtype(dtypes: list[Any], query_dtype: Any, need_weights: bool) -> None:
    """PyTorch's errors for float masks of another dtype than the query's: it makes a boolean mask a
    float one of the query's dtype and adds the two masks (their promoted dtype); with the weights,
    ``baddbmm`` then needs the query's dtype, without them ``scaled_dot_product_attention``'s rule."""
    merged = host_numpy.result_type(*[query_dtype if d.kind == "b" else d for d in dtypes])
    if merged == query_dtype:
        return
    if need_weights:
        q = cpp_type_name(query_dtype)
        raise RuntimeError(f"Input dtypes must be the same, got: input {cpp_type_name(merged)}, batch1: {q}, "
                           f"batch2: {q}")
    _check_sdpa_mask_dtype(merged, query_dtype)


def _additive(m: Tensor, like: Tensor) -> Tensor:
    """A boolean mask (True = masked) becomes 0 / -inf in ``like``'s dtype; a float mask (checked:
    the query's dtype, or float32 beside a wider query) is used in ``like``'s dtype."""
    if m.dtype.kind == "b":
        xp = like.device.xp
        allowed = xp.logical_not(m._data)
        return Tensor.constant(xp.where(allowed, like.dtype.type(0), like.dtype.type(-xp.inf)), like.device)
    return m.astype(like.dtype)
