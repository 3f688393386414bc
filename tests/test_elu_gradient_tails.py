"""ELU, CELU and SELU far out on their exponential side: the derivative is ``alpha * exp(x)``, as
PyTorch's, also where ``exp(x) - 1`` has rounded to -1.

The exponential branch is ``alpha * expm1(x)``, and ``expm1``'s derivative was read off its output
(``out + 1``), which cancels there: ``F.elu(mg.tensor([-20.0]))`` had gradient 0 in float32 (PyTorch:
2.06e-9), 0.04% off at x = -10, and 0 from x = -37 in float64.

Expected values: torch 2.13 (``tests/data/make_torch_elu_tails.py`` writes
``tests/data/torch_elu_tails.json``).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

TORCH = json.loads(Path(__file__).with_name("data").joinpath("torch_elu_tails.json").read_text())
POINTS = TORCH["points"]
CALLS = {"elu": (F.elu, F.elu_, {}), "elu_alpha0.5": (F.elu, F.elu_, {"alpha": 0.5}),
         "celu_alpha2": (F.celu, F.celu_, {"alpha": 2.0}), "selu": (F.selu, F.selu_, {})}
SEAMS = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


def _tol(dtype: str) -> dict:
    return {"rtol": 2e-6 if dtype == "float32" else 1e-13, "atol": 0.0}


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("device, dtype", SEAMS)
def test_value_gradient_and_tangent_are_pytorchs(name, device, dtype):
    fn, _, kw = CALLS[name]
    want = TORCH[f"{name}/{dtype}"]
    x = mg.tensor(POINTS, dtype=getattr(mg, dtype), device=device, requires_grad=True)
    y = fn(x, **kw)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), want["value"], **_tol(dtype))
    np.testing.assert_allclose(x.grad.numpy(), want["grad"], **_tol(dtype))
    assert (x.grad.numpy()[:-2] > 0).all()  # never 0 where exp(x) is representable (to x = -100)
    _, tangent = mg.func.jvp(lambda t: fn(t, **kw), (x.detach(),), (mg.ones_like(x.detach()),))
    np.testing.assert_allclose(tangent.numpy(), want["jvp"], **_tol(dtype))


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("device, dtype", SEAMS)
def test_in_place_and_checkpointed_gradients_are_pytorchs(name, device, dtype):
    fn, fn_, kw = CALLS[name]
    want = TORCH[f"{name}/{dtype}"]["grad"]
    w = mg.tensor(POINTS, dtype=getattr(mg, dtype), device=device, requires_grad=True)
    h = w * 1
    fn_(h, **kw)
    h.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), want, **_tol(dtype))
    v = mg.tensor(POINTS, dtype=getattr(mg, dtype), device=device, requires_grad=True)
    mg.checkpoint.checkpoint(lambda t: fn(t * 1, **kw), v).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), want, **_tol(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_expm1s_own_derivative_is_exp_of_its_input(dtype):
    # the op beneath: d expm1(x)/dx = exp(x), also where expm1(x) is -1 to rounding (PyTorch's expm1
    # still reads its output, result + 1, and answers 0 there: the ELU family does not)
    x = mg.tensor(POINTS, dtype=getattr(mg, dtype), requires_grad=True)
    x.expm1().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(np.array(POINTS, dtype=dtype)), **_tol(dtype))
    g, = mg.autograd.grad(mg.func.grad(lambda t: t.expm1().sum())(x).sum(), x)  # second derivative: exp(x) too
    np.testing.assert_allclose(g.numpy(), np.exp(np.array(POINTS, dtype=dtype)), **_tol(dtype))
