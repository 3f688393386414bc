"""Special functions at their extremal arguments against PyTorch 2.13's answers, recorded by
``tests/data/make_torch_special_extremes.py``: the value, and the gradient through every seam
(backward, ``mg.func.grad``, forward mode, checkpoint; :mod:`elementwise_seams`), float64 and
float32, on the CPU and the strict device.

``logit(p, eps=0.0)`` clamps ``p`` to ``[0, 1]``; where it clamps, PyTorch's gradient is 0, and
the package's was NaN (a clamp's 0 times logit's infinite slope at the clamped 0 or 1).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from elementwise_seams import assert_torch_gradients

import minigrad_ckpt as mg

DATA = json.loads((Path(__file__).parent / "data" / "torch_special_extremes.json").read_text())
CASES = {f"{c['name']}-{c['kw']}".replace(" ", ""): c for c in DATA["cases"]}


def _fn(case: dict):
    fn = getattr(mg.special, case["name"])
    return lambda *xs: fn(*xs, **case["kw"])


def _same_specials(got: np.ndarray, want: np.ndarray) -> None:
    """NaN, the infinities and the sign of zero where PyTorch has them."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf])
    zero = want == 0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("key", sorted(CASES))
def test_value_and_gradient_are_torchs(key, dtype, device):
    case = CASES[key]
    answer = case[dtype]
    xs = [mg.tensor(a, dtype=dtype, device=device) for a in case["args"]]
    got = np.asarray(_fn(case)(*xs).cpu().numpy(), dtype=np.float64)
    assert got.dtype == np.float64 and _fn(case)(*xs).dtype == getattr(mg, dtype)
    want = np.asarray(answer["value"], dtype=np.float64)
    _same_specials(got, want)
    np.testing.assert_allclose(got, want, rtol=2e-6 if dtype == "float32" else 1e-12, equal_nan=True)
    assert_torch_gradients(_fn(case), case["args"], answer["grads"], getattr(mg, dtype), device)
