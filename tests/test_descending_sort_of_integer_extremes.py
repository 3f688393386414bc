"""A descending sort (and ``topk``) of integers puts the dtype's minimum last, as PyTorch's.

The descending order came from an ascending sort of the negated keys, and negation overflows at
a signed dtype's minimum (``-(-128)`` is ``-128`` in int8), so the minimum sorted *first*:
``mg.tensor([3, -128, 126], dtype=mg.int8).sort(descending=True)`` gave ``[-128, 126, 3]``
(torch 2.13: ``[126, 3, -128]``), and ``topk`` picked the minimum as the largest.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

SIGNED = [mg.int8, mg.int16, mg.int32, mg.int64]


def _row(dtype):
    info = np.iinfo(dtype)
    return [3, int(info.min), int(info.max), 0, int(info.min), -1, int(info.max), 1]


def _descending(values):
    """The stable descending order, in Python's unbounded integers."""
    indices = sorted(range(len(values)), key=lambda i: -values[i])
    return [values[i] for i in indices], indices


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", SIGNED + [mg.uint8])
def test_descending_sort_orders_the_minimum_last(device, dtype):
    row = _row(dtype) if dtype != mg.uint8 else [3, 0, 255, 0, 254, 255, 1]
    x = mg.tensor([row, row[::-1]], dtype=dtype, device=device)
    want = [_descending(row), _descending(row[::-1])]
    for values, indices in (x.sort(descending=True, stable=True), mg.sort(x, dim=1, descending=True),
                            x.sort(1, True)):
        assert values.dtype == dtype and indices.dtype == mg.int64
        assert values.numpy().tolist() == [w[0] for w in want]
        assert indices.numpy().tolist() == [w[1] for w in want]
    assert x.argsort(descending=True).numpy().tolist() == [w[1] for w in want]
    assert x.t().sort(0, descending=True).values.t().numpy().tolist() == [w[0] for w in want]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", SIGNED)
def test_topk_never_takes_the_minimum_for_a_largest_value(device, dtype):
    row = _row(dtype)
    x = mg.tensor(row, dtype=dtype, device=device)
    values, indices = x.topk(3)
    assert values.numpy().tolist() == [int(np.iinfo(dtype).max)] * 2 + [3]
    assert sorted(indices.numpy().tolist()[:2]) == [2, 6] and indices.numpy().tolist()[2] == 0
    smallest = x.topk(2, largest=False)
    assert smallest.values.numpy().tolist() == [int(np.iinfo(dtype).min)] * 2


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_descending_sort_of_bools_puts_true_first_keeping_ties_in_order(device):
    x = mg.tensor([False, True, False, True], device=device)
    values, indices = x.sort(descending=True, stable=True)
    assert values.numpy().tolist() == [True, True, False, False]
    assert indices.numpy().tolist() == [1, 3, 0, 2]
