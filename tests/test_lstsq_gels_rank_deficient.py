"""``mg.linalg.lstsq(a, b, driver="gels")`` of an exactly rank-deficient matrix is PyTorch's LinAlgError.

LAPACK's ``gels`` solves by QR without pivoting (LQ for a wide matrix) and refuses a triangle with
an exact zero on its diagonal; torch 2.13 raises. The engine answered the minimum-norm solution
silently. Found porting torchaudio's ``InverseMelScale`` (``driver="gels"``, its default), whose
filterbank can hold an all-zero filter. The messages are torch 2.13's.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

TORCH_WIDE = ("torch.linalg.lstsq: The least squares solution could not be computed because the input matrix "
              "does not have full rank (error code: 3).")
TORCH_TALL = ("torch.linalg.lstsq: The least squares solution could not be computed because the input matrix "
              "does not have full rank (error code: 2).")
TORCH_BATCH = ("torch.linalg.lstsq: (Batch element 1): The least squares solution could not be computed because "
               "the input matrix does not have full rank (error code: 3).")


def wide_with_zero_row() -> np.ndarray:
    a = np.random.default_rng(0).standard_normal((5, 8))
    a[2] = 0
    return a


def test_wide_matrix_with_a_zero_row():
    with pytest.raises(mg.linalg.LinAlgError) as caught:
        mg.linalg.lstsq(mg.tensor(wide_with_zero_row()), mg.ones(5, 3, dtype=mg.float64), driver="gels")
    assert str(caught.value) == TORCH_WIDE
    assert isinstance(caught.value, RuntimeError)


def test_tall_matrix_with_a_zero_column():
    a = np.random.default_rng(1).standard_normal((8, 5))
    a[:, 1] = 0
    with pytest.raises(RuntimeError) as caught:
        mg.linalg.lstsq(mg.tensor(a), mg.ones(8, 3, dtype=mg.float64), driver="gels")
    assert str(caught.value) == TORCH_TALL


def test_batch_names_the_failing_matrix():
    a = np.stack([np.random.default_rng(2).standard_normal((5, 8)), wide_with_zero_row()])
    with pytest.raises(RuntimeError) as caught:
        mg.linalg.lstsq(mg.tensor(a), mg.ones(2, 5, 3, dtype=mg.float64), driver="gels")
    assert str(caught.value) == TORCH_BATCH


@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss"])
def test_rank_revealing_drivers_still_answer(driver):
    a = wide_with_zero_row()
    out = mg.linalg.lstsq(mg.tensor(a), mg.ones(5, 3, dtype=mg.float64), driver=driver)
    np.testing.assert_allclose(out.solution.numpy(), np.linalg.pinv(a) @ np.ones((5, 3)), atol=1e-12)


def test_full_rank_gels_unchanged():
    a = np.random.default_rng(3).standard_normal((8, 5))
    b = np.random.default_rng(4).standard_normal((8, 2))
    x = mg.linalg.lstsq(mg.tensor(a), mg.tensor(b), driver="gels").solution.numpy()
    np.testing.assert_allclose(x, np.linalg.lstsq(a, b, rcond=None)[0], atol=1e-12)


def test_a_stack_of_one_names_no_batch_element():
    # torch 2.13: a (1, 5, 8) matrix, broadcast against a (2, 5, 3) right side too, as InverseMelScale's
    # fb.transpose(-1, -2)[None] of a filterbank with an all-zero filter
    a = mg.tensor(wide_with_zero_row()[None])
    for b in (mg.ones(1, 5, 3, dtype=mg.float64), mg.ones(2, 5, 3, dtype=mg.float64)):
        with pytest.raises(RuntimeError) as caught:
            mg.linalg.lstsq(a, b, driver="gels")
        assert str(caught.value) == TORCH_WIDE


@pytest.mark.parametrize("shape", [(2, 2), (3, 2), (2, 3)])
def test_an_all_zero_matrix_is_the_zero_solution(shape):
    # LAPACK's gels returns the zero solution for an all-zero matrix before it factors (torch 2.13:
    # solution zeros, no error), alone or in a stack beside full-rank matrices
    b = mg.ones(shape[0], 1, dtype=mg.float64)
    out = mg.linalg.lstsq(mg.zeros(*shape, dtype=mg.float64), b, driver="gels")
    np.testing.assert_array_equal(out.solution.numpy(), np.zeros((shape[1], 1)))
    stack = np.stack([np.zeros(shape), np.eye(*shape)])
    out = mg.linalg.lstsq(mg.tensor(stack), mg.ones(2, shape[0], 1, dtype=mg.float64), driver="gels")
    np.testing.assert_array_equal(out.solution.numpy()[0], np.zeros((shape[1], 1)))


def test_a_tall_all_zero_matrix_has_gels_residuals_of_zero():
    # torch 2.13: gels zeroes the whole right side of an all-zero matrix, and fills residuals for every
    # tall matrix: residuals [0.] for a (3, 2) zero matrix and b = ones(3); [[0.], [r]] in a stack beside
    # a full-rank matrix (its own residual r). The engine answered empty residuals (its rank test failed)
    out = mg.linalg.lstsq(mg.zeros(3, 2, dtype=mg.float64), mg.ones(3, dtype=mg.float64), driver="gels")
    assert out.residuals.numpy().tolist() == [0.0]
    full = np.random.default_rng(5).standard_normal((3, 2))
    a = np.stack([np.zeros((3, 2)), full])
    out = mg.linalg.lstsq(mg.tensor(a), mg.ones(2, 3, 1, dtype=mg.float64), driver="gels")
    x = np.linalg.lstsq(full, np.ones((3, 1)), rcond=None)[0]
    expected = [[0.0], [float(((full @ x - 1) ** 2).sum())]]
    np.testing.assert_allclose(out.residuals.numpy(), expected, rtol=1e-12, atol=0)
