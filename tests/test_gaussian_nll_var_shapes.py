"""``F.gaussian_nll_loss`` takes the variance shapes PyTorch 2.13 takes: ``input``'s shape, one fewer
trailing axis, or the same number of axes with a 1 on the one axis where the shapes differ -- a (1, D)
variance per feature of an (N, D) input, (N, 1, H, W) one per pixel.  The engine knew only a last axis of
1 and refused (1, D) and (N, 1, D) ("var of shape (1, 4) does not fit input of shape (3, 4)"), which
PyTorch broadcasts.  Expected numbers from torch 2.13 (float64)."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

F = mg.nn.functional
SEAMS = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]

X = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 1.0], [-2.0, 0.75, 0.5, -1.25]]
T = [[0.0, -0.5, 1.0, 1.0], [1.0, 0.5, 0.5, -1.0], [-1.0, 0.0, 1.5, -1.0]]
V = [[0.5, 2.0, 1.0, 0.25]]  # one variance per feature
LOSS = 21.463445856776232  # torch: F.gaussian_nll_loss(x, t, v, full=True, reduction="sum")
GRAD_X = [[1.0, -0.25, 1.0, -3.0], [1.0, -0.25, -1.0, 8.0], [-2.0, 0.375, -1.0, -1.0]]
GRAD_V = [[0.0, 0.6171875, 0.0, -31.0]]


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_variance_per_feature_broadcasts_over_the_batch(device, dtype):
    x, t, v = (mg.tensor(a, dtype=dtype, device=device, requires_grad=True) for a in (X, T, V))
    loss = F.gaussian_nll_loss(x, t, v, full=True, reduction="sum")
    assert loss.dtype == dtype and loss.shape == ()
    tol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(loss.item(), LOSS, rtol=tol)
    loss.backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), GRAD_X, rtol=tol)
    np.testing.assert_allclose(t.grad.cpu().numpy(), -np.asarray(GRAD_X), rtol=tol)
    np.testing.assert_allclose(v.grad.cpu().numpy(), GRAD_V, rtol=tol, atol=tol)
    assert v.grad.shape == (1, 4) and v.grad.dtype == dtype
    # reduction="none" keeps the input's shape; the module takes the same shapes
    assert F.gaussian_nll_loss(x, t, v, reduction="none").shape == (3, 4)
    assert mg.nn.GaussianNLLLoss()(x, t, v).shape == ()


@pytest.mark.parametrize("var_shape, accepted", [
    ((2, 3, 4), True), ((2, 3), True), ((2, 3, 1), True), ((2, 1, 4), True), ((1, 3, 4), True),
    ((1, 3, 1), False), ((1, 1, 4), False), ((2, 1, 1), False), ((3,), False), ((4,), False), ((1, 4), False),
])
def test_the_variance_shapes_pytorch_takes(var_shape, accepted):
    x = mg.zeros(2, 3, 4)
    if accepted:
        assert F.gaussian_nll_loss(x, x, mg.ones(*var_shape), reduction="none").shape == (2, 3, 4)
    else:
        with pytest.raises(ValueError, match="does not fit"):
            F.gaussian_nll_loss(x, x, mg.ones(*var_shape))
