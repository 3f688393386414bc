"""Factorizations of 0x0 matrices (and of no reflector) work end to end, as PyTorch's.

``lu_solve`` of a 0x0 ``lu_factor`` raised NumPy's ``cannot reshape array of size 0 into shape (0)``
(the pivots were reshaped to ``(-1, n)`` with ``n == 0``), where torch 2.13 returns B's empty
solution.  ``householder_product`` of ``tau`` with no entries (``k == 0``) returned the identity's
columns as a constant, so ``autograd.grad`` of it raised, where PyTorch's result is on ``A``'s and
``tau``'s graphs with gradient 0.  The references are shapes and zeros: nothing to compute.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize(("a_shape", "b_shape"), [((0, 0), (0, 3)), ((2, 0, 0), (2, 0, 3)), ((0, 0), (4, 1, 0, 2)),
                                                  ((2, 0, 0), (0, 0))])
def test_lu_solve_of_a_0x0_factorization_is_empty(a_shape, b_shape, adjoint, left, dtype, device):
    a = mg.zeros(a_shape, dtype=dtype, device=device, requires_grad=True)
    b_shape = b_shape if left else b_shape[:-2] + b_shape[:-3:-1]
    b = mg.zeros(b_shape, dtype=dtype, device=device, requires_grad=True)
    lu, piv = mg.linalg.lu_factor(a)
    x = mg.linalg.lu_solve(lu, piv, b, left=left, adjoint=adjoint)
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    assert x.shape == batch + b_shape[-2:] and x.dtype == b.dtype and x.requires_grad
    ga, gb = mg.autograd.grad(x, (a, b), mg.ones_like(x))
    assert ga.shape == a_shape and gb.shape == b_shape


def test_lu_solve_of_a_0x0_factorization_in_forward_mode():
    lu, piv = mg.linalg.lu_factor(mg.zeros((0, 0), dtype=mg.float64))
    out, tangent = mg.func.jvp(lambda b: mg.linalg.lu_solve(lu, piv, b), (mg.zeros((0, 2), dtype=mg.float64),),
                              (mg.zeros((0, 2), dtype=mg.float64),))
    assert out.shape == tangent.shape == (0, 2)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize(("a_shape", "tau_shape"), [((3, 1), (0,)), ((0, 0), (0,)), ((2, 4, 2), (2, 0))])
def test_householder_product_without_reflectors_is_on_the_graph(a_shape, tau_shape, dtype, device):
    a = mg.tensor(np.arange(np.prod(a_shape), dtype=np.float64).reshape(a_shape), dtype=dtype, device=device,
                  requires_grad=True)
    tau = mg.zeros(tau_shape, dtype=dtype, device=device, requires_grad=True)
    q = mg.linalg.householder_product(a, tau)
    m, n = a_shape[-2:]
    np.testing.assert_array_equal(q.numpy(), np.broadcast_to(np.eye(m, n), a_shape))
    assert q.dtype == a.dtype and q.requires_grad
    ga, gt = mg.autograd.grad(q, (a, tau), mg.ones_like(q))
    np.testing.assert_array_equal(ga.numpy(), np.zeros(a_shape))
    assert gt.shape == tau_shape and ga.dtype == gt.dtype == a.dtype


def test_householder_product_without_reflectors_in_forward_mode_and_inside_checkpoint():
    a = mg.tensor(np.ones((3, 2)), requires_grad=True)
    tau = mg.zeros((0,), dtype=mg.float64, requires_grad=True)
    _, tangent = mg.func.jvp(mg.linalg.householder_product, (a.detach(), tau.detach()),
                             (mg.ones((3, 2), dtype=mg.float64), mg.zeros((0,), dtype=mg.float64)))
    np.testing.assert_array_equal(tangent.numpy(), np.zeros((3, 2)))
    q = mg.checkpoint.checkpoint(mg.linalg.householder_product, a, tau)
    q.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros((3, 2)))
