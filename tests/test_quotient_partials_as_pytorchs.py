"""Quotients in derivatives are rounded in PyTorch's order (derivatives.yaml), bit for bit: ``xlogy``'s
gradient and tangent in ``y`` are ``grad * x / y`` (``xlog1py``'s ``grad * x / (y + 1)``), not ``grad *
(x / y)``; a quotient's tangent is ``(x_t - y_t * out) / y``, not ``x_t / y + y_t * (-(x / y) / y)`` --
so softsign's tangent (a quotient) is PyTorch's too.  About a third of the ``xlogy``/``xlog1py`` partials
and half the tangents were a unit off before.  Fixtures from torch 2.13 (CPU)."""

import json
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

DEVICES = ["cpu", "strict"]
_DATA = json.loads((Path(__file__).parent / "data" / "torch_quotient_partials.json").read_text())
FUNCTIONS = {"xlogy": mg.xlogy, "xlog1py": mg.special.xlog1py, "div": mg.div}


def _arrays(dtype, *names):
    return [np.asarray(_DATA[dtype]["inputs"][n], dtype=dtype) for n in names]


def _same_bits(got, want, dtype):
    np.testing.assert_array_equal(got.detach().cpu().numpy(), np.asarray(want, dtype=dtype))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", sorted(_DATA))
@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
@pytest.mark.parametrize("under_checkpoint", [False, True])
def test_gradient_in_y_is_pytorchs_bit_for_bit(name, dtype, device, under_checkpoint):
    x, y, g = (mg.tensor(a, device=device) for a in _arrays(dtype, "x", "y", "g"))
    y.requires_grad_()
    fn = FUNCTIONS[name]
    out = mg.checkpoint.checkpoint(fn, x, y, use_reentrant=False) if under_checkpoint else fn(x, y)
    out.backward(g)
    _same_bits(y.grad, _DATA[dtype][name]["grad_y"], dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", sorted(_DATA))
@pytest.mark.parametrize("name", ["xlogy", "xlog1py", "div"])
def test_tangent_is_pytorchs_bit_for_bit(name, dtype, device):
    primals = tuple(mg.tensor(a, device=device) for a in _arrays(dtype, "x", "y"))
    tx, ty = _arrays(dtype, "tx", "ty")
    if name != "div":  # (x's term is x_t * log(y): NumPy's log, which is not PyTorch's bit for bit)
        tx = np.zeros_like(tx)
    tangents = (mg.tensor(tx, device=device), mg.tensor(ty, device=device))
    _, tangent = mg.func.jvp(FUNCTIONS[name], primals, tangents)
    _same_bits(tangent, _DATA[dtype][name]["tangent"], dtype)


@pytest.mark.parametrize("dtype", sorted(_DATA))
def test_softsign_tangent_is_pytorchs_bit_for_bit(dtype):
    x, tx = (mg.tensor(a) for a in _arrays(dtype, "x", "tx"))
    _, tangent = mg.func.jvp(mg.nn.functional.softsign, (x,), (tx,))
    _same_bits(tangent, _DATA[dtype]["softsign"]["tangent"], dtype)


def test_xlogy_at_zero_keeps_its_documented_gradient_in_y():
    # x = y = 0: d/dy is x / 1 = 0 here (docs: derivatives at singular points), not PyTorch's 0 / 0
    y = mg.tensor([0.0, 2.0], requires_grad=True)
    mg.xlogy(mg.tensor([0.0, 3.0]), y).backward(mg.tensor([1.0, 1.0]))
    np.testing.assert_array_equal(y.grad.numpy(), [0.0, 1.5])
