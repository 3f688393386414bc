"""``0 ** y`` of a constant base 0: the gradient in ``y`` is ``0 ** y * log 0`` -- 0 for ``y >= 0``
(the power is constant there), ``inf * -inf = -inf`` for ``y < 0`` and NaN at a NaN ``y``, as
PyTorch's.  The constant base took ``log 0`` as 0 for every ``y``, so ``y < 0`` gave
``inf * 0 = NaN``; a tensor base of 0 already gave -inf.

Expected values are torch 2.13's (CPU), written in; each comment names the torch expression.
"""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from tests.elementwise_seams import assert_torch_gradients

INF, NAN = math.inf, math.nan
Y = [-1.0, -0.5, 0.0, 2.0, NAN]
GRAD = [-INF, -INF, 0.0, 0.0, NAN]  # torch: torch.pow(0.0, y).sum().backward(); y.grad


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_a_zero_base_to_a_negative_power(dtype, device):
    assert_torch_gradients(lambda y: mg.pow(0.0, y), [Y], [GRAD], dtype, device)
    assert_torch_gradients(lambda y: 0.0 ** y, [Y], [GRAD], dtype, device)


def test_a_zero_tensor_base_agrees_with_the_constant():
    y = mg.tensor(Y, requires_grad=True)
    mg.pow(mg.zeros(5), y).sum().backward()
    assert str(y.grad.tolist()) == str(GRAD)
