"""``expand``/``broadcast_to`` give PyTorch's strides (its ``inferExpandGeometry``): 0 where a dim
repeats, the tensor's own stride where a dim keeps its size, and for a new leading dim of size 1
the size times the stride of the dim after it -- what ``unsqueeze(0)`` gives.  The engine gave such
a dim NumPy's stride 0 (``x[None]``, ``np.broadcast_to``), and PyTorch's ``test_torch.py``
(``test_expand``) asserts ``x.expand(1, 1, 5).stride() == x.unsqueeze(0).unsqueeze(1).stride()``.
The strides below were read off torch 2.13 (in elements)."""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg

CASES = [
    # (the tensor, the target shape, torch's strides)
    ("arange5", (1, 1, 5), (5, 5, 1)),
    ("arange5", (2, 1, 5), (0, 5, 1)),
    ("arange5", (1, 5), (5, 1)),
    ("columns", (1, 3, 2), (12, 4, 2)),
    ("columns", (1, 1, 3, 2), (12, 12, 4, 2)),
    ("columns", (2, 1, 3, 2), (0, 12, 4, 2)),
    ("columns", (3, 2), (4, 2)),
    ("column", (1, 3, 1), (3, 1, 1)),
    ("column", (1, 3, 4), (3, 1, 0)),
    ("scalar", (1,), (0,)),
    ("scalar", (1, 1), (0, 0)),
    ("scalar", (2, 1), (0, 0)),
]


def make(name):
    return {"arange5": lambda: mg.arange(5.0), "columns": lambda: mg.ones(3, 4)[:, ::2],
            "column": lambda: mg.ones(3, 1), "scalar": lambda: mg.tensor(3.0)}[name]()


@pytest.mark.parametrize("name, shape, strides", CASES)
def test_expand_and_broadcast_to_have_pytorchs_strides(name, shape, strides):
    assert make(name).expand(*shape).stride() == strides
    assert mg.broadcast_to(make(name), shape).stride() == strides


def test_expand_of_new_dims_of_one_matches_unsqueeze_and_writes_through():
    x = mg.arange(5.0)
    expanded = x.expand(1, 1, 5)
    assert expanded.stride() == x.unsqueeze(0).unsqueeze(1).stride()
    assert expanded.is_contiguous()
    expanded[0, 0, 2] = 9.0
    assert x.tolist() == [0.0, 1.0, 9.0, 3.0, 4.0]


def test_a_repeating_expand_still_refuses_an_in_place_write():
    with pytest.raises(RuntimeError, match="single memory location"):
        mg.arange(5.0).expand(2, 1, 5).add_(1)
