"""The gradient of ``linalg.eig``/``eigvals`` of a stack of 0 x 0 matrices is the empty stack, as
PyTorch's: the backward looked for each eigenvector's largest entry (the phase fix) and raised
NumPy's "attempt to get argmax of an empty sequence"; torch 2.13 returns ``x.grad`` of shape
(2, 0, 0).  The other factorizations' gradients of empty matrices are checked beside it.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

L = mg.linalg
LOSSES = {
    "eigvals": lambda a: L.eigvals(a).abs().sum(),
    "eig": lambda a: L.eig(a).eigenvectors.abs().sum() + L.eig(a).eigenvalues.abs().sum(),
    "eigh": lambda a: L.eigh(a).eigenvectors.abs().sum() + L.eigh(a).eigenvalues.sum(),
    "svd": lambda a: L.svd(a).U.abs().sum() + L.svd(a).S.sum(),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64, mg.complex128])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_factorizations_of_empty_matrices_have_empty_gradients(name, dtype, device):
    x = mg.zeros(2, 0, 0, dtype=dtype, device=device, requires_grad=True)
    LOSSES[name](x).backward()
    assert x.grad.shape == (2, 0, 0) and x.grad.dtype == dtype
    _, tangent = mg.func.jvp(lambda a: L.eig(a).eigenvectors if name.startswith("eig") else L.svd(a).U,
                             (x.detach(),), (mg.zeros(2, 0, 0, dtype=dtype, device=device),))
    assert tangent.shape == (2, 0, 0)
