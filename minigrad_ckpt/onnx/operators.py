"""``mg.onnx.operators``: PyTorch's ``torch.onnx.operators``, a shape as a tensor and back.

Model code written to export to ONNX reads its input's shape as an int64 tensor, so that an
export traces the shape as data rather than baking in the numbers: fairseq's
``SinusoidalPositionalEmbedding.forward`` does ``bsz, seq_len = shape_as_tensor(input)`` on every
call, exporting or not, and goes on with the two 0-d tensors as sizes (``view(bsz, seq_len, -1)``,
``weights[padding_idx + seq_len]``). Eagerly the two functions are the shape and a reshape.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy, scalar_type_name
from ..creation import tensor
from ..functional.errors import InputMismatch
from ..tensor import Tensor

__all__ = ["reshape_from_tensor_shape", "shape_as_tensor"]


def shape_as_tensor(x: Tensor) -> Tensor:
    """``x``'s shape as a 1-D int64 tensor (``tensor([2, 3])`` for a 2x3 ``x``), as PyTorch's."""
    return tensor(list(x.shape), dtype="int64", device=x.device)


def reshape_from_tensor_shape(x: Tensor, shape: Any) -> Tensor:
    """``x`` reshaped to ``shape`` given as a 1-D integer tensor (or a sequence), as PyTorch's
    ``torch.onnx.operators.reshape_from_tensor_shape``; ``-1`` infers one size as ``reshape`` does.
    A shape tensor that is not 1-D int64 is PyTorch's ``RuntimeError`` (a float one was read as sizes)."""
    if isinstance(shape, Tensor):
        if shape.dtype != host_numpy.int64:
            raise InputMismatch(f"expected scalar type Long but found {scalar_type_name(shape.dtype)}")
        if shape.ndim != 1:
            raise InputMismatch("Expected shape_tensor.dim() == 1 to be true, but got false.")
    sizes = shape.tolist() if isinstance(shape, Tensor) else list(shape)
    return x.reshape(sizes)
