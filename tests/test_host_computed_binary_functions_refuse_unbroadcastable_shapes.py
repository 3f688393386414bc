"""Operands whose shapes do not broadcast, given to the binary functions computed on the arrays
themselves rather than recorded as ops -- ``gcd``, ``lcm``, ``bitwise_and``/``or``/``xor`` (``&``,
``|``, ``^``), ``bitwise_left_shift``/``right_shift`` (``<<``, ``>>``), ``nextafter`` and ``isclose``:
PyTorch's RuntimeError ("The size of tensor a (3) must match the size of tensor b (4) at
non-singleton dimension 1"), as every recorded op here answers.  These raised NumPy's ValueError
("operands could not be broadcast together with shapes (2,3) (4,)").  Found running PyTorch's
test_binary_ufuncs (``test_not_broadcastable``) against the engine.

Expected answers: torch 2.13 on the same calls (its message, here with the shapes appended).
"""
from __future__ import annotations

import operator

import pytest

import minigrad_ckpt as mg

INTEGER = ["gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]
FLOAT = ["nextafter", "isclose"]
OPERATORS = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift, operator.iand,
             operator.ilshift]
SHAPES = [((2,), (3,)), ((3, 1), (2, 1)), ((1, 3, 2), (3,)), ((3, 1, 2), (2, 1, 2))]
MESSAGE = r"The size of tensor a \(\d\) must match the size of tensor b \(\d\) at non-singleton dimension \d"


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("name", INTEGER + FLOAT)
def test_functions(name, shapes):
    dtype = mg.int64 if name in INTEGER else mg.float32
    a, b = (mg.ones(s, dtype=dtype) for s in shapes)
    with pytest.raises(RuntimeError, match=MESSAGE):
        getattr(mg, name)(a, b)


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("op", OPERATORS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [mg.int32, mg.bool], ids=str)
def test_operators(op, dtype, shapes):
    if dtype == mg.bool and op in (operator.lshift, operator.rshift, operator.ilshift):
        pytest.skip("bool << bool has no kernel (PyTorch's NotImplementedError)")
    a, b = (mg.ones(s, dtype=dtype) for s in shapes)
    with pytest.raises(RuntimeError, match=MESSAGE):
        op(a, b)


def test_shapes_that_broadcast_still_answer():
    a, b = mg.tensor([[12], [18]]), mg.tensor([8, 27])
    assert mg.gcd(a, b).tolist() == [[4, 3], [2, 9]]
    assert (a & b).tolist() == [[8, 8], [0, 18]]
    assert mg.isclose(mg.ones(2, 1), mg.ones(3)).shape == (2, 3)
