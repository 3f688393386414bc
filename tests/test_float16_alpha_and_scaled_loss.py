"""float16 ``add``/``sub`` with ``alpha``, and ``GradScaler.scale`` of float16 outputs, round once, as
PyTorch's half kernels.

* ``add(x, y, alpha=a)``: PyTorch rounds ``alpha`` (and a number ``y``) to float16, then computes
  ``x + alpha * y`` in float32 and rounds once.  ``alpha * y`` was rounded to float16 first: a quarter
  of the values were off, by up to 998 units in the last place where the sum cancels
  (``sub(a, b, alpha=7.3)``); ``add_``/``sub_`` likewise.
* ``GradScaler("cpu").scale(out)`` of float16 ``out``: PyTorch's scale is a float32 0-d tensor, so the
  product is taken in float32 and rounded once (a 0-d float16 loss promotes to float32).  The scale
  was rounded to float16 first: 65536 is beyond float16, and every scaled output was inf.

Expected values: torch 2.13, bit patterns (``tests/data/make_torch_float16_alpha.py`` writes
``torch_float16_alpha.json``); torch is not imported.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from make_torch_float16_alpha import ALPHAS, SCALES, inputs  # noqa: E402

TORCH = json.loads((DATA / "torch_float16_alpha.json").read_text())
DEVICES = ["cpu", "strict"]


def _bits(t: mg.Tensor) -> list[int]:
    assert t.dtype == mg.float16
    return t.detach().cpu().numpy().view(np.uint16).tolist()


def _pair(device, requires_grad=False):
    a, b = inputs()
    return (mg.tensor(a, device=device, requires_grad=requires_grad),
            mg.tensor(b, device=device, requires_grad=requires_grad))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("alpha", ALPHAS)
def test_add_and_sub_with_alpha_are_pytorchs(alpha, device):
    want = TORCH["alpha"][repr(alpha)]
    a, b = _pair(device)
    assert _bits(mg.add(a, b, alpha=alpha)) == want["add"]
    assert _bits(a.add(1.7, alpha=alpha)) == want["add number"]
    assert _bits(a.clone().add_(b, alpha=alpha)) == want["add_"]
    assert _bits(a.clone().sub_(1.7, alpha=alpha)) == want["sub_ number"]
    x, y = _pair(device, requires_grad=True)
    s = x.sub(y, alpha=alpha)
    assert _bits(s) == want["sub"]
    s.backward(mg.ones_like(s))
    assert _bits(x.grad) == want["sub grad x"] and _bits(y.grad) == want["sub grad y"]
    # in place on the tape, and inside a checkpointed segment: the same values
    w = x.detach().clone().requires_grad_(True)
    z = w * 1.0
    z.sub_(y.detach(), alpha=alpha)
    assert _bits(z) == want["sub"]
    c = mg.checkpoint.checkpoint(lambda u, v: mg.sub(u, v, alpha=alpha), x, y, use_reentrant=False)
    assert _bits(c) == want["sub"]


def test_float32_and_float64_sums_are_unchanged():
    a, b = inputs()
    for dtype in (mg.float32, mg.float64):
        x, y = mg.tensor(a, dtype=dtype), mg.tensor(b, dtype=dtype)
        got = mg.add(x, y, alpha=7.3)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.numpy(), x.numpy() + y.numpy() * np.dtype(dtype).type(7.3))


def test_forward_mode_tangent_of_the_sum():
    a, b = inputs()
    x, y = mg.tensor(a), mg.tensor(b)
    out, tangent = mg.func.jvp(lambda u: mg.sub(u, y, alpha=7.3), (x,), (mg.ones_like(x),))
    assert _bits(out) == TORCH["alpha"][repr(7.3)]["sub"]
    assert tangent.dtype == mg.float16 and tangent.tolist() == [1.0] * 64


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("init", SCALES)
def test_scaled_float16_outputs_are_pytorchs(init, device):
    want = TORCH["scale"][repr(init)]
    x, _ = _pair(device, requires_grad=True)
    scaled = mg.amp.GradScaler("cpu", init_scale=init).scale(x)
    assert _bits(scaled) == want["scaled"]
    with np.errstate(over="ignore"):  # (65536 times a gradient of 1 is inf in float16: torch's too)
        scaled.backward(mg.ones_like(scaled))
    assert _bits(x.grad) == want["grad"]


def test_a_scaled_0d_float16_loss_is_float32():
    loss = mg.tensor(0.5, dtype=mg.float16, requires_grad=True)
    scaled = mg.amp.GradScaler("cpu").scale(loss)
    assert scaled.dtype == mg.float32 and scaled.item() == 32768.0  # torch: tensor(32768.)
    with np.errstate(over="ignore"):
        scaled.backward()
    assert loss.grad.dtype == mg.float16 and loss.grad.item() == float("inf")  # torch's too: 65536 in float16
