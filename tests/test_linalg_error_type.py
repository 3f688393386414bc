"""A matrix ``inv``, ``solve`` or ``cholesky`` cannot take raises PyTorch's ``LinAlgError`` -- a
``RuntimeError`` -- in PyTorch's words, naming the batch element and LAPACK's pivot or minor.  It
was NumPy's ``LinAlgError`` (a ``ValueError``, "Singular matrix"), which ``except RuntimeError``
(PyTorch code's) does not catch.  ``mg.linalg.LinAlgError`` is NumPy's as well, so code written
against NumPy still catches it; the ``_ex`` functions' ``check_errors=True`` and ``lu_factor``,
``ldl_factor`` raise the same type.  An SVD of a matrix with a NaN (``svd``, ``svdvals``, ``pinv``,
and the norms, ranks and condition numbers built on them) is the same error, as PyTorch's.

Each expected message is torch 2.13's (CPU), written in.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

L = mg.linalg
SINGULAR, NOT_PD = [[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0], [2.0, 1.0]]
EYE = [[1.0, 0.0], [0.0, 1.0]]
WITH_NAN = [[float("nan"), 0.0], [0.0, 1.0]]
SVD = "The algorithm failed to converge because the input matrix contained non-finite values."
INV = ("The diagonal element 2 is zero, the inversion could not be completed because the input matrix is "
       "singular.")
SOLVE = "The solver failed because the input matrix is singular."
CHOL = ("The factorization could not be completed because the input is not positive-definite (the leading "
        "minor of order 2 is not positive-definite).")
CASES = [  # torch.linalg.<f>(A) (solve: with b = ones(A.shape[:-1])); str() of the error
    ("inv", lambda a: L.inv(a), SINGULAR, "linalg.inv: " + INV),
    ("inverse", lambda a: mg.inverse(a), SINGULAR, "linalg.inv: " + INV),
    ("solve", lambda a: L.solve(a, mg.ones(a.shape[:-1], dtype=a.dtype, device=a.device)), SINGULAR,
     "torch.linalg.solve: " + SOLVE),
    ("cholesky", lambda a: L.cholesky(a), NOT_PD, "linalg.cholesky: " + CHOL),
    ("cholesky(upper=True)", lambda a: L.cholesky(a, upper=True), NOT_PD, "linalg.cholesky: " + CHOL),
    ("inv, batched", lambda a: L.inv(a), [EYE, SINGULAR], "linalg.inv: (Batch element 1): " + INV),
    ("solve, batched", lambda a: L.solve(a, mg.ones(a.shape[:-1], dtype=a.dtype, device=a.device)),
     [EYE, SINGULAR], "torch.linalg.solve: (Batch element 1): " + SOLVE),
    ("cholesky, batched", lambda a: L.cholesky(a), [EYE, NOT_PD], "linalg.cholesky: (Batch element 1): " + CHOL),
    ("inv_ex(check_errors=True)", lambda a: L.inv_ex(a, check_errors=True), SINGULAR, "linalg.inv_ex: " + INV),
    ("cholesky_ex(check_errors=True)", lambda a: L.cholesky_ex(a, check_errors=True), NOT_PD,
     "linalg.cholesky_ex: " + CHOL),
    ("svd", lambda a: L.svd(a), WITH_NAN, "linalg.svd: " + SVD),
    ("svdvals, batched", lambda a: L.svdvals(a), [EYE, WITH_NAN], "linalg.svd: (Batch element 1): " + SVD),
    ("pinv", lambda a: L.pinv(a), WITH_NAN, "linalg.svd: " + SVD),
    ("matrix_norm(ord=2)", lambda a: L.matrix_norm(a, 2), WITH_NAN, "linalg.svd: " + SVD),
    ("matrix_rank", lambda a: L.matrix_rank(a), WITH_NAN, "linalg.svd: " + SVD),
    ("cond", lambda a: L.cond(a), WITH_NAN, "linalg.svd: " + SVD),
]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name, call, matrix, message", CASES, ids=[c[0] for c in CASES])
def test_pytorchs_error_in_pytorchs_words(name, call, matrix, message, dtype, device):
    a = mg.tensor(matrix, dtype=dtype, device=device, requires_grad=True)
    with pytest.raises(RuntimeError) as caught:
        call(a)
    assert isinstance(caught.value, L.LinAlgError) and isinstance(caught.value, np.linalg.LinAlgError)
    assert str(caught.value) == message


def test_the_other_factorizations_raise_the_same_type():
    with pytest.raises(L.LinAlgError) as caught:
        L.lu_factor(mg.tensor([[0.0, 1.0], [0.0, 1.0]]))
    assert isinstance(caught.value, RuntimeError)
    with pytest.raises(RuntimeError, match="D is singular"):
        L.ldl_factor(mg.zeros(2, 2))


def test_under_transforms_the_error_is_the_same():
    a = mg.tensor([EYE, SINGULAR])
    with pytest.raises(L.LinAlgError):
        mg.func.vmap(L.inv)(a)
    with pytest.raises(RuntimeError, match="not positive-definite"):
        mg.func.grad(lambda m: L.cholesky(m).sum())(mg.tensor(NOT_PD))


def test_a_regular_matrix_is_unaffected():
    a = mg.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    L.inv(a).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), -np.linalg.inv([[2.0, 1.0], [1.0, 3.0]]).sum(0)[:, None]
                               * np.linalg.inv([[2.0, 1.0], [1.0, 3.0]]).sum(1)[None, :], rtol=1e-6)



def test_a_singular_triangle_solves_to_ieee_values_not_an_error():
    # PyTorch's trsm divides by the zero: forward substitution of [[0, 0], [1, 2]] x = [1, 1] is
    # x0 = 1 / 0 = inf, x1 = (1 - inf) / 2 = -inf (torch 2.13); the general solve's refusal, which
    # this test once asked to name solve_triangular, is gone (tests/test_linalg_extremes.py)
    x = L.solve_triangular(mg.tensor([[0.0, 0.0], [1.0, 2.0]]), mg.ones(2, 1), upper=False)
    assert x.numpy().tolist() == [[np.inf], [-np.inf]]
