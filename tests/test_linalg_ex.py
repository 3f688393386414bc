"""``mg.linalg``'s PyTorch names that were missing: the ``*_ex`` functions, which report a
failed factorization in ``info`` (LAPACK's code) instead of raising, ``LinAlgError``,
``cross``, ``vander``, ``diagonal``, ``matmul``; ``lu_factor`` refusing a zero pivot and
``cond`` of an empty matrix, as PyTorch's.  Expected values are PyTorch 2.13's, made
offline (the expressions are in the comments)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the "strict" device)

# a singular matrix, an indefinite one, a positive definite one
STACK = np.array([[[4.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                  [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]],
                  [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]])


def test_info_codes_are_pytorchs():
    a = mg.tensor(STACK, dtype="float64")
    # torch.linalg.cholesky_ex(A).info, inv_ex(A).info, lu_factor_ex(A).info, solve_ex(A, ones(3, 3)).info
    assert mg.linalg.cholesky_ex(a).info.tolist() == [2, 2, 0]
    assert mg.linalg.inv_ex(a).info.tolist() == [2, 0, 0]
    assert mg.linalg.lu_factor_ex(a).info.tolist() == [2, 0, 0]
    assert mg.linalg.solve_ex(a, mg.ones((3, 3), dtype="float64")).info.tolist() == [2, 0, 0]
    assert mg.linalg.inv_ex(a).info.dtype == mg.int32
    # torch.linalg.lu_factor_ex(torch.zeros(3, 3)).info == 1; rectangular [[1,2,3],[2,4,6]]: 2
    assert mg.linalg.lu_factor_ex(mg.zeros((3, 3))).info.item() == 1
    assert mg.linalg.lu_factor_ex(mg.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])).info.item() == 2
    # a NaN pivot stops the Cholesky factorization (info 2), not an LU one (info 0)
    nan = mg.tensor([[1.0, 0.0], [0.0, np.nan]])
    assert mg.linalg.cholesky_ex(nan).info.item() == 2 and mg.linalg.inv_ex(nan).info.item() == 0
    assert mg.linalg.inv_ex(mg.zeros((2, 0, 0))).info.tolist() == [0, 0]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_good_matrices_get_the_plain_functions_values_and_bad_ones_nan(device):
    a = mg.tensor(STACK, dtype="float64", device=device)
    inv = mg.linalg.inv_ex(a).inverse.numpy()
    assert np.isnan(inv[0]).all()
    np.testing.assert_array_equal(inv[1:], mg.linalg.inv(a[1:]).numpy())
    low = mg.linalg.cholesky_ex(a).L.numpy()
    assert np.isnan(low[:2]).all()
    np.testing.assert_array_equal(low[2], mg.linalg.cholesky(a[2]).numpy())
    up = mg.linalg.cholesky_ex(a, upper=True).L.numpy()
    np.testing.assert_array_equal(up[2], mg.linalg.cholesky(a[2], upper=True).numpy())
    b = mg.tensor(np.arange(9.0).reshape(3, 3), dtype="float64", device=device)  # a stack of vectors
    x = mg.linalg.solve_ex(a, b).result.numpy()
    assert np.isnan(x[0]).all()
    np.testing.assert_array_equal(x[1:], mg.linalg.solve(a[1:], b[1:]).numpy())


def test_gradients_reach_the_good_matrices_only():
    a = mg.tensor(STACK, dtype="float64", requires_grad=True)
    inv = mg.linalg.inv_ex(a).inverse
    inv[1:].sum().backward()
    assert (a.grad.numpy()[0] == 0).all()
    want = mg.tensor(STACK[1:], dtype="float64", requires_grad=True)
    mg.linalg.inv(want).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy()[1:], want.grad.numpy())
    good = mg.tensor(STACK[2] + 0.3 * np.eye(3), dtype="float64", requires_grad=True)
    for fn in (lambda m: mg.linalg.inv_ex(m).inverse, lambda m: mg.linalg.cholesky_ex(m).L,
               lambda m: mg.linalg.solve_ex(m, mg.ones(3, dtype="float64")).result):
        assert gradcheck(fn, good, modes=("rev", "fwd"))
        assert gradgradcheck(fn, good)


def test_check_errors_raise_pytorchs_messages():
    a = mg.tensor(STACK, dtype="float64")
    with pytest.raises(mg.linalg.LinAlgError, match=r"inv_ex: \(Batch element 0\): The diagonal element 2 is zero"):
        mg.linalg.inv_ex(a, check_errors=True)
    with pytest.raises(mg.linalg.LinAlgError, match="leading minor of order 2 is not positive-definite"):
        mg.linalg.cholesky_ex(a, check_errors=True)
    with pytest.raises(mg.linalg.LinAlgError, match="solve_ex"):
        mg.linalg.solve_ex(a, mg.ones(3, dtype="float64"), check_errors=True)
    # torch.linalg.lu_factor(tensor([[1., 2.], [2., 4.]])) raises; lu_factor_ex returns info 2
    with pytest.raises(mg.linalg.LinAlgError, match=r"U\[2,2\] is zero .* linalg.lu_factor_ex"):
        mg.linalg.lu_factor(mg.tensor([[1.0, 2.0], [2.0, 4.0]]))
    lu, pivots, info = mg.linalg.lu_factor_ex(mg.tensor([[1.0, 2.0], [2.0, 4.0]]))
    np.testing.assert_array_equal(lu.numpy(), [[2.0, 4.0], [0.5, 0.0]])  # torch's LU
    assert pivots.tolist() == [2, 2] and info.item() == 2
    assert issubclass(mg.linalg.LinAlgError, Exception)
    with pytest.raises(mg.linalg.LinAlgError):
        mg.linalg.inv(mg.tensor([[1.0, 2.0], [2.0, 4.0]]))  # the error mg.linalg raises is the one it names


def test_vander_cross_diagonal_matmul_and_cond():
    # torch.linalg.vander(tensor([[1., 2.], [3., 4.]])): increasing powers, batched
    np.testing.assert_array_equal(mg.linalg.vander(mg.tensor([[1.0, 2.0], [3.0, 4.0]])).numpy(),
                                  [[[1.0, 1.0], [1.0, 2.0]], [[1.0, 3.0], [1.0, 4.0]]])
    assert mg.linalg.vander(mg.tensor([1, 2, 3])).dtype == mg.int64
    np.testing.assert_array_equal(mg.linalg.vander(mg.tensor([2.0, 3.0]), N=4).numpy(),
                                  [[1.0, 2.0, 4.0, 8.0], [1.0, 3.0, 9.0, 27.0]])
    with pytest.raises(ValueError, match="N must be greater than 1"):
        mg.linalg.vander(mg.tensor([2.0, 3.0]), N=1)
    with pytest.raises(TypeError, match="but got Bool"):
        mg.linalg.vander(mg.tensor([True, False]))
    x = mg.tensor([0.0, 1.5, -2.0], dtype="float64", requires_grad=True)
    assert gradcheck(lambda t: mg.linalg.vander(t, N=4), x, modes=("rev", "fwd"))
    a, b = np.random.default_rng(0).standard_normal((2, 2, 1, 3)), np.random.default_rng(1).standard_normal((1, 4, 3))
    got = mg.linalg.cross(mg.tensor(a[0]), mg.tensor(b))
    assert got.shape == (2, 4, 3)
    np.testing.assert_allclose(got.numpy(), np.cross(a[0], b), rtol=1e-6)
    with pytest.raises(ValueError, match="same number of dimensions"):
        mg.linalg.cross(mg.ones((2, 3)), mg.ones(3))
    m = mg.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(mg.linalg.diagonal(m, offset=1).numpy(), [1.0, 5.0])
    np.testing.assert_array_equal(mg.linalg.matmul(m, m).numpy(), (m @ m).numpy())
    # torch.linalg.cond(torch.zeros(0, 0)) == 0, and zeros(2, 0, 0) gives [0., 0.]
    assert mg.linalg.cond(mg.zeros((0, 0))).item() == 0.0
    np.testing.assert_array_equal(mg.linalg.cond(mg.zeros((2, 0, 0))).numpy(), [0.0, 0.0])


def test_complex_matrices_report_their_info_too():
    # torch.linalg.inv_ex(tensor([[1+1j, 2], [2+2j, 4]])).info == 2 (its second pivot is 0)
    z = mg.tensor(np.array([[1 + 1j, 2], [2 + 2j, 4]]))
    assert mg.linalg.inv_ex(z).info.item() == 2
    assert np.isnan(mg.linalg.inv_ex(z).inverse.numpy()).all()
    good = mg.tensor(np.array([[2 + 1j, 0.5], [0.5j, 3.0]]))
    assert mg.linalg.inv_ex(good).info.item() == 0
    np.testing.assert_allclose(mg.linalg.inv_ex(good).inverse.numpy(), np.linalg.inv(good.numpy()))
    # torch.linalg.cholesky_ex(tensor([[1, 2j], [-2j, 1]])).info == 2: its determinant is 1 - 4 < 0
    hermitian = mg.tensor(np.array([[1.0, 2j], [-2j, 1.0]]))
    assert mg.linalg.cholesky_ex(hermitian).info.item() == 2


def test_lu_factor_names_the_first_failed_matrixs_pivot():
    # the first matrix factors, the second's U[1, 1] is zero: torch.linalg.lu_factor(that stack) says
    # "(Batch element 1): U[1,1] is zero and using it on lu_solve would result in a division by zero. ..."
    stack = mg.tensor([[[2.0, 1.0], [1.0, 3.0]], [[0.0, 0.0], [0.0, 1.0]]])
    with pytest.raises(mg.linalg.LinAlgError, match=r"lu_factor: \(Batch element 1\): U\[1,1\] is zero"):
        mg.linalg.lu_factor(stack)
    assert mg.linalg.lu_factor_ex(stack).info.tolist() == [0, 1]
