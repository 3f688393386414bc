"""``mg.special``'s orthogonal polynomials (``chebyshev_polynomial_t`` ... ``legendre_polynomial_p``)
against PyTorch 2.13's values (``tests/data/make_torch_orthogonal_polynomials.py``): a grid of
``x`` (endpoints, inside and outside the interval, +-inf, NaN) by degrees (negative, fractional,
the thresholds of the trigonometric forms, Hermite's NaN limits, huge, NaN), float32 and
float64, on cpu and the strict devices; the dtypes of mixed operands; no gradient."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from numpy_simd import AVX512  # tests/numpy_simd.py

import minigrad_ckpt as mg
from minigrad_ckpt.ops import orthogonal_polynomials as op
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = np.load(Path(__file__).parent / "data" / "torch_orthogonal_polynomials.npz")
NAMES = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
         "legendre_polynomial_p"]
DEVICES = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


def _close(got: np.ndarray, want: np.ndarray, dtype: str, n: np.ndarray) -> np.ndarray:
    """Equal, both NaN, or within ``16 + 8 n`` ulp of the larger of |want| and 1: PyTorch's recurrence
    is compiled with fused multiply-adds, and the two roundings part by up to ~5 ulp a step where
    the recurrence amplifies them (x near +-1: T_512(1.0001) differs by ~900 ulp; neither is exact)."""
    eps = np.finfo(dtype).eps
    steps = np.where(np.isfinite(n) & (np.abs(np.nan_to_num(n)) < 2.0**63), np.abs(np.trunc(np.nan_to_num(n))), 0)
    per_step = 10 if AVX512 else 8  # (NumPy's vectorized float64 kernels: V_300(-0.7) 9.5 ulp a step from torch's)
    with np.errstate(invalid="ignore"):
        near = np.abs(got - want) <= (16 + per_step * steps) * eps * np.maximum(np.abs(want), 1)
    return (got == want) | (np.isnan(got) & np.isnan(want)) | near


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("device, dtype", DEVICES)
def test_values_match_pytorch(name, device, dtype):
    x, n, want = DATA[f"x_{dtype}"], DATA[f"n_{dtype}"], DATA[f"{name}_{dtype}"]
    got = getattr(mg.special, name)(mg.tensor(x, device=device), mg.tensor(n, device=device))
    assert got.dtype == getattr(mg, dtype) and not got.requires_grad
    got = got.numpy()
    ok = _close(got, want, dtype, n)
    bad = np.argwhere(~ok)[:5]
    assert ok.all(), [(x[i, j], n[i, j], got[i, j], want[i, j]) for i, j in bad]


@pytest.mark.parametrize("name", NAMES)
def test_the_op_reference_agrees_with_pytorch(name):
    """The op's host reference (PyTorch's scalar code, one element at a time) on the same grid;
    looser than the kernel's check where the recurrence amplifies one rounding (x near 1)."""
    cls = next(c for c in vars(op).values() if getattr(c, "fn", None) == name and not c.__dict__.get("abstract"))
    for dtype in ("float64", "float32"):
        x, n, want = DATA[f"x_{dtype}"], DATA[f"n_{dtype}"], DATA[f"{name}_{dtype}"]
        with np.errstate(all="ignore"):
            got = cls().reference(np, x, n)
            rel = np.abs(got - want) / np.maximum(np.abs(want), 1)
        assert (_close(got, want, dtype, n) | (rel < 1e4 * np.finfo(dtype).eps)).all()


def _operand(kind: str):
    return {"f32": mg.tensor([0.3, 2.0]), "f64": mg.tensor([0.3, 2.0], dtype=mg.float64),
            "i64": mg.tensor([2, 3]), "bool": mg.tensor([True, False]),
            "f64_0d": mg.tensor(3.0, dtype=mg.float64), "float": 0.5, "int": 3}[kind]


@pytest.mark.parametrize("name", NAMES)
def test_mixed_operands_broadcast_and_promote_as_pytorch(name):
    for key, (dtype, values) in json.loads(str(DATA["mixed"])).items():
        fn, a, b = key.split("|")
        if fn != name:
            continue
        got = getattr(mg.special, name)(_operand(a), _operand(b))
        assert str(got.dtype).replace("minigrad_ckpt.", "") == dtype, key
        np.testing.assert_allclose(got.numpy(), values, rtol=1e-6, err_msg=key)


def test_two_numbers_are_pytorchs_type_error_and_complex_is_refused():
    with pytest.raises(TypeError):
        mg.special.chebyshev_polynomial_t(0.5, 2)
    with pytest.raises(TypeError):
        mg.special.legendre_polynomial_p(mg.tensor([0.5 + 1j]), 2)


@pytest.mark.parametrize("name", NAMES)
def test_no_gradient_as_pytorch(name):
    """PyTorch declares no derivative: the result does not require grad, so backward through it is
    the error for a tensor without one."""
    x = mg.tensor([0.3, 0.6], dtype=mg.float64, requires_grad=True)
    y = getattr(mg.special, name)(x, 3)
    assert not y.requires_grad and y.grad_fn is None
    with pytest.raises(RuntimeError):
        y.sum().backward()


def test_a_huge_degree_at_which_the_recurrence_overflows_ends_early():
    """PyTorch's loop stops at the first NaN: T_n(2) for n = 10^12 is NaN at once, not after 10^12
    steps; and a degree beyond int64 is negative (0)."""
    got = mg.special.chebyshev_polynomial_t(mg.tensor([2.0, 0.5], dtype=mg.float64),
                                            mg.tensor([1e12, 1e30], dtype=mg.float64)).numpy()
    assert np.isnan(got[0]) and got[1] == 0


def test_under_vmap_and_checkpoint_as_a_constant_factor():
    x = mg.tensor([[0.3, 0.6], [1.5, -0.2]], dtype=mg.float64)
    n = mg.tensor([2, 3])
    batched = mg.func.vmap(lambda row: mg.special.legendre_polynomial_p(row, n))(x)
    np.testing.assert_array_equal(batched.numpy(), mg.special.legendre_polynomial_p(x, n).numpy())
    w = mg.tensor([0.3, 0.6], dtype=mg.float64, requires_grad=True)
    y = mg.checkpoint.checkpoint(lambda a: a * mg.special.hermite_polynomial_h(a.detach(), 2), w, use_reentrant=False)
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 4 * w.detach().numpy() ** 2 - 2)
