"""``diag_embed`` copies its input onto the diagonals bit for bit, as PyTorch's: a ``-0.0`` stays ``-0.0``.

The diagonal was written through an index array, which adds the values into zeros (``0.0 + -0.0`` is
``0.0``): ``mg.diag_embed(mg.tensor([-0.0, 1.0]))`` had ``0.0`` in its corner where torch 2.13 has
``-0.0`` (``mg.diag`` already kept it).  It is now a slice of the flattened square, assigned.
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

X = [[-0.0, 2.0], [3.0, -0.0]]
# torch 2.13's answers
TORCH = {
    (0, -2, -1): [[[-0.0, 0.0], [0.0, 2.0]], [[3.0, 0.0], [0.0, -0.0]]],
    (1, 0, 2): [[[0.0, -0.0, 0.0], [0.0, 3.0, 0.0]], [[0.0, 0.0, 2.0], [0.0, 0.0, -0.0]],
                [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
    (-1, -2, -1): [[[0.0, 0.0, 0.0], [-0.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
                   [[0.0, 0.0, 0.0], [3.0, 0.0, 0.0], [0.0, -0.0, 0.0]]],
}


def _bits(a):
    a = np.asarray(a)
    return a.tolist(), np.signbit(a).tolist()


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("args", sorted(TORCH))
def test_the_diagonal_keeps_its_bits(args, device, dtype):
    out = mg.diag_embed(mg.tensor(X, dtype=dtype, device=device), *args)
    assert out.dtype == dtype and _bits(out.numpy()) == _bits(TORCH[args])
    transposed = mg.diag_embed(mg.tensor(X, dtype=dtype, device=device).t().contiguous().t(), *args)
    assert _bits(transposed.numpy()) == _bits(TORCH[args])


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_the_gradient_and_the_tangent_are_the_diagonal(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)
    weight = mg.arange(18, dtype=dtype, device=device).reshape(2, 3, 3)
    (mg.diag_embed(x, 1) * weight).sum().backward()
    assert x.grad.numpy().tolist() == [[1.0, 5.0], [10.0, 14.0]]
    _, tangent = mg.func.jvp(lambda t: mg.diag_embed(t, -1), (x.detach(),), (mg.ones_like(x.detach()),))
    assert tangent.numpy().tolist() == [[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 2


def test_an_empty_last_dim_and_a_far_offset():
    assert mg.diag_embed(mg.zeros(2, 0)).shape == (2, 0, 0)
    out = mg.diag_embed(mg.tensor([-0.0]), 3)
    assert out.shape == (4, 4) and np.signbit(out.numpy()[0, 3]) and out.numpy().sum() == 0
