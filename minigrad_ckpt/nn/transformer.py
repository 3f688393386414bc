"""TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and
Transformer with PyTorch's arguments, computation and parameter names (``self_attn.in_proj_weight``,
``multihead_attn.out_proj.weight``, ``linear1.weight``, ``norm1.bias``, ...), so a PyTorch
``state_dict`` loads and gives the same numbers.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

from ..backend import host_numpy
from ..creation import full
from ..functional.arguments import as_tensor
from ..functional.elementwise import where as mf_where
from ..functional.errors import InputMismatch
from ..functional.math import triu
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from . import functional as F
from . import init
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .containers import ModuleList
from .dropout import Dropout
from .functional.attention import masks_of_one_type
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder",
           "Transformer"]

_ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {"relu": F.relu, "gelu": F.gelu}


def _activation(owner: str, activation: Any) -> Callable[[Tensor], Tensor]:
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise InputMismatch(f"{owner}: activation must be 'relu', 'gelu' or a callable, got {activation!r}")
        return _ACTIVATIONS[activation]
    if callable(activation):
        return activation
    raise TypeError(f"{owner}: activation must be a string or a callable, got {type(activation).__name__}")


def _clones(owner: str, layer: Module, num_layers: int) -> ModuleList:
    """``num_layers`` deep copies of ``layer``, as PyTorch's ``_get_clones``: each starts with its
    weights, and keeps whatever else it has -- frozen parameters, replaced submodules, a subclass's
    own ``__init__``, hooks.  A module of another class will do if it has a ``self_attn`` (PyTorch's
    stack reads ``self_attn.batch_first``, so a layer without one fails there in its first call)."""
    if not isinstance(layer, Module) or not hasattr(layer, "self_attn"):
        raise TypeError(f"{owner}: the layer must be a {owner}Layer or a module like one (with a self_attn), got "
                        f"{type(layer).__name__}")
    if not isinstance(num_layers, int) or isinstance(num_layers, bool) or num_layers < 1:
        raise ValueError(f"{owner}: num_layers must be a positive int, got {num_layers!r}")
    return ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])


def _why_not_nested(layer: Module) -> str:
    """Why PyTorch's ``TransformerEncoder`` would not pack its input into a nested tensor with this
    layer ("" if it would): its ``__init__``'s conditions, in its order and words."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    act = layer.activation
    relu_or_gelu = act is F.relu or act is F.gelu or isinstance(act, (ReLU, GELU))
    reasons = [(layer.norm_first, f"{name}.norm_first was True"),
               (not layer.self_attn.batch_first,
                f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"),
               (not layer.self_attn._qkv_same_embed_dim, f"{name}.self_attn._qkv_same_embed_dim was not True"),
               (layer.self_attn.in_proj_bias is None, f"{name}.self_attn was passed bias=False"),
               (not relu_or_gelu, f"{name}.activation_relu_or_gelu was not True"),
               (layer.norm1.eps != layer.norm2.eps, f"{name}.norm1.eps was not equal to {name}.norm2.eps"),
               (layer.self_attn.num_heads % 2 == 1, f"{name}.self_attn.num_heads is odd")]
    return next((why for failed, why in reasons if failed), "")


def _detect_is_causal_mask(mask: Any, is_causal: bool | None, x: Tensor, batch_first: bool) -> bool:
    """The hint a stack gives its layers, PyTorch's ``_detect_is_causal_mask``: ``is_causal`` as
    given, or where it is None, whether ``mask`` is the causal mask of ``x``'s length (the first
    axis of an unbatched ``x``) -- True (bool) or -inf (float) above the diagonal, False / 0 on and
    below it.  The mask is read on the host, as PyTorch compares it (any mask of another shape,
    a 3-D one too, is not the causal mask)."""
    if is_causal is not None or mask is None:
        return bool(is_causal)
    size = x.shape[0] if x.ndim == 2 else x.shape[1 if batch_first else 0]
    m = mask if isinstance(mask, Tensor) else as_tensor(mask)
    if tuple(m.shape) != (size, size):
        return False
    values = m.detach().cpu().numpy()
    above = host_numpy.triu(host_numpy.ones((size, size), dtype=bool), 1)
    if values.dtype == host_numpy.bool_:
        return bool((values == above).all())
    return bool((values == host_numpy.where(above, -host_numpy.inf, 0.0)).all())


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
        act = _activation(type(self).__name__, activation)
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
        src_key_padding_mask, src_mask = masks_of_one_type(src_key_padding_mask, src_mask,
                                                           ("src_key_padding_mask", "src_mask"), x)
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



class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` (same initial weights, as PyTorch's),
    then an optional ``norm``. Parameters are ``layers.<i>.<name>`` (and ``norm.<name>``).

    ``forward(src, mask=None, src_key_padding_mask=None, is_causal=None)``.
    """

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones("TransformerEncoder", encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:  # PyTorch's warning, word for word
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=stacklevel_outside_the_engine())
        self.use_nested_tensor = bool(enable_nested_tensor) and not why_not

    def forward(self, src: Tensor, mask: Any = None, src_key_padding_mask: Any = None,
                is_causal: bool | None = None) -> Tensor:
        """The layers, then ``norm``.  Where PyTorch packs the batch into a nested tensor (see
        :func:`_nested_padding`) the padded positions come out 0 before ``norm``, as there.
        ``is_causal=None`` tells the layers whether ``mask`` is the causal mask (PyTorch's check)."""
        x = as_tensor(src)
        src_key_padding_mask, mask = masks_of_one_type(src_key_padding_mask, mask, ("src_key_padding_mask", "mask"), x)
        padding = self._nested_padding(x, mask, src_key_padding_mask)
        if padding is not None:  # the layers see the kept positions only: a float mask's nonzero keys left out
            src_key_padding_mask = Tensor.constant(padding[:, :, 0], x.device)
        is_causal = _detect_is_causal_mask(mask, is_causal, x, self.layers[0].self_attn.batch_first)
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=is_causal)
        if padding is not None:
            x = mf_where(Tensor.constant(padding, x.device), Tensor.constant(x.device.xp.zeros((), x.dtype)), x)
        return self.norm(x) if self.norm is not None else x

    def _nested_padding(self, x: Tensor, mask: Any, key_padding_mask: Any) -> Any:
        """PyTorch's inference path: with ``use_nested_tensor``, the first layer in eval mode, a
        batched input, a ``src_key_padding_mask`` whose kept positions lead each row (with
        ``mask_check``), no ``mask``, and no gradient to record, PyTorch runs the layers on the kept
        positions only and pads the result with 0.  The padded positions ``(N, L, 1)`` then, else None."""
        first = self.layers[0]
        if not (self.use_nested_tensor and not first.training and x.ndim == 3 and key_padding_mask is not None
                and mask is None):
            return None
        kpm = key_padding_mask if isinstance(key_padding_mask, Tensor) else Tensor._from_data(key_padding_mask)
        padded = kpm.detach().cpu().numpy() != 0  # a float mask pads where it is not 0 (on the host: read here)
        kept = ~padded
        if self.mask_check and bool((kept[:, 1:] & ~kept[:, :-1]).any()):  # not left-aligned: not nested
            return None
        watched = [x, first.self_attn.in_proj_weight, first.self_attn.in_proj_bias, first.self_attn.out_proj.weight,
                   first.self_attn.out_proj.bias, first.norm1.weight, first.norm1.bias, first.norm2.weight,
                   first.norm2.bias, first.linear1.weight, first.linear1.bias, first.linear2.weight, first.linear2.bias]
        if is_grad_enabled() and any(t is not None and t.requires_grad for t in watched):
            return None
        return x.device.xp.asarray(padded[:, :, None])


_DECODER_ORDER = ("self_attn", "multihead_attn", "linear1", "dropout", "linear2", "norm1", "norm2", "norm3", "dropout1",
                  "dropout2", "dropout3")


class TransformerDecoderLayer(TransformerEncoderLayer):
    """Self-attention over the target, attention over the encoder's ``memory``, then a feed-forward
    block, each with a residual connection and LayerNorm (``norm1``, ``norm2``, ``norm3``; pre-norm with
    ``norm_first``): PyTorch's ``TransformerDecoderLayer``, its arguments and parameter names.

    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)``.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                         norm_first, bias, device, dtype)
        kw = dict(device=device, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                                 **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout3 = Dropout(dropout)
        for name in _DECODER_ORDER:  # PyTorch's order of the submodules, so state dicts list them alike
            self._modules.move_to_end(name)
        if "activation" in self._modules:  # a module activation (nn.PReLU()) is PyTorch's last child, with its weight
            self._modules.move_to_end("activation")

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Any = None, memory_mask: Any = None,  # type: ignore[override]
                tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        x, mem = as_tensor(tgt), as_tensor(memory)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), mem, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, mem, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _mha_block(self, x: Tensor, mem: Tensor, mask: Any, key_padding_mask: Any, is_causal: bool) -> Tensor:
        out, _ = self.multihead_attn(x, mem, mem, attn_mask=mask, key_padding_mask=key_padding_mask,
                                     need_weights=False, is_causal=is_causal)
        return self.dropout2(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer`` (same initial weights, as PyTorch's), then an
    optional ``norm``; ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False)``."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _clones("TransformerDecoder", decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Any = None, memory_mask: Any = None,
                tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        x = as_tensor(tgt)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, x, self.layers[0].self_attn.batch_first)
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        return self.norm(x) if self.norm is not None else x


class Transformer(Module):
    """PyTorch's ``nn.Transformer``: an encoder of ``num_encoder_layers`` and a decoder of
    ``num_decoder_layers`` (each followed by a LayerNorm), every weight matrix drawn Xavier-uniform;
    ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
    memory_is_causal=False)``; ``Transformer.generate_square_subsequent_mask(n)`` is the causal mask."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = "relu", custom_encoder: Module | None = None,
                 custom_decoder: Module | None = None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                      bias)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(*layer_args, **kw), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(*layer_args, **kw), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Any = None, tgt_mask: Any = None, memory_mask: Any = None,
                src_key_padding_mask: Any = None, tgt_key_padding_mask: Any = None,
                memory_key_padding_mask: Any = None, src_is_causal: bool | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        src, tgt = as_tensor(src), as_tensor(tgt)
        batch = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[batch] != tgt.shape[batch]:  # (PyTorch's RuntimeError)
            raise InputMismatch("Transformer: the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise InputMismatch("Transformer: the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """The causal mask of ``sz`` positions: ``-inf`` above the diagonal, 0 on and below it (float)."""
        return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), 1)
