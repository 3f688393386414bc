"""float16 ``einsum`` accumulates in float32 and rounds its result once, as PyTorch's (a batched
matrix product there), forward, backward and forward mode alike.

NumPy's float16 einsum adds each product into its float16 output, so a long sum stalls:
``einsum("bi,bi->b")`` of two rows of 3000 ones was 2048 (2048 + 1 rounds back to 2048; torch 2.13:
3000), and the attention scores of guided-diffusion's float16 UNet, ``einsum("bct,bcs->bts", q, k)``
over 64 channels, were up to 342 units in the last place off where PyTorch's are within half of one.
Found porting openai/guided-diffusion with ``use_fp16=True``.  Expected values are exact sums.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

H = mg.float16
DEVICES = ["cpu", "strict", "strict-f32"]


@pytest.mark.parametrize("device", DEVICES)
def test_a_long_contraction_does_not_stall(device):
    a = mg.ones((2, 3000), dtype=H, device=device, requires_grad=True)
    b = mg.ones((2, 3000), dtype=H, device=device)
    y = mg.einsum("bi,bi->b", a, b)
    assert y.dtype == H
    assert y.tolist() == [3000.0, 3000.0]  # 3000 is a float16 number


@pytest.mark.parametrize("device", DEVICES)
def test_the_gradient_contraction_does_not_stall(device):
    w = mg.ones((3000, 2), dtype=H, device=device)
    v = mg.ones(2, dtype=H, device=device, requires_grad=True)
    y = mg.einsum("ij,j->i", w, v)  # the gradient of v sums 3000 products over i
    y.backward(mg.ones_like(y))
    assert v.grad.dtype == H
    assert v.grad.tolist() == [3000.0, 3000.0]


def test_the_tangent_contraction_does_not_stall():
    a = mg.ones((2, 3000), dtype=H)
    _, t = mg.func.jvp(lambda x: mg.einsum("bi,bi->b", x, a), (a,), (mg.ones((2, 3000), dtype=H),))
    assert t.tolist() == [3000.0, 3000.0]


def test_rounded_once_from_the_exact_sum():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((3, 64, 5)).astype(np.float16)
    k = rng.standard_normal((3, 64, 7)).astype(np.float16)
    got = mg.einsum("bct,bcs->bts", mg.from_numpy(q), mg.from_numpy(k)).numpy().astype(np.float64)
    exact = np.einsum("bct,bcs->bts", q.astype(np.float64), k.astype(np.float64))
    # within a float32 rounding of the correctly rounded float16 value: half a float16 unit, plus a little
    unit = np.spacing(np.abs(exact).astype(np.float16)).astype(np.float64)
    assert np.max(np.abs(got - exact) / unit) <= 0.5 + 1e-3
