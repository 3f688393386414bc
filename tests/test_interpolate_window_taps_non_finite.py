"""``interpolate`` with ``mode="area"`` or ``antialias=True`` reads, for each output, its own window of
inputs, and windows differ in length.  The engine resamples an axis as a sum of taps and gave a window
shorter than the longest zero-weight taps at other positions: ``0 * inf`` made NaN where PyTorch's answer
is ``inf`` (``area`` over ``[nan, 1, 2, 3, inf]``), and with ``antialias`` a NaN or ``inf`` outside an
output's window still reached it.  Found running torch 2.13's test_nn upsampling tests with non-finite
inputs beside torch; the expected values are worked by hand from the windows."""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_area_window_ending_at_inf_is_inf(dtype):
    x = mg.tensor([[[np.nan, 1.0, 2.0, 3.0, np.inf]]], dtype=dtype)  # windows [0, 2), [1, 4), [3, 5)
    out = F.interpolate(x, size=3, mode="area")
    assert out.dtype == x.dtype
    got = out.numpy()[0, 0]
    assert np.isnan(got[0]) and got[1] == 2.0 and got[2] == np.inf


def test_antialias_reads_only_each_outputs_window():
    # 8 -> 3 with the triangle widened by 8/3: windows [0, 4), [1, 7), [4, 8)
    x = np.arange(8.0)
    x[5] = np.nan
    out = F.interpolate(mg.tensor(x.reshape(1, 1, 1, 8)), size=(1, 3), mode="bilinear", antialias=True)
    got = out.numpy()[0, 0, 0]
    weights = np.array([0.6875, 0.9375, 0.5625, 0.1875])  # 1 - |k + 1/2 - 4/3| * 3/8, k = 0..3
    assert got[0] == pytest.approx(weights @ np.arange(4.0) / weights.sum())
    assert np.isnan(got[1:]).all()
    x[5] = 5.0
    x[7] = np.inf
    # bicubic's filter is wider (windows [0, 7), [0, 8), [1, 8)) and negative at the middle window's ends
    got = F.interpolate(mg.tensor(x.reshape(1, 1, 8, 1)), size=(3, 1), mode="bicubic", antialias=True).numpy()
    assert np.isfinite(got[0, 0, 0, 0]) and got[0, 0, 1, 0] == -np.inf and got[0, 0, 2, 0] == np.inf


def test_window_taps_keep_gradients_and_transforms():
    x = mg.tensor(np.arange(10.0).reshape(1, 2, 5), requires_grad=True)
    F.interpolate(x, size=3, mode="area").sum().backward()
    # each input's gradient: the sum over the windows holding it of 1 / window length
    np.testing.assert_allclose(x.grad.numpy()[0, 0], [0.5, 0.5 + 1 / 3, 1 / 3, 1 / 3 + 0.5, 0.5])
    batch = mg.tensor([[[1.0, 2.0, 3.0, 4.0, np.inf]], [[1.0, 2.0, 3.0, 4.0, 5.0]]], dtype="float64")
    out = mg.func.vmap(lambda t: F.interpolate(t[None], size=3, mode="area")[0])(batch).numpy()
    np.testing.assert_array_equal(out[:, 0, 2], [np.inf, 4.5])
