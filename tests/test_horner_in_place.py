"""``horner`` (the polynomials of erf, erfc, the gamma functions, ...) steps ``r = r * x + c`` in
the one array it made, in place: the same operations in the same order as new arrays, the same bits,
in every dtype it meets; on Tensors (a derivative taken twice) it still makes new ones.  GELU's
erf evaluates four polynomials over every element of a transformer's MLP activations, so each step's
two new arrays of their size were most of its time; ``tracemalloc`` (which sees NumPy's array memory)
measures what is alive at once."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.ops.elementwise import horner
from minigrad_ckpt.ops.special import _ERFC_P

sys.path.insert(0, str(Path(__file__).parent))
from traced_memory import peak_bytes  # noqa: E402  (tests/traced_memory.py)

COEFFS = (2.46e-10, 5.64e-1, -7.46, 4.86e1, 1.96e2, 5.26e-2, 9.34e2)


def _by_new_arrays(coeffs, x):
    r = x * 0 + coeffs[0]
    for c in coeffs[1:]:
        r = r * x + c
    return r


def _values(dtype):
    x = np.random.default_rng(0).standard_normal(500) * 3
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30]
    if np.dtype(dtype).kind == "c":
        return (x + 1j * x[::-1]).astype(dtype)
    if np.dtype(dtype).kind in "iub":
        return np.nan_to_num(x, posinf=7, neginf=-7).astype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128", "int64", "bool"])
def test_the_polynomial_is_the_new_array_steps_bit_for_bit(dtype):
    x = _values(dtype)
    with np.errstate(all="ignore"):
        got, want = horner(COEFFS, x), _by_new_arrays(COEFFS, x)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_a_zero_d_array_and_a_number_are_the_new_array_steps():
    for x in (np.float32(0.7), np.array(-1.5, np.float32), 2.0):
        got, want = horner(COEFFS, x), _by_new_arrays(COEFFS, x)
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes() and type(got) is type(want)


def test_on_tensors_it_stays_differentiable():
    x = mg.tensor([0.3, -1.2, 2.5], dtype=mg.float64, requires_grad=True)
    (d,) = mg.autograd.grad(horner(COEFFS, x).sum(), x, create_graph=True)
    (dd,) = mg.autograd.grad(d.sum(), x)
    p = np.polynomial.Polynomial(COEFFS[::-1])
    assert np.allclose(d.numpy(), p.deriv()(x.detach().numpy()), rtol=1e-12)
    assert np.allclose(dd.numpy(), p.deriv(2)(x.detach().numpy()), rtol=1e-12)


def test_a_polynomial_makes_one_array_of_its_arguments_size():
    x = np.random.default_rng(1).standard_normal(1 << 18).astype(np.float32)  # 1 MiB
    horner(_ERFC_P, x)  # (warm)
    assert peak_bytes(lambda: horner(_ERFC_P, x)) < 1.5 * x.nbytes
