"""float16 ``cumsum`` and vector norms accumulate in float32 and round the result to float16, as PyTorch's.

``mg.ones(5000, dtype=mg.float16).cumsum(0)[-1]`` was 2048 (NumPy's float16 running sum stalls:
2048 + 1 rounds back to 2048; torch 2.13: 5000), a prefix beyond 65504 stayed inf after the sum came
back in range, and ``mg.tensor([300.0] * 4, dtype=mg.float16).norm()`` was inf (the squares overflow
float16; torch: 600).

Expected values: torch 2.13 (``tests/data/make_torch_float16_accumulation.py`` writes
``tests/data/torch_float16_accumulation.json``).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

TORCH = json.loads(Path(__file__).with_name("data").joinpath("torch_float16_accumulation.json").read_text())
DEVICES = ["cpu", "strict", "strict-f32"]
H = mg.float16


def _want(values) -> np.ndarray:
    return np.array([float(v) for v in values])


def _got(t: mg.Tensor) -> np.ndarray:
    assert t.dtype == H
    return t.detach().cpu().numpy().astype(np.float64).reshape(-1)


@pytest.mark.parametrize("device", DEVICES)
def test_cumsum_is_pytorchs(device):
    ones = mg.ones(5000, dtype=H, device=device, requires_grad=True)
    c = ones.cumsum(0)
    c.backward(mg.ones_like(c))  # (c.sum() itself is beyond float16: inf)
    np.testing.assert_array_equal(_got(c[-3:]), _want(TORCH["cumsum ones"]["last"]))
    np.testing.assert_array_equal(_got(ones.grad[:3]), _want(TORCH["cumsum ones"]["grad_first"]))
    swing = mg.tensor([60000.0, 10000.0, -20000.0, 1.0], dtype=H, device=device)
    np.testing.assert_array_equal(_got(swing.cumsum(0)), _want(TORCH["cumsum swing"]["values"]))
    rows = mg.full((2, 3000), 0.5, dtype=H, device=device)
    np.testing.assert_array_equal(_got(rows.cumsum(1)[:, -1]), _want(TORCH["cumsum rows dim 1"]["last"]))
    # forward mode: the tangent is the running sum of the tangent, accumulated alike
    _, t = mg.func.jvp(lambda v: v.cumsum(0), (ones.detach(),), (mg.ones(5000, dtype=H, device=device),))
    assert t[-1].item() == 5000.0
    # the flattened running sum (no dim) of NumPy's spelling too
    assert mg.cumsum(mg.ones((50, 100), dtype=H, device=device))[-1].item() == 5000.0


NORMS = {"norm": lambda t: t.norm(), "vector_norm 3": lambda t: mg.linalg.vector_norm(t, 3),
         "vector_norm 0.5": lambda t: mg.linalg.vector_norm(t, 0.5),
         "vector_norm 1": lambda t: mg.linalg.vector_norm(t, 1),
         "vector_norm inf": lambda t: mg.linalg.vector_norm(t, float("inf")),
         "matrix_norm fro": lambda t: mg.linalg.matrix_norm(t.reshape(2, 2))}


@pytest.mark.parametrize("name", list(NORMS))
@pytest.mark.parametrize("device", DEVICES)
def test_norms_are_pytorchs(name, device):
    x = mg.tensor([300.0, -300.0, 300.0, 300.0], dtype=H, device=device, requires_grad=True)
    n = NORMS[name](x)
    n.backward()
    np.testing.assert_array_equal(_got(n), _want(TORCH[name]["value"]))
    want = _want(TORCH[name]["grad"])
    if name == "vector_norm 3":  # PyTorch's float16 backward overflows to NaN; the exact (|x| / norm)^2
        want = np.sign(x.detach().cpu().numpy()) * (300.0 / 476.25) ** 2
    np.testing.assert_allclose(_got(x.grad), want, rtol=2e-3)  # (float16 rounding of the ratio)
