"""The sigmoid kernel's numerator is ``maximum(e, x >= 0)`` rather than ``where(x >= 0, 1, e)`` (the same
value, since ``e = exp(-|x|) <= 1``, without ``where``'s branch per element): check it is the stable formula
bit for bit, at the values where the two could part -- signed zeros, infinities, NaN, under- and overflow --
on the CPU and on the strict stand-in devices, in float64 and float32."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" devices)

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, -1e-300, 745.0, -745.0, 800.0, -800.0, 36.7, -36.7,
           88.7, -88.7, 104.0, -104.0, 1.0, -1.0, 0.5, -0.5]


def stable(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, e.dtype.type(1), e) / (1 + e)


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sigmoid_is_the_stable_formula_bit_for_bit(device, dtype):
    if device == "strict-f32" and dtype == "float64":
        pytest.skip("the strict-f32 device refuses float64 arrays")
    rng = np.random.default_rng(0)
    x = np.concatenate([np.array(SPECIAL), rng.standard_normal(500) * 20]).astype(dtype)
    with np.errstate(all="ignore"):
        want = stable(x)
    got = mg.tensor(x, device=device).sigmoid().cpu().numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(f"u{x.itemsize}"), want.view(f"u{x.itemsize}"))


def test_sigmoid_gradient_and_values_at_the_extremes():
    x = mg.tensor([-np.inf, -800.0, -0.0, 0.0, 800.0, np.inf, np.nan], dtype="float64", requires_grad=True)
    y = mg.sigmoid(x)
    y.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), [0.0, 0.0, 0.5, 0.5, 1.0, 1.0, np.nan])
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.25, 0.25, 0.0, 0.0, np.nan])
