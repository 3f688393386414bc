"""``F.rms_norm`` of float16 computes in float32 and rounds once, as PyTorch's half kernel, with
float32's epsilon when ``eps`` is None.  It computed in float16 with float16's epsilon (1e-3):
``rms_norm([0.01] * 4)`` was 0.305 (torch 2.13: 0.9995), and ``x^2`` overflowed from 256 on, so a
row holding 60000 came out all 0 (torch: that entry 4.0, the others small).

Expected values: torch 2.13 (``tests/data/make_torch_float16_rms_norm.py`` writes
``torch_float16_rms_norm.npz``; the inputs are drawn there, seeded).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from make_torch_float16_rms_norm import CASES, inputs  # noqa: E402

REF = np.load(DATA / "torch_float16_rms_norm.npz")


def _close(got: mg.Tensor, want: np.ndarray) -> None:
    # the backward rounds a few times in float16 on each side: within a unit or two of the last place
    np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=1e-6)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_are_pytorchs(name, device):
    scale, eps, weighted = CASES[name]
    x, w, g = inputs(scale)
    tx = mg.tensor(x, device=device, requires_grad=True)
    tw = mg.tensor(w, device=device, requires_grad=True) if weighted else None
    y = mg.nn.functional.rms_norm(tx, (16,), tw, eps)
    assert y.dtype == mg.float16
    np.testing.assert_array_equal(y.detach().cpu().numpy(), REF[f"{name}|value"])  # rounded once: to the bit
    y.backward(mg.tensor(g, device=device))
    assert tx.grad.dtype == mg.float16
    _close(tx.grad, REF[f"{name}|grad"])
    if weighted:
        _close(tw.grad, REF[f"{name}|weight_grad"])


def test_the_module_and_forward_mode_agree():
    x, w, _ = inputs(1e-2)
    layer = mg.nn.RMSNorm(16, dtype=mg.float16)
    np.testing.assert_array_equal(layer(mg.tensor(x)).detach().numpy(), REF["small|value"])
    v = mg.tensor(x)
    _, tangent = mg.func.jvp(lambda u: mg.nn.functional.rms_norm(u, (16,)), (v,), (mg.ones_like(v),))
    assert tangent.dtype == mg.float16 and np.isfinite(tangent.numpy()).all()
