"""float16 activations compute in float32 and round once, as PyTorch's half kernels.

Step by step in float16, each op of ``sigmoid`` (``exp(-|x|)``, ``1 + e``, the division) and of
the compositions ``silu``, ``elu``, ``selu``, ``celu``, ``leaky_relu`` (the slope rounded to
float16), ``hardswish``, ``hardsigmoid``, ``softplus``, ``logsigmoid`` rounded: a third of the
values were a unit in the last place off torch 2.13's (``sigmoid(6)`` 0.997 for 0.9976), and the
gradients read from them up to 20% (``sigmoid'(6)`` 0.00292 for 0.00244; ``tanh'(3.07)`` from
``1 - out^2``, 0.00879 for 0.00877).  ``xp.sigmoid`` and the sigmoid's and tanh's derivatives
widen float16 (``backend.half_in_float32``); the compositions run in float32 between two recorded
casts (``in_float32_if_half``), so the gradient comes back in float16, rounded once.

Expected values: torch 2.13's float16 results, bit patterns
(``tests/data/make_torch_float16_activations.py`` writes ``torch_float16_activations.json``;
the calls are in ``float16_activation_cases.py``).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from float16_activation_cases import CASES, X  # noqa: E402

TORCH = json.loads((DATA / "torch_float16_activations.json").read_text())
# mish: PyTorch's kernel is x tanh(log1p(exp(x))), the engine's softplus is logaddexp(0, x): one
# float32 rounding apart, which float16's rounding hides everywhere but at one point of the grid
ULPS = {"mish": 1}


def _half(bits: list) -> np.ndarray:
    return np.array(bits, dtype=np.uint16).view(np.float16)


def _ulps_apart(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """How many float16 steps apart (0 where both are NaN)."""
    same = (np.isnan(got) & np.isnan(want)) | (got == want)
    with np.errstate(all="ignore"):  # inf - inf, the spacing at 65504: inf apart, never <= 1
        spacing = np.spacing(np.abs(want).astype(np.float16)).astype(np.float64)
        apart = np.abs(got.astype(np.float64) - want.astype(np.float64)) / spacing
    return np.where(same, 0.0, np.nan_to_num(apart, nan=np.inf))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_are_pytorchs(name, device):
    x = mg.tensor(X, device=device, requires_grad=True)
    y = CASES[name](F, x)
    assert y.dtype == mg.float16
    y.backward(mg.ones_like(y))
    assert x.grad.dtype == mg.float16
    value, grad = y.detach().cpu().numpy(), x.grad.cpu().numpy()
    assert _ulps_apart(value, _half(TORCH[name]["value"])).max() <= ULPS.get(name, 0)
    # PyTorch's backward kernels round once too; ours round the derivative, then its product
    # with the upstream gradient (1 here): at most one step apart
    assert _ulps_apart(grad, _half(TORCH[name]["grad"])).max() <= 1


@pytest.mark.parametrize("name", ["sigmoid", "tanh", "silu", "elu", "hardswish"])
def test_forward_mode_is_the_gradient(name):
    x = mg.tensor(X)
    _, tangent = mg.func.jvp(lambda v: CASES[name](F, v), (x,), (mg.ones_like(x),))
    _, pullback = mg.func.vjp(lambda v: CASES[name](F, v), x)
    (grad,) = pullback(mg.ones_like(x))
    assert tangent.dtype == mg.float16
    np.testing.assert_array_equal(tangent.numpy(), grad.numpy())


@pytest.mark.parametrize("name, call", [("silu", lambda h: F.silu(h, inplace=True)),
                                        ("elu", lambda h: F.elu(h, 1.0, True)),
                                        ("selu", lambda h: F.selu(h, inplace=True)),
                                        ("leaky_relu", lambda h: F.leaky_relu(h, 0.01, inplace=True)),
                                        ("hardswish", lambda h: F.hardswish(h, inplace=True))])
def test_in_place_writes_the_value_rounded_once(name, call):
    w = mg.tensor(X, requires_grad=True)
    h = w * 1
    out = call(h)
    assert out is h and h.dtype == mg.float16
    np.testing.assert_array_equal(h.detach().numpy(), CASES[name](F, mg.tensor(X)).numpy())
    h.backward(mg.ones_like(h))
    assert _ulps_apart(w.grad.numpy(), _half(TORCH[name]["grad"])).max() <= 1


@pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")
def test_under_checkpoint_the_gradient_is_the_same():
    x = mg.tensor(X, requires_grad=True)
    mg.checkpoint.checkpoint(lambda v: F.silu(F.sigmoid(v)), x).sum().backward()
    plain = mg.tensor(X, requires_grad=True)
    F.silu(F.sigmoid(plain)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), plain.grad.numpy())


def test_wider_inputs_are_untouched():
    # float32 goes straight to the op: no casts recorded
    x = mg.tensor(X.astype(np.float32), requires_grad=True)
    y = F.silu(x)
    assert y.dtype == mg.float32 and "Silu" in repr(y.grad_fn)
