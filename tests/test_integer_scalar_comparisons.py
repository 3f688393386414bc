"""A Python int compared with an integer tensor takes the tensor's dtype first, wrapping as
PyTorch casts it: ``uint8_tensor >= -3`` compares with 253.  (NumPy compares the exact numbers.)

Expected values are torch 2.13's (CPU), written in; each comment names the torch expression.
"""

import pytest

import minigrad_ckpt as mg

U8 = [0, 3, 253, 255]

# torch: u <op> -3 and u <op> 300 for u = tensor(U8, dtype=uint8) (-3 is 253, 300 is 44)
CASES = [
    (lambda u, s: u >= s, [False, False, True, True], [False, False, True, True]),
    (lambda u, s: u > s, [False, False, False, True], [False, False, True, True]),
    (lambda u, s: u < s, [True, True, False, False], [True, True, False, False]),
    (lambda u, s: u <= s, [True, True, True, False], [True, True, False, False]),
    (lambda u, s: u == s, [False, False, True, False], [False, False, False, False]),
    (lambda u, s: u != s, [True, True, False, True], [True, True, True, True]),
]


@pytest.mark.parametrize("compare, minus_three, three_hundred", CASES)
def test_unsigned_tensor_with_an_int_out_of_its_range(compare, minus_three, three_hundred):
    u = mg.tensor(U8, dtype=mg.uint8)
    assert compare(u, -3).tolist() == minus_three
    assert compare(u, 300).tolist() == three_hundred


def test_the_functions_methods_and_either_side():
    u = mg.tensor(U8, dtype=mg.uint8)
    assert mg.greater_equal(u, -3).tolist() == [False, False, True, True]  # torch.ge(u, -3)
    assert u.ge(-3).tolist() == [False, False, True, True]
    assert u.eq(-3).tolist() == [False, False, True, False]  # torch: u.eq(-3)
    assert (-3 <= u).tolist() == [False, False, True, True]  # torch: -3 <= u
    assert mg.less(-3, u).tolist() == [False, False, False, True]  # torch: -3 < u


def test_signed_and_wide_integers_and_what_does_not_wrap():
    i8 = mg.tensor([-128, 0, 127], dtype=mg.int8)
    assert (i8 > 200).tolist() == [False, True, True]  # torch: i8 > 200 (200 is -56)
    assert (i8 < -200).tolist() == [True, True, False]  # -200 is 56
    assert (i8 == 384).tolist() == [True, False, False]  # 384 is -128
    i32 = mg.tensor([0], dtype=mg.int32)
    assert (i32 > 2**32).tolist() == [False] and (i32 == 2**32).tolist() == [True]  # 2**32 is 0
    u = mg.tensor(U8, dtype=mg.uint8)
    assert (u >= -3.0).tolist() == [True, True, True, True]  # torch: a float compares as a float
    assert (mg.tensor([True, False]) > -1).tolist() == [True, True]  # torch: bools promote, no wrap
