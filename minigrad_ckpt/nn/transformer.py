"""TransformerEncoderLayer and TransformerEncoder with PyTorch's arguments, computation and
parameter names (``self_attn.in_proj_weight``, ``linear1.weight``, ``norm1.bias``, ...),
so a PyTorch ``state_dict`` loads and gives the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..functional.arguments import as_tensor
from ..tensor import Tensor
from . import functional as F
from .attention import MultiheadAttention
from .containers import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["TransformerEncoderLayer", "TransformerEncoder"]

_ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {"relu": F.relu, "gelu": F.gelu}


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual connection and LayerNorm.

    ``TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
    activation="relu", layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True)``;
    ``forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False)``. With
    ``norm_first=False`` (PyTorch's default) it is ``norm1(x + sa(x))``, then
    ``norm2(x + ff(x))``; with ``norm_first=True`` the pre-norm form ``x + sa(norm1(x))``.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(activation, str):
            if activation not in _ACTIVATIONS:
                raise ValueError(f"TransformerEncoderLayer: activation must be 'relu', 'gelu' or a callable, "
                                 f"got {activation!r}")
            act = _ACTIVATIONS[activation]
        elif callable(activation):
            act = activation
        else:
            raise TypeError(f"TransformerEncoderLayer: activation must be a string or a callable, got "
                            f"{type(activation).__name__}")
        self._init_args = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                               activation=activation, layer_norm_eps=layer_norm_eps, batch_first=batch_first,
                               norm_first=norm_first, bias=bias, device=device, dtype=dtype)
        kw = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = bool(norm_first)
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = act
        self.batch_first = batch_first

    def forward(self, src: Tensor, src_mask: Any = None, src_key_padding_mask: Any = None,
                is_causal: bool = False) -> Tensor:
        x = as_tensor(src)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, mask: Any, key_padding_mask: Any, is_causal: bool) -> Tensor:
        out, _ = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=key_padding_mask, need_weights=False,
                                is_causal=is_causal)
        return self.dropout1(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def _clone(self) -> TransformerEncoderLayer:
        """A new layer with the same arguments, weights and mode (PyTorch deep-copies)."""
        twin = type(self)(**self._init_args)
        twin.load_state_dict(self.state_dict())
        twin.train(self.training)
        return twin

    def extra_repr(self) -> str:
        a = self._init_args
        return (f"d_model={a['d_model']}, nhead={a['nhead']}, dim_feedforward={a['dim_feedforward']}, "
                f"norm_first={self.norm_first}, batch_first={self.batch_first}")


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (same initial weights, as PyTorch's deep copy),
    then an optional ``norm``. Parameters are ``layers.<i>.<name>`` (and ``norm.<name>``).

    ``forward(src, mask=None, src_key_padding_mask=None, is_causal=None)``.
    """

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        if not isinstance(encoder_layer, TransformerEncoderLayer):
            raise TypeError(f"TransformerEncoder: encoder_layer must be a TransformerEncoderLayer, got "
                            f"{type(encoder_layer).__name__}")
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"TransformerEncoder: num_layers must be a positive int, got {num_layers!r}")
        self.layers = ModuleList([encoder_layer._clone() for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src: Tensor, mask: Any = None, src_key_padding_mask: Any = None,
                is_causal: bool | None = None) -> Tensor:
        x = as_tensor(src)
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        return self.norm(x) if self.norm is not None else x
