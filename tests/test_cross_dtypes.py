"""PyTorch's cross product computes in one dtype: ``mg.linalg.cross(a, b)``, ``mg.cross(a, b, dim=d)`` and
``a.cross(b)`` / ``a.cross(b, dim=d)`` refuse two dtypes with its ``RuntimeError`` ("expected scalar type
Float but found Long"), where the engine promoted them (float32 with int64 was float32, float32 with
float64 float64).  Found by a variant of aladdinpersson's tensor tour beside the matrix products, which
already refuse (``tests/test_matrix_product_dtypes.py``).  ``mg.cross(a, b)`` without ``dim=``, NumPy's
function, keeps NumPy's promotion.

Expected words: torch 2.13 on the same calls.
"""
from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg

CASES = [
    (mg.float32, mg.int64, "expected scalar type Float but found Long"),
    (mg.float64, mg.float32, "expected scalar type Double but found Float"),
    (mg.int32, mg.int64, "expected scalar type Int but found Long"),
    (mg.int64, mg.float64, "expected scalar type Long but found Double"),
    (mg.float16, mg.float32, "expected scalar type Half but found Float"),
]


@pytest.mark.parametrize("da, db, words", CASES)
def test_pytorchs_cross_spellings_refuse_two_dtypes(da, db, words):
    a, b = mg.ones((2, 3), dtype=da), mg.ones((1, 3), dtype=db)
    spellings = (lambda: mg.linalg.cross(a, b), lambda: mg.cross(a, b, dim=1), lambda: a.cross(b, dim=-1),
                 lambda: a.cross(b), lambda: mg.linalg.cross(a, b, dim=-1))
    for spelling in spellings:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a.cross(b): the deprecation of the missing dim)
            with pytest.raises(RuntimeError) as caught:
                spelling()
        assert str(caught.value) == words


def test_one_dtype_still_crosses_and_numpys_function_still_promotes():
    a = mg.tensor([[1.0, 0.0, 0.0]])
    b = mg.tensor([[0.0, 1.0, 0.0]])
    assert mg.linalg.cross(a, b).tolist() == [[0.0, 0.0, 1.0]]
    assert a.cross(b, dim=1).dtype == mg.float32
    assert mg.cross(a, b.double()).dtype == mg.float64  # NumPy's np.cross promotes


def test_numpys_cross_promotes_whatever_the_operands_ranks():
    """``mg.cross`` of a float32 ``(2, 3)`` and a float64 ``(3,)`` was float32 (NumPy's: float64): the
    1-d operand's components were 0-d tensors, which do not promote a vector (found by a cold review
    probing every cross spelling with mixed dtypes and ranks)."""
    a = mg.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    b = mg.tensor([4.0, 5.0, 7.0], dtype=mg.float64)
    got = mg.cross(a, b)
    assert got.dtype == mg.float64 and mg.cross(b, a).dtype == mg.float64
    assert got.tolist() == [[-1.0, 5.0, -3.0], [7.0, 0.0, -4.0]]  # np.cross's
    assert mg.cross(b, b).dtype == mg.float64 and mg.cross(a[0], b).dtype == mg.float64
