"""float16 ``log_softmax`` along a dim other than the last computes in float32 and rounds once, as
PyTorch's half kernel there; its gradient (and tangent), along any dim, is the float backward from the
float16 output, rounded once, as PyTorch's.  Step by step in float16 the values near 0 were up to 2000
units in the last place off torch 2.13's (``log_softmax(x, 0)`` of a (7, 300) float16 ``x``) and a tenth of
the gradients a unit or more.  (Along the last dim PyTorch's forward kernel rounds in between, and the
float16 steps stay as they are: see ``test_float16_softmax``.)

Expected values: torch 2.13 (``tests/data/make_torch_float16_log_softmax.py`` writes
``torch_float16_log_softmax.npz``); torch is not imported.
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
from make_torch_float16_log_softmax import CASES, inputs  # noqa: E402

REF = np.load(DATA / "torch_float16_log_softmax.npz")


def _host(t: mg.Tensor) -> np.ndarray:
    assert t.dtype == mg.float16
    return t.detach().cpu().numpy()


def _as_torchs(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit but for at most one value in 500, a unit in the last place apart: a float32 sum taken
    in another order than PyTorch's can round to float16 the other way."""
    apart = np.abs(got.view(np.int16).astype(np.int64) - want.view(np.int16).astype(np.int64))
    assert apart.max() <= 1 and np.count_nonzero(apart) <= got.size // 500


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize(("shape", "dim"), CASES)
def test_values_and_gradients_are_pytorchs(shape, dim, device):
    x, g = inputs(shape)
    t = mg.tensor(x, device=device, requires_grad=True)
    y = mg.nn.functional.log_softmax(t, dim=dim)
    if dim != len(shape) - 1:
        _as_torchs(_host(y), REF[f"{shape} {dim} value"])
    y.backward(mg.tensor(g, device=device))
    want = REF[f"{shape} {dim} grad"]
    if dim == len(shape) - 1:  # (the float16 output is not torch's bit for bit there: the gradient follows it)
        np.testing.assert_allclose(_host(t.grad).astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=2e-3)
    else:
        _as_torchs(_host(t.grad), want)


def test_in_a_checkpoint_and_in_forward_mode():
    shape, dim = (20, 30), 0
    x, g = inputs(shape)
    t = mg.tensor(x, requires_grad=True)
    y = mg.checkpoint.checkpoint(lambda u: mg.log_softmax(u, dim), t, use_reentrant=False)
    _as_torchs(_host(y), REF[f"{shape} {dim} value"])
    y.backward(mg.tensor(g))
    _as_torchs(_host(t.grad), REF[f"{shape} {dim} grad"])
    out, tangent = mg.func.jvp(lambda u: mg.log_softmax(u, dim), (mg.tensor(x),), (mg.tensor(g),))
    t32 = g.astype(np.float32)  # the tangent t - sum(softmax * t), in float32 and rounded once
    want = (t32 - (np.exp(_host(out).astype(np.float32)) * t32).sum(dim, keepdims=True)).astype(np.float16)
    _as_torchs(_host(tangent), want)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_wider_dtypes_are_unchanged(dtype):
    x, _ = inputs((20, 30))
    y = mg.log_softmax(mg.tensor(x, dtype=dtype), 0)
    assert y.dtype == dtype
    x64 = x.astype(np.float64)
    want = (x64 - x64.max(0)) - np.log(np.exp(x64 - x64.max(0)).sum(0))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6 if dtype == mg.float32 else 1e-14, atol=1e-6)
