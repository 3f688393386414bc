"""PyTorch's ``*_copy`` functions (``torch.t_copy``, ``torch.view_copy``, ...): the view, copied
into row-major memory of its own, with the view's gradient.  Strides and messages are torch
2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

A = np.arange(60.0).reshape(3, 4, 5) / 7.0

#: (name, arguments, the view it copies, torch 2.13's strides of the result (one per piece))
CASES = [
    ("alias_copy", (), lambda x: x, [(20, 5, 1)]),
    ("diagonal_copy", (1, 0, 2), lambda x: x.diagonal(1, 0, 2), [(3, 1)]),
    ("narrow_copy", (1, 1, 2), lambda x: x.narrow(1, 1, 2), [(10, 5, 1)]),
    ("permute_copy", ((2, 0, 1),), lambda x: x.permute(2, 0, 1), [(12, 4, 1)]),
    ("select_copy", (1, -1), lambda x: x.select(1, -1), [(5, 1)]),
    ("slice_copy", (2, 1, None, 2), lambda x: x[:, :, 1::2], [(8, 2, 1)]),
    ("split_copy", (3, 1), lambda x: x.split(3, 1), [(15, 5, 1), (5, 5, 1)]),
    ("split_with_sizes_copy", ([1, 4], 2), lambda x: x.split_with_sizes([1, 4], 2), [(4, 1, 1), (16, 4, 1)]),
    ("transpose_copy", (0, 2), lambda x: x.transpose(0, 2), [(12, 3, 1)]),
    ("unbind_copy", (1,), lambda x: x.unbind(1), [(5, 1)] * 4),
    ("unfold_copy", (2, 2, 1), lambda x: x.unfold(2, 2, 1), [(32, 8, 2, 1)]),
    ("unsqueeze_copy", (-1,), lambda x: x.unsqueeze(-1), [(20, 5, 1, 1)]),
    ("view_copy", ((5, 12),), lambda x: x.reshape(5, 12), [(12, 1)]),
]


@pytest.mark.parametrize("name, args, view, strides", CASES, ids=[c[0] + str(i) for i, c in enumerate(CASES)])
def test_a_copy_is_the_view_in_memory_of_its_own_with_the_views_gradient(name, args, view, strides):
    x = mg.tensor(A, requires_grad=True)
    got = getattr(mg, name)(x, *args)
    want = view(mg.tensor(A))
    got, want = ([got], [want]) if isinstance(got, mg.Tensor) else (got, want)
    assert [g.stride() for g in got] == strides                                            # torch 2.13's
    assert all(np.array_equal(g.detach().numpy(), w.numpy()) for g, w in zip(got, want))
    sum((g * (i + 2.0)).sum() for i, g in enumerate(got)).backward()
    v = mg.tensor(A, requires_grad=True)
    sum((w * (i + 2.0)).sum() for i, w in enumerate(view(v) if len(got) > 1 else [view(v)])).backward()
    assert np.array_equal(x.grad.numpy(), v.grad.numpy())


def test_copies_are_contiguous_and_share_nothing():
    c = mg.tensor(np.arange(12.0).reshape(4, 3))
    assert mg.t_copy(c).stride() == (4, 1) and mg.expand_copy(mg.zeros(3, 1), (2, 3, 4)).stride() == (12, 4, 1)
    copy = mg.alias_copy(c)
    copy[0, 0] = 5.0
    assert c[0, 0].item() == 0.0
    assert mg.detach_copy(mg.ones(2, requires_grad=True)).requires_grad is False


def test_view_copy_reshapes_any_input_and_reads_a_dtype_as_view_does():
    c = mg.tensor(np.arange(12.0).reshape(4, 3))
    assert mg.view_copy(c.t(), (12,)).tolist() == [0.0, 3.0, 6.0, 9.0, 1.0, 4.0, 7.0, 10.0, 2.0, 5.0, 8.0, 11.0]
    assert mg.view_copy(mg.arange(4.0), mg.int32).tolist() == [0, 1065353216, 1073741824, 1077936128]   # torch's
    assert mg.squeeze_copy(mg.zeros(1, 3, 1)).shape == (3,) and mg.squeeze_copy(mg.zeros(1, 3, 1), 0).shape == (3, 1)


def test_complex_views_copied():
    z = mg.tensor([[1.0, 2.0], [3.0, -4.0]])
    assert mg.view_as_complex_copy(z).tolist() == [1 + 2j, 3 - 4j]
    assert mg.view_as_real_copy(mg.tensor([1 + 2j])).tolist() == [[1.0, 2.0]]


def test_the_copies_refuse_what_pytorch_refuses():
    with pytest.raises(RuntimeError, match="slice step must be positive"):                  # torch's words
        mg.slice_copy(mg.zeros(3), 0, 0, None, 0)
    with pytest.raises(RuntimeError, match=r"shape '\[5\]' is invalid for input of size 12"):
        mg.view_copy(mg.zeros(3, 4), (5,))
    with pytest.raises(IndexError):
        mg.select_copy(mg.zeros(3), 0, 5)
    with pytest.raises(IndexError):
        mg.diagonal_copy(mg.zeros(3))
