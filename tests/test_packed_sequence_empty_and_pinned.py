"""PyTorch's test/nn/test_packed_sequence.py run against the engine found these.

``pack_padded_sequence`` of a padded batch with no elements is PyTorch's RuntimeError "Cannot pack
empty tensors." -- its first check, before the lengths are read. The engine read ``lengths[0]`` of an
empty batch (a NumPy IndexError) or complained about the lengths instead. Found running PyTorch's
test/nn/test_packed_sequence.py (``test_pack_padded_sequence``) against the engine."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

rnn = mg.nn.utils.rnn


@pytest.mark.parametrize("shape, lengths, batch_first", [
    ((0, 0), [], False),                   # no steps, no sequences
    ((0, 1, 10), [[11, 14], [14, 2]], True),  # lengths PyTorch never reads
    ((3, 0), [3, 3, 3], True),             # three sequences of no features
    ((0, 3), [0, 0, 0], False),            # three sequences of no steps
])
def test_an_empty_batch_is_refused_first(shape: tuple, lengths: list, batch_first: bool) -> None:
    with pytest.raises(RuntimeError, match="Cannot pack empty tensors"):
        rnn.pack_padded_sequence(mg.zeros(*shape), lengths, batch_first)


def test_a_batch_with_elements_still_checks_its_lengths() -> None:
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        rnn.pack_padded_sequence(mg.zeros(3, 2), [3, 0])
    packed = rnn.pack_padded_sequence(mg.arange(6.0).view(3, 2), [3, 1])
    assert packed.data.tolist() == [0.0, 1.0, 2.0, 4.0] and packed.batch_sizes.tolist() == [2, 1, 1]


def test_a_packed_sequence_answers_pinning_as_its_data() -> None:
    # PackedSequence had every method of PyTorch's but is_pinned and pin_memory (found by the same run)
    packed = rnn.pack_sequence([mg.ones(2), mg.ones(1)])
    assert packed.is_pinned() is packed.data.is_pinned() is False
    try:
        pinned_data = packed.data.pin_memory()
    except RuntimeError as e:  # no accelerator: PyTorch's error, from the packed sequence too
        with pytest.raises(RuntimeError, match=str(e)):
            packed.pin_memory()
        return
    pinned = packed.pin_memory()
    assert pinned.is_pinned() is pinned_data.is_pinned() and pinned.batch_sizes is packed.batch_sizes
