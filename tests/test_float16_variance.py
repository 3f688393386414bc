"""float16 ``var``/``std`` compute in float32 and round the result to float16, as PyTorch's half; and a
variance whose power-of-two scale squared overflows is not inf.

``(mg.randn(4, 3000) * 100).half().var(1)`` was inf (the squares overflow float16; torch 2.13: ~1e4),
and its gradient lost 0.5% to float16 rounding of ``x - mean``.  The float32 variance of one 2e19 among
9999 zeros (4e34) was inf: it was computed as ``v * s**2`` with ``s = 2**64``, whose square overflows
float32; ``(v * s) * s`` is the same bits where nothing overflows.

Expected values: torch 2.13 (``tests/data/make_torch_float16_variance.py`` writes
``tests/data/torch_float16_variance.npz``).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

TORCH = np.load(Path(__file__).with_name("data").joinpath("torch_float16_variance.npz"))
DEVICES = ["cpu", "strict", "strict-f32"]


def _np(t: mg.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float64)


@pytest.mark.parametrize("device", DEVICES)
def test_float16_var_and_std_are_pytorchs(device):
    x = mg.tensor(TORCH["x"], device=device, requires_grad=True)
    v, s = x.var(1), x.std(1)
    (v.sum() + s.sum()).backward()
    assert v.dtype == s.dtype == x.grad.dtype == mg.float16
    np.testing.assert_array_equal(_np(v), TORCH["var"])
    np.testing.assert_array_equal(_np(s), TORCH["std"])
    np.testing.assert_allclose(_np(x.grad), TORCH["grad"], rtol=2.5e-3, atol=1e-6)  # (two float16 roundings, summed)
    vm = mg.var_mean(x.detach(), dim=1, correction=0)
    np.testing.assert_array_equal(_np(vm[0]), TORCH["var_mean_var"])
    np.testing.assert_array_equal(_np(vm[1]), TORCH["var_mean_mean"])
    np.testing.assert_array_equal(_np(mg.std_mean(x.detach(), dim=1)[0]), TORCH["std_mean_std"])
    g, = mg.autograd.grad(x.std(1).sum(), x, create_graph=True)  # twice differentiable, in float16
    assert mg.autograd.grad(g.sum(), x)[0].dtype == mg.float16


@pytest.mark.parametrize("device", DEVICES)
def test_a_variance_whose_scale_squared_overflows(device):
    spike = mg.tensor(TORCH["spike"], device=device, requires_grad=True)
    v = spike.var()
    v.backward()
    np.testing.assert_allclose(v.item(), float(TORCH["spike_var"]), rtol=1e-6)
    np.testing.assert_allclose(spike.std().item(), float(TORCH["spike_std"]), rtol=1e-6)
    np.testing.assert_allclose(_np(spike.grad), TORCH["spike_grad"], rtol=1e-6)
