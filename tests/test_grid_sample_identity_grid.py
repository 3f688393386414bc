"""``F.affine_grid`` of the identity map is PyTorch's grid to the bit, and ``F.grid_sample``'s
bilinear gradient in the grid takes PyTorch's side at its points.

The identity grid's points are pixel centres up to a last bit, and a bilinear read's slope in the
grid jumps there (the right neighbour's difference or the left one's).  Every spatial transformer
starts on this grid (its regressor is initialised to the identity).  Two roundings decided the
side: the base grid (PyTorch: ``linspace(-1, 1, n) * (n - 1) / n`` in the grid's dtype; the engine
computed ``(2i + 1) / n - 1`` in float64) and the pixel position (PyTorch's kernel rounds
``(c + 1) * (n / 2) - 1/2`` once, a fused multiply-add; the engine twice).  Reproducer: the grid
gradient of ``grid_sample(x, affine_grid(eye(2, 3)[None], (1, 1, 7, 7), align_corners=False))`` in
float64, 14 of 98 entries off by up to 11.8 before.  Expected values:
``tests/data/make_torch_identity_grid.py`` (torch 2.13, CPU).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

REF = np.load(Path(__file__).parent / "data" / "torch_identity_grid.npz")
SIZES = [(1, 2, 7, 5), (1, 1, 13, 11), (1, 1, 3, 4, 6)]
PADDING_MODES = ("zeros", "border", "reflection")


def pattern(shape, phase):
    return np.sin(np.arange(int(np.prod(shape))) * 0.7 + phase).reshape(shape)


def identity_grid(size, dtype, device, ac):
    k = len(size) - 2
    theta = mg.eye(k, k + 1, dtype=dtype, device=device).expand(size[0], k, k + 1)
    return F.affine_grid(theta, size, align_corners=ac)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float32), ("cpu", mg.float64), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
@pytest.mark.parametrize("ac", [False, True])
@pytest.mark.parametrize("s", range(len(SIZES)))
def test_identity_grid_and_its_gradients_are_pytorchs(device, dtype, ac, s):
    size = SIZES[s]
    key = f"{s}|{'float32' if dtype == mg.float32 else 'float64'}|{int(ac)}"
    grid = identity_grid(size, dtype, device, ac)
    np.testing.assert_array_equal(grid.numpy(), REF[f"{key}|grid"])
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == mg.float32 else dict(rtol=1e-12, atol=1e-12)
    for mode in PADDING_MODES:
        x = mg.tensor(pattern(size, 0.0), dtype=dtype, device=device, requires_grad=True)
        g = grid.detach().requires_grad_()
        y = F.grid_sample(x, g, padding_mode=mode, align_corners=ac)
        (y * mg.tensor(pattern(y.shape, 1.0), dtype=dtype, device=device)).sum().backward()
        np.testing.assert_allclose(y.detach().numpy(), REF[f"{key}|{mode}|out"], **tol, err_msg=mode)
        np.testing.assert_allclose(x.grad.numpy(), REF[f"{key}|{mode}|grad_input"], **tol, err_msg=mode)
        np.testing.assert_allclose(g.grad.numpy(), REF[f"{key}|{mode}|grad_grid"], **tol, err_msg=mode)


def test_the_grid_gradient_is_the_same_under_func_grad_and_checkpoint():
    size, key = SIZES[1], "1|float64|0"
    x = mg.tensor(pattern(size, 0.0))
    grid = identity_grid(size, mg.float64, "cpu", False)
    up = mg.tensor(pattern((1, 1, 13, 11), 1.0))
    want = REF[f"{key}|zeros|grad_grid"]

    def loss(g):
        return (F.grid_sample(x, g, align_corners=False) * up).sum()

    np.testing.assert_allclose(mg.func.grad(loss)(grid).numpy(), want, rtol=1e-12, atol=1e-12)
    g = grid.detach().requires_grad_()
    mg.checkpoint.checkpoint(loss, g).backward()
    np.testing.assert_allclose(g.grad.numpy(), want, rtol=1e-12, atol=1e-12)
