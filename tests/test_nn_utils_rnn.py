"""``nn.utils.rnn.pad_sequence`` / ``unpad_sequence``: what a text ``collate_fn`` calls.
``from torch.nn.utils.rnn import pad_sequence`` ported by the rename was a ModuleNotFoundError
(``nn.utils`` was a module, not a package).  Expected values are PyTorch 2.13's:
``pad_sequence([torch.tensor([[1., 2], [3, 4], [5, 6]]), torch.tensor([[7., 8]])], ...)``."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn.utils.rnn import pad_sequence, unpad_sequence

A = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
B = [[7.0, 8.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pad_sequence_matches_pytorch_and_passes_gradients(dtype):
    a = mg.tensor(A, dtype=dtype, requires_grad=True)
    b = mg.tensor(B, dtype=dtype, requires_grad=True)
    out = pad_sequence([a, b], padding_value=-1)  # torch: shape (3, 2, 2), time first
    expected = [[[1, 2], [7, 8]], [[3, 4], [-1, -1]], [[5, 6], [-1, -1]]]
    assert out.dtype == a.dtype
    np.testing.assert_array_equal(out.numpy(), np.array(expected, dtype=dtype))
    (out * mg.arange(12.0, dtype=dtype).reshape(3, 2, 2)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0, 1], [4, 5], [8, 9]])
    np.testing.assert_array_equal(b.grad.numpy(), [[2, 3]])


def test_pad_sequence_batch_first_left_side_and_tokens():
    left = pad_sequence([mg.tensor(A), mg.tensor(B)], batch_first=True, padding_side="left")
    np.testing.assert_array_equal(left.numpy(), [[[1, 2], [3, 4], [5, 6]], [[0, 0], [0, 0], [7, 8]]])
    tokens = pad_sequence([mg.tensor([4, 5, 6]), mg.tensor([7])], batch_first=True)
    assert tokens.dtype == mg.int64
    np.testing.assert_array_equal(tokens.numpy(), [[4, 5, 6], [7, 0, 0]])


def test_unpad_sequence_undoes_pad_sequence():
    padded = pad_sequence([mg.tensor(A), mg.tensor(B)])
    a, b = unpad_sequence(padded, mg.tensor([3, 1]))
    np.testing.assert_array_equal(a.numpy(), A)
    np.testing.assert_array_equal(b.numpy(), B)
    with pytest.raises(ValueError, match="padding_side"):
        pad_sequence([mg.tensor(A)], padding_side="middle")
