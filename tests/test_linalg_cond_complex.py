"""``linalg.cond`` of complex matrices, at every ``p``.

``cond`` is a composition (``matrix_norm(A, p) * matrix_norm(inv(A), p)``, or the ratio of
singular values), and every piece of it takes complex matrices -- PyTorch's ``cond`` does too.
The engine once refused a complex matrix for every ``p`` but None/2/-2 with a
``NotImplementedError`` that said its gradient was written for real matrices only.  The values
below are PyTorch 2.13's; the gradients are checked against central differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.testing import gradcheck

A = np.array([[[1 + 2j, -0.5 + 0.3j, 0.2j], [0.7 - 1j, 2 - 0.4j, 0.1 + 0.9j], [-0.3 + 0.2j, 0.6j, 1.5 - 0.8j]],
              [[0.4 + 0.1j, 1 - 1j, 0.3], [2j, -1 + 0.5j, 0.2 - 0.2j], [0.9, 0.3 + 0.3j, -0.7j]]])

#: torch.linalg.cond(torch.tensor(A), p) in PyTorch 2.13
TORCH = {"fro": [3.7059300993690156, 6.312441384731428], "nuc": [10.044936289549371, 13.733748954435187],
         1: [3.317214422690553, 7.687053015596429], -1: [2.169014148765283, 1.5618960763548078],
         math.inf: [4.0101489884989965, 8.552641428982112], -math.inf: [1.8826727519247068, 2.3998111358039003]}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("p", list(TORCH), ids=str)
def test_cond_of_complex_matrices_is_pytorchs(p, dtype, device):
    c = mg.linalg.cond(mg.tensor(A.astype(dtype), device=device), p)
    assert c.dtype == (np.float64 if dtype == np.complex128 else np.float32)
    rtol = 1e-12 if dtype == np.complex128 else 1e-5
    np.testing.assert_allclose(c.numpy(), TORCH[p], rtol=rtol)


@pytest.mark.parametrize("p", [None, 2, -2, *TORCH], ids=str)
def test_cond_of_complex_matrices_is_differentiable(p):
    a = mg.tensor(A, requires_grad=True)
    assert gradcheck(lambda x: mg.linalg.cond(x, p), (a,))
    _, tangent = mg.func.jvp(lambda x: mg.linalg.cond(x, p), (mg.tensor(A),), (mg.tensor(A[::-1].copy()),))
    (g,) = mg.autograd.grad(mg.linalg.cond(a, p).sum(), [a])
    # forward and reverse mode agree: the jvp is <grad, t> in the real inner product
    np.testing.assert_allclose(tangent.numpy().sum(), np.sum(g.numpy().conj() * A[::-1]).real, rtol=1e-9)
