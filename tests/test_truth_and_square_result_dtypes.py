"""The dtypes PyTorch gives ``all``/``any`` of a uint8 tensor and ``square`` of a bool tensor.

torch 2.13: ``all``/``any`` of a uint8 tensor answer uint8 (its byte-mask rule, documented for
``torch.all``; every other dtype answers bool), and ``torch.square`` of a bool tensor is int64
(``pow(x, 2)`` promotes a bool base).  The engine answered bool for both (NumPy's rules).
NumPy's spelling ``x.all(axis=1)`` keeps NumPy's bool.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg

U = [[3, 0, 1], [2, 1, 255]]


@pytest.mark.parametrize("spelling, expected", [
    (lambda u: u.all(), 0),
    (lambda u: u.any(), 1),
    (lambda u: u.all(1), [0, 1]),
    (lambda u: u.any(dim=0, keepdim=True), [[1, 1, 1]]),
    (lambda u: mg.all(u, 1), [0, 1]),
    (lambda u: mg.any(u), 1),
    (lambda u: mg.all(u, dim=(0, 1)), 0),
])
def test_all_and_any_of_uint8_answer_uint8(spelling, expected):
    out = spelling(mg.tensor(U, dtype="uint8"))
    assert out.dtype == mg.uint8 and out.tolist() == expected       # torch 2.13


def test_other_dtypes_and_numpys_spelling_answer_bool():
    u = mg.tensor(U, dtype="uint8")
    assert u.all(axis=1).dtype == mg.bool_ and u.any(axis=0, keepdims=True).dtype == mg.bool_
    for dtype in ("int8", "int64", "float32", "bool"):
        t = mg.tensor(U, dtype="int64").to(dtype)
        assert t.all().dtype == mg.bool_ and mg.any(t, 1).dtype == mg.bool_


def test_the_square_of_a_bool_tensor_is_int64():
    b = mg.tensor([True, False])
    for out in (b.square(), mg.square(b), mg.square(mg.tensor(True))):
        assert out.dtype == mg.int64                                  # torch 2.13
    assert b.square().tolist() == [1, 0]
    assert mg.square(mg.tensor([3], dtype="uint8")).dtype == mg.uint8  # integers keep their dtype
    assert mg.square(mg.tensor([3], dtype="int8")).tolist() == [9]
