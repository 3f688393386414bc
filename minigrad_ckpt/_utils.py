"""PyTorch's private ``torch._utils`` helpers that training code imports by that path.

``from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors`` is how mixed-precision
trainers (guided-diffusion's and improved-diffusion's ``fp16_util``, apex, DeepSpeed, Megatron) keep one
flat float32 master copy of many parameters: the flat vector is one tensor for the optimizer, and the
unflattened pieces are views of it shaped as the model's parameters.  After the rename the import reads
``from minigrad_ckpt._utils import ...`` and answers what PyTorch's does.
"""

from __future__ import annotations

from collections.abc import Sequence

from .functional import concatenate
from .tensor import Tensor

__all__ = ["_flatten_dense_tensors", "_unflatten_dense_tensors"]


def _flatten_dense_tensors(tensors: Sequence[Tensor]) -> Tensor:
    """The tensors' values, each in row-major order, one after another in a single 1-D tensor.

    Differentiable (gradients flow back to each piece), and promoted to the widest dtype among them as
    ``cat`` does.  A single tensor comes back as ``t.contiguous().view(-1)`` -- sharing its memory, as in
    PyTorch, so a write to the flat copy of one contiguous tensor writes the tensor.  An empty list is
    refused, as PyTorch's ``cat`` refuses it.
    """
    pieces = [t.contiguous().view(-1) for t in tensors]
    if len(pieces) == 1:
        return pieces[0]
    return concatenate(pieces)


def _unflatten_dense_tensors(flat: Tensor, tensors: Sequence[Tensor]) -> tuple[Tensor, ...]:
    """Views of ``flat`` shaped as ``tensors``, in order: the inverse of :func:`_flatten_dense_tensors`.

    Only the tensors' shapes are read.  Each piece is ``flat.narrow(0, offset, n).view(shape)``, so it
    shares ``flat``'s memory (writing a piece writes ``flat``) and is differentiable; a ``flat`` shorter
    than the tensors need is refused by ``narrow``, and values past their total are left unread, as in
    PyTorch.
    """
    pieces = []
    offset = 0
    for t in tensors:
        count = t.numel()
        pieces.append(flat.narrow(0, offset, count).view(t.shape))
        offset += count
    return tuple(pieces)
