"""``mg.linalg`` refuses the shapes it cannot take with PyTorch's ``RuntimeError``: a matrix that is
not square, fewer than 2 dimensions, shapes that do not fit each other.  They were ``ValueError``s,
which ``except RuntimeError`` (PyTorch code's) does not catch; they are ``InputMismatch`` now,
both (so NumPy-style handlers still catch them).  torch 2.13 raises ``RuntimeError`` for each of
these calls (``torch.linalg.inv(torch.zeros(2, 3))``: "linalg.inv: A must be batches of square
matrices, but they are 2 by 3 matrices").
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.functional.errors import InputMismatch

L = mg.linalg
WIDE, VECTOR = mg.zeros(2, 3), mg.zeros(3)
CALLS = {
    "inv of a wide matrix": lambda: L.inv(WIDE),
    "inv of a vector": lambda: L.inv(VECTOR),
    "det of a wide matrix": lambda: L.det(WIDE),
    "slogdet of a wide matrix": lambda: L.slogdet(WIDE),
    "cholesky of a wide matrix": lambda: L.cholesky(WIDE),
    "eigh of a wide matrix": lambda: L.eigh(WIDE),
    "eigvalsh of a wide matrix": lambda: L.eigvalsh(WIDE),
    "matrix_power of a wide matrix": lambda: L.matrix_power(WIDE, 2),
    "matrix_exp of a wide matrix": lambda: L.matrix_exp(WIDE),
    "inv_ex of a wide matrix": lambda: L.inv_ex(WIDE),
    "cholesky_ex of a wide matrix": lambda: L.cholesky_ex(WIDE),
    "solve of a wide matrix": lambda: L.solve(WIDE, mg.zeros(2)),
    "solve of unfit shapes": lambda: L.solve(mg.eye(3), mg.zeros(2)),
    "svd of a vector": lambda: L.svd(VECTOR),
    "qr of a vector": lambda: L.qr(VECTOR),
    "matrix_norm of a vector": lambda: L.matrix_norm(VECTOR),
    "matrix_rank of a vector": lambda: L.matrix_rank(VECTOR),
    "cond of a vector": lambda: L.cond(VECTOR),
    "cond 1 of a wide matrix": lambda: L.cond(mg.ones(2, 3), 1),
    "lstsq of unfit shapes": lambda: L.lstsq(mg.eye(3), mg.zeros(2, 1)),
    "multi_dot of stacks": lambda: L.multi_dot([mg.zeros(2, 3, 3), mg.zeros(2, 3, 3)]),
    "multi_dot of unchained shapes": lambda: L.multi_dot([mg.zeros(3, 3), mg.zeros(2, 3)]),
    "householder_product of a wide matrix": lambda: L.householder_product(WIDE, mg.ones(2)),
    "ldl_factor of a wide matrix": lambda: L.ldl_factor(WIDE),
    "lu_factor of a vector": lambda: L.lu_factor(VECTOR),
    "cholesky_inverse of a wide matrix": lambda: L.cholesky_inverse(WIDE),
    "tensorsolve of unfit shapes": lambda: L.tensorsolve(mg.ones(2, 3, 4), mg.ones(2, 3)),
    "cross of different ranks": lambda: L.cross(mg.ones(2, 3), mg.ones(3)),
    # PyTorch's cross without a dim (test_torch.py's test_cross_validation): the search for a dim of
    # size 3 broadcast the shapes with NumPy, whose ValueError escaped as no RuntimeError
    "method cross of different ranks": lambda: mg.rand(100, 3).cross(mg.rand(100, 3, 10)),
    "method cross of shapes that do not broadcast": lambda: mg.rand(5, 3).cross(mg.rand(3, 5)),
    "cross dim=None of shapes that do not broadcast": lambda: mg.cross(mg.rand(5, 3), mg.rand(3, 5), dim=None),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_is_torchs_runtime_error_and_still_a_value_error(name):
    with pytest.raises(RuntimeError) as info:
        CALLS[name]()
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, InputMismatch) or type(info.value).__name__ == "LinAlgError"
