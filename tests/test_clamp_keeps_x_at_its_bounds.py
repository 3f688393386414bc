"""``clamp``/``clip`` answer ``x`` itself where it equals a bound, as PyTorch does, not the bound as
NumPy's ``maximum``/``minimum`` do.  The two differ only in the sign of a zero:
``mg.clamp(-0.0, min=0)`` was ``+0.0``; torch 2.13's ``torch.clamp(torch.tensor(-0.0), min=0)``
is ``-0.0`` (its ``max(x, lo)`` keeps ``x`` on a tie), scalar and tensor bounds alike, and a NaN
in ``x`` or in a bound is NaN.  The values below are torch 2.13's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

NAN = math.nan
X = [-0.0, 0.0, -1.0, 1.0, NAN]
# (min, max, torch.clamp(torch.tensor(X), min, max) as the signed strings of its values); a list,
# not a dict: -0.0 and 0.0 are one key
SCALAR_BOUNDS = [
    (0.0, None, ["-0.0", "0.0", "0.0", "1.0", "nan"]),
    (-0.0, None, ["-0.0", "0.0", "-0.0", "1.0", "nan"]),
    (None, 0.0, ["-0.0", "0.0", "-1.0", "0.0", "nan"]),
    (None, -0.0, ["-0.0", "0.0", "-1.0", "-0.0", "nan"]),
    (0.0, 0.0, ["-0.0", "0.0", "0.0", "0.0", "nan"]),
    (-0.0, -0.0, ["-0.0", "0.0", "-0.0", "-0.0", "nan"]),
    (1.0, -1.0, ["-1.0", "-1.0", "-1.0", "-1.0", "nan"]),
    (NAN, None, ["nan", "nan", "nan", "nan", "nan"]),
]
DEVICES = [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"), ("strict-f32", "float32")]


def _signed(t: mg.Tensor) -> list[str]:
    return [str(v) for v in t.cpu().numpy().astype(np.float64).tolist()]


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("lo, hi, want", SCALAR_BOUNDS)
def test_scalar_bounds_keep_x_on_a_tie(device, dtype, lo, hi, want):
    x = mg.tensor(X, dtype=dtype, device=device)
    assert _signed(mg.clamp(x, min=lo, max=hi)) == want
    assert _signed(x.clip(lo, hi)) == want
    y = x.clone()
    y.clamp_(lo, hi)  # in place, the same answer
    assert _signed(y) == want


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_tensor_bounds_keep_x_on_a_tie_and_propagate_nan(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device)
    lo = mg.tensor([0.0, -0.0, NAN, 0.0, 0.0], dtype=dtype, device=device)
    hi = mg.tensor([-0.0, 0.0, 5.0, NAN, 1.0], dtype=dtype, device=device)
    assert _signed(mg.clamp(x, min=lo)) == ["-0.0", "0.0", "nan", "1.0", "nan"]
    assert _signed(mg.clamp(x, max=hi)) == ["-0.0", "0.0", "-1.0", "nan", "nan"]


def test_gradients_and_tangents_unchanged_under_transforms():
    """The tie rule changes values (a zero's sign) only: x keeps its gradient on the closed
    interval, in reverse mode, forward mode, under vmap and inside a checkpoint."""
    x = mg.tensor([-0.0, 0.0, -1.0, 0.5, 2.0], dtype="float64", requires_grad=True)
    out = mg.checkpoint.checkpoint(lambda t: mg.clamp(t, min=0.0, max=1.0), x)
    assert _signed(out) == ["-0.0", "0.0", "0.0", "0.5", "1.0"]
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 0.0, 1.0, 0.0])
    _, tangent = mg.func.jvp(lambda t: mg.clamp(t, min=0.0), (x.detach(),), (mg.ones_like(x),))
    np.testing.assert_array_equal(tangent.numpy(), [1.0, 1.0, 0.0, 1.0, 1.0])
    rows = mg.func.vmap(lambda t: mg.clamp(t, min=0.0))(x.detach().reshape(5, 1))
    assert _signed(rows.reshape(5)) == ["-0.0", "0.0", "0.0", "0.5", "2.0"]
