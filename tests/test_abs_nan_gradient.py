"""The slope of ``|x|`` at a NaN is 0, as PyTorch's backward takes it (``sgn(nan)`` is 0): ``abs``,
``linalg.vector_norm(x, 1)`` and ``F.l1_loss`` sent NaN back there (NumPy's ``sign`` is NaN at NaN),
so one NaN input poisoned the gradient PyTorch gives 0.

Expected values are torch 2.13's (CPU; float32 and float64), written in: at x = [nan, -2, 0, 3],
``torch.abs(x).sum().backward()``, ``torch.linalg.vector_norm(x, 1).backward()`` and
``F.l1_loss(x, zeros(4), reduction="sum").backward()`` each give x.grad = [0, -1, 0, 1], and
``torch.func.jvp(torch.abs, (x,), (ones,))`` the tangent [0, -1, 0, 1].
"""

from __future__ import annotations

import math

import pytest

import minigrad_ckpt as mg
from tests.elementwise_seams import assert_torch_gradients

X, GRAD = [math.nan, -2.0, 0.0, 3.0], [0.0, -1.0, 0.0, 1.0]
F = mg.nn.functional


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_abs_at_nan_has_slope_zero(dtype, device):
    assert_torch_gradients(mg.abs, [X], [GRAD], dtype, device)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("fn", [lambda x: mg.linalg.vector_norm(x, 1),
                                lambda x: F.l1_loss(x, mg.zeros_like(x), reduction="sum")], ids=["norm1", "l1_loss"])
def test_the_one_norm_and_l1_loss_alike(fn, dtype):
    x = mg.tensor(X, dtype=dtype, requires_grad=True)
    fn(x).backward()
    assert x.grad.tolist() == GRAD
    assert mg.func.grad(fn)(x.detach()).tolist() == GRAD
