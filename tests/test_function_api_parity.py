"""Custom autograd Functions and the gradient utilities against PyTorch 2.13.

Each expected value was made by running the same program with torch 2.13 (CPU, float64 unless
said); the torch expression is in the comment beside it.  The programs are ported as a PyTorch
user writes them: only the module name changes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" devices

DEVICES = ("cpu", "strict", "strict-f32")


# ---------------------------------------------------------------------------
# clip_grad_norm_: PyTorch's get_total_norm then clip_grads_with_norm_
# ---------------------------------------------------------------------------
def _with_grads(dtype="float64", device="cpu"):
    a = mg.tensor([3.0, 4.0], dtype=dtype, device=device, requires_grad=True)
    b = mg.tensor([[1.0, -2.0], [2.0, 0.0]], dtype=dtype, device=device, requires_grad=True)
    a.grad = mg.tensor([3.0, 4.0], dtype=dtype, device=device)
    b.grad = mg.tensor([[1.0, -2.0], [2.0, 0.0]], dtype=dtype, device=device)
    return [a, b]


# torch: a.grad = [3, 4], b.grad = [[1, -2], [2, 0]];
# n = torch.nn.utils.clip_grad_norm_([a, b], 1.0, norm_type=nt)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm_type, total", [
    (0, 2.0),  # the count of nonzero norms: each tensor's count (2, 3), then the count of those (2)
    (-math.inf, 0.0),  # the smallest |g| of the smallest: b holds a 0
    (2, math.sqrt(34.0)),
    (math.inf, 4.0),
    (1, 12.0),
])
def test_clip_grad_norm_of_every_order(device, norm_type, total):
    dtype = "float32" if device == "strict-f32" else "float64"
    params = _with_grads(dtype, device)
    before = [p.grad.numpy().copy() for p in params]
    n = mg.nn.utils.clip_grad_norm_(params, 1.0, norm_type=norm_type)
    assert n.dtype == dtype and n.shape == ()
    np.testing.assert_allclose(n.item(), total, rtol=1e-6)
    coef = min(1.0 / (total + 1e-6), 1.0)
    for p, g in zip(params, before):
        np.testing.assert_allclose(p.grad.numpy(), g * coef, rtol=1e-6)


def test_clip_grad_norm_of_gradients_of_two_dtypes_is_in_the_promoted_dtype():
    # torch: a float32 [3, 4], b float64 [12]: clip_grad_norm_([a, b], 1.0) -> tensor(13., float64)
    a = mg.tensor([3.0, 4.0], dtype="float32", requires_grad=True)
    b = mg.tensor([1.0], dtype="float64", requires_grad=True)
    a.grad, b.grad = mg.tensor([3.0, 4.0], dtype="float32"), mg.tensor([12.0], dtype="float64")
    n = mg.nn.utils.clip_grad_norm_([a, b], 1.0)
    assert n.dtype == "float64" and n.item() == 13.0
    assert a.grad.dtype == "float32"
    np.testing.assert_allclose(a.grad.numpy(), [3 / 13, 4 / 13], rtol=1e-6)


def test_clip_grad_norm_non_finite_message_is_pytorchs():
    params = _with_grads()
    params[0].grad[0] = float("nan")
    with pytest.raises(RuntimeError, match="for gradients from `parameters` is non-finite, so it cannot be clipped"):
        mg.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
