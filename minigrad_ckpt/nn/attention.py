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

    As PyTorch's: keys and values of other widths (``kdim``, ``vdim``) are projected by
    ``k_proj_weight`` ``(E, kdim)`` and ``v_proj_weight`` ``(E, vdim)`` beside ``q_proj_weight``
    (``in_proj_weight`` is then None); ``add_bias_kv`` appends the learned ``bias_k``/``bias_v``
    ``(1, 1, E)`` to the projected keys and values, ``add_zero_attn`` a zero key and value to each
    head, both as one more source position that no mask hides.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim={embed_dim} must be divisible by "
                             f"num_heads={num_heads}")
        self.embed_dim, self.num_heads = int(embed_dim), int(num_heads)
        self.kdim = int(kdim) if kdim is not None else self.embed_dim
        self.vdim = int(vdim) if vdim is not None else self.embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        self.dropout, self.batch_first = float(dropout), batch_first
        self.add_zero_attn = bool(add_zero_attn)
        made = {"dtype": dtype, "device": device}
        if self._qkv_same_embed_dim:  # PyTorch's packed weight; the separate names are None parameters
            self.in_proj_weight = Parameter(zeros(3 * embed_dim, embed_dim, **made))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(zeros(embed_dim, embed_dim, **made))
            self.k_proj_weight = Parameter(zeros(embed_dim, self.kdim, **made))
            self.v_proj_weight = Parameter(zeros(embed_dim, self.vdim, **made))
            self.register_parameter("in_proj_weight", None)
        self.register_parameter("in_proj_bias", Parameter(zeros(3 * embed_dim, **made)) if bias else None)
        for name in ("bias_k", "bias_v"):
            self.register_parameter(name, Parameter(zeros(1, 1, embed_dim, **made)) if add_bias_kv else None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """PyTorch's initialisation: Xavier-uniform projections (each separate one on its own),
        zero biases, Xavier-normal ``bias_k``/``bias_v``."""
        for w in (self.in_proj_weight, self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
            if w is not None:
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)
        for b in (self.bias_k, self.bias_v):
            if b is not None:
                init.xavier_normal_(b)

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
        self._check_inputs(query, key, value)  # now (L, N, E)
        tgt_len, bsz, e = query.shape
        src_len = key.shape[0]
        h, d = self.num_heads, self.head_dim
        q, k, v = self._project(query, key, value)
        if self.bias_k is not None:  # one more source position: the learned bias key and value
            k = mf.concatenate([k, mf.broadcast_to(self.bias_k, (1, bsz, e))], axis=0)
            v = mf.concatenate([v, mf.broadcast_to(self.bias_v, (1, bsz, e))], axis=0)

        def heads(t: Tensor) -> Tensor:  # (L, N, E) -> (N, H, L, D)
            return mf.transpose(mf.reshape(t, (t.shape[0], bsz, h, d)), (1, 2, 0, 3))

        q, k, v = heads(q), heads(k), heads(v)
        if self.add_zero_attn:  # and a zero key and value in every head
            zero = mf.zeros_like(k[:, :, :1])
            k, v = mf.concatenate([k, zero], axis=2), mf.concatenate([v, zero], axis=2)
        scores = mf.matmul(q, mf.swapaxes(k, -1, -2))
        mask = self._combined_mask(attn_mask, key_padding_mask, tgt_len, src_len, bsz, scores)
        if mask is not None and k.shape[2] > src_len:  # the added positions are never masked
            extra = mf.zeros_like(mask[..., :1])
            mask = mf.concatenate([mask] + [extra] * (k.shape[2] - src_len), axis=-1)
        attn = _attention_weights(scores, 1.0 / math.sqrt(d), attn_mask is None and bool(is_causal), mask,
                                  zero_empty_rows=not need_weights)  # PyTorch: NaN rows only with the weights
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

    def _check_inputs(self, query: Tensor, key: Tensor, value: Tensor) -> None:
        """The dtypes (the parameters') and the widths (``embed_dim``, ``kdim``, ``vdim``) of (L, N, E) inputs."""
        weight = self.in_proj_weight if self._qkv_same_embed_dim else self.q_proj_weight
        for t in (query, key, value):
            F._check_input_dtype("MultiheadAttention", t, weight)
        if query.ndim != 3 or query.shape[-1] != self.embed_dim:
            raise ValueError(f"{self._label()}: query of shape {tuple(query.shape)} does not match "
                             f"embed_dim={self.embed_dim}")
        if key.shape[-1] != self.kdim or value.shape[-1] != self.vdim:
            raise ValueError(f"{self._label()}: key {tuple(key.shape)} / value {tuple(value.shape)} "
                             f"must have kdim={self.kdim} / vdim={self.vdim} as their last axis")

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """The in-projections of query, key and value, (L, N, E) each, as PyTorch computes them."""
        e, b, w = self.embed_dim, self.in_proj_bias, self.in_proj_weight
        if self._qkv_same_embed_dim and query is key and key is value:  # self-attention: one projection
            q, k, v = mf.split(F.linear(query, w, b), 3, axis=-1)      # (PyTorch's packed path)
            return q, k, v
        if self._qkv_same_embed_dim and key is value:  # encoder-decoder: key and value projected together
            wq, wkv = mf.split(w, [e], axis=0)
            bq, bkv = mf.split(b, [e], axis=0) if b is not None else (None, None)
            k, v = mf.split(F.linear(key, wkv, bkv), 2, axis=-1)
            return F.linear(query, wq, bq), k, v
        bq, bk, bv = mf.split(b, 3, axis=0) if b is not None else (None, None, None)
        if self._qkv_same_embed_dim:
            wq, wk, wv = mf.split(w, 3, axis=0)
        else:  # separate weights for keys and values of other widths
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        return F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)

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
        s = f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, batch_first={self.batch_first}"
        if not self._qkv_same_embed_dim:
            s += f", kdim={self.kdim}, vdim={self.vdim}"
        return s


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
    return m if isinstance(m, Tensor) else Tensor._from_data(m, device=like.device)


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
