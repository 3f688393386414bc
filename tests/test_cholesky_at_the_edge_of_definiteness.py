"""Cholesky of a matrix positive definite by a few ulps: factored, as PyTorch factors it.

The last pivot of the matrix below is ``a22 - l21^2 = 1.7e-18`` (relative to entries of 0.07), so
LAPACK builds round it to either side: PyTorch's (MKL) factors it (``info`` 0, ``L[1, 1]`` 1e-9),
NumPy's OpenBLAS ``cholesky`` refuses it.  The engine's ``info`` -- potrf's recurrence -- said 0
while its factorization (NumPy's) refused, so ``cholesky_ex`` raised ``LinAlgError`` with
``check_errors=False``, and ``cholesky`` refused a matrix PyTorch's takes.  Now a matrix NumPy
refuses and the recurrence factors is factored by the recurrence.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

EDGE = np.array([[0.06802482097093887, -0.02713192038585051], [-0.02713192038585051, 0.010821654409625275]])


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_factors_a_matrix_definite_by_a_few_ulps(upper, device):
    stack = np.stack([EDGE, np.eye(2), EDGE.T])
    factor, info = mg.linalg.cholesky_ex(mg.tensor(stack, device=device), upper=upper)
    np.testing.assert_array_equal(info.numpy(), [0, 0, 0])  # PyTorch 2.13's info
    f = factor.numpy()
    assert np.isfinite(f).all() and (np.diagonal(f, axis1=-2, axis2=-1) > 0).all()
    lower = np.swapaxes(f, -1, -2) if upper else f
    np.testing.assert_allclose(lower @ np.swapaxes(lower, -1, -2), stack, atol=1e-15)


def test_cholesky_of_it_is_differentiable():
    a = mg.tensor(EDGE, requires_grad=True)
    (g,) = mg.autograd.grad(mg.linalg.cholesky(a).sum(), [a])
    assert np.isfinite(g.numpy()).all()


def test_a_matrix_not_positive_definite_still_reports_its_minor():
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    factor, info = mg.linalg.cholesky_ex(mg.tensor(np.stack([EDGE, bad])))
    np.testing.assert_array_equal(info.numpy(), [0, 2])
    with pytest.raises(mg.linalg.LinAlgError):
        mg.linalg.cholesky(mg.tensor(bad))
