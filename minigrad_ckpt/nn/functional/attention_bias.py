"""PyTorch's causal biases for ``scaled_dot_product_attention`` (``torch.nn.attention.bias``, which
``mg.nn.attention.bias`` offers): ``causal_upper_left(L, S)`` -- query ``i`` attends to keys
``0..i``, what ``is_causal=True`` means -- and ``causal_lower_right(L, S)`` -- the last query attends
to every key, the diagonal shifted by ``S - L`` (a query that sees no key gets zeros, as PyTorch's).
A bias is passed as ``attn_mask``; here it is the boolean mask it stands for (PyTorch's is a Tensor
subclass that picks a kernel; the values are the same)."""

from __future__ import annotations

import enum
from typing import Any

from ...backend import get_device
from ...creation import ones
from ...tensor import Tensor

__all__ = ["CausalVariant", "CausalBias", "causal_upper_left", "causal_lower_right"]


class CausalVariant(enum.IntEnum):
    """Which corner the causal diagonal starts in."""

    UPPER_LEFT = 1
    LOWER_RIGHT = 2


class CausalBias:
    """A causal mask of ``seq_len_q`` queries and ``seq_len_kv`` keys, made when attention needs it."""

    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {variant!r}")
        self.variant, self.seq_len_q, self.seq_len_kv = variant, int(seq_len_q), int(seq_len_kv)

    def _materialize(self, device: Any = None) -> Tensor:
        """The boolean mask (True: attend) on ``device`` (default: the CPU), as PyTorch's."""
        shift = 0 if self.variant is CausalVariant.UPPER_LEFT else self.seq_len_kv - self.seq_len_q
        full = ones(self.seq_len_q, self.seq_len_kv, dtype="bool", device=get_device(device))
        return full.tril(shift)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.seq_len_q, self.seq_len_kv)

    def __repr__(self) -> str:
        return repr(self._materialize())


def _causal(variant: CausalVariant, name: str, size: tuple) -> CausalBias:
    if len(size) != 2:
        raise AssertionError(f"{name} only supports 2D tensors")
    return CausalBias(variant, size[0], size[1])


def causal_upper_left(*size: int) -> CausalBias:
    """``causal_upper_left(seq_len_q, seq_len_kv)``: query ``i`` attends to keys ``0..i``."""
    return _causal(CausalVariant.UPPER_LEFT, "causal_upper_left", size)


def causal_lower_right(*size: int) -> CausalBias:
    """``causal_lower_right(seq_len_q, seq_len_kv)``: query ``i`` attends to keys ``0..i + seq_len_kv - seq_len_q``."""
    return _causal(CausalVariant.LOWER_RIGHT, "causal_lower_right", size)
