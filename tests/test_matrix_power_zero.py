"""``linalg.matrix_power(a, 0)`` is the identity whatever ``a`` holds, with gradient 0, as PyTorch's:
it was ``a * 0 + I``, NaN wherever ``a`` held a NaN or an infinity.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

L = mg.linalg


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_the_zeroth_power_is_the_identity_whatever_the_matrix_holds(dtype, device):
    # torch.linalg.matrix_power(A, 0) at A = [[nan, inf], [0, 1]] is eye(2); A.grad of its sum is zeros
    a = mg.tensor([[float("nan"), float("inf")], [0.0, 1.0]], dtype=dtype, device=device, requires_grad=True)
    p = L.matrix_power(a, 0)
    assert p.tolist() == [[1.0, 0.0], [0.0, 1.0]] and p.requires_grad
    p.sum().backward()
    assert a.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
