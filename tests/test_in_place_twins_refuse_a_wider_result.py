"""An in-place twin whose operand is wider than the tensor (``x.pow_(y)`` with ``x`` of shape
``(2, 1)`` and ``y`` of ``(2, 2)``): PyTorch's RuntimeError, "output with shape [2, 1] doesn't match
the broadcast shape [2, 2]", before anything is written.  ``add_``/``sub_``/``mul_``/``div_`` said so;
the other twins (``pow_``, ``fmod_``, ``atan2_``, ``eq_``, ``bitwise_and_``, ... and the operators
``**=``, ``//=``, ``%=``, ``&=``, ``<<=``), and ``copy_`` under them all, raised NumPy's ValueError
("could not broadcast input array from shape (2,2) into shape (2,1)") where the dims are as many
and one is larger (``copy_`` refused only more dims), and ``copy_`` of a source that does not
broadcast at all NumPy's ValueError too.  Found running PyTorch's test_binary_ufuncs
(``test_pow_inplace_resizing_exception``) against the engine.

Expected answers: torch 2.13 on the same calls (the messages below are its own).
"""
from __future__ import annotations

import operator

import pytest

import minigrad_ckpt as mg

FLOAT_TWINS = ["pow_", "fmod_", "remainder_", "atan2_", "arctan2_", "hypot_", "copysign_", "nextafter_", "xlogy_",
               "float_power_", "eq_", "lt_", "ge_", "logical_and_", "logical_xor_", "floor_divide_", "heaviside_",
               "igamma_", "igammac_", "true_divide_", "maximum", "fmax"]
INTEGER_TWINS = ["bitwise_and_", "bitwise_or_", "bitwise_xor_", "gcd_", "lcm_", "bitwise_left_shift_",
                 "bitwise_right_shift_", "fmod_", "remainder_", "floor_divide_", "pow_"]
OPERATORS = [operator.ipow, operator.ifloordiv, operator.imod, operator.iand, operator.ior, operator.ixor,
             operator.ilshift, operator.irshift, operator.iadd, operator.imul]
SHAPES = [((2, 1), (2, 2)), ((), (3,)), ((2,), (1, 2)), ((2, 2), (2, 1, 1))]


def _pair(shapes, dtype):
    x = mg.ones(shapes[0], dtype=dtype) * 2
    y = mg.ones(shapes[1], dtype=dtype)
    return x, y


def _message(shapes):
    x_shape, y_shape = shapes
    def listed(shape):
        return r"\[" + ", ".join(map(str, shape)) + r"\]"
    return f"output with shape {listed(x_shape)} doesn't match the broadcast shape " \
           f"{listed(mg.broadcast_shapes(x_shape, y_shape))}"


def _refused_and_unchanged(call, x, shapes):
    version, before = x._version, x.tolist()
    with pytest.raises(RuntimeError, match=_message(shapes)):
        call()
    assert x._version == version and x.tolist() == before


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("name", [n for n in FLOAT_TWINS if n.endswith("_")])
def test_float_twins(name, shapes):
    x, y = _pair(shapes, mg.float64)
    _refused_and_unchanged(lambda: getattr(x, name)(y), x, shapes)


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("name", INTEGER_TWINS)
def test_integer_twins(name, shapes):
    x, y = _pair(shapes, mg.int64)
    _refused_and_unchanged(lambda: getattr(x, name)(y), x, shapes)


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("op", OPERATORS, ids=lambda f: f.__name__)
def test_augmented_assignments(op, shapes):
    x, y = _pair(shapes, mg.int64)
    _refused_and_unchanged(lambda: op(x, y), x, shapes)


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_on_the_tape_too(shapes):
    leaf = mg.ones(shapes[0], dtype=mg.float64, requires_grad=True)
    x = leaf * 2
    y = mg.ones(shapes[1], dtype=mg.float64, requires_grad=True)
    _refused_and_unchanged(lambda: x.pow_(y), x, shapes)


def test_a_narrower_operand_still_broadcasts():
    x = mg.ones((2, 3), dtype=mg.float64) * 2
    x.pow_(mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64))
    assert x.tolist() == [[2.0, 4.0, 8.0]] * 2
    x.fmod_(mg.tensor(3.0, dtype=mg.float64))
    assert x.tolist() == [[2.0, 1.0, 2.0]] * 2


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_copy_(shapes):
    x, y = _pair(shapes, mg.float32)
    _refused_and_unchanged(lambda: x.copy_(y), x, shapes)


@pytest.mark.parametrize("shapes", [((3,), (2,)), ((2, 2), (3, 2))], ids=str)
def test_copy_of_a_source_that_does_not_broadcast(shapes):
    x, y = _pair(shapes, mg.float32)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(\d\) must match the size of tensor b \(\d\)"):
        x.copy_(y)
