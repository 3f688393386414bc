"""Arguments the linear-algebra functions refuse raise PyTorch's exception types.

Found by running PyTorch's ``test_linalg.py`` against the engine: an unknown ``UPLO``, norm order,
``qr`` mode or ``cond`` p, two equal norm dims, ``vander``'s ``N`` below 2, a ``cross`` of 2-vectors,
one tensor for ``multi_dot`` are ``RuntimeError``s in PyTorch, a norm dim past the rank its
``IndexError``, and a string ``ord`` for ``vector_norm`` its ``TypeError``.  The engine raised
NumPy's ``ValueError`` for each, so a handler written for PyTorch missed them.  Each error is now
both (``ValueError`` still catches it, as NumPy's would).
"""

import math

import numpy as np
import pytest

import minigrad_ckpt as mg

EYE = np.eye(3)


def _eye():
    return mg.tensor(EYE)


RUNTIME = {
    "eigh UPLO": lambda: mg.linalg.eigh(_eye(), UPLO="X"),
    "qr mode": lambda: mg.linalg.qr(_eye(), mode="foo"),
    "norm equal dims": lambda: mg.linalg.norm(_eye(), dim=(0, 0)),
    "matrix_norm equal dims": lambda: mg.linalg.matrix_norm(_eye(), dim=(1, 1)),
    "norm three dims": lambda: mg.linalg.norm(mg.ones(2, 2, 2), dim=(0, 1, 2)),
    "norm 'fro' of a vector": lambda: mg.linalg.norm(mg.ones(3), "fro"),
    "norm order 3 of a matrix": lambda: mg.linalg.norm(_eye(), 3),
    "matrix_norm unknown order": lambda: mg.linalg.matrix_norm(_eye(), "foo"),
    "multi_dot of one": lambda: mg.linalg.multi_dot([_eye()]),
    "cond p": lambda: mg.linalg.cond(_eye(), 3),
    "tensorinv ind": lambda: mg.linalg.tensorinv(mg.eye(4), ind=0),
    "linalg.vander N": lambda: mg.linalg.vander(mg.ones(3), N=1),
    "linalg.cross 2-vectors": lambda: mg.linalg.cross(mg.ones(3, 2), mg.ones(3, 2)),
    "cross 2-vectors": lambda: mg.cross(mg.ones(3, 2), mg.ones(3, 2), dim=1),
    "bincount weights' shape": lambda: mg.bincount(mg.tensor([1, 2]), mg.tensor([1.0])),
    "vander of a matrix": lambda: mg.vander(mg.ones(2, 2)),
    "vander negative N": lambda: mg.vander(mg.ones(2), N=-1),
    "lu_unpack pivot 0": lambda: mg.lu_unpack(_eye(), mg.tensor([0, 1, 2], dtype=mg.int32)),
    "lu_solve pivot 0": lambda: mg.linalg.lu_solve(_eye(), mg.tensor([0, 7, 2], dtype=mg.int32), mg.ones(3, 1)),
    "quantile interpolation": lambda: mg.quantile(mg.ones(3), 0.5, interpolation="foo"),
}


@pytest.mark.parametrize("case", sorted(RUNTIME))
def test_refused_argument_is_runtime_error_and_value_error(case):
    with pytest.raises(RuntimeError) as info:
        RUNTIME[case]()
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("call", [
    lambda: mg.linalg.norm(_eye(), dim=(0, 5)),
    lambda: mg.linalg.matrix_norm(_eye(), dim=(0, -4)),
    lambda: mg.linalg.cross(mg.tensor(1.0), mg.tensor(1.0)),
])
def test_dim_past_the_rank_is_index_error(call):
    with pytest.raises(IndexError) as info:
        call()
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("call", [
    lambda: mg.linalg.vector_norm(_eye(), "fro"),
    lambda: mg.linalg.pinv(_eye(), rcond=0.1, rtol=0.1),
])
def test_argument_pytorch_cannot_parse_is_type_error(call):
    with pytest.raises(TypeError) as info:
        call()
    assert isinstance(info.value, ValueError)


def test_valid_arguments_still_answer():
    assert math.isclose(float(mg.linalg.norm(_eye(), dim=(0, 1))), math.sqrt(3))
    assert float(mg.linalg.cond(_eye(), "fro")) == pytest.approx(3.0)


SQUARE_ONLY = {
    "inv": mg.linalg.inv, "det": mg.linalg.det, "slogdet": mg.linalg.slogdet, "eigh": mg.linalg.eigh,
    "cholesky": mg.linalg.cholesky, "matrix_power": lambda a: mg.linalg.matrix_power(a, 2),
}


@pytest.mark.parametrize("name", sorted(SQUARE_ONLY))
def test_a_non_square_or_1_d_input_is_refused_in_pytorchs_words(name):
    # a ported test matches PyTorch's text (assertRaisesRegex); the engine had its own words
    with pytest.raises(RuntimeError, match=f"^linalg.{name}: A must be batches of square matrices, "
                                           "but they are 2 by 3 matrices$"):
        SQUARE_ONLY[name](mg.ones(4, 2, 3, dtype=mg.float64))
    with pytest.raises(RuntimeError, match=f"^linalg.{name}: The input tensor A must have at least 2 dimensions.$"):
        SQUARE_ONLY[name](mg.ones(3, dtype=mg.float64))
