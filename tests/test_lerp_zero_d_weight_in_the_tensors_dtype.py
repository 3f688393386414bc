"""A 0-d ``lerp`` weight of another dtype than the tensors is converted to their dtype as PyTorch
converts it, before float16 tensors are widened to float32 for the arithmetic: rounded to float16
beside float16 tensors, to complex64 (a real one to float32) beside complex64 ones, an integer or bool
one to a float.  A float32 weight beside float16 tensors made the engine compute in float16 step by
step (``lerp(65504, -65504, tensor(0.5))`` was inf, PyTorch's 0), a float64 one beside complex64
tensors was not rounded, and a bool one was refused ('Subtraction ... with a bool tensor').

Fixtures: PyTorch 2.13 agrees bit for bit with the references below (checked offline)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

DEVICES = ["cpu", "strict"]


def _reference(a, b, w, dtype):
    """PyTorch's formula with the weight converted to ``dtype``, computed in ``dtype``."""
    w = dtype(w)
    d = b - a
    return a + d * w if abs(w) < 0.5 else b - d * (dtype(1) - w)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("weight_dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("weight", [0.9, -0.6, 0.3, 1 / 3])
def test_beside_float16_tensors_the_weight_is_rounded_to_float16_and_computed_in_float32(device, weight_dtype,
                                                                                          weight):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(2000).astype(np.float16) for _ in range(2))
    w = mg.tensor(weight, dtype=weight_dtype, device=device, requires_grad=True)
    out = mg.lerp(mg.tensor(a, device=device), mg.tensor(b, device=device), w)
    assert out.dtype == mg.float16
    expected = _reference(a.astype(np.float32), b.astype(np.float32), np.float16(weight), np.float32)
    np.testing.assert_array_equal(out.numpy(), expected.astype(np.float16))
    out.sum().backward()
    assert w.grad.dtype == weight_dtype


@pytest.mark.parametrize("device", DEVICES)
def test_beside_float16_tensors_nothing_overflows(device):
    a = mg.tensor([65504.0], dtype=mg.float16, device=device)
    w = mg.tensor(0.5, device=device, requires_grad=True)
    out = mg.lerp(a, -a, w)
    assert out.tolist() == [0.0] and out.dtype == mg.float16  # PyTorch's (it was inf)
    out.sum().backward()
    assert w.grad.item() == float("-inf")  # PyTorch's: (end - start) overflows in the gradient


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("weight", [mg.float64, mg.complex128])
def test_beside_complex64_tensors_the_weight_is_rounded_to_complex64(device, weight):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(500) + 1j * rng.standard_normal(500)).astype(np.complex64)
    b = (3 * rng.standard_normal(500)).astype(np.complex64)
    out = mg.lerp(mg.tensor(a, device=device), mg.tensor(b, device=device), mg.tensor(0.9, dtype=weight, device=device))
    assert out.dtype == mg.complex64
    # a real weight multiplies real and imaginary parts alike: no complex product to round differently
    np.testing.assert_array_equal(out.numpy(), _reference(a, b, np.float32(0.9), np.complex64))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64, mg.float16])
def test_an_integer_or_bool_weight_is_a_number(device, dtype):
    start, end = mg.ones(2, dtype=dtype, device=device), mg.zeros(2, dtype=dtype, device=device)
    assert mg.lerp(start, end, mg.tensor(True, device=device)).tolist() == [0.0, 0.0]
    assert mg.lerp(start, end, mg.tensor(2, device=device)).tolist() == [-1.0, -1.0]
    assert start.lerp(end, mg.tensor(False, device=device)).dtype == dtype


def test_a_complex_number_weight_is_rounded_to_complex64_beside_complex64_tensors():
    # as PyTorch converts its Scalar weight (here taken as NumPy multiplies complex64: PyTorch's complex
    # product may round a part differently, as a fused multiply-add does)
    rng = np.random.default_rng(2)
    a = (rng.standard_normal(500) + 1j * rng.standard_normal(500)).astype(np.complex64)
    b = (rng.standard_normal(500) - 2j * rng.standard_normal(500)).astype(np.complex64)
    for weight in (0.9 + 0.3j, 0.3 - 0.1j):
        out = mg.lerp(mg.tensor(a), mg.tensor(b), weight)
        np.testing.assert_array_equal(out.numpy(), _reference(a, b, weight, np.complex64))
