"""float16 ``softmax`` computes in float32 and rounds once, forward and backward, as PyTorch's
half kernels compute in float.  Step by step in float16 (the exponentials, their sum, the
division; ``s * (g - sum(s * g))`` backward) its values were up to 8 units in the last place off
torch 2.13's and its gradients up to 55.  (``log_softmax`` is left as it is: PyTorch's half
``log_softmax`` is not its float one rounded, and the float16 steps are within a unit of it.)

Expected values: torch 2.13 (``tests/data/make_torch_float16_softmax.py`` writes
``torch_float16_softmax.npz``).
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
from make_torch_float16_softmax import CASES, inputs  # noqa: E402

REF = np.load(DATA / "torch_float16_softmax.npz")


def _ulps_apart(got: np.ndarray, want: np.ndarray) -> float:
    spacing = np.spacing(np.abs(want)).astype(np.float64)  # float16's spacing at each value
    return float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)) / spacing))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_are_pytorchs(name, device):
    scale, dim = CASES[name]
    x, g = inputs(scale)
    tx = mg.tensor(x, device=device, requires_grad=True)
    y = mg.nn.functional.softmax(tx, dim=dim)
    assert y.dtype == mg.float16
    assert _ulps_apart(y.detach().cpu().numpy(), REF[f"{name}|value"]) <= 1
    y.backward(mg.tensor(g, device=device))
    assert tx.grad.dtype == mg.float16
    if dim == -1:
        assert _ulps_apart(tx.grad.cpu().numpy(), REF[f"{name}|grad"]) <= 2
    else:  # PyTorch's kernel over another dim rounds its own way: where s (g - sum(s g)) cancels, apart
        want = REF[f"{name}|grad"].astype(np.float64)
        np.testing.assert_allclose(tx.grad.cpu().numpy().astype(np.float64), want, rtol=2e-3,
                                   atol=2e-3 * np.abs(want).max())


def test_forward_mode_is_the_transpose_of_backward():
    # softmax's Jacobian is symmetric: the tangent along g is the gradient for the cotangent g
    x, g = inputs(3.0)
    _, tangent = mg.func.jvp(lambda v: mg.softmax(v, dim=-1), (mg.tensor(x),), (mg.tensor(g),))
    _, pullback = mg.func.vjp(lambda v: mg.softmax(v, dim=-1), mg.tensor(x))
    (grad,) = pullback(mg.tensor(g))
    assert tangent.dtype == mg.float16
    np.testing.assert_array_equal(tangent.numpy(), grad.numpy())
