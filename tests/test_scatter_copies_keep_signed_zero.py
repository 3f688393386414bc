"""The gather/scatter family's overwrites copy their source's bits, as PyTorch's: a ``-0.0`` written
by ``scatter``, ``index_copy``, ``index_put``, ``masked_scatter``, ``put``, ``select_scatter``,
``slice_scatter`` or ``diagonal_scatter`` stays ``-0.0``.

The written values were placed by adding them into zeros, and ``0.0 + -0.0`` is ``0.0``: so
``mg.tensor([1.0, 2.0]).index_put((mg.tensor([0]),), mg.tensor([-0.0]))`` gave ``[0.0, 2.0]`` where
torch 2.13 gives ``[-0.0, 2.0]`` (and ``x[idx] = v``, another path, already kept it).  The gradient is
unchanged: where a target repeats, the last write wins and only it gets a gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

X = [[1.0, -0.0, 2.0], [3.0, 4.0, -0.0]]
SRC = [[-0.0, 5.0, -0.0], [-0.0, -0.0, 6.0]]

# each write with torch 2.13's answer (signs of zeros included)
WRITES = {
    "scatter": (lambda x, s, i: x.scatter(1, i([[2, 0], [1, 2]]), s[:, :2]),
                [[5.0, -0.0, -0.0], [3.0, -0.0, -0.0]]),
    "index_copy": (lambda x, s, i: x.index_copy(1, i([0, 2]), s[:, :2]),
                   [[-0.0, -0.0, 5.0], [-0.0, 4.0, -0.0]]),
    "index_put": (lambda x, s, i: x.index_put((i([0, 1]), i([1, 0])), s[0, :2]),
                  [[1.0, -0.0, 2.0], [5.0, 4.0, -0.0]]),
    "masked_scatter": (lambda x, s, i: x.masked_scatter(i([[True, False, True], [False, True, False]]), s),
                       [[-0.0, -0.0, 5.0], [3.0, -0.0, -0.0]]),
    "put": (lambda x, s, i: x.put(i([0, 4]), s[1, :2]), [[-0.0, -0.0, 2.0], [3.0, -0.0, -0.0]]),
    "select_scatter": (lambda x, s, i: mg.select_scatter(x, s[1], 0, 0), [[-0.0, -0.0, 6.0], [3.0, 4.0, -0.0]]),
    "slice_scatter": (lambda x, s, i: mg.slice_scatter(x, s[:, :1], 1, 1, 2), [[1.0, -0.0, 2.0], [3.0, -0.0, -0.0]]),
    "diagonal_scatter": (lambda x, s, i: mg.diagonal_scatter(x, s[0, :2]), [[-0.0, -0.0, 2.0], [3.0, 5.0, -0.0]]),
}


def _bits(t):
    a = t.detach().numpy()
    return a.tolist(), np.signbit(a).tolist()


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", sorted(WRITES))
def test_a_written_negative_zero_stays_negative(name, device, dtype):
    write, want = WRITES[name]
    x, src = mg.tensor(X, dtype=dtype, device=device), mg.tensor(SRC, dtype=dtype, device=device)
    out = write(x, src, lambda index: mg.tensor(index, device=device))
    assert out.dtype == dtype and _bits(out) == _bits(mg.tensor(want, dtype=dtype))


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_the_in_place_writes_keep_it_too(device, dtype):
    src = mg.tensor(SRC, dtype=dtype, device=device)
    x = mg.tensor(X, dtype=dtype, device=device)
    x.index_copy_(1, mg.tensor([0, 2], device=device), src[:, :2])
    x.put_(mg.tensor([1], device=device), src[0, :1])
    x.masked_scatter_(mg.tensor([[False, False, False], [True, False, False]], device=device), src[1:, :1])
    assert _bits(x) == _bits(mg.tensor([[-0.0, -0.0, 5.0], [-0.0, 4.0, -0.0]]))


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_the_gradient_goes_to_the_last_write_only(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)
    src = mg.tensor([[7.0, 8.0, 9.0]], dtype=dtype, device=device, requires_grad=True)
    index = (mg.tensor([0, 0, 1], device=device), mg.tensor([2, 2, 0], device=device))
    out = x.index_put(index, src[0])   # (0, 2) written twice
    (out * mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=dtype, device=device)).sum().backward()
    assert out.detach().numpy().tolist() == [[1.0, -0.0, 8.0], [9.0, 4.0, -0.0]]
    assert x.grad.numpy().tolist() == [[1.0, 2.0, 0.0], [0.0, 5.0, 6.0]]
    assert src.grad.numpy().tolist() == [[0.0, 3.0, 4.0]]   # docs/from-pytorch.md (torch 2.13: [[3, 3, 4]])


def test_forward_mode_carries_the_written_tangents():
    x, src = mg.tensor([1.0, 2.0, 3.0]), mg.tensor([-0.0, 5.0])
    _, tangent = mg.func.jvp(lambda a, s: a.index_copy(0, mg.tensor([2, 0]), s), (x, src),
                             (mg.tensor([1.0, 1.0, 1.0]), mg.tensor([10.0, 20.0])))
    assert tangent.numpy().tolist() == [20.0, 1.0, 10.0]


def test_an_empty_write_leaves_the_input_and_keeps_the_source_in_the_graph():
    x = mg.tensor([1.0, -0.0], requires_grad=True)
    src = mg.tensor([], requires_grad=True)
    out = x.index_put((mg.tensor([], dtype=mg.int64),), src)
    out.sum().backward()
    assert _bits(out) == _bits(mg.tensor([1.0, -0.0])) and src.grad.shape == (0,)
