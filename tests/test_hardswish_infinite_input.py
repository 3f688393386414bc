"""``F.hardswish``'s gradient at an infinite input is PyTorch's -- 1 at ``inf``, 0 at ``-inf`` --
not NaN: the quadratic piece, which ``where`` does not take there, sent ``0 * inf`` back through
its product.  It now sees its input clamped to its own interval ``[-3, 3]``.

Expected values are torch 2.13's (CPU), written in: ``F.hardswish(x).sum().backward()`` at
x = [inf, -inf, -3, 3, 1, -4, 4] gives x.grad = [1, 0, 0, 1, 5/6, 0, 1] (float32 and float64).
"""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from tests.elementwise_seams import assert_torch_gradients

INF = math.inf
X = [INF, -INF, -3.0, 3.0, 1.0, -4.0, 4.0]
GRAD = [1.0, 0.0, 0.0, 1.0, 5 / 6, 0.0, 1.0]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("hardswish", [mg.nn.functional.hardswish, mg.nn.Hardswish()], ids=["F", "module"])
def test_infinite_inputs_have_pytorchs_gradient(hardswish, dtype, device):
    assert_torch_gradients(hardswish, [X], [GRAD], dtype, device)


def test_the_values_are_unchanged():
    y = mg.nn.functional.hardswish(mg.tensor([INF, -4.0, 1.0, 4.0], dtype=mg.float64))
    assert y.tolist() == [INF, 0.0, 2 / 3, 4.0]
