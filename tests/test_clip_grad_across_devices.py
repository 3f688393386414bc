"""Gradient clipping of parameters on several devices, as PyTorch's (which groups them by device).

``clip_grad_norm_`` over one parameter on the CPU and one on another device raised
``multiply_: value is on strict:0, tensor is on cpu``: the clipping coefficient, computed on one
device, was multiplied into every gradient without being moved to that gradient's device.  And
``get_total_norm`` put the total on whichever device the stack of norms chose, where PyTorch moves
every tensor's norm to the *first* tensor's device and returns the total there.  The references are
hand-computed: gradients of 3s (3 values) and 4s (4 values) have 2-norm sqrt(27 + 64) = sqrt(91).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)


def _params(first: str, second: str, dtype: str) -> list[mg.nn.Parameter]:
    a = mg.nn.Parameter(mg.zeros(3, dtype=dtype, device=first))
    b = mg.nn.Parameter(mg.zeros(4, dtype=dtype, device=second))
    a.grad = mg.full((3,), 3.0, dtype=dtype, device=first)
    b.grad = mg.full((4,), 4.0, dtype=dtype, device=second)
    return [a, b]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("first", "second"), [("cpu", "strict"), ("strict", "cpu")])
def test_clip_grad_norm_scales_gradients_on_every_device(first, second, dtype):
    params = _params(first, second, dtype)
    total = mg.nn.utils.clip_grad_norm_(params, 1.0)
    assert total.device == params[0].device  # the first gradient's device, as PyTorch's
    np.testing.assert_allclose(total.item(), math.sqrt(91.0), rtol=1e-6)
    coef = 1.0 / (math.sqrt(91.0) + 1e-6)
    for p, value in zip(params, (3.0, 4.0)):
        assert p.grad.device == p.device and p.grad.dtype == p.dtype
        np.testing.assert_allclose(p.grad.numpy(), value * coef, rtol=1e-6)


@pytest.mark.parametrize(("first", "second"), [("cpu", "strict"), ("strict", "cpu")])
@pytest.mark.parametrize(("norm_type", "expected"), [(2.0, math.sqrt(91.0)), (1.0, 25.0), (math.inf, 4.0),
                                                     (0.0, 2.0)])
def test_get_total_norm_lands_on_the_first_tensor_s_device(first, second, norm_type, expected):
    grads = [p.grad for p in _params(first, second, "float32")]
    total = mg.nn.utils.get_total_norm(grads, norm_type)
    assert total.device == grads[0].device
    np.testing.assert_allclose(total.item(), expected, rtol=1e-6)


@pytest.mark.parametrize(("first", "second"), [("cpu", "strict"), ("strict", "cpu")])
def test_clip_grads_with_norm_moves_the_coefficient(first, second):
    params = _params(first, second, "float32")
    mg.nn.utils.clip_grads_with_norm_(params, 1.0, mg.tensor(10.0, device=first))
    for p, value in zip(params, (3.0, 4.0)):
        np.testing.assert_allclose(p.grad.numpy(), value / (10.0 + 1e-6), rtol=1e-6)
