"""``log1p`` of a complex number keeps its digits near 0, as torch 2.13's: it was NumPy's complex
``log1p``, which rounds ``1 + z`` first -- ``log1p(1e-20 + 1e-20j)`` had real part 0 (torch: 1e-20), and
in complex64 ``log1p(1e-8 - 3e-8j)`` too (torch: 1e-8).  torch's numbers:
``tests/data/torch_complex_log1p.json`` (``make_torch_complex_log1p.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

DATA = json.loads((Path(__file__).with_name("data") / "torch_complex_log1p.json").read_text())
CASES = [("cpu", "complex128"), ("cpu", "complex64"), ("strict", "complex128"), ("strict-f32", "complex64")]


def _c(pairs, dtype):
    a = np.asarray(pairs)
    z = np.empty(a.shape[:-1], dtype)
    z.real, z.imag = a[..., 0], a[..., 1]  # each part as it is (x + 1j * y would drop the sign of a zero)
    return z


def _close(got, want, dtype):
    # relative to each part's own size: the small real parts are the point
    rtol = 4e-7 if dtype == "complex64" else 1e-15
    for part in (np.real, np.imag):
        np.testing.assert_allclose(part(got), part(want), rtol=rtol, atol=0)


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device, dtype", CASES)
def test_complex_log1p_is_torchs(device, dtype):
    z = mg.tensor(_c(DATA["points"], dtype), device=device, requires_grad=True)
    w = mg.log1p(z)
    _close(w.detach().numpy(), _c(DATA[dtype]["value"], dtype), dtype)
    (w.real + w.imag).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), _c(DATA[dtype]["grad"], dtype), rtol=1e-6 if dtype == "complex64"
                               else 1e-14)
    # the same values in place, under vmap and in forward mode's primal
    _close(z.detach().clone().log1p_().numpy(), _c(DATA[dtype]["value"], dtype), dtype)
    _close(mg.func.vmap(mg.log1p)(z.detach()).numpy(), _c(DATA[dtype]["value"], dtype), dtype)
    primal, _ = mg.func.jvp(mg.log1p, (z.detach(),), (mg.ones_like(z.detach()),))
    _close(primal.numpy(), _c(DATA[dtype]["value"], dtype), dtype)


def test_complex_log1p_at_its_branch_point_and_cut():
    # log1p(-1) = -inf, and the cut along x < -1 follows the sign of the imaginary zero, as log's
    w = mg.log1p(mg.tensor([-1 + 0j, -2 + 0j, complex(-2, -0.0)], dtype="complex128")).numpy()
    assert w[0].real == -np.inf and w[0].imag == 0
    np.testing.assert_allclose(w[1:], [np.pi * 1j, -np.pi * 1j], atol=1e-15)
