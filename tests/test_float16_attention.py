"""``F.scaled_dot_product_attention`` of float16 computes in float32 and rounds once, as PyTorch's
half kernel computes in float.  Step by step in float16 the scores ``q k^T`` of entries ~60 (head
dim 64) exceeded 65504: every output was NaN (torch 2.13: finite), and smaller entries lost about
1% (the softmax's exponentials and sums rounded to float16).

Expected values: torch 2.13 (``tests/data/make_torch_float16_attention.py`` writes
``torch_float16_attention.npz``).  PyTorch's flash kernel rounds its probabilities to half before
the product with the values, so it sits half a percent from the float32 answer the engine rounds
once: the comparison allows 1%.
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
from make_torch_float16_attention import CASES, inputs  # noqa: E402

REF = np.load(DATA / "torch_float16_attention.npz")
F = mg.nn.functional


def _attend(q, k, v, mask, causal, device="cpu"):
    m = None if mask is None else mg.tensor(mask, device=device)
    return F.scaled_dot_product_attention(q, mg.tensor(k, device=device), mg.tensor(v, device=device), m,
                                          is_causal=causal)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_are_pytorchs(name, device):
    scale, causal, mask_kind = CASES[name]
    q, k, v, mask, g = inputs(scale, mask_kind)
    tq = mg.tensor(q, device=device, requires_grad=True)
    y = _attend(tq, k, v, mask, causal, device)
    assert y.dtype == mg.float16
    want = REF[f"{name}|value"].astype(np.float64)
    np.testing.assert_allclose(y.detach().cpu().numpy().astype(np.float64), want, rtol=1e-2, atol=1e-2 * scale)
    y.backward(mg.tensor(g, device=device))
    assert tq.grad.dtype == mg.float16
    got, grad = tq.grad.cpu().numpy().astype(np.float64), REF[f"{name}|grad"].astype(np.float64)
    if scale > 10:  # saturated weights: the exact gradient is e^-1000-small, torch's half rounding noise
        assert np.isfinite(got).all() and np.abs(got).max() <= np.abs(grad).max()
        return
    np.testing.assert_allclose(got, grad, rtol=1e-2, atol=1e-2 * np.abs(grad).max())


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_float16_answer_is_the_float32_one_rounded_once(name):
    scale, causal, mask_kind = CASES[name]
    q, k, v, mask, _ = inputs(scale, mask_kind)
    half = _attend(mg.tensor(q), k, v, mask, causal).numpy()
    wide_mask = mask if mask is None or mask.dtype == bool else mask.astype(np.float32)
    wide = _attend(mg.tensor(q.astype(np.float32)), k.astype(np.float32), v.astype(np.float32), wide_mask, causal)
    np.testing.assert_array_equal(half, wide.numpy().astype(np.float16))
