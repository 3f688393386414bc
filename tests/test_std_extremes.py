"""``std``/``var`` of slices whose squares under- or overflow though the standard deviation does not.

``mg.tensor([1e-25, -1e-25, 3e-25, 0.0]).std()`` was 0 in float32 (each square underflowed) and the
same values times 1e45 gave inf (each square overflowed); PyTorch, which accumulates float32 variances
in double, answers 1.7078e-25 and 1.7078e+20.  The engine now divides each slice's deviations by a
power of two near their largest before squaring: exact, so ordinary inputs get the same bits as before.

Expected values: torch 2.13 (``tests/data/make_torch_std_extremes.py`` writes
``tests/data/torch_std_extremes.json``).  In float64 (where PyTorch's double accumulator underflows
as the engine's did: its std of ``[1e-200, -1e-200, 3e-200, 0]`` is 0) the exact values are the
float32 rows' scaled by a power of ten.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

TORCH = json.loads(Path(__file__).with_name("data").joinpath("torch_std_extremes.json").read_text())
ROWS = np.array(TORCH["rows"], dtype=np.float32)
SUBNORMAL_ROW = 2  # PyTorch's float32 gradient is +-inf there (1 / (3 * std) overflows): see below
F32 = {"rtol": 2e-6, "atol": 0.0}


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_float32_values_are_pytorchs(device):
    x = mg.tensor(ROWS, device=device)
    np.testing.assert_allclose(x.std(dim=1).numpy(), TORCH["std_dim1"], **F32)
    np.testing.assert_allclose(x.std(dim=1, correction=0).numpy(), TORCH["std_dim1_correction0"], **F32)
    np.testing.assert_allclose(x.var(dim=1).numpy(), TORCH["var_dim1"], **F32)  # 0 and inf: var itself under/overflows
    np.testing.assert_allclose(x[:3].std(dim=0, keepdim=True).numpy(), TORCH["std_dim0_keepdim"], **F32)
    np.testing.assert_allclose(x[0].std().numpy(), TORCH["std_first_row"], **F32)
    s, m = mg.std_mean(x, dim=1)
    np.testing.assert_allclose(s.numpy(), TORCH["std_mean_dim1"][0], **F32)
    np.testing.assert_allclose(m.numpy(), TORCH["std_mean_dim1"][1], **F32)


def _exact_gradient(rows: np.ndarray) -> np.ndarray:
    """``(x - mean) / ((N - 1) std)`` of each row, in extended precision (scale-invariant)."""
    w = rows.astype(np.longdouble)
    d = w - w.mean(axis=1, keepdims=True)
    return (d / (3 * np.sqrt((d * d).sum(axis=1, keepdims=True) / 3))).astype(np.float64)


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_float32_gradient_and_tangent_are_pytorchs(device):
    x = mg.tensor(ROWS, device=device, requires_grad=True)
    x.std(dim=1).sum().backward()
    others = [i for i in range(len(ROWS)) if i != SUBNORMAL_ROW]
    np.testing.assert_allclose(x.grad.numpy()[others], np.array(TORCH["grad_std_dim1"])[others], rtol=1e-5)
    # the subnormal row's gradient is finite, the exact one to the rounding of its subnormal mean (PyTorch: +-inf)
    np.testing.assert_allclose(x.grad.numpy()[others], _exact_gradient(ROWS)[others], rtol=1e-5)
    np.testing.assert_allclose(x.grad.numpy()[SUBNORMAL_ROW], _exact_gradient(ROWS)[SUBNORMAL_ROW], rtol=3e-3)
    _, t = mg.func.jvp(lambda v: v.std(dim=1), (x.detach(),), (mg.tensor(TORCH["tangent"], device=device),))
    np.testing.assert_allclose(t.numpy()[others], np.array(TORCH["jvp_std_dim1"])[others], rtol=1e-5)
    v = mg.tensor(ROWS, device=device, requires_grad=True)
    mg.checkpoint.checkpoint(lambda a: (a * 1).std(dim=1), v).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), x.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("power", [-200, 200, -320])
def test_float64_std_of_tiny_and_huge_spreads(device, power):
    unit = np.array([[1.0, -1.0, 3.0, 0.0], [2.0, 0.5, -7.0, 1.0]])
    x = mg.tensor(unit * 10.0**power, device=device, requires_grad=True)
    want = np.std(unit, axis=1, ddof=1) * 10.0**power
    got = x.std(dim=1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-13 if power > -300 else 2e-3)  # (-320: subnormal inputs)
    got.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    exact = _exact_gradient(x.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), exact, rtol=1e-12 if power > -300 else 3e-3)


def test_ordinary_inputs_keep_their_bits_and_special_values_stay():
    # the scaling that keeps extreme spreads finite changes nothing else: float64 keeps the two-pass
    # formula's bits; float32 takes out the mean's rounding error (docs/ops.md), so it is held to the
    # float64 truth within an ulp instead
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 5)) * 1e3
    d = a - a.mean(axis=1, keepdims=True)
    assert np.array_equal(mg.tensor(a).var(dim=1, correction=0).numpy(), (d * d).sum(axis=1) / 5)
    assert np.array_equal(mg.tensor(a).std(dim=1, correction=0).numpy(), np.sqrt((d * d).sum(axis=1) / 5))
    a32 = a.astype(np.float32)
    truth = a32.astype(np.float64).var(axis=1)
    np.testing.assert_allclose(mg.tensor(a32).var(dim=1, correction=0).numpy(), truth, rtol=1.2e-7)
    np.testing.assert_allclose(mg.tensor(a32).std(dim=1, correction=0).numpy(), np.sqrt(truth), rtol=1.2e-7)
    special = mg.tensor([[np.inf, 1.0], [np.nan, 1.0], [2.0, 2.0], [3e38, -3e38]], dtype=mg.float32)
    np.testing.assert_array_equal(special.std(dim=1).numpy(), [np.nan, np.nan, 0.0, np.inf])
    assert np.isnan(mg.zeros(0).std().item()) and mg.zeros(2, 0).var(dim=1).shape == (2,)
