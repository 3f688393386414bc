"""``pad_sequence`` takes any iterable of tensors and builds the batch like the first, as PyTorch's.

Before: a generator of sequences (``pad_sequence(t for t in batch)``, which torch 2.13 takes: it calls
``tuple(sequences)``) raised ``ValueError: max() arg is an empty sequence`` -- the check for 0-d
sequences had used the generator up; a non-iterable raised ``TypeError: 'int' object is not
iterable`` where PyTorch raises "pad_sequence: Expected iterable for input sequences"; and sequences
of several dtypes were promoted (float32 and float64 gave float64) where PyTorch copies each into a
batch of the first's dtype (float32), each gradient coming back in its sequence's dtype.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.nn.utils.rnn import pad_sequence


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_a_generator_of_sequences_is_padded(padding_side, device):
    rows = [mg.ones(2, 3, device=device), mg.full((1, 3), 2.0, device=device)]
    out = pad_sequence((r for r in rows), batch_first=True, padding_side=padding_side)
    expected = np.zeros((2, 2, 3), np.float32)
    expected[0] = 1
    expected[1, 0 if padding_side == "right" else 1] = 2
    np.testing.assert_array_equal(out.numpy(), expected)


def test_a_non_iterable_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="Expected iterable"):
        pad_sequence(3)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize(("first", "second"), [("float32", "float64"), ("float64", "float32"), ("int64", "float32")])
def test_the_batch_takes_the_first_sequence_s_dtype(first, second, device):
    a = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=first, device=device, requires_grad=first != "int64")
    b = mg.tensor([[0.5, 6.5]], dtype=second, device=device, requires_grad=True)
    out = pad_sequence([a, b], padding_value=-1.0)
    assert out.dtype == a.dtype
    np.testing.assert_array_equal(out.numpy(), np.array([[[1, 2], [0.5, 6.5]], [[3, 4], [-1, -1]]]).astype(first))
    if first == "int64":
        return
    (out * 3).sum().backward()
    assert a.grad.dtype == a.dtype and b.grad.dtype == b.dtype
    np.testing.assert_array_equal(b.grad.numpy(), np.full((1, 2), 3.0))
