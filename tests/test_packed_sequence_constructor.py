"""``PackedSequence(...)`` built by hand normalizes its arguments as PyTorch's constructor does.

Before, ``PackedSequence`` was a bare named tuple: ``PackedSequence(f(p.data), p.batch_sizes,
p.sorted_indices)`` -- the idiom for running a function over a packed batch's data -- kept
``unsorted_indices=None``, so ``pad_packed_sequence`` (and an RNN's ``h_n``) silently gave the
batch back in *sorted* order instead of the caller's; ``PackedSequence((data, batch_sizes))``
stored the pair as ``data``.  Found by running PyTorch's test_packed_sequence.py beside the engine.
Expected values are PyTorch 2.13's (the torch expression beside each).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)
from minigrad_ckpt import nn
from minigrad_ckpt.nn.utils.rnn import PackedSequence, pack_sequence, pad_packed_sequence


def _unsorted_batch() -> PackedSequence:
    # lengths 2, 3: the longer second sequence is packed first, sorted_indices [1, 0]
    return pack_sequence([mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0, 5.0])], enforce_sorted=False)


def test_sorted_indices_alone_give_the_inverse_permutation():
    p = _unsorted_batch()
    q = PackedSequence(p.data * 10, p.batch_sizes, p.sorted_indices)
    np.testing.assert_array_equal(q.unsorted_indices.numpy(), [1, 0])
    assert q.unsorted_indices.dtype == mg.int64
    # torch: pad_packed_sequence(PackedSequence(p.data * 10, p.batch_sizes, p.sorted_indices), batch_first=True)
    padded, lengths = pad_packed_sequence(q, batch_first=True)
    np.testing.assert_array_equal(padded.numpy(), [[10.0, 20.0, 0.0], [30.0, 40.0, 50.0]])
    np.testing.assert_array_equal(lengths.numpy(), [2, 3])


def test_given_unsorted_indices_are_kept_and_none_stays_none():
    p = _unsorted_batch()
    kept = p.unsorted_indices
    assert PackedSequence(p.data, p.batch_sizes, p.sorted_indices, kept).unsorted_indices is kept
    bare = PackedSequence(p.data, p.batch_sizes)
    assert bare.sorted_indices is None and bare.unsorted_indices is None


def test_the_pair_form_and_its_refusal():
    p = _unsorted_batch()
    q = PackedSequence((p.data, p.batch_sizes), sorted_indices=p.sorted_indices)
    assert q.data is p.data and q.batch_sizes is p.batch_sizes
    np.testing.assert_array_equal(q.unsorted_indices.numpy(), [1, 0])
    with pytest.raises(AssertionError, match="list or tuple of length 2"):
        PackedSequence(p.data)


def test_batch_sizes_off_the_host_are_refused():
    p = _unsorted_batch()
    with pytest.raises(ValueError, match="batch_sizes should always be on CPU"):
        PackedSequence(p.data, p.batch_sizes.to("strict"))


def test_copies_and_replace_keep_every_field():
    p = _unsorted_batch()
    for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), p._replace(data=p.data * 2), p.double()):
        assert type(q) is PackedSequence
        np.testing.assert_array_equal(q.unsorted_indices.numpy(), [1, 0])
        np.testing.assert_array_equal(q.batch_sizes.numpy(), [2, 2, 1])


def test_an_lstm_given_a_rebuilt_batch_answers_in_the_callers_order():
    mg.manual_seed(0)
    lstm = nn.LSTM(1, 2)
    x = [mg.tensor([[1.0], [2.0]]), mg.tensor([[3.0], [4.0], [5.0]])]
    p = pack_sequence(x, enforce_sorted=False)
    out_ref, (h_ref, c_ref) = lstm(p)
    out, (h, c) = lstm(PackedSequence(p.data.clone(), p.batch_sizes, p.sorted_indices))
    np.testing.assert_array_equal(h.detach().numpy(), h_ref.detach().numpy())
    np.testing.assert_array_equal(c.detach().numpy(), c_ref.detach().numpy())
    np.testing.assert_array_equal(pad_packed_sequence(out)[0].detach().numpy(),
                                  pad_packed_sequence(out_ref)[0].detach().numpy())
