"""``nn.utils.parametrizations.spectral_norm`` of a complex weight divides by ``u^H W v`` and iterates
with ``W^H``, as torch 2.13's: it used ``u . (W v)`` and ``W^T``, so the divisor was a complex number
and the weight came out rotated (diag(1+1j, 2, 3j) gave 0.23-0.41j, not (1+1j)/3, in its corner).
torch's numbers: ``tests/data/torch_complex_spectral_norm.json`` (``make_torch_complex_spectral_norm.py``).
The hook-based ``nn.utils.spectral_norm`` keeps torch's ``dot`` and ``W^T`` (torch's own, unchanged)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

DATA = json.loads((Path(__file__).with_name("data") / "torch_complex_spectral_norm.json").read_text())


def _c(key):
    a = np.asarray(DATA[key])
    return a[..., 0] + 1j * a[..., 1]


def _layer(device, dtype):
    m = mg.nn.Linear(4, 3, bias=False, dtype=dtype, device=device)
    with mg.no_grad():
        m.weight.copy_(mg.tensor(_c("W"), dtype=dtype, device=device))
    mg.nn.utils.parametrizations.spectral_norm(m)
    sn = m.parametrizations.weight[0]
    with mg.no_grad():
        sn._u.copy_(mg.tensor(_c("U"), dtype=dtype, device=device))
        sn._v.copy_(mg.tensor(_c("V"), dtype=dtype, device=device))
    return m, sn


@pytest.mark.parametrize("device, dtype", [("cpu", "complex128"), ("cpu", "complex64"), ("strict", "complex128"),
                                           ("strict-f32", "complex64")])
def test_complex_spectral_norm_is_torchs(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    tol = {"rtol": 1e-12, "atol": 1e-12} if dtype == "complex128" else {"rtol": 1e-4, "atol": 1e-5}
    m, sn = _layer(device, dtype)
    w = m.weight  # training mode: one power iteration, then W / (u^H W v)
    np.testing.assert_allclose(w.detach().numpy(), _c("weight"), **tol)
    np.testing.assert_allclose(sn._u.numpy(), _c("u"), **tol)
    np.testing.assert_allclose(sn._v.numpy(), _c("v"), **tol)
    mask = mg.tensor(np.asarray(DATA["mask"]), dtype="float64" if dtype == "complex128" else "float32", device=device)
    loss = (w.abs() ** 2 * mask).sum() + w.real.sum() - 2 * w.imag.sum()
    (grad,) = mg.autograd.grad(loss, [m.parametrizations.weight.original])
    np.testing.assert_allclose(grad.numpy(), _c("grad"), **tol)
    m2, _ = _layer(device, dtype)
    m2.eval()
    np.testing.assert_allclose(m2.weight.detach().numpy(), _c("eval_weight"), **tol)
    m2.train()
    for _ in range(30):  # the iteration converges: the largest singular value of the result is 1
        w2 = m2.weight
    assert np.linalg.svd(w2.detach().numpy(), compute_uv=False)[0] == pytest.approx(1.0, rel=1e-4)


def test_real_spectral_norm_is_unchanged():
    # for a real weight, vdot is dot and W^H is W^T
    rng = np.random.default_rng(0)
    m = mg.nn.Linear(4, 3, bias=False, dtype="float64")
    with mg.no_grad():
        m.weight.copy_(mg.tensor(rng.standard_normal((3, 4))))
    mg.nn.utils.parametrizations.spectral_norm(m)
    for _ in range(30):
        w = m.weight
    assert np.linalg.svd(w.detach().numpy(), compute_uv=False)[0] == pytest.approx(1.0, rel=1e-6)
    assert w.dtype == mg.float64
