"""``pack_padded_sequence`` takes ``lengths`` of rank 1 only, and ``pad_sequence`` sequences of rank
1 or more, as PyTorch.  Before, ``lengths=[[3, 2, 1]]`` (a tensor or a list) was flattened and the
batch packed, and a 0-d sequence made an ``IndexError`` from inside ``pad_sequence``.

Expected (torch 2.13): ``pack_padded_sequence(x, torch.tensor([[3, 2, 1]]))`` is a RuntimeError
("'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor"); with
``enforce_sorted=False`` an IndexError from ``index_select`` (a refusal either way);
``pack_padded_sequence(x1, torch.tensor(1))`` of a batch of one is the same RuntimeError ("0D");
``pad_sequence([torch.tensor(1.), torch.tensor(2.)])`` is a RuntimeError.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("lengths", [[[3, 2, 1]], "tensor2d", "tensor0d"])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_lengths_of_another_rank_are_refused(device, dtype, lengths, enforce_sorted):
    x = mg.tensor(np.arange(24.0).reshape(4, 3, 2), dtype=dtype, device=device)
    if lengths == "tensor2d":
        lengths = mg.tensor([[3, 2, 1]])
    elif lengths == "tensor0d":
        x, lengths = x[:, :1], mg.tensor(3)  # a batch of one: the count of lengths agrees
    with pytest.raises(RuntimeError, match="'lengths' argument should be a 1D"):
        pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_one_dimensional_lengths_still_pack_and_unpack_with_gradients(device, dtype):
    x = mg.tensor(np.arange(24.0).reshape(4, 3, 2), dtype=dtype, device=device, requires_grad=True)
    packed = pack_padded_sequence(x, mg.tensor([2, 4, 1]), enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1]
    padded, lengths = pad_packed_sequence(packed)
    assert lengths.tolist() == [2, 4, 1]
    (padded * 2).sum().backward()
    mask = (np.arange(4)[:, None] < np.array([2, 4, 1])[None, :])[..., None].repeat(2, axis=2)
    np.testing.assert_array_equal(x.grad.cpu().numpy(), 2.0 * mask)


def test_lengths_rank_is_checked_inside_a_checkpoint():
    x = mg.tensor(np.ones((4, 3, 2)), requires_grad=True)
    with pytest.raises(RuntimeError, match="'lengths' argument should be a 1D"):
        mg.checkpoint.checkpoint(lambda t: pack_padded_sequence(t, [[3, 2, 1]]).data, x, use_reentrant=False)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_pad_sequence_refuses_zero_dimensional_sequences(device, dtype):
    with pytest.raises(RuntimeError, match="0-d"):
        pad_sequence([mg.tensor(1.0, dtype=dtype, device=device), mg.tensor(2.0, dtype=dtype, device=device)])
    one, two = mg.tensor([1.0], dtype=dtype, device=device), mg.tensor([2.0, 3.0], dtype=dtype, device=device)
    out = pad_sequence([one, two])
    assert out.tolist() == [[1.0, 2.0], [0.0, 3.0]]
