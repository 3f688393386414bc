"""``linalg.lu_solve`` broadcasts the factorizations' batch against B's, as PyTorch's: an LU of
shape (2, 1, 3, 3) and a B of shape (4, 3, 2) solve to (2, 4, 3, 2) in torch 2.13; the engine
broadcast B to the LU's batch only and raised ``cannot broadcast (4, 3, 2) to (2, 1, 3, 2)``.
The references: NumPy's ``solve`` (which broadcasts the same way) and central differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

RNG = np.random.default_rng(11)
SHAPES = [((2, 1, 3, 3), (4, 3, 2)), ((3, 3), (2, 3, 2)), ((2, 3, 3), (3, 2)), ((1, 3, 3), (5, 1, 3, 2))]


def _array(shape, complex_):
    a = RNG.standard_normal(shape)
    return a + 1j * RNG.standard_normal(shape) if complex_ else a


def _solve(lu, piv, b, left, adjoint):
    return mg.linalg.lu_solve(lu, piv, b, left=left, adjoint=adjoint)


@pytest.mark.parametrize("complex_", [False, True])
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("shapes", SHAPES)
def test_lu_solve_broadcasts_the_batches_as_solve_does(shapes, left, adjoint, complex_):
    a_shape, b_shape = shapes
    a, b = _array(a_shape, complex_), _array(b_shape if left else b_shape[:-2] + b_shape[:-3:-1], complex_)
    lu, piv = mg.linalg.lu_factor(mg.tensor(a))
    x = _solve(lu, piv, mg.tensor(b), left, adjoint).numpy()
    op = np.conj(np.swapaxes(a, -1, -2)) if adjoint else a
    want = np.linalg.solve(op, b) if left else np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2),
                                                                          np.swapaxes(b, -1, -2)), -1, -2)
    np.testing.assert_allclose(x, want, atol=1e-10)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("adjoint", [False, True])
def test_broadcast_lu_solve_is_differentiable_in_lu_and_b(adjoint, device):
    a = mg.tensor(_array((2, 1, 3, 3), False) + 3 * np.eye(3), device=device)
    lu, piv = mg.linalg.lu_factor(a)
    lu = lu.detach().requires_grad_()
    b = mg.tensor(_array((4, 3, 2), False), device=device, requires_grad=True)
    assert mg.autograd.gradcheck(lambda f, r: _solve(f, piv, r, True, adjoint), (lu, b), check_forward_ad=True)


def test_float32_broadcast_lu_solve_keeps_its_dtype():
    a = mg.tensor(_array((2, 1, 3, 3), False) + 3 * np.eye(3), dtype=mg.float32)
    lu, piv = mg.linalg.lu_factor(a)
    x = _solve(lu, piv, mg.tensor(_array((4, 3, 2), False), dtype=mg.float32), True, False)
    assert x.dtype == mg.float32 and x.shape == (2, 4, 3, 2)
