"""``x.nextafter(y)`` picks PyTorch's kernel by the dtype the operands promote to: a bool or integer
``x`` beside a floating ``y`` is a floating nextafter (torch 2.13 answers it), and only operands
promoting to bool or an integer are its ``NotImplementedError``.  The method refused by ``x``'s
dtype alone.  Found by the dtype-semantics red team (every binary method over eleven dtypes)."""
import math

import numpy as np
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("x_dtype, y_dtype, expected", [
    # torch 2.13: torch.tensor([1, 0], dtype=...).nextafter(torch.tensor([0, 2], dtype=...)).tolist()
    ("bool", "float32", [0.9999999403953552, 1.401298464324817e-45]),
    ("int64", "float64", [0.9999999999999999, 5e-324]),
    ("uint8", "float16", [0.99951171875, 5.960464477539063e-08]),
])
def test_an_integral_x_beside_a_floating_y_is_the_floating_kernel(x_dtype, y_dtype, expected):
    x = mg.tensor([1, 0], dtype=getattr(mg, x_dtype))
    y = mg.tensor([0, 2], dtype=getattr(mg, y_dtype))
    out = x.nextafter(y)
    assert out.dtype == getattr(mg, y_dtype)
    assert all(math.isclose(a, b, rel_tol=0, abs_tol=0) for a, b in zip(out.tolist(), expected))
    np.testing.assert_array_equal(out.numpy(), mg.nextafter(x, y).numpy())


def test_in_place_the_floating_result_cannot_be_cast_back():
    # torch: RuntimeError: result type Float can't be cast to the desired output type Bool
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        mg.tensor([True, False]).nextafter_(mg.tensor([0.0, 2.0]))


@pytest.mark.parametrize("x_dtype, y_dtype, name", [
    ("bool", "bool", "Bool"), ("int32", "int32", "Int"), ("int8", "bool", "Char")])
def test_operands_promoting_to_an_integral_dtype_are_still_refused(x_dtype, y_dtype, name):
    x = mg.tensor([1, 0], dtype=getattr(mg, x_dtype))
    y = mg.tensor([0, 1], dtype=getattr(mg, y_dtype))
    with pytest.raises(NotImplementedError, match=f"\"nextafter_cpu\" not implemented for '{name}'"):
        x.nextafter(y)
