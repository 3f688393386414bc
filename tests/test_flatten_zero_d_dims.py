"""``flatten`` of a 0-d tensor takes dims 0 and -1 only, as PyTorch's: another is an IndexError.

``mg.tensor(1.0).flatten(1)`` (and ``flatten(0, 1)``, ``flatten(-2)``) gave ``[1.0]`` where torch 2.13 raises
"Dimension out of range (expected to be in range of [-1, 0], but got 1)".
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_dims_0_and_minus_1_flatten_a_0d_tensor(device):
    z = mg.tensor(2.5, device=device, requires_grad=True)
    for out in (z.flatten(), z.flatten(0), z.flatten(-1), z.flatten(0, -1), mg.flatten(z, -1, 0)):
        assert out.shape == (1,) and out.tolist() == [2.5]
    z.flatten(0).sum().backward()
    assert z.grad.item() == 1.0


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dims", [(1,), (0, 1), (-2,), (1, 1), (-2, -1)])
def test_another_dim_is_out_of_range(dims, device):
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\]"):
        mg.tensor(2.5, device=device).flatten(*dims)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\]"):
        mg.flatten(mg.tensor(2.5, device=device), *dims)
