"""Constructors given complex numbers: the dtype they make and the casts they refuse, as PyTorch's.

A complex endpoint or fill value makes the default float's complex type (``complex64`` beside
``float32``); a real dtype refuses a number whose imaginary part it would drop.  NumPy's casts
dropped it silently before: ``mg.linspace(0, 1j, 3)`` was ``[0., 0., 0.]`` in float32,
``mg.full((2,), 1j, dtype=mg.float32)`` zeros, ``mg.tensor([1j], dtype=mg.float32)`` ``[0.]``.
The expected values are PyTorch's (torch 2.13, the expressions in the comments).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)


@pytest.fixture
def float64_default():
    mg.set_default_dtype(mg.float64)
    yield
    mg.set_default_dtype(mg.float32)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_linspace_and_logspace_with_complex_endpoints(device):
    z = mg.linspace(0, 1j, 3, device=device)
    assert z.dtype == mg.complex64
    np.testing.assert_array_equal(z.numpy(), np.array([0, 0.5j, 1j], dtype=np.complex64))
    # torch.linspace(1j, 2, 5, dtype=torch.complex128)
    z = mg.linspace(1j, 2, 5, dtype=mg.complex128, device=device)
    np.testing.assert_allclose(z.numpy(), [1j, 0.5 + 0.75j, 1 + 0.5j, 1.5 + 0.25j, 2], rtol=0, atol=1e-15)
    # torch.logspace(0, 1j, 3, base=2, dtype=torch.complex128)
    z = mg.logspace(0, 1j, 3, base=2, dtype=mg.complex128, device=device)
    want = [1, 0.9405421046832438 + 0.3396771251026685j, 0.7692389013639721 + 0.6389612763136348j]
    np.testing.assert_allclose(z.numpy(), want, rtol=1e-15)
    assert mg.logspace(0, 1j, 3).dtype == mg.complex64
    # 0-d tensors as endpoints: torch.linspace(torch.tensor(0j), torch.tensor(1+1j), 3) is complex64
    z = mg.linspace(mg.tensor(0j), mg.tensor(1 + 1j), 3, device=device)
    np.testing.assert_array_equal(z.numpy(), np.array([0, 0.5 + 0.5j, 1 + 1j], dtype=np.complex64))


@pytest.mark.parametrize("make", [lambda: mg.linspace(0, 1j, 3, dtype=mg.float32),
                                  lambda: mg.linspace(0, 1 + 0j, 3, dtype=mg.float64),
                                  lambda: mg.logspace(1j, 2, 3, dtype=mg.float32)])
def test_a_real_dtype_refuses_complex_endpoints(make):
    # torch: "inferred dtype c10::complex<float> can't be safely cast to passed dtype Float", even for 1+0j
    with pytest.raises(RuntimeError, match="can't be safely cast"):
        make()


def test_the_default_complex_type_follows_the_default_float(float64_default):
    # torch.set_default_dtype(torch.float64): linspace(0, 1j, 2), full((1,), 1j) and tensor(1j) are complex128
    assert mg.linspace(0, 1j, 2).dtype == mg.complex128
    assert mg.full((1,), 1j).dtype == mg.complex128
    assert mg.tensor(1j).dtype == mg.complex128


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_full_with_a_complex_fill(device):
    z = mg.full((2,), 1j, device=device)  # torch.full((2,), 1j): complex64 (was complex128)
    assert z.dtype == mg.complex64 and z.tolist() == [1j, 1j]
    x = mg.zeros(2, device=device)
    for make in (lambda: mg.full((2,), 1j, dtype=mg.float32, device=device), lambda: mg.full_like(x, 2 - 1j),
                 lambda: x.new_full((2,), 1j), lambda: mg.full((2,), 1j, dtype=mg.int64, device=device)):
        with pytest.raises(RuntimeError, match="imaginary part would be lost"):  # torch: cannot be converted
            make()
    # a zero imaginary part is no loss: torch.full((2,), 1+0j, dtype=torch.float32) is [1., 1.]
    assert mg.full((2,), 1 + 0j, dtype=mg.float32, device=device).tolist() == [1.0, 1.0]
    assert mg.full_like(x, 3 + 0j).tolist() == [3.0, 3.0] and x.new_full((1,), 2 + 0j).dtype == mg.float32


def test_python_complex_data_refuses_a_real_dtype():
    # torch.tensor([1j], dtype=torch.float32): TypeError "must be real number, not complex" (even 1+0j)
    for data in ([1j], [1 + 0j], 2j, [[1, 2j]]):
        with pytest.raises(TypeError, match="must be real number, not complex"):
            mg.tensor(data, dtype=mg.float32)
    with pytest.raises(TypeError, match="must be real number"):
        mg.zeros(2).new_tensor([1 + 1j])
    # a NumPy array is cast as NumPy (and PyTorch) cast it: torch.tensor(np.array([1+1j]), dtype=float32) is [1.]
    assert mg.tensor(np.array([1 + 1j]), dtype=mg.float32).tolist() == [1.0]


def test_python_complex_data_goes_into_a_bool_dtype():
    # torch 2.13: torch.tensor([1+2j, 0j, 0.5j], dtype=torch.bool) is [True, False, True] (it was refused here)
    assert mg.tensor([1 + 2j, 0j, 0.5j], dtype=mg.bool).tolist() == [True, False, True]
    assert mg.tensor(1j, dtype=mg.bool).tolist() is True
    assert mg.tensor([[0j]], dtype=mg.bool).tolist() == [[False]]
    assert mg.ones(2, dtype=mg.bool).new_tensor([0j, 1j]).tolist() == [False, True]


def test_python_numbers_from_a_complex_tensor():
    # complex(torch.tensor(1+2j)) is (1+2j); float/int of a complex tensor keep a zero imaginary part's
    # real part and refuse a nonzero one (RuntimeError "value cannot be converted ... without overflow")
    assert complex(mg.tensor(1 + 2j)) == 1 + 2j and complex(mg.tensor(2.5)) == 2.5 + 0j
    assert complex(mg.tensor([3])) == 3 + 0j
    assert float(mg.tensor(2 + 0j)) == 2.0 and int(mg.tensor(1 + 0j)) == 1
    for convert in (float, int):
        with pytest.raises(RuntimeError, match="imaginary part would be lost"):
            convert(mg.tensor(1.5 + 2j))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_samples_are_pytorchs_distributions(dtype):
    # torch.randn(n, dtype=complex64): each part N(0, 1/2), so E|z|^2 = 1; torch.rand: each part U[0, 1);
    # both raised "dtype must be a float dtype", as did randn_like/rand_like of a complex tensor
    mg.manual_seed(0)
    z = mg.randn(200_000, dtype=dtype).numpy()
    assert z.dtype == dtype
    np.testing.assert_allclose([z.real.var(), z.imag.var(), (np.abs(z) ** 2).mean()], [0.5, 0.5, 1.0], rtol=0.02)
    assert abs(z.real.mean()) < 0.01 and abs(z.imag.mean()) < 0.01 and abs(np.mean(z.real * z.imag)) < 0.01
    u = mg.rand(200_000, dtype=dtype).numpy()
    assert u.dtype == dtype and 0 <= u.real.min() and u.real.max() < 1 and 0 <= u.imag.min() and u.imag.max() < 1
    np.testing.assert_allclose([u.real.mean(), u.imag.mean()], [0.5, 0.5], rtol=0.02)
    like = mg.tensor(np.zeros((2, 3), dtype))
    assert mg.randn_like(like).dtype == dtype and mg.rand_like(like).shape == (2, 3)


def test_complex_samples_are_reproducible_on_every_device():
    draws = []
    for device in ("cpu", "strict", "strict-f32"):
        mg.manual_seed(5)
        draws.append(mg.randn(3, 4, dtype=mg.complex64, device=device).numpy())
    assert np.array_equal(draws[0], draws[1]) and np.array_equal(draws[0], draws[2])
    gen = mg.Generator().manual_seed(1)
    a = mg.rand(5, dtype=mg.complex128, generator=gen)
    assert np.array_equal(a.numpy(), mg.rand(5, dtype=mg.complex128, generator=mg.Generator().manual_seed(1)).numpy())
    with pytest.raises(TypeError, match=r"randn: dtype must be a float dtype \(or a complex one\), got int64"):
        mg.randn(2, dtype=mg.int64)
