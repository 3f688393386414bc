"""``lerp``'s number weight is rounded to the dtype the op computes in before ``weight >= 0.5`` is
decided and ``1 - weight`` taken, as PyTorch's kernel converts it: computed in float64 and rounded
after, ``1 - 0.9`` put float32 ``lerp(a, b, 0.9)`` a unit off PyTorch for half the values."""

import numpy as np
import pytest

import minigrad_ckpt as mg


def _reference(a, b, w, dtype):
    """PyTorch's formula, each scalar in ``dtype`` (two roundings per product and sum, as NumPy's)."""
    w = dtype(w)
    d = b - a
    return a + w * d if abs(w) < 0.5 else b - d * (dtype(1) - w)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weight", [0.9, 0.7, 0.1, 0.4999999999, 1.3, -0.6])
def test_lerp_rounds_its_number_weight_first(dtype, weight):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(4000).astype(dtype) for _ in range(2))
    expected = _reference(a, b, weight, dtype)
    np.testing.assert_array_equal(mg.lerp(mg.tensor(a), mg.tensor(b), weight).numpy(), expected)
    np.testing.assert_array_equal(mg.tensor(a).lerp(mg.tensor(b), weight).numpy(), expected)
    np.testing.assert_array_equal(mg.tensor(a).lerp_(mg.tensor(b), weight).numpy(), expected)


def test_a_weight_that_rounds_to_one_half_takes_the_far_end_formula():
    # 0.4999999999 is below 0.5 in float64 and 0.5 in float32: PyTorch decides on the float32 weight
    a = mg.tensor(np.array([1.0, 3.0, -2.5], np.float32))
    b = mg.tensor(np.array([7.0, -1.0, 0.3], np.float32))
    expected = _reference(a.numpy(), b.numpy(), 0.4999999999, np.float32)
    np.testing.assert_array_equal(mg.lerp(a, b, 0.4999999999).numpy(), expected)


def test_the_gradient_reads_the_weight_as_given_and_the_tangent_the_rounded_one():
    # PyTorch's LerpBackward0: grad * (1 - weight.toDouble()), grad * weight -- the number as given,
    # rounded with the product (float32(1 - 0.9) = 0.100000001, not 1 - float32(0.9) = 0.100000024);
    # its jvp is lerp(tangents, weight), the weight rounded as the value's
    a = mg.tensor(np.array([1.0, 3.0], np.float32), requires_grad=True)
    b = mg.tensor(np.array([7.0, -1.0], np.float32), requires_grad=True)
    out = mg.lerp(a, b, 0.9)
    assert out.grad_fn.name() == "LerpBackward0"
    out.sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), np.full(2, 0.9, np.float32))
    np.testing.assert_array_equal(a.grad.numpy(), np.full(2, 1 - 0.9, np.float32))
    _, t = mg.func.jvp(lambda x: mg.lerp(x, b.detach(), 0.9), (a.detach(),), (mg.ones(2),))
    np.testing.assert_array_equal(t.numpy(), np.float32(1) - np.float32(0.9))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_tensor_weight_past_either_end_takes_pytorchs_formula(dtype):
    # PyTorch computes from the end wherever |weight| >= 0.5: a weight of -0.6 or 1.3 too
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal(3000).astype(dtype) for _ in range(2))
    w = np.repeat(np.array([-0.6, 1.3, -0.3, 0.2, 0.8], dtype), 600)
    d = b - a
    expected = np.where(np.abs(w) < 0.5, a + w * d, b - d * (dtype(1) - w))
    np.testing.assert_array_equal(mg.lerp(mg.tensor(a), mg.tensor(b), mg.tensor(w)).numpy(), expected)


@pytest.mark.parametrize("weight", [0.9, 0.3, -0.7])
def test_a_zero_d_weight_of_another_float_dtype_is_converted_as_a_number_is(weight):
    # PyTorch takes a 0-d float64 weight beside float32 tensors as it takes the number: rounded to
    # float32 first (1 - w taken in float64 and rounded after was a unit off for half the values)
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal(3000).astype(np.float32) for _ in range(2))
    w = mg.tensor(weight, dtype=mg.float64, requires_grad=True)
    out = mg.lerp(mg.tensor(a), mg.tensor(b), w)
    assert out.dtype == mg.float32
    np.testing.assert_array_equal(out.numpy(), _reference(a, b, weight, np.float32))
    out.sum().backward()
    assert w.grad.dtype == mg.float64
