"""Dtype and integer corners of PyTorch's arithmetic, with torch 2.13's answers:

- ``x ** t`` of integers with a tensor of exponents: a negative exponent gives the integer part
  of ``1 / x ** -t`` (1 for a base of 1, +-1 for -1, else 0); NumPy raised ``ValueError`` for the
  whole tensor.  (A negative Python int exponent stays PyTorch's RuntimeError.)
- ``add(x, y, alpha=)`` answers in ``x`` and ``y``'s dtype: ``alpha * y`` of a bool ``y`` was an
  int64 (or default-float) product, which widened the sum.
- ``nextafter`` and ``ldexp`` promote as PyTorch's: ``nextafter(float32, int64)`` steps in float32
  (it stepped in float64 and answered the float32 value itself), ``ldexp(int, float16)`` is float16.
- ``~t`` of a 0-d integer tensor (it raised "Cannot set flags on array scalars").
"""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401 (registers the strict stand-in devices)

BASES = [0, 1, -1, -1, 2, -2, 3, 0, 5]
EXPONENTS = [-1, -3, -2, -3, -1, -1, 0, 0, 2]
TORCH_POWERS = [0, 1, 1, -1, 0, 0, 1, 1, 25]


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int8"])
def test_integer_powers_with_negative_tensor_exponents(device, dtype):
    b = mg.tensor(BASES, dtype=dtype, device=device)
    e = mg.tensor(EXPONENTS, dtype=dtype, device=device)
    for r in (b ** e, mg.pow(b, e), b.pow(e)):
        assert r.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(r.cpu().numpy(), TORCH_POWERS)


@pytest.mark.parametrize("expression, expected, dtype", [
    ("mg.tensor(2) ** mg.tensor([-1, 2])", [0, 4], "int64"),
    ("2 ** mg.tensor([-1, 3])", [0, 8], "int64"),
    ("mg.tensor([2, 3], dtype=mg.int8) ** mg.tensor(-1)", [0, 0], "int8"),
    ("mg.tensor([True, False]) ** mg.tensor([-1, -2])", [1, 0], "int64"),
    ("mg.tensor([1, 255], dtype=mg.uint8) ** mg.tensor([-2, -2])", [1, 0], "int64"),
])
def test_integer_power_promotions(expression, expected, dtype):
    r = eval(expression, {"mg": mg})
    assert r.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(r.numpy(), expected)


def test_a_negative_python_int_exponent_is_still_refused():
    with pytest.raises(RuntimeError, match="negative integer powers"):
        mg.tensor([2, 3]) ** -1


@pytest.mark.parametrize("x, y, alpha, expected, dtype", [
    ([1, -2, 3], "int32", 2, [3, -2, 5], "int32"),
    ([1, 2, 3], "uint8", 2, [3, 2, 5], "uint8"),
    ([True, False, True], "bool", 2, [True, False, True], "bool"),
    ([1.0, 2.0, 3.0], "float16", 2.5, [3.5, 2.0, 5.5], "float16"),
])
def test_add_with_alpha_answers_in_the_operands_dtype(x, y, alpha, expected, dtype):
    a = mg.tensor(x, dtype=y)
    b = mg.tensor([True, False, True])
    for r in (mg.add(a, b, alpha=alpha), a.add(b, alpha=alpha)):
        assert r.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(r.numpy(), expected)


def test_nextafter_steps_in_the_promoted_dtype():
    x = mg.tensor([1.5, -2.0, 3.0])
    r = mg.nextafter(x, mg.tensor([1, -2, 3]))
    assert r.dtype == np.float32
    np.testing.assert_array_equal(r.numpy(), np.nextafter(np.float32([1.5, -2, 3]), np.float32([1, -2, 3])))
    r = mg.nextafter(x, mg.tensor(2.5, dtype=mg.float64))
    assert r.dtype == np.float32 and r.numpy()[0] == np.nextafter(np.float32(1.5), np.float32(2.5))


@pytest.mark.parametrize("exponent, dtype", [(mg.tensor([1.5, -2.0], dtype=mg.float16), "float16"),
                                             (mg.tensor(2.5, dtype=mg.float64), "float64"),
                                             (mg.tensor([1, 2]), "float32")])
def test_ldexp_of_an_integer_tensor_promotes_as_pytorch(exponent, dtype):
    r = mg.ldexp(mg.tensor([1, -2]), exponent)
    assert r.dtype == np.dtype(dtype)
    np.testing.assert_allclose(r.numpy().astype(np.float64),
                               np.array([1, -2]) * 2.0 ** exponent.numpy().astype(np.float64), rtol=1e-3)


@pytest.mark.parametrize("value, dtype, expected", [(3, "int64", -4), (2, "uint8", 253), (True, "bool", False)])
def test_bitwise_not_of_a_0d_tensor(value, dtype, expected):
    r = ~mg.tensor(value, dtype=dtype)
    assert r.shape == () and r.dtype == np.dtype(dtype) and r.item() == expected
    assert mg.tensor(value, dtype=dtype).bitwise_not().item() == expected
