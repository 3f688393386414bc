"""A leaf's ``.grad`` can be written in place after ``backward``, whatever op made it.

einsum's backward broadcasts an operand's summed-over letters back (``F.bilinear``'s weight and
input, ``einsum("i,j->", a, b)``) with NumPy's ``broadcast_to``, a read-only view; the engine
handed such a view over as ``.grad`` without a copy (nothing else holds it), so ``x.grad.mul_(2)``
and ``nn.utils.clip_grad_norm_`` raised "output array is read-only" where PyTorch scales the
gradient.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

F = mg.nn.functional


def _bilinear(x, w, t):
    return F.bilinear(x, t, w)


def _einsum_summed_letter(x, w, t):
    return mg.einsum("ai,oij,bj->", x, w, t)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("fn", [_bilinear, _einsum_summed_letter], ids=["bilinear", "einsum"])
@pytest.mark.parametrize("checkpointed", [False, True], ids=["plain", "checkpoint"])
def test_every_grad_can_be_scaled_in_place(fn, dtype, device, checkpointed):
    mg.manual_seed(0)
    x = mg.randn(4, 6, dtype=dtype, device=device, requires_grad=True)
    w = mg.randn(3, 6, 5, dtype=dtype, device=device, requires_grad=True)
    t = mg.randn(4, 5, dtype=dtype, device=device)
    y = mg.checkpoint.checkpoint(fn, x, w, t, use_reentrant=False) if checkpointed else fn(x, w, t)
    y.sum().backward()
    for p in (x, w):
        before = p.grad.cpu().numpy().copy()
        p.grad.mul_(2)
        np.testing.assert_array_equal(p.grad.cpu().numpy(), 2 * before)


def test_clip_grad_norm_after_a_bilinear_layer():
    mg.manual_seed(0)
    layer = mg.nn.Bilinear(6, 5, 3)
    layer(mg.randn(4, 6), mg.randn(4, 5)).sum().backward()
    total = mg.nn.utils.clip_grad_norm_(layer.parameters(), 0.1)
    norms = [float(mg.linalg.vector_norm(p.grad)) for p in layer.parameters()]
    assert float(total) > 0.1
    np.testing.assert_allclose(np.sqrt(np.sum(np.square(norms))), 0.1, rtol=1e-5)
