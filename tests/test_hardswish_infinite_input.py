"""``F.hardswish``'s gradient at an infinite input is PyTorch's -- 1 at ``inf``, 0 at ``-inf`` --
not NaN: the quadratic piece, which ``where`` does not take there, sent ``0 * inf`` back through
its product.  It now sees its input clamped to its own interval ``[-3, 3]``.

Its value up to -3 is PyTorch's ``x * relu6(x + 3) / 6 = x * 0``: -0.0, and NaN at -inf (it was
+0.0 everywhere there); torch's numbers, float16 to float64, from
``tests/data/make_torch_hardswish_extremes.py``.

Expected values are torch 2.13's (CPU), written in: ``F.hardswish(x).sum().backward()`` at
x = [inf, -inf, -3, 3, 1, -4, 4] gives x.grad = [1, 0, 0, 1, 5/6, 0, 1] (float32 and float64).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from tests.elementwise_seams import assert_torch_gradients

INF = math.inf
X = [INF, -INF, -3.0, 3.0, 1.0, -4.0, 4.0]
GRAD = [1.0, 0.0, 0.0, 1.0, 5 / 6, 0.0, 1.0]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("hardswish", [mg.nn.functional.hardswish, mg.nn.Hardswish()], ids=["F", "module"])
def test_infinite_inputs_have_pytorchs_gradient(hardswish, dtype, device):
    assert_torch_gradients(hardswish, [X], [GRAD], dtype, device)


def test_the_values_are_unchanged():
    y = mg.nn.functional.hardswish(mg.tensor([INF, -4.0, 1.0, 4.0], dtype=mg.float64))
    assert y.tolist() == [INF, 0.0, 2 / 3, 4.0]


TORCH = json.loads((Path(__file__).parent / "data" / "torch_hardswish_extremes.json").read_text())


def _same(got: mg.Tensor, want: list) -> None:
    """Bit for bit, NaN where torch's is (the gradient and tangent too: one op, PyTorch's
    ``hardswish_backward`` formula ``g * (x / 3 + 0.5)``)."""
    got = got.detach().cpu().numpy().astype(np.float64)
    want = np.array([float(v) for v in want])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok], want[ok])
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))  # -0.0 up to -3


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_up_to_minus_three_the_value_is_pytorchs_x_times_0(dtype, device):
    want = TORCH[dtype]
    with np.errstate(over="ignore"):  # -1e30 is -inf in float16, as in torch's tensor
        x = mg.tensor(np.array(TORCH["x"], dtype=dtype), device=device, requires_grad=True)
    y = mg.nn.functional.hardswish(x)
    _same(y, want["value"])
    y.backward(mg.ones_like(y))
    _same(x.grad, want["grad"])
    _, tangent = mg.func.jvp(mg.nn.functional.hardswish, (x.detach(),), (mg.ones_like(x),))
    _same(tangent, want["tangent"])
    h = x.detach().clone()
    mg.nn.functional.hardswish(h, inplace=True)
    _same(h, want["value"])
