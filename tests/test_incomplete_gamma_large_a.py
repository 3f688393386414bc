"""``gammainc``/``gammaincc`` (``igamma``/``igammac``) for large ``a``, against 50-digit values
(``tests/data/make_incomplete_gamma_reference.py``, mpmath).

A fixed 400 iterations of the series or the continued fraction, and a factor ``exp(a ln x - x -
gammaln(a))`` whose terms of size ``a ln a`` cancel, lost 1.2e-8 of ``P`` at ``a = 5000`` and 10%
at ``a = 1e5``; Temme's uniform expansion near ``x = a`` and a cancellation-free factor keep the
error at the problem's own conditioning: a relative change of ``x`` by a few ulp moves ``P`` by
``density * x * ulp``.  SciPy and PyTorch are no reference here: at ``a = 1e9``, ``x = a - 5
sqrt(a)``, both answer ``P`` 72% off.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

CASES = np.array(json.loads((Path(__file__).parent / "data" / "incomplete_gamma_reference.json").read_text())["cases"])
A, X, P, Q, DENSITY = CASES.T


def _tolerance(want: np.ndarray, dtype: np.dtype, floor: float) -> np.ndarray:
    """What the answer may be off by: ``floor`` of it, plus ``x`` moved by 4 ulp of ``dtype``, plus
    the dtype's least normal number (float32 underflows where float64 does not)."""
    return floor * np.abs(want) + 4 * np.finfo(dtype).eps * DENSITY * X + np.finfo(dtype).tiny


@pytest.mark.parametrize("device, dtype, floor", [("cpu", "float64", 1e-13), ("strict", "float64", 1e-13),
                                                  ("cpu", "float32", 1e-5), ("strict-f32", "float32", 1e-5)])
def test_values_for_large_a_within_their_conditioning(device, dtype, floor):
    a, x = (mg.tensor(v, dtype=dtype, device=device) for v in (A, X))
    if dtype == "float32":  # the reference is of the float64 x: keep the cases float32 holds exactly enough
        keep = np.abs(X.astype(np.float32) - X) * DENSITY <= 1e-6 * np.maximum(P, 1e-300)
    else:
        keep = np.ones_like(X, dtype=bool)
    for fn, want in ((mg.special.gammainc, P), (mg.special.gammaincc, Q)):
        got = fn(a, x).cpu().numpy().astype(np.float64)
        err = np.abs(got - want)
        bad = keep & ~(err <= _tolerance(want, np.dtype(dtype), floor))
        assert not bad.any(), (fn.__name__, list(zip(A[bad], X[bad], got[bad], want[bad])))
    sums = (mg.igamma(a, x) + mg.igammac(a, x)).cpu().numpy()
    np.testing.assert_allclose(sums, 1.0, rtol=0, atol=4 * np.finfo(dtype).eps)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_derivative_in_x_for_large_a_both_modes(device):
    a = mg.tensor(A, dtype="float64", device=device)
    x = mg.tensor(X, dtype="float64", device=device, requires_grad=True)
    (g,) = mg.grad(mg.special.gammaincc(a, x).sum(), [x])
    np.testing.assert_allclose(-g.cpu().numpy(), DENSITY, rtol=1e-12, atol=1e-300)
    _, tangent = mg.func.jvp(lambda t: mg.special.gammainc(a, t), (x.detach(),), (mg.ones_like(x),))
    np.testing.assert_allclose(tangent.cpu().numpy(), DENSITY, rtol=1e-12, atol=1e-300)
    per_example = mg.func.vmap(mg.func.grad(mg.special.gammainc, argnums=1), in_dims=(0, 0))
    np.testing.assert_allclose(per_example(a, x.detach()).cpu().numpy(), DENSITY, rtol=1e-12, atol=1e-300)


def test_in_place_and_inside_a_checkpoint():
    x = mg.tensor(X, dtype="float64", requires_grad=True)
    a = mg.tensor(A, dtype="float64")
    out = mg.checkpoint.checkpoint(lambda t: a.clone().igamma_(t), x)  # P written into a copy of a
    out.sum().backward()
    got = out.detach().numpy()
    assert (np.abs(got - P) <= _tolerance(P, np.dtype("float64"), 1e-13)).all()
    np.testing.assert_allclose(x.grad.numpy(), DENSITY, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_the_derivative_at_x_0_for_a_1_is_1(device, dtype):
    """``d/dx P(1, x) = e^-x``: 1 at ``x = 0``, where ``x^(a-1)`` is ``0^0 = 1`` -- computed as
    ``exp((a - 1) log x)`` it was ``exp(0 * -inf)``, NaN (PyTorch's answer too); ``a < 1`` is inf there
    and ``a > 1`` 0, as before.  Forward mode agrees."""
    x = mg.tensor([0.0, 0.0, 0.0, 0.5], dtype=dtype, device=device, requires_grad=True)
    a = mg.tensor([1.0, 0.5, 3.0, 1.0], dtype=dtype, device=device)
    (g,) = mg.autograd.grad(mg.special.gammainc(a, x).sum(), x)
    want = [1.0, np.inf, 0.0, np.exp(-0.5)]
    assert np.allclose(mg.backend.to_host(g._data), want, rtol=1e-6)
    (gc,) = mg.autograd.grad(mg.special.gammaincc(a, x).sum(), x)
    assert np.allclose(mg.backend.to_host(gc._data), -np.array(want), rtol=1e-6)
    _, t = mg.func.jvp(lambda v: mg.special.gammainc(a, v), (x.detach(),), (mg.ones_like(x),))
    assert np.allclose(mg.backend.to_host(t._data), want, rtol=1e-6)
