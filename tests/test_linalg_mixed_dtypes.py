"""PyTorch's solvers compute in one dtype: two tensors of different dtypes (float64 with int64,
float32 with float64) are refused with its ``RuntimeError`` where the engine promoted them before
(``mg.linalg.solve(float64_A, int64_B)`` answered in float64).

Expected messages: torch 2.13 on the same calls (``torch.linalg.solve(torch.eye(3, dtype=torch.float64),
torch.ones(3, 2, dtype=torch.int64))``, ...).
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

NAMES = {mg.float64: "Double", mg.float32: "Float", mg.int64: "Long", mg.complex128: "ComplexDouble"}
# (device, the matrices' dtype, the other operand's dtype): each pair refused
PAIRS = [("cpu", mg.float64, mg.int64), ("cpu", mg.float64, mg.float32), ("cpu", mg.float32, mg.float64),
         ("cpu", mg.complex128, mg.float64), ("strict", mg.float64, mg.float32), ("strict", mg.float64, mg.int64),
         ("strict-f32", mg.float32, mg.int64)]


def _matrix(dtype, device):
    return mg.tensor(np.eye(3) * 2 + 0.1, dtype=dtype, device=device)


def _ones(shape, dtype, device):
    return mg.ones(*shape, dtype=dtype, device=device)


def _calls(device, first, second):
    """(call, torch's message) for each solver, the matrices in ``first``, the other in ``second``."""
    a, other = _matrix(first, device), _ones((3, 2), second, device)
    f, s = NAMES[first], NAMES[second]
    lu, piv = mg.linalg.lu_factor(a)
    factor = mg.linalg.cholesky(a @ a.mH)
    return [
        (lambda: mg.linalg.solve(a, other),
         f"linalg.solve: Expected A and B to have the same dtype, but found A of type {f} and B of type {s} instead"),
        (lambda: mg.linalg.solve(a, _ones((3,), second, device)),
         f"linalg.solve: Expected A and B to have the same dtype, but found A of type {f} and B of type {s} instead"),
        (lambda: mg.linalg.lstsq(a, other),
         f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype {f} and "
         f"other's dtype {s}"),
        (lambda: mg.linalg.lu_solve(lu, piv, other),
         f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type {f} and B of type {s} "
         "instead"),
        (lambda: mg.linalg.vecdot(a, _ones((3,), second, device)),
         f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type {f} and y of type {s} "
         "instead"),
        (lambda: mg.linalg.householder_product(a, _ones((2,), second, device)),
         f"torch.linalg.householder_product: tau dtype {s} does not match input dtype {f}"),
        (lambda: mg.cholesky_solve(other, factor),
         f"Expected b and A to have the same dtype, but found b of type {s} and A of type {f} instead."),
        (lambda: other.cholesky_solve(factor),
         f"Expected b and A to have the same dtype, but found b of type {s} and A of type {f} instead."),
    ]


@pytest.mark.parametrize("device, first, second", PAIRS, ids=str)
def test_solvers_refuse_two_dtypes_as_pytorch(device, first, second):
    for call, message in _calls(device, first, second):
        with pytest.raises(RuntimeError) as caught:
            call()
        assert str(caught.value) == message


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                           ("strict-f32", mg.float32)])
def test_one_dtype_still_solves(device, dtype):
    a, b = _matrix(dtype, device), _ones((3, 2), dtype, device)
    x = mg.linalg.solve(a, b)
    assert x.dtype == dtype
    np.testing.assert_allclose((a @ x).numpy(), b.numpy(), rtol=1e-5)
    lu, piv = mg.linalg.lu_factor(a)
    np.testing.assert_allclose(mg.linalg.lu_solve(lu, piv, b).numpy(), x.numpy(), rtol=1e-5)
    assert mg.linalg.lstsq(a, b).solution.dtype == dtype


def test_the_kind_of_the_matrix_is_checked_first_where_pytorch_checks_it_first():
    # torch 2.13: solve / lu_solve / vecdot refuse an integer first operand for its kind; lstsq,
    # householder_product and cholesky_solve compare the dtypes first
    ai, b = mg.ones(3, 3, dtype=mg.int64), mg.ones(3, 2, dtype=mg.float64)
    with pytest.raises(RuntimeError, match="^linalg.solve: Expected a floating point or complex tensor as input. "
                                           "Got Long$"):
        mg.linalg.solve(ai, b)
    with pytest.raises(RuntimeError, match="^linalg.vecdot: Expected a floating point or complex tensor"):
        mg.linalg.vecdot(mg.ones(3, dtype=mg.int64), mg.ones(3))
    with pytest.raises(RuntimeError, match="^torch.linalg.lstsq: Expected input and other to have the same dtype, "
                                           "but got input's dtype Long and other's dtype Double$"):
        mg.linalg.lstsq(ai, b)
    with pytest.raises(RuntimeError, match="^torch.linalg.householder_product: tau dtype Double does not match "
                                           "input dtype Long$"):
        mg.linalg.householder_product(ai, mg.ones(2, dtype=mg.float64))
    with pytest.raises(RuntimeError, match=r"^Expected b and A to have the same dtype, but found b of type Double "
                                           r"and A of type Long instead\.$"):
        mg.cholesky_solve(b, ai)


def test_tensorsolve_and_solve_ex_refuse_through_solve():
    a, b = mg.tensor(np.eye(3) * 2), mg.ones(3, dtype=mg.float32)
    with pytest.raises(RuntimeError, match="^linalg.solve: Expected A and B to have the same dtype"):
        mg.linalg.tensorsolve(a, b)
    with pytest.raises(RuntimeError, match="^linalg.solve: Expected A and B to have the same dtype"):
        mg.linalg.solve_ex(a, b)
