"""An object that is neither a tensor, a number nor an array beside a Tensor operator: PyTorch's
operators hand it back to Python (``NotImplemented``), so Python asks the object itself -- its
``__radd__``, ``__rmul__``, ``__gt__`` for ``t < obj`` -- and, failing that, raises its own TypeError
("unsupported operand type(s) for +: 'Tensor' and 'NoneType'").  The engine tried to read the
object as data and raised first (``Could not infer dtype of ...``, or an ``AttributeError`` from
``t += obj``), so a class with reflected operators -- a unit, a symbolic expression, a lazy
wrapper -- never met a tensor.  Found by PyTorch's test_binary_ufuncs (its ``test_<op>_not_implemented``,
one per operator).

Expected answers: torch 2.13 on the same calls (``torch.ones(2) + Reflecting()`` is the object's
``__radd__``'s answer; ``torch.ones(2) + None`` Python's TypeError; ``t.__iadd__(None)`` is
``NotImplemented``).
"""
from __future__ import annotations

import operator
from fractions import Fraction

import numpy as np
import pytest

import minigrad_ckpt as mg

# (operator, the method Python asks the right operand for when the tensor's hands it back)
REFLECTED = [(operator.add, "__radd__"), (operator.sub, "__rsub__"), (operator.mul, "__rmul__"),
             (operator.truediv, "__rtruediv__"), (operator.floordiv, "__rfloordiv__"), (operator.mod, "__rmod__"),
             (operator.pow, "__rpow__"), (operator.matmul, "__rmatmul__"), (operator.and_, "__rand__"),
             (operator.or_, "__ror__"), (operator.xor, "__rxor__"), (operator.lshift, "__rlshift__"),
             (operator.rshift, "__rrshift__"), (operator.lt, "__gt__"), (operator.le, "__ge__"),
             (operator.gt, "__lt__"), (operator.ge, "__le__")]
IN_PLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv, operator.imod,
            operator.ipow, operator.iand, operator.ior, operator.ixor, operator.ilshift, operator.irshift]
# (a str or a Fraction has reflected operators of its own: ``"a" * t`` asks ``t.__index__``, and
# ``t ** Fraction(1, 2)`` is the Fraction's ``__rpow__``, ``t ** 0.5`` -- Python's answers, as with torch)
FOREIGN = [None, object()]
DEVICES = [("cpu", mg.int64), ("cpu", mg.float32), ("strict", mg.float64)]


class Reflecting:
    """An operand that answers every reflected operator with its name."""

    def __getattr__(self, name):
        if name.startswith("__r") or name in ("__gt__", "__ge__", "__lt__", "__le__"):
            return lambda other: name
        raise AttributeError(name)


for _, _name in REFLECTED:  # (Python looks special methods up on the class, not through __getattr__)
    setattr(Reflecting, _name, (lambda n: lambda self, other: n)(_name))


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


def _ones(device, dtype):
    return mg.ones(2, dtype=dtype, device=device)


@pytest.mark.parametrize("op, reflected", REFLECTED, ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
def test_the_other_operands_reflected_operator_answers(op, reflected, device, dtype):
    assert op(_ones(device, dtype), Reflecting()) == reflected


@pytest.mark.parametrize("op, reflected", REFLECTED, ids=lambda v: getattr(v, "__name__", v))
@pytest.mark.parametrize("other", FOREIGN, ids=lambda v: type(v).__name__)
def test_an_object_no_one_can_read_is_pythons_type_error(op, reflected, other):
    t = mg.ones(2, dtype=mg.int64)
    for a, b in ((t, other), (other, t)):
        with pytest.raises(TypeError, match="not supported|unsupported operand|concatenate"):
            op(a, b)


@pytest.mark.parametrize("op", IN_PLACE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("other", FOREIGN, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
def test_in_place_operators_hand_it_back_and_leave_the_tensor(op, other, device, dtype):
    t = _ones(device, dtype)
    version = t._version
    with pytest.raises(TypeError, match="unsupported operand"):
        op(t, other)
    assert t._version == version and t.tolist() == [1, 1]


def test_equality_with_such_an_object_is_pythons_identity_test():
    t = mg.ones(2)
    assert (t == None) is False and (t != object()) is True  # noqa: E711
    assert (t == Fraction(1, 2)) is False


def test_a_fraction_answers_by_its_own_reflected_operators():
    t = mg.tensor([4.0, 9.0])
    assert (t ** Fraction(1, 2)).tolist() == [2.0, 3.0]  # Fraction.__rpow__: t ** 0.5
    with pytest.raises(TypeError, match="unsupported operand"):
        t + Fraction(1, 2)


@pytest.mark.parametrize("other", [2, 2.5, True, np.float64(2.0), np.int8(3), np.ones(2), mg.ones(2)],
                         ids=lambda v: type(v).__name__)
def test_numbers_and_arrays_are_still_read(other):
    t = mg.ones(2)
    assert (t + other).tolist() == (np.ones(2) + np.asarray(other, dtype=float)).tolist()
    assert (t < other).dtype == mg.bool
