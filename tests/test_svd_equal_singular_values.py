"""The SVD's derivatives where singular values repeat.

Off the diagonal the SVD's derivative divides ``x_ij s_j + s_i y_ij`` by ``s_j^2 - s_i^2``,
which splits into a part over ``s_j - s_i`` (the rotation within an equal pair's subspace)
and a part over ``s_j + s_i``, finite at an equal pair of non-zero values.  The backward
and the jvp dropped both parts at equal pairs, so the gradient and tangent of the polar
factor ``U @ Vh`` -- smooth wherever the matrix has full rank -- were silently wrong at an
orthogonal matrix, a multiple of the identity, or any matrix with a repeated singular value.
Now the finite part is kept (torch 2.13 gives NaN at ``2 I``).  References: central
differences of NumPy's polar factor.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt.checkpoint import checkpoint

RNG = np.random.default_rng(7)
Q1, _ = np.linalg.qr(RNG.standard_normal((4, 4)))
Q2, _ = np.linalg.qr(RNG.standard_normal((4, 4)))
REPEATED = Q1 @ np.diag([3.0, 2.0, 2.0, 1.0]) @ Q2.T
MATRICES = {
    "repeated": REPEATED,
    "two_identity": 2 * np.eye(4),
    "orthogonal": Q1,
    "tall": np.concatenate([REPEATED, np.zeros((2, 4))], axis=0),
    "wide": np.concatenate([REPEATED, np.zeros((4, 2))], axis=1),
    "complex": REPEATED * np.exp(0.3j) + 0j,
    "batch": np.stack([REPEATED, RNG.standard_normal((4, 4)), 2 * np.eye(4)]),
}


def _polar(a: np.ndarray) -> np.ndarray:
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return u @ vh


def _polar_gradient(a: np.ndarray, cotangent: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """``d Re<cotangent, polar(a)> / da`` by central differences (PyTorch's convention for complex ``a``)."""
    grad = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        for unit in ([1.0, 1j] if a.dtype.kind == "c" else [1.0]):
            step = np.zeros_like(a)
            step[idx] = h * unit
            diff = np.real(np.vdot(cotangent, _polar(a + step) - _polar(a - step))) / (2 * h)
            grad[idx] += diff * unit
    return grad


def _polar_of(a: mg.Tensor) -> mg.Tensor:
    u, _, vh = mg.linalg.svd(a, full_matrices=False)
    return u @ vh


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_the_polar_factor_has_its_gradient_at_repeated_singular_values(name):
    a = MATRICES[name]
    cot = RNG.standard_normal(a.shape) + (1j * RNG.standard_normal(a.shape) if a.dtype.kind == "c" else 0)
    x = mg.tensor(a, requires_grad=True)
    (g,) = mg.autograd.grad(_polar_of(x), x, mg.tensor(cot))
    np.testing.assert_allclose(g.numpy(), _polar_gradient(a, cot), atol=1e-7)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_every_seam_gives_the_polar_gradient_at_an_orthogonal_matrix(dtype, device):
    cot = RNG.standard_normal((4, 4))
    want = _polar_gradient(Q1, cot)
    tol = 2e-4 if dtype == mg.float32 else 1e-7

    def loss(a):
        return (_polar_of(a) * mg.tensor(cot, dtype=dtype, device=device)).sum()

    x = mg.tensor(Q1, dtype=dtype, device=device, requires_grad=True)
    loss(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), want, atol=tol)
    y = mg.tensor(Q1, dtype=dtype, device=device, requires_grad=True)
    checkpoint(loss, y, use_reentrant=False).backward()
    np.testing.assert_allclose(y.grad.numpy(), want, atol=tol)
    g = mg.func.grad(loss)(mg.tensor(Q1, dtype=dtype, device=device))
    np.testing.assert_allclose(g.numpy(), want, atol=tol)


@pytest.mark.parametrize("name", sorted(MATRICES))
def test_forward_mode_gives_the_polar_factors_tangent_at_repeated_singular_values(name):
    a = MATRICES[name]
    t = RNG.standard_normal(a.shape) + (1j * RNG.standard_normal(a.shape) if a.dtype.kind == "c" else 0)
    _, tangent = mg.func.jvp(_polar_of, (mg.tensor(a),), (mg.tensor(t),))
    h = 1e-6
    np.testing.assert_allclose(tangent.numpy(), (_polar(a + h * t) - _polar(a - h * t)) / (2 * h), atol=1e-7)


@pytest.mark.parametrize("name", ["repeated", "two_identity", "complex"])
def test_losses_of_the_singular_values_alone_stay_finite(name):
    x = mg.tensor(MATRICES[name], requires_grad=True)
    mg.linalg.matrix_norm(x, "nuc").backward()
    assert np.isfinite(x.grad.numpy()).all()
    y = mg.tensor(MATRICES[name], requires_grad=True)
    (g,) = mg.autograd.grad(mg.linalg.svd(y).S.sum(), y)
    assert np.isfinite(g.numpy()).all()
