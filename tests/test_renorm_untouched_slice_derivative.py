"""``renorm`` leaves a slice whose norm is within ``maxnorm`` -- or NaN, which exceeds nothing -- as
it is, and its derivative there is the identity, as PyTorch's ``renorm_backward``/``renorm_jvp``
(``where(norm > maxnorm, ..., grad)``).  It was ``x * where(norm > maxnorm, scale, 1)``: at a slice
holding a NaN the norm's derivative (NaN) met the 0 the where sent back, and 0 * NaN made the whole
slice's gradient NaN (torch: the upstream gradient itself), and the tangent was NaN at the NaN
(``x * 0``; torch: the input's tangent).  Slices that are scaled keep their derivative."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

NAN, INF = math.nan, math.inf
X = [[1.0, 2.0, 2.0], [NAN, 1.0, -2.0], [0.1, -0.2, 0.0], [3.0, 0.0, 4.0]]
W = [[1.5, -2.0, 0.5], [3.0, 1.0, -1.0], [2.0, 0.5, -3.0], [1.0, 2.0, -0.5]]
MAXNORM = 1.0


def expected_gradient() -> np.ndarray:
    """torch's renorm_backward for p=2, dim=0, written out: rows within maxnorm or NaN get w."""
    x, w = np.array(X), np.array(W)
    grad = w.copy()
    for i, (row, wr) in enumerate(zip(x, w)):
        norm = np.sqrt((row**2).sum())
        if norm > MAXNORM:
            factor = MAXNORM / (norm + 1e-7)
            grad[i] = factor * wr - factor / (norm + 1e-7) * (row * wr).sum() * row / norm
    return grad


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_renorm_gradient_of_a_nan_slice_is_the_identity(dtype, device):
    x = mg.tensor(X, dtype=dtype, device=device, requires_grad=True)
    y = x.renorm(2, 0, MAXNORM)
    (y * mg.tensor(W, dtype=dtype, device=device)).sum().backward()
    assert x.grad[1].tolist() == W[1]
    assert x.grad[2].tolist() == pytest.approx(W[2])
    np.testing.assert_allclose(x.grad.numpy(), expected_gradient(), rtol=1e-5)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_renorm_tangent_of_a_nan_slice_is_the_input_tangent(dtype, device):
    x = mg.tensor(X, dtype=dtype, device=device)
    t = mg.tensor(W, dtype=dtype, device=device)
    y, ty = mg.func.jvp(lambda v: mg.renorm(v, 2, 0, MAXNORM), (x,), (t,))
    assert ty[1].tolist() == W[1] and ty[2].tolist() == pytest.approx(W[2])
    assert math.isnan(y[1, 0].item())
    # the tangent is the transpose of the gradient: <u, J t> == <J^T u, t>
    u = np.array(W)[::-1].copy()
    xg = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    (xg.renorm(2, 0, MAXNORM) * mg.tensor(u)).sum().backward()
    rows = [0, 2, 3]  # the NaN row's own terms are NaN * 0 on one side only
    assert np.sum(ty.numpy()[rows] * u[rows]) == pytest.approx(np.sum(xg.grad.numpy()[rows] * np.array(W)[rows]),
                                                               rel=1e-5)


@pytest.mark.parametrize("p", [1, 2, INF])
def test_renorm_values_unchanged_and_inside_checkpoint(p):
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    y = mg.checkpoint.checkpoint(lambda v: v.renorm(p, 0, MAXNORM), x, use_reentrant=False)
    (y * mg.tensor(W, dtype=mg.float64)).sum().backward()
    assert x.grad[1].tolist() == W[1] and x.grad[2].tolist() == W[2]
    assert y[2].tolist() == X[2] and all(math.isfinite(v) for v in x.grad[[0, 3]].flatten().tolist())
