"""``addmm``, ``addmv`` and ``addbmm`` with ``alpha=0`` answer ``beta * input`` whatever NaN or
inf the operands hold, as PyTorch's float and double ones (BLAS's gemm and gemv do not read the
matrices when alpha is 0; complex ``addmm``/``addbmm`` too).  The engine multiplied: the product's
NaN reached the result (``addmm(c, a_with_nan, b, alpha=0)`` was NaN where torch 2.13 gives ``c``).
PyTorch's half kernels, complex ``addmv``, ``addr`` and a small ``baddbmm`` do multiply, and so does
the engine there.  The gradients are PyTorch's either way: the operands' are ``alpha * (g @ other^T)``,
NaN where the other operand holds a NaN or an inf.

Expected values: torch 2.13 (``tests/data/make_torch_blas_alpha_zero.py`` writes
``torch_blas_alpha_zero.json``).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from make_torch_blas_alpha_zero import BETAS, DTYPES, SHAPES, operands  # noqa: E402

TORCH = json.loads((DATA / "torch_blas_alpha_zero.json").read_text())
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NumPy on NaN and inf
KEYS = [f"{n}/{d}/{b}" for n in SHAPES for d in DTYPES for b in BETAS]


def _same(got: np.ndarray, want: list, rtol: float, zeros_signed: bool = True) -> None:
    got = np.asarray(got)
    parts = [got.real, got.imag] if np.iscomplexobj(got) else [got]
    zeros_signed = zeros_signed and not np.iscomplexobj(got)  # (complex products sign zeros their own way)
    for part, expected in zip(parts, want, strict=True):
        part = part.astype(np.float64).ravel()
        expected = np.array([float(v) for v in expected])
        np.testing.assert_array_equal(np.isnan(part), np.isnan(expected))
        ok = ~np.isnan(expected)
        np.testing.assert_allclose(part[ok], expected[ok], rtol=rtol, atol=0)
        if zeros_signed:  # beta = 1 keeps the input's -0.0: nothing was added to it
            zero = ok & (expected == 0)
            np.testing.assert_array_equal(np.signbit(part[zero]), np.signbit(expected[zero]))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("key", KEYS)
def test_values_and_gradients_are_pytorchs(key, device):
    name, dtype, beta = key.split("/")
    xs = [mg.tensor(a, device=device, requires_grad=True) for a in operands(name, dtype)]
    y = getattr(mg, name)(*xs, beta=float(beta), alpha=0)
    rtol = 1e-3 if dtype == "float16" else 1e-6
    _same(y.detach().cpu().numpy(), TORCH[key]["value"], rtol)
    g = mg.linspace(0.5, 1.5, y.numel(), dtype=mg.float64, device=device).reshape(y.shape).to(y.dtype)
    mg.real(y * g).sum().backward() if y.dtype.kind == "c" else (y * g).sum().backward()
    for x, want in zip(xs, TORCH[key]["grads"], strict=True):
        _same(x.grad.cpu().numpy(), want, rtol, zeros_signed=False)


@pytest.mark.parametrize("name", ["addmm", "addmv", "addbmm"])
def test_in_place_and_forward_mode(name):
    c, a, b = (mg.tensor(x) for x in operands(name, "float32"))
    want = TORCH[f"{name}/float32/0.5"]["value"]
    h = c.clone()
    getattr(h, name + "_")(a, b, beta=0.5, alpha=0)
    _same(h.numpy(), want, 1e-6)
    # the tangent: beta * dc, the operands' tangents times the unread product are 0 there
    _, tangent = mg.func.jvp(lambda c_: getattr(mg, name)(c_, a, b, beta=0.5, alpha=0), (c,), (mg.ones_like(c),))
    np.testing.assert_array_equal(tangent.numpy(), np.full(tangent.shape, 0.5, np.float32))


def test_a_nonzero_alpha_still_multiplies():
    c, a, b = (mg.tensor(x) for x in operands("addmm", "float64"))
    assert np.isnan(mg.addmm(c, a, b, alpha=1e-300).numpy()).any()
