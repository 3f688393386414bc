"""``nn.utils.rnn``: variable-length sequences padded into one batch and back.

``pad_sequence([a, b, c])`` is what a ``collate_fn`` for text calls: each sequence is
padded at the end of its first dimension to the longest one's length and the results are
stacked.  Both directions are made of differentiable ops (``F.pad``, ``stack``,
slicing), so gradients reach each sequence; PyTorch's packed sequences are not offered.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...functional.shape import stack
from ...tensor import Tensor
from ..functional import pad

__all__ = ["pad_sequence", "unpad_sequence"]


def pad_sequence(sequences: Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of shapes ``(L_i, *)`` into ``(max L, B, *)`` (``(B, max L, *)`` with
    ``batch_first=True``), filling with ``padding_value`` after (or, ``padding_side='left'``,
    before) each sequence, as PyTorch's ``pad_sequence``."""
    if padding_side not in ("right", "left"):
        raise ValueError(f"pad_sequence: padding_side must be 'right' or 'left', got {padding_side!r}")
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        trailing = [0, 0] * (s.dim() - 1)  # F.pad lists the last dimension first
        extra = longest - s.shape[0]
        padded.append(pad(s, trailing + ([0, extra] if padding_side == "right" else [extra, 0]),
                          value=padding_value))
    return stack(padded, axis=0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor | Sequence[int],
                   batch_first: bool = False) -> list[Tensor]:
    """The inverse of right-side ``pad_sequence``: sequence ``i`` is the first ``lengths[i]`` steps."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :int(n)] for i, n in enumerate(lengths)]
