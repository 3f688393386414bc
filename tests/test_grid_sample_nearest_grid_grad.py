"""``F.grid_sample(..., mode="nearest")``: the grid's gradient is zeros and the output requires grad
through the grid, as PyTorch's.  Before, the grid was not connected: ``grid.grad`` stayed None, and
with an input that needs no grad the output had no history, so ``.backward()`` raised ("output 0
does not require grad") on a program PyTorch runs.

torch 2.13::

    g = torch.tensor([[[[0.3, -0.2], [nan, 0.5], [2.0, inf]]]], requires_grad=True)
    out = F.grid_sample(torch.arange(9.).view(1, 1, 3, 3), g, mode="nearest", align_corners=False)
    out  # [[[[4., 0., 0.]]]];  out.sum().backward(); g.grad  # zeros (1, 1, 3, 2)
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

GRID = [[[[0.3, -0.2], [float("nan"), 0.5], [2.0, float("inf")]]]]


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)], ids=str)
def test_the_grid_gets_zeros_and_the_values_stay(device, dtype, padding_mode):
    grid = mg.tensor(GRID, dtype=dtype, device=device, requires_grad=True)
    x = mg.arange(9.0, dtype=dtype, device=device).view(1, 1, 3, 3)
    out = F.grid_sample(x, grid, mode="nearest", padding_mode=padding_mode, align_corners=False)
    assert out.requires_grad
    out.sum().backward()
    assert grid.grad is not None and grid.grad.dtype == dtype
    np.testing.assert_array_equal(grid.grad.cpu().numpy(), np.zeros((1, 1, 3, 2)))
    if padding_mode == "zeros":  # torch 2.13: [4., 0., 0.] (NaN and inf positions read 0)
        np.testing.assert_array_equal(out.detach().cpu().numpy().ravel(), [4.0, 0.0, 0.0])


def test_under_func_grad_jvp_and_checkpoint_and_in_5d():
    x = mg.arange(9.0, dtype=mg.float64).view(1, 1, 3, 3)
    grid = mg.tensor([[[[0.3, -0.2], [-0.9, 0.5]]]], dtype=mg.float64)
    sample = lambda g: F.grid_sample(x, g, mode="nearest", align_corners=True)  # noqa: E731
    np.testing.assert_array_equal(mg.func.grad(lambda g: sample(g).sum())(grid).numpy(), np.zeros((1, 1, 2, 2)))
    value, tangent = mg.func.jvp(sample, (grid,), (mg.ones_like(grid),))
    np.testing.assert_array_equal(tangent.numpy(), np.zeros((1, 1, 1, 2)))
    leaf = grid.clone().requires_grad_()
    checkpoint(sample, leaf, use_reentrant=False).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), np.zeros((1, 1, 2, 2)))
    grid5 = mg.zeros(1, 1, 1, 2, 3, dtype=mg.float64, requires_grad=True)
    F.grid_sample(mg.ones(1, 2, 2, 2, 2, dtype=mg.float64), grid5, mode="nearest").sum().backward()
    np.testing.assert_array_equal(grid5.grad.numpy(), np.zeros((1, 1, 1, 2, 3)))
