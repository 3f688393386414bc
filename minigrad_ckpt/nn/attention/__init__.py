"""Attention layers: ``MultiheadAttention`` (PyTorch's) and a pre-norm
``TransformerBlock`` built from it."""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...creation import zeros
from ...functional.arguments import as_tensor
from ...functional.errors import AttentionShapeError, InputMismatch
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..activation import GELU, ReLU, SiLU
from ..containers import Sequential
from ..dropout import Dropout
from ..functional.attention import _check_mha_shapes, _each_input
from ..functional.attention_backends import SDPBackend, sdpa_kernel
from ..linear import Linear, NonDynamicallyQuantizableLinear
from ..module import Module, Parameter
from ..normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerBlock", "SDPBackend", "sdpa_kernel"]


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
        if embed_dim <= 0 or num_heads <= 0:  # (PyTorch's words; 0 heads divided by zero here)
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        if embed_dim % num_heads:
            raise AttentionShapeError(f"embed_dim must be divisible by num_heads (MultiheadAttention: "
                                      f"embed_dim={embed_dim}, num_heads={num_heads})")
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
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
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
        """:func:`~minigrad_ckpt.nn.functional.multi_head_attention_forward` with this layer's
        parameters, on time-first inputs (``batch_first`` ones are swapped there and back)."""
        query, key, value = as_tensor(query), as_tensor(key), as_tensor(value)  # lists work, as for functions
        _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, self.num_heads)  # before batch_first's swap
        swapped = self.batch_first and query.ndim == 3
        if swapped:
            query, key, value = _each_input(lambda t: mf.swapaxes(t, 0, 1), query, key, value)
        self._check_inputs(query, key, value)
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        return (mf.swapaxes(out, 0, 1) if swapped else out), weights

    def _check_inputs(self, query: Tensor, key: Tensor, value: Tensor) -> None:
        """The dtypes (the parameters') and the widths (``embed_dim``, ``kdim``, ``vdim``) of the inputs,
        refused as PyTorch refuses them: its assertions on the query's width and on separate key and
        value weights, a failed product (``RuntimeError``) for the packed one."""
        weight = self.in_proj_weight if self._qkv_same_embed_dim else self.q_proj_weight
        for t in (query, key, value):
            F._check_input_dtype("MultiheadAttention", t, weight)
        if query.shape[-1] != self.embed_dim:
            raise AttentionShapeError(f"was expecting embedding dimension of {self.embed_dim}, but got "
                                      f"{query.shape[-1]} ({self._label()}: query of shape {tuple(query.shape)})")
        for label, t, width in (("key", key, self.kdim), ("value", value, self.vdim)):
            if t.shape[-1] == width:
                continue
            if self._qkv_same_embed_dim:
                raise InputMismatch(f"{self._label()}: {label} of shape {tuple(t.shape)} must have "
                                    f"{width} features as its last axis")
            raise AttentionShapeError(f"expecting {label} weights shape of {(self.embed_dim, t.shape[-1])}, but got "
                                      f"{(self.embed_dim, width)} ({self._label()}: {label} of shape "
                                      f"{tuple(t.shape)}, {label[0]}dim={width})")

    def _label(self) -> str:
        return f"MultiheadAttention(embed_dim={self.embed_dim}, num_heads={self.num_heads})"



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
