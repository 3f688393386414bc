"""``F.max_pool2d_with_indices`` and its kin (1-D/3-D, adaptive, fractional): PyTorch's pooling
functions that always return ``(values, indices)``; they were AttributeErrors.  torch 2.13's indices
of ``arange(16).reshape(1, 1, 4, 4)``: ``[[5, 7], [13, 15]]`` for a 2x2 window, ``[[7], [15]]`` for
an adaptive (2, 1) output."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

F = mg.nn.functional


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_the_with_indices_functions_return_values_and_indices(device):
    x = mg.arange(16.0, device=device).reshape(1, 1, 4, 4).requires_grad_(True)
    values, indices = F.max_pool2d_with_indices(x, 2)
    assert indices.tolist() == [[[[5, 7], [13, 15]]]] and values.tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert F.max_pool2d_with_indices(x, 2, return_indices=False)[1].tolist() == [[[[5, 7], [13, 15]]]]
    assert F.adaptive_max_pool2d_with_indices(x, (2, 1))[1].tolist() == [[[[7], [15]]]]
    values.sum().backward()
    assert x.grad.reshape(-1).tolist() == [1.0 if i in (5, 7, 13, 15) else 0.0 for i in range(16)]
    assert len(F.max_pool1d_with_indices(mg.randn(1, 2, 4, device=device), 2)) == 2
    assert len(F.adaptive_max_pool1d_with_indices(mg.randn(1, 2, 4, device=device), 2)) == 2
    assert len(F.max_pool3d_with_indices(mg.randn(1, 1, 2, 2, 2, device=device), 2)) == 2
    assert len(F.adaptive_max_pool3d_with_indices(mg.randn(1, 1, 2, 2, 2, device=device), 1)) == 2
    assert len(F.fractional_max_pool2d_with_indices(mg.randn(1, 1, 5, 5, device=device), 2, output_size=3)) == 2
    assert len(F.fractional_max_pool3d_with_indices(mg.randn(1, 1, 5, 5, 5, device=device), 2, output_size=3)) == 2
