"""Attention layers: ``MultiheadAttention`` (PyTorch's) and a pre-norm
``TransformerBlock`` built from it."""

from __future__ import annotations

import math
from typing import Any

from .. import functional as mf
from ..creation import zeros
from ..functional.arguments import as_tensor
from ..tensor import Tensor
from . import functional as F
from . import init
from .activation import GELU, ReLU, SiLU
from .containers import Sequential
from .dropout import Dropout
from .functional.attention import _attention_weights
from .linear import Linear
from .module import Module, Parameter
from .normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerBlock"]


class MultiheadAttention(Module):
    """Multi-head attention with PyTorch's parameters, masks and return values.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False)`` returns
    ``(output, weights)``; inputs are (L, N, E), or (N, L, E) with
    ``batch_first=True``, or unbatched (L, E).  As in PyTorch, a *boolean*
    ``attn_mask`` / ``key_padding_mask`` marks positions that are **not**
    allowed to attend (True = masked); float masks are added to the scores.
    ``is_causal=True`` without a mask applies the causal mask.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim={embed_dim} must be divisible by "
                             f"num_heads={num_heads}")
        self.embed_dim, self.num_heads = int(embed_dim), int(num_heads)
        self.head_dim = embed_dim // num_heads
        self.dropout, self.batch_first = float(dropout), batch_first
        self.in_proj_weight = Parameter(zeros(3 * embed_dim, embed_dim, dtype=dtype, device=device))
        self.in_proj_bias = Parameter(zeros(3 * embed_dim, dtype=dtype, device=device)) if bias else None
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        init.xavier_uniform_(self.in_proj_weight)
        if bias:
            init.zeros_(self.out_proj.bias)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Any = None,
                need_weights: bool = True, attn_mask: Any = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        query, key, value = as_tensor(query), as_tensor(key), as_tensor(value)  # lists work, as for functions
        unbatched = query.ndim == 2
        if unbatched:
            query, key, value = _each(lambda t: mf.expand_dims(t, 1), query, key, value)
            if key_padding_mask is not None:
                key_padding_mask = mf.expand_dims(_as_tensor(key_padding_mask, query), 0)
        elif self.batch_first:
            query, key, value = _each(lambda t: mf.swapaxes(t, 0, 1), query, key, value)
        for t in (query, key, value):
            F._check_input_dtype("MultiheadAttention", t, self.in_proj_weight)
        # now (L, N, E)
        if query.ndim != 3 or query.shape[-1] != self.embed_dim:
            raise ValueError(f"{self._label()}: query of shape {tuple(query.shape)} does not match "
                             f"embed_dim={self.embed_dim}")
        if key.shape[-1] != self.embed_dim or value.shape[-1] != self.embed_dim:
            raise ValueError(f"{self._label()}: key {tuple(key.shape)} / value {tuple(value.shape)} "
                             f"must have embed_dim={self.embed_dim} as their last axis")
        tgt_len, bsz, e = query.shape
        src_len = key.shape[0]
        w, b = self.in_proj_weight, self.in_proj_bias
        h, d = self.num_heads, self.head_dim
        if query is key and key is value:  # self-attention: one projection (PyTorch's packed path)
            q, k, v = mf.split(F.linear(query, w, b), 3, axis=-1)
        elif key is value:  # encoder-decoder attention: key and value projected together
            wq, wkv = mf.split(w, [e], axis=0)
            bq, bkv = mf.split(b, [e], axis=0) if b is not None else (None, None)
            q = F.linear(query, wq, bq)
            k, v = mf.split(F.linear(key, wkv, bkv), 2, axis=-1)
        else:
            wq, wk, wv = mf.split(w, 3, axis=0)
            bq, bk, bv = mf.split(b, 3, axis=0) if b is not None else (None, None, None)
            q, k, v = F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)

        def heads(t: Tensor, length: int) -> Tensor:  # (L, N, E) -> (N, H, L, D)
            return mf.transpose(mf.reshape(t, (length, bsz, h, d)), (1, 2, 0, 3))

        q, k, v = heads(q, tgt_len), heads(k, src_len), heads(v, src_len)
        scores = mf.matmul(q, mf.swapaxes(k, -1, -2))
        mask = self._combined_mask(attn_mask, key_padding_mask, tgt_len, src_len, bsz, scores)
        attn = _attention_weights(scores, 1.0 / math.sqrt(d), attn_mask is None and bool(is_causal), mask)
        if self.dropout > 0.0 and self.training:
            attn = F.dropout(attn, self.dropout)
        out = mf.matmul(attn, v)                                    # (N, H, L, D)
        out = mf.reshape(mf.transpose(out, (2, 0, 1, 3)), (tgt_len, bsz, e))
        out = self.out_proj(out)
        if unbatched:
            out = mf.squeeze(out, 1)
        elif self.batch_first:
            out = mf.swapaxes(out, 0, 1)
        weights = None
        if need_weights:
            weights = mf.mean(attn, axis=1) if average_attn_weights else attn
            if unbatched:
                weights = mf.squeeze(weights, 0)
        return out, weights

    def _combined_mask(self, attn_mask: Any, key_padding_mask: Any, tgt_len: int,
                       src_len: int, bsz: int, like: Tensor) -> Tensor | None:
        """The masks given as arrays, as one additive float tensor (-inf where masked)."""
        add = None
        if attn_mask is not None:
            m = _as_tensor(attn_mask, like)
            if m.shape not in ((tgt_len, src_len), (bsz * self.num_heads, tgt_len, src_len)):
                raise ValueError(f"{self._label()}: attn_mask of shape {m.shape} must be ({tgt_len}, {src_len}) "
                                 f"or ({bsz * self.num_heads}, {tgt_len}, {src_len})")
            add = _additive(m, like)
            if add.ndim == 3:
                add = mf.reshape(add, (bsz, self.num_heads, tgt_len, src_len))
        if key_padding_mask is not None:
            kpm = _as_tensor(key_padding_mask, like)
            if kpm.shape != (bsz, src_len):
                raise ValueError(
                    f"{self._label()}: key_padding_mask of shape {kpm.shape} must be ({bsz}, {src_len})"
                )
            kadd = mf.reshape(_additive(kpm, like), (bsz, 1, 1, src_len))
            add = kadd if add is None else add + kadd
        return add

    def _label(self) -> str:
        return f"MultiheadAttention(embed_dim={self.embed_dim}, num_heads={self.num_heads})"

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, batch_first={self.batch_first}"


def _each(f: Any, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """``f`` of each of query, key and value, keeping which of them are the same tensor: self-attention
    stays one packed in-projection (as in PyTorch, which takes the same care), and f runs once."""
    if query is key and key is value:
        query = key = value = f(query)
        return query, key, value
    if key is value:
        key = value = f(key)
        return f(query), key, value
    return f(query), f(key), f(value)


def _as_tensor(m: Any, like: Tensor) -> Tensor:
    return m if isinstance(m, Tensor) else Tensor(m, device=like.device)


def _zero_or_neg_inf(xp: Any, allowed: Any, dtype: Any) -> Any:
    """0 where allowed, -inf elsewhere, built in ``dtype`` (no float64 detour)."""
    return xp.where(allowed, dtype.type(0), dtype.type(-xp.inf))


def _additive(m: Tensor, like: Tensor) -> Tensor:
    """A boolean mask (True = masked) becomes 0 / -inf; a float mask is used as is."""
    if m.dtype.kind == "b":
        xp = like.device.xp
        return Tensor.constant(_zero_or_neg_inf(xp, xp.logical_not(m._data), like.dtype), like.device)
    return m.astype(like.dtype)


class TransformerBlock(Module):
    """A pre-norm transformer block on (N, L, E) input::

        x = x + Dropout(Attention(LayerNorm(x)))
        x = x + Dropout(MLP(LayerNorm(x)))        # MLP: Linear(E, 4E) -> GELU -> Linear(4E, E)

    ``causal=True`` lets position i attend to positions 0..i only.
    ``activation`` is ``"gelu"`` (exact), ``"gelu_tanh"`` (the tanh
    approximation, GPT-2's, cheaper on the CPU), ``"relu"`` or ``"silu"``.
    """

    def __init__(self, d_model: int, n_heads: int, mlp_ratio: int = 4, dropout: float = 0.0,
                 causal: bool = False, activation: str = "gelu", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        acts = {"gelu": lambda: GELU(), "gelu_tanh": lambda: GELU("tanh"), "relu": ReLU, "silu": SiLU}
        if activation not in acts:
            raise ValueError(f"TransformerBlock: activation must be one of {sorted(acts)}, got {activation!r}")
        self.causal = causal
        self.ln1 = LayerNorm(d_model, device=device, dtype=dtype)
        self.attn = MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True,
                                       device=device, dtype=dtype)
        self.drop1 = Dropout(dropout)
        self.ln2 = LayerNorm(d_model, device=device, dtype=dtype)
        self.mlp = Sequential(
            Linear(d_model, mlp_ratio * d_model, device=device, dtype=dtype),
            acts[activation](),
            Linear(mlp_ratio * d_model, d_model, device=device, dtype=dtype),
            Dropout(dropout),
        )

    def forward(self, x: Tensor) -> Tensor:
        x = as_tensor(x)
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, need_weights=False, is_causal=self.causal)
        x = x + self.drop1(a)
        return x + self.mlp(self.ln2(x))

    def extra_repr(self) -> str:
        return f"causal={self.causal}"
