"""``mg.nextafter`` of two integral operands (integer or bool tensors, or such a tensor beside a
Python int) steps in the default float dtype, as the other float-valued functions of two operands
do (docs/from-pytorch.md, "Float-valued functions of two operands, both integral").

Found by running PyTorch's OpInfo database (``nextafter``'s error inputs) against the engine: the
function followed NumPy's loop and answered float64 for int64 or int32 operands and float16 for
bools or uint8 -- a dtype no other function of integers gives, and float16 steps of 1e-3 where the
default float's are 1e-7.  (PyTorch's ``nextafter`` refuses integral operands; the Tensor method
refuses them here too.)"""

import numpy as np
import pytest

import minigrad_ckpt as mg

F32 = np.float32


@pytest.mark.parametrize("x, other", [
    (mg.tensor([1, 2, 3]), mg.tensor([2, 2, 2])),
    (mg.tensor(np.int32([1, 2, 3])), mg.tensor(np.int32([2, 2, 2]))),
    (mg.tensor(np.uint8([1, 2, 3])), 2),
    (mg.tensor([1, 2, 3]), 2),
])
def test_integers_step_in_the_default_float(x, other):
    r = mg.nextafter(x, other)
    assert r.dtype == mg.float32
    expected = np.nextafter(F32([1, 2, 3]), F32(2))
    np.testing.assert_array_equal(r.numpy(), expected)


def test_bools_step_in_the_default_float():
    r = mg.nextafter(mg.tensor([True, False]), mg.tensor([False, True]))
    assert r.dtype == mg.float32
    np.testing.assert_array_equal(r.numpy(), np.nextafter(F32([1, 0]), F32([0, 1])))


class _default:
    def __init__(self, dtype):
        self.dtype = dtype

    def __enter__(self):
        self.old = mg.get_default_dtype()
        mg.set_default_dtype(self.dtype)

    def __exit__(self, *exc):
        mg.set_default_dtype(self.old)


def test_default_dtype_float64_steps_in_float64():
    with _default(mg.float64):
        r = mg.nextafter(mg.tensor([1, 2]), 3)
    assert r.dtype == mg.float64
    np.testing.assert_array_equal(r.numpy(), np.nextafter(np.float64([1, 2]), 3.0))


def test_a_float_operand_still_decides():
    assert mg.nextafter(mg.tensor([1, 2]), mg.tensor([3.0, 3.0], dtype=mg.float64)).dtype == mg.float64
    assert mg.nextafter(mg.tensor([1.5], dtype=mg.float32), mg.tensor([3])).dtype == mg.float32
