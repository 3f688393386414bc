"""``mg.onnx.operators``: a shape as an int64 tensor and back, PyTorch's ``torch.onnx.operators``.

fairseq's ``SinusoidalPositionalEmbedding.forward`` (fairseq/modules/sinusoidal_positional_embedding.py)
does ``import torch.onnx.operators`` and, on every call, ``bsz, seq_len = shape_as_tensor(input)``,
then uses the two 0-d tensors as sizes and indices. Ported, the import line failed
(``No module named 'minigrad_ckpt.onnx.operators'``). Found porting fairseq's modules.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.onnx.operators  # the line ``import torch.onnx.operators`` becomes


def test_shape_as_tensor_is_the_shape_as_int64():
    s = mg.onnx.operators.shape_as_tensor(mg.zeros(2, 3, 5))
    assert s.dtype == mg.int64 and s.tolist() == [2, 3, 5]  # torch: tensor([2, 3, 5]), torch.int64
    assert s[0].shape == ()


def test_reshape_from_tensor_shape_takes_a_tensor_or_a_sequence():
    x = mg.arange(6.0)
    assert mg.onnx.operators.reshape_from_tensor_shape(x, mg.tensor([3, 2])).shape == (3, 2)
    assert mg.onnx.operators.reshape_from_tensor_shape(x, mg.tensor([-1, 3])).shape == (2, 3)
    assert mg.onnx.operators.reshape_from_tensor_shape(x, [1, 6]).tolist() == [[0, 1, 2, 3, 4, 5]]


def _sinusoids(n: int, dim: int, padding_idx: int) -> mg.Tensor:
    half = dim // 2
    freq = mg.exp(mg.arange(half, dtype=mg.float32) * -(math.log(10000) / (half - 1)))
    emb = mg.arange(n, dtype=mg.float32).unsqueeze(1) * freq.unsqueeze(0)
    emb = mg.cat([mg.sin(emb), mg.cos(emb)], dim=1).view(n, -1)
    emb[padding_idx, :] = 0
    return emb


def test_fairseqs_sinusoidal_forward_with_tensor_sizes():
    """The lines of fairseq's forward: 0-d tensors as view sizes, an index and an expand size."""
    toks = mg.tensor([[5, 6, 7, 1, 1], [1, 1, 8, 9, 4]])
    padding_idx = 1
    weights = _sinusoids(10, 8, padding_idx)
    bsz, seq_len = mg.onnx.operators.shape_as_tensor(toks)
    mask = toks.ne(padding_idx).int()
    positions = (mg.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx
    out = weights.index_select(0, positions.view(-1)).view(bsz, seq_len, -1)
    assert out.shape == (2, 5, 8)
    np.testing.assert_array_equal(out[0, 3].numpy(), 0.0)  # a pad position reads the zero row
    step = weights[padding_idx + seq_len, :].expand(bsz, 1, -1)  # the incremental branch
    assert step.shape == (2, 1, 8)
    np.testing.assert_allclose(step[1, 0].numpy(), weights[6].numpy())


def test_a_shape_of_another_size_is_refused_in_pytorchs_words():
    # torch: RuntimeError: shape '[4, 2]' is invalid for input of size 6
    with pytest.raises(RuntimeError, match=r"shape '\[4, 2\]' is invalid for input of size 6"):
        mg.onnx.operators.reshape_from_tensor_shape(mg.arange(6.0), mg.tensor([4, 2]))


@pytest.mark.parametrize("dtype, name", [(mg.float32, "Float"), (mg.int32, "Int"), (mg.bool, "Bool")])
def test_a_shape_tensor_not_int64_is_pytorchs_error(dtype, name):
    # torch 2.13: "expected scalar type Long but found Float"; the engine read tensor([3.5, 2.0]) as (3, 2)
    x = mg.arange(6.0)
    with pytest.raises(RuntimeError, match=f"expected scalar type Long but found {name}"):
        mg.onnx.operators.reshape_from_tensor_shape(x, mg.tensor([3.5, 2.0]).to(dtype))


def test_a_shape_tensor_not_1d_is_pytorchs_error():
    with pytest.raises(RuntimeError, match=r"Expected shape_tensor.dim\(\) == 1"):
        mg.onnx.operators.reshape_from_tensor_shape(mg.arange(6.0), mg.tensor([[3, 2]]))
