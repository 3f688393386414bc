"""Augmented assignments (``x //= y``, ``x %= y``, ``x **= y``, ``x &= y``, ...) write in place, as
PyTorch's: the tensor keeps its dtype, and a view's base -- every holder of the memory -- sees
the write.  Python falls back to ``x = x // y`` for a class without ``__ifloordiv__``, which
bound a new tensor to the name and left the base unchanged (silently).  Also PyTorch's rule for
what an in-place op may write: by category (``uint8 += int64`` wraps; NumPy's ``same_kind``
refused it), and ``div(rounding_mode=)`` of integers in PyTorch's promoted dtype.
Expected values are torch 2.13's."""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401 (registers the strict stand-in devices)

# (statement on the view v = w[1:3], w's values, w afterwards); torch 2.13's answers
INTEGER_CASES = [
    ("v //= 3", [5, -7, 9, 4], [5, -3, 3, 4]),
    ("v %= -3", [5, -7, 9, 4], [5, -1, 0, 4]),
    ("v **= 2", [5, -7, 9, 4], [5, 49, 81, 4]),
    ("v &= 6", [5, -7, 9, 4], [5, 0, 0, 4]),
    ("v |= 8", [5, -7, 9, 4], [5, -7, 9, 4]),
    ("v ^= mg.tensor([1, 1])", [5, -7, 9, 4], [5, -8, 8, 4]),
]


@pytest.mark.parametrize("statement, values, expected", INTEGER_CASES)
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_augmented_assignment_on_a_view_writes_the_base(statement, values, expected, dtype):
    w = mg.tensor(values, dtype=dtype)
    v = w[1:3]
    exec(statement, {"mg": mg}, {"v": v})
    assert w.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(w.numpy(), expected)


def test_bool_masks_combine_in_place():
    w = mg.tensor([True, False, True])
    v = w[1:]
    v |= True
    np.testing.assert_array_equal(w.numpy(), [True, True, True])
    v &= mg.tensor([False, True])
    np.testing.assert_array_equal(w.numpy(), [True, False, True])


@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict-f32", "float32")])
def test_power_in_place_on_a_view_carries_gradient_and_tangent(device, dtype):
    """``v **= 2`` on a view of y: y's gradient and tangent follow the write (torch 2.13:
    w.grad = [0, -4, 12, 3] for sum(y * arange(4)))."""
    w = mg.tensor([1.5, -2.0, 3.0, 4.0], dtype=dtype, device=device, requires_grad=True)
    y = w * 1
    v = y[1:3]
    v **= 2
    np.testing.assert_allclose(y.detach().numpy(), [1.5, 4.0, 9.0, 4.0])
    (y * mg.arange(4.0, dtype=dtype, device=device)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [0.0, -4.0, 12.0, 3.0])

    def f(x):
        y = x * 1
        v = y[1:3]
        v **= 2
        return y

    if device == "cpu":  # forward mode carries a write into a view's base for host arrays only (docs)
        _, tangent = mg.func.jvp(f, (w.detach(),), (mg.ones(4, dtype=dtype, device=device),))
        np.testing.assert_allclose(tangent.numpy(), [1.0, -4.0, 6.0, 1.0])


def test_floor_division_in_place_keeps_an_integer_tensor_integer():
    x = mg.tensor([5, 7], dtype="int32")
    x //= mg.tensor(2)  # a 0-d int64: int32 result, as PyTorch's
    assert x.dtype == np.dtype("int32")
    np.testing.assert_array_equal(x.numpy(), [2, 3])
    with pytest.raises(RuntimeError, match="can't be cast"):
        x //= 2.5  # a float result into an integer tensor: PyTorch's RuntimeError
    with pytest.raises(RuntimeError, match="can't be cast"):
        x %= mg.tensor([1.5, 2.0])


# (dtype of x, statement, x afterwards): torch 2.13 writes any integer result into any integer tensor
WRAPPING_CASES = [
    ("uint8", "x += mg.tensor([1, 2, 3])", [2, 4, 6]),
    ("uint8", "x -= mg.tensor(2)", [255, 0, 1]),
    ("uint8", "x.sub_(mg.tensor([1, 2, 3]), alpha=2)", [255, 254, 253]),
    ("uint8", "x *= mg.tensor(2, dtype='int32')", [2, 4, 6]),
    ("uint8", "x.add_(mg.tensor([1, 0, 1], dtype='int8'))", [2, 2, 4]),
    ("int8", "x.mul_(mg.tensor([100, 100, 100], dtype='int16'))", [100, -56, 44]),
]


@pytest.mark.parametrize("dtype, statement, expected", WRAPPING_CASES)
def test_in_place_integer_results_wrap_into_any_integer_tensor(dtype, statement, expected):
    x = mg.tensor([1, 2, 3], dtype=dtype)
    exec(statement, {"mg": mg}, {"x": x})
    assert x.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(x.numpy(), expected)


@pytest.mark.parametrize("dtype, other", [("uint8", 2.5), ("int64", mg.tensor([1.0])), ("bool", 1),
                                          ("float32", mg.tensor([1j]))])
def test_in_place_results_of_a_higher_category_are_refused(dtype, other):
    x = mg.tensor([1, 2, 3], dtype=dtype)
    with pytest.raises(RuntimeError, match="can't be cast"):
        x.mul_(other)


@pytest.mark.parametrize("x_dtype", ["int32", "int8", "uint8"])
@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_integer_division_with_rounding_mode_promotes_as_pytorch(x_dtype, mode):
    """div(x, 0-d int64, rounding_mode=) keeps x's integer dtype (a 0-d tensor of the same
    category decides nothing), and a negative int wraps into uint8, as PyTorch's."""
    x = mg.tensor([7, 8, 0], dtype=x_dtype)
    for divisor in (mg.tensor(-3), -3):
        q = mg.div(x, divisor, rounding_mode=mode)
        assert q.dtype == np.dtype(x_dtype)
    expected = {"uint8": [0, 0, 0], "int32": {"floor": [-3, -3, 0], "trunc": [-2, -2, 0]}}
    want = expected["uint8"] if x_dtype == "uint8" else expected["int32"][mode]
    np.testing.assert_array_equal(mg.div(x, mg.tensor(-3), rounding_mode=mode).numpy(), want)


@pytest.mark.parametrize("statement", ["x -= mg.tensor([True, False])", "x.sub_(True)", "b -= b"])
def test_subtracting_a_bool_in_place_is_refused(statement):
    x, b = mg.tensor([1, 2]), mg.tensor([True, False])
    with pytest.raises(RuntimeError, match="Subtraction"):
        exec(statement, {"mg": mg}, {"x": x, "b": b})
