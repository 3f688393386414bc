"""A Python list or tuple beside a Tensor operator: PyTorch's operators take a tensor or a number
and hand a sequence back to Python, so ``t == [1, 2]`` is Python's identity test (False, not an
elementwise mask), ``t != (1, 2)`` True, and ``t + [1, 2]``, ``t < (1, 2)``, ``t += [1, 2]``
Python's TypeError; its methods of two operands (``t.add([1, 2])``, ``t.eq(...)``, ``t.add_(...)``)
a TypeError too.  The engine read the sequence as an array, as NumPy does.

Expected answers: torch 2.13 on the same calls (``torch.ones(2) == [1, 2]`` is ``False``,
``torch.ones(2) < [1, 2]`` a TypeError, ``torch.tensor(2) * [1, 2]`` is ``[1, 2, 1, 2]``).
"""
from __future__ import annotations

import operator

import numpy as np
import pytest

import minigrad_ckpt as mg

ARITHMETIC = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
              operator.pow, operator.matmul, operator.and_, operator.or_, operator.xor, operator.lshift,
              operator.rshift, operator.lt, operator.le, operator.gt, operator.ge]
IN_PLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv, operator.imod,
            operator.ipow, operator.iand, operator.ior, operator.ixor, operator.ilshift, operator.irshift]
SEQUENCES = [[1, 2], (1, 2), [[1, 2]], mg.Size([1, 2])]
DEVICES = [("cpu", mg.int64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


def _ones(device, dtype):
    return mg.ones(2, dtype=dtype, device=device)


@pytest.mark.parametrize("seq", SEQUENCES, ids=repr)
@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
def test_equality_with_a_sequence_is_pythons_identity_test(seq, device, dtype):
    t = _ones(device, dtype)
    for result, want in ((t == seq, False), (seq == t, False), (t != seq, True), (seq != t, True)):
        assert type(result) is bool and result is want


@pytest.mark.parametrize("op", ARITHMETIC, ids=lambda f: f.__name__)
@pytest.mark.parametrize("seq", SEQUENCES[:3], ids=repr)
@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
def test_other_operators_refuse_a_sequence_either_side(op, seq, device, dtype):
    t = _ones(device, dtype)  # ``*``: Python's repetition, whose __index__ of a 2-element tensor refuses
    for a, b in ((t, seq), (seq, t)):
        with pytest.raises(TypeError):
            op(a, b)


@pytest.mark.parametrize("op", IN_PLACE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("device, dtype", DEVICES, ids=str)
def test_in_place_operators_refuse_a_sequence_and_leave_the_tensor(op, device, dtype):
    t = _ones(device, dtype)
    version = t._version
    with pytest.raises(TypeError, match="unsupported operand"):
        op(t, [1, 2])
    assert t.tolist() == [1, 1] and t._version == version


def test_a_one_element_integer_tensor_repeats_a_list_as_pythons_index():
    # torch 2.13: torch.tensor(2) * [1, 2] and [1, 2] * torch.tensor(2) are [1, 2, 1, 2]
    assert mg.tensor(2) * [1, 2] == [1, 2, 1, 2]
    assert [1, 2] * mg.tensor(2) == [1, 2, 1, 2]


def test_tensors_arrays_and_numbers_still_combine():
    t = mg.ones(2, requires_grad=True)
    assert (t == mg.tensor([1.0, 2.0])).tolist() == [True, False]
    assert (t < np.array([1.0, 2.0])).tolist() == [False, True]
    out = (t + np.float32(1.0)) * 2 - mg.tensor([1.0, 1.0])
    out.sum().backward()
    assert out.tolist() == [3.0, 3.0] and t.grad.tolist() == [2.0, 2.0]
    assert mg.eq(mg.ones(2), [1, 2]).tolist() == [True, False]  # mg.eq, the function, keeps NumPy's reading


def test_under_grad_and_vmap_too():
    def masked(x):  # ``x == [..]`` is False, as PyTorch's: the product keeps nothing
        return (x * (x == [1.0, 2.0])).sum() + (x * x).sum()
    assert mg.func.grad(masked)(mg.ones(2)).tolist() == [2.0, 2.0]
    with pytest.raises(TypeError):
        mg.func.grad(lambda x: (x + [1.0, 2.0]).sum())(mg.ones(2))
    with pytest.raises(TypeError):
        mg.func.vmap(lambda x: x < (1.0, 2.0))(mg.ones(3, 2))
    assert mg.func.vmap(lambda x: x * (x != [1.0]))(mg.ones(3, 2)).tolist() == [[1.0, 1.0]] * 3


METHOD_NAMES = ("add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow eq ne lt le "
                "gt ge greater less maximum minimum fmax fmin atan2 hypot copysign xlogy nextafter isclose allclose "
                "equal dist matmul").split()


@pytest.mark.parametrize("name", METHOD_NAMES)
@pytest.mark.parametrize("device, dtype", [("cpu", mg.float32), ("strict", mg.float64)], ids=str)
def test_methods_of_two_operands_refuse_a_sequence_as_pytorchs(name, device, dtype):
    # torch 2.13: torch.ones(2).add([1., 2.]) is "add(): argument 'other' (position 1) must be Tensor, not list"
    t = _ones(device, dtype)
    with pytest.raises(TypeError, match="list|Tensor"):
        getattr(t, name)([1.0, 2.0])
    with pytest.raises(TypeError):
        getattr(t, name)(other=(1.0, 2.0))
    getattr(t, name)(mg.tensor([1.0, 2.0], dtype=dtype, device=device))  # a tensor still answers


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_", "eq_", "pow_"])
def test_in_place_methods_refuse_a_sequence_and_write_nothing(name):
    t = mg.ones(2)
    version = t._version
    with pytest.raises(TypeError, match=r"\(\): argument 'other' \(position 1\) must be Tensor, not list"):
        getattr(t, name)([1.0, 2.0])
    assert t.tolist() == [1.0, 1.0] and t._version == version
    assert mg.add(mg.ones(2), [1.0, 2.0]).tolist() == [2.0, 3.0]  # mg.add, NumPy's function, reads an array
