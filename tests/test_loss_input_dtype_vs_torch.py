"""A loss of a float32 (float16) input beside a wider target, ``weight`` or ``pos_weight`` keeps the
input's dtype where PyTorch's kernel writes into a tensor made like the input (``soft_margin_loss``,
``huber_loss``) or applies the weight in place (the binary cross entropies); ``binary_cross_entropy``
refuses a target of another dtype and ``nll_loss``/``cross_entropy``/``multi_margin_loss`` (class
indices) a per-class weight of another dtype -- PyTorch 2.13's answers, recorded in
``tests/data/torch_loss_input_dtype.json`` by ``tests/data/make_torch_loss_input_dtype.py`` from the
cases in ``tests/data/loss_input_dtype_cases.py``.  The engine promoted all of these to float64
(float32 for a float16 input) and computed ``binary_cross_entropy`` of a float64 target and the
class-index losses of a float64 weight."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)
from minigrad_ckpt.nn import functional as F

sys.path.insert(0, str(Path(__file__).parent / "data"))
from loss_input_dtype_cases import CASES, PROBABILITY_INPUT, P, X  # noqa: E402

REF = json.loads((Path(__file__).parent / "data" / "torch_loss_input_dtype.json").read_text())
TOL = {"float16": 2e-3, "float32": 1e-5, "float64": 1e-10}


def _run(name, device):
    dtype, fn = CASES[name]

    def make(values, dtype_name):
        return mg.tensor(values, dtype=getattr(mg, dtype_name), device=device)

    x = make(P if name in PROBABILITY_INPUT else X, dtype).requires_grad_()
    return x, fn(F, make, x)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", sorted(n for n in CASES if "error" not in REF[n]))
def test_the_loss_keeps_pytorchs_dtype_value_and_gradient(name, device):
    want = REF[name]
    x, y = _run(name, device)
    assert str(y.dtype).removeprefix("minigrad_ckpt.") == want["dtype"]
    tol = TOL[want["dtype"]]
    np.testing.assert_allclose(y.detach().numpy().astype(np.float64), want["value"], rtol=tol, atol=tol)
    (g,) = mg.autograd.grad(y.sum(), [x])
    assert g.dtype == x.dtype
    if "grad" in want:  # (PyTorch's huber_loss backward fails on a target of another dtype)
        np.testing.assert_allclose(g.numpy().astype(np.float64), want["grad"], rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(n for n in CASES if "error" in REF[n]))
def test_a_target_or_class_weight_of_another_dtype_is_pytorchs_error(name):
    with pytest.raises(RuntimeError, match=f"^{REF[name]['message']}$"):
        _run(name, "cpu")
