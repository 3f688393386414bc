"""``xlogy(x, y)``'s gradient in ``x`` is 0 where ``x == 0`` and ``y <= 0`` (``xlog1py``: ``y <= -1``),
as PyTorch's ``masked_fill``: the value is held at 0 there, and ``log(y)`` (-inf at 0, NaN below)
was passed on -- ``xlogy(0, 0)`` had gradient -inf in ``x``.

Expected values are torch 2.13's (CPU), written in; each comment names the torch expression.
"""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from tests.elementwise_seams import assert_torch_gradients

INF = math.inf


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_xlogy_at_x_zero_and_y_not_positive(dtype, device):
    # torch: torch.xlogy(x, y).sum().backward() at x = [0, 0, 0, 2], y = [0, -1, 2, 0]: x.grad
    y = mg.tensor([0.0, -1.0, 2.0, 0.0], dtype=dtype, device=device)
    assert_torch_gradients(lambda a: mg.xlogy(a, y), [[0.0, 0.0, 0.0, 2.0]], [[0.0, 0.0, math.log(2.0), -INF]],
                           dtype, device)


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_xlog1py_at_x_zero_and_y_at_or_below_minus_one(dtype):
    # torch: torch.special.xlog1py(x, y).sum().backward() at x = [0, 0, 0, 2], y = [-1, -2, 2, -1]: x.grad
    y = mg.tensor([-1.0, -2.0, 2.0, -1.0], dtype=dtype)
    assert_torch_gradients(lambda a: mg.special.xlog1py(a, y), [[0.0, 0.0, 0.0, 2.0]],
                           [[0.0, 0.0, math.log(3.0), -INF]], dtype)


def test_the_gradient_in_y_is_unchanged():
    # torch: torch.xlogy(x, y) at x = [0, 2], y = [2, 4]: y.grad = [0, 0.5]
    x, y = mg.tensor([0.0, 2.0], requires_grad=True), mg.tensor([2.0, 4.0], requires_grad=True)
    mg.xlogy(x, y).sum().backward()
    assert y.grad.tolist() == [0.0, 0.5]
