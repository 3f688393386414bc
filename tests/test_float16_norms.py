"""float16 layer, batch, group and instance norms compute their statistics in float32, as PyTorch's.

``F.layer_norm(x.half(), ...)`` of activations of magnitude ~100 was 0 everywhere (the variance
``mean(d * d)`` overflowed float16 to inf, and ``d / sqrt(inf)`` is 0), its gradient too; torch 2.13
normalizes them (its half norms accumulate in float).

Expected values: torch 2.13 (``tests/data/make_torch_float16_norms.py`` writes
``tests/data/torch_float16_norms.npz``).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from float16_norm_cases import CALLS  # noqa: E402

TORCH = np.load(Path(__file__).with_name("data").joinpath("torch_float16_norms.npz"))


def _on(device, name):
    return mg.tensor(TORCH[name], device=device)


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_values_and_gradients_are_pytorchs(name, device):
    x = mg.tensor(TORCH["x"], device=device, requires_grad=True)
    y = CALLS[name](F, x, _on(device, "w"), _on(device, "b"))
    (y * _on(device, "g")).sum().backward()
    assert y.dtype == mg.float16 and x.grad.dtype == mg.float16
    # a float16 result rounds to 2^-11 relative; the affine ones add a rounding of their own
    np.testing.assert_allclose(y.detach().cpu().numpy().astype(np.float64), TORCH[f"{name}/value"], rtol=2e-3,
                               atol=4e-3)
    np.testing.assert_allclose(x.grad.cpu().numpy().astype(np.float64), TORCH[f"{name}/grad"], rtol=2e-3,
                               atol=2e-4)


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_forward_mode_and_the_layer(device):
    x = mg.tensor(TORCH["x"], device=device)
    y, t = mg.func.jvp(lambda v: F.layer_norm(v, (50,)), (x,), (_on(device, "g"),))
    np.testing.assert_allclose(y.cpu().numpy().astype(np.float64), TORCH["layer_norm/value"], rtol=2e-3, atol=4e-3)
    assert np.isfinite(t.cpu().numpy()).all() and np.abs(t.cpu().numpy()).max() > 0
    layer = mg.nn.LayerNorm(50).half().to(device)
    np.testing.assert_allclose(layer(x).detach().cpu().numpy().astype(np.float64), TORCH["layer_norm/value"],
                               rtol=2e-3, atol=4e-3)
