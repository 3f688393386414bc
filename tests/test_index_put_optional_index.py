"""``index_put``'s indices are ATen's optional tensors: a ``None`` entry stands for the whole of its
dim, as ``aten.index_put(x, [None, i], v)`` writes ``x[:, i]`` (PyTorch's
``test_index_put_accumulate_with_optional_tensors``).  The engine read ``None`` as ``x[None]``'s new
dim, and so wrote other positions silently (a row instead of a column) or refused a value that
fits.  Values as torch 2.13's ``torch.ops.aten.index_put`` gave them."""

from __future__ import annotations

import minigrad_ckpt as mg


def test_a_none_index_is_the_whole_dim():
    assert mg.zeros(2, 3).index_put((None, mg.tensor([1])), mg.tensor(1.0)).tolist() == [[0, 1, 0], [0, 1, 0]]


def test_accumulate_with_an_optional_index_in_place():
    t = mg.arange(8.0).reshape(4, 2)
    t.index_put_([None, mg.tensor([1, 1, 0])], mg.tensor([1.0, 1.0, 1.0]), accumulate=True)
    assert t.tolist() == [[1, 3], [3, 5], [5, 7], [7, 9]]


def test_gradients_through_an_optional_index():
    x = mg.zeros(2, 3, requires_grad=True)
    v = mg.tensor([[1.0], [2.0]], requires_grad=True)
    y = x.index_put((None, mg.tensor([2])), v)
    assert y.tolist() == [[0, 0, 1], [0, 0, 2]]
    (y * mg.arange(6.0).view(2, 3)).sum().backward()
    assert x.grad.tolist() == [[0, 1, 0], [3, 4, 0]]
    assert v.grad.tolist() == [[2], [5]]
