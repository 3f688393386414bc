"""Python's protocols on a tensor as PyTorch's, and NumPy array operands of the rounding divisions.
torch 2.13:

* ``iter(torch.tensor(3))`` is ``TypeError: iteration over a 0-d tensor`` at ``iter()`` (here a
  generator that raised only at its first ``next()``);
* ``reversed(t)`` is ``t.flip(0)``, a tensor (a 0-d tensor itself), not an iterator of rows;
* ``t.numpy(force=True)`` and ``t.type(dtype, non_blocking=True)`` take their keywords (here TypeErrors);
* ``t // array``, ``t.div(array, rounding_mode=...)`` work where ``t + array`` does (here
  ``TypeError: not a tensor or a number: ndarray``), and an integer array divisor's zero is the
  integer division error of a tensor divisor (``t % np.array([2, 0])`` answered 0).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


def test_iter_of_a_0d_tensor_raises_at_iter():
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(mg.tensor(3))
    assert [v.item() for v in mg.tensor([1, 2])] == [1, 2]
    assert list(mg.zeros(0, 3)) == []


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_reversed_is_flip_along_the_first_dim(device, dtype):
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=dtype, device=device, requires_grad=True)
    r = reversed(x)
    assert isinstance(r, mg.Tensor) and r.tolist() == [[5.0, 6.0], [3.0, 4.0], [1.0, 2.0]]
    (r * mg.tensor([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]], dtype=dtype, device=device)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0], [0.0, 0.0], [1.0, 0.0]]
    scalar = mg.tensor(3.0, device=device)
    assert reversed(scalar) is scalar


def test_reversed_inside_checkpoint_and_jvp():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = mg.checkpoint.checkpoint(lambda v: reversed(v) * v, x, use_reentrant=False)
    y.sum().backward()
    assert y.tolist() == [3.0, 4.0, 3.0] and x.grad.tolist() == [6.0, 4.0, 2.0]
    _, tangent = mg.func.jvp(lambda v: reversed(v), (mg.tensor([1.0, 2.0]),), (mg.tensor([10.0, 20.0]),))
    assert tangent.tolist() == [20.0, 10.0]


def test_numpy_force_and_type_non_blocking_are_taken():
    x = mg.tensor([1.5], requires_grad=True)
    assert x.numpy(force=True).tolist() == [1.5]
    assert x.detach().type(mg.float64, non_blocking=True).dtype == mg.float64


def test_rounding_divisions_refuse_an_array_beside_another_device_as_add_does():
    x = mg.tensor([7, -8], device="strict")
    for op in (lambda a, b: a + b, lambda a, b: a // b, lambda a, b: a % b):
        with pytest.raises(RuntimeError, match="same device"):
            op(x, np.array([2, 3]))


@pytest.mark.parametrize("device", ["cpu"])
def test_rounding_divisions_take_an_array_operand(device):
    x = mg.tensor([7, -8], device=device)
    assert (x // np.array([2, 3])).tolist() == [3, -3]
    assert mg.floor_divide(x, np.array([2, 3])).tolist() == [3, -3]
    assert x.div(np.array([2, 3]), rounding_mode="trunc").tolist() == [3, -2]
    assert x.div(np.array([2, 3]), rounding_mode="trunc").dtype == mg.int64
    assert (np.array([7, 8]) // mg.tensor([2, 3], device=device)).tolist() == [3, 2]
    f = mg.tensor([7.0, -8.0], device=device)
    assert (f // np.array([2.0, 3.0], dtype=np.float32)).tolist() == [3.0, -3.0]


@pytest.mark.parametrize("divide", [
    lambda x, d: x // d, lambda x, d: x % d, lambda x, d: mg.fmod(x, d),
    lambda x, d: x.div(d, rounding_mode="floor"), lambda x, d: x.div(d, rounding_mode="trunc"),
])
def test_an_integer_array_divisor_with_a_zero_is_an_error(divide):
    with pytest.raises(ZeroDivisionError):
        divide(mg.tensor([7, 8]), np.array([2, 0]))
