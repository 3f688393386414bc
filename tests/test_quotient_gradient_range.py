"""``x / y``'s gradient in ``y`` is ``-(x / y) / y``, as PyTorch's: written ``-x / (y * y)`` it
overflowed or underflowed in ``y * y`` where the quotient does not (``|y|`` past 1e154 or under
1e-162 in float64, 1e19 and 1e-23 in float32), and every function built on a division followed
(``F.softsign``'s gradient at 1e20 in float32 was 1e-20, not 0).

Expected values are torch 2.13's (CPU), written in; each comment names the torch expression.
"""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from tests.elementwise_seams import assert_torch_gradients

INF = math.inf
F = mg.nn.functional

# (x, y, torch's x.grad and y.grad of (x / y).sum())
QUOTIENTS = {
    mg.float64: ([1e-200, 1e200, 3.0, 2.0], [1e-200, 1e200, 1e-160, -4.0],
                 [[1e200, 1e-200, 1e160, -0.25], [-1e200, -1e-200, -INF, -0.125]]),
    mg.float32: ([1e-25, 1e20, 3.0, 2.0], [1e-25, 1e20, 1e-20, -4.0],
                 [[9.999999562023526e+24, 9.999999682655225e-21, 1.0000000200408773e+20, -0.25],
                  [-9.999999562023526e+24, -9.999999682655225e-21, -INF, -0.125]]),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_the_gradient_in_the_divisor_does_not_square_it(dtype, device):
    x, y, want = QUOTIENTS[dtype]
    assert_torch_gradients(lambda a, b: a / b, [x, y], want, dtype, device)


@pytest.mark.parametrize("dtype, big", [(mg.float64, 1e160), (mg.float32, 1e20)])
def test_softsign_of_a_large_input_has_the_vanishing_gradient(dtype, big):
    # torch: F.softsign(x).sum().backward() at x = [big, -big, 2.0] gives x.grad = [0, 0, 1/9]
    assert_torch_gradients(F.softsign, [[big, -big, 2.0]], [[0.0, 0.0, 1 / 9]], dtype)


def test_x_over_x_at_a_small_scale_has_gradient_zero():
    # torch: (x / x).sum().backward() at x = [1e-200, 1e-100] gives x.grad = [0, 0]
    x = mg.tensor([1e-200, 1e-100], dtype=mg.float64, requires_grad=True)
    (x / x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
