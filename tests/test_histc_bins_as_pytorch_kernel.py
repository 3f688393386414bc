"""``histc`` puts each value in the bin PyTorch's kernel computes, ``floor((x - min) * bins / (max - min))``
in the input's dtype, not in the bin NumPy's ``histogram`` finds against its float64 edges.

The two differ for values within a rounding of an edge: ``tensor([0.3, 0.6, 0.7], dtype=float64).histc(10, 0,
1)`` is ``[0, 0, 0, 1, 0, 0, 1, 1, 0, 0]`` in PyTorch (``0.3 * 10`` is exactly 3), where NumPy's edge
``linspace(0, 1, 11)[3]`` is ``0.30000000000000004`` and puts 0.3 in bin 2.  Found porting fast.ai's
course (its activation histograms, ``acts.abs().histc(40, 0, 10)``, differed from PyTorch's by a count at
a time).  The PyTorch numbers below were computed with torch 2.13 and pasted in."""
import numpy as np
import pytest

import minigrad_ckpt as mg


def test_values_on_decimal_edges_fall_in_the_bin_pytorch_gives():
    x = mg.tensor([0.3, 0.6, 0.7, 0.1 * 3, 1.0, 0.0], dtype=mg.float64)
    assert x.histc(10, 0, 1).tolist() == [1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0]


def test_float32_values_around_every_edge_match_pytorch():
    x = mg.tensor([-1.0, -0.5285714268684387, -0.05714285746216774, 0.41428571939468384, 0.8857142925262451,
                   1.3571428060531616, 1.8285714387893677, 2.299999952316284, -1.0000001192092896,
                   -0.5285714864730835, -0.05714286118745804, 0.41428568959236145, 0.8857142329216003,
                   1.357142686843872, 1.8285713195800781, 2.299999713897705, -0.9999999403953552,
                   -0.528571367263794, -0.05714285373687744, 0.4142857491970062, 0.8857143521308899,
                   1.3571429252624512, 1.8285715579986572, 2.3000001907348633], dtype=mg.float32)
    assert mg.histc(x, 7, -1.0, 2.3).tolist() == [3.0, 2.0, 3.0, 3.0, 4.0, 2.0, 5.0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_every_bin_is_the_kernel_formula_in_the_input_dtype(dtype):
    rng = np.random.default_rng(0)
    for _ in range(40):
        bins, lo = int(rng.integers(1, 50)), float(rng.uniform(-3, 1))
        hi = lo + float(rng.uniform(0.1, 12))
        edges = (lo + (hi - lo) * np.arange(bins + 1) / bins).astype(dtype)
        x = np.concatenate([rng.uniform(lo - 1, hi + 1, 300).astype(dtype), edges,
                            np.nextafter(edges, dtype(-np.inf)), np.nextafter(edges, dtype(np.inf))])
        l, h = dtype(lo), dtype(hi)
        inside = x[(x >= l) & (x <= h)]
        pos = np.minimum(np.floor((inside - l) * dtype(bins) / (h - l)).astype(np.int64), bins - 1)
        expected = np.bincount(pos, minlength=bins).astype(dtype)
        got = mg.tensor(x).histc(bins, lo, hi)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.numpy(), expected)


def test_nan_is_ignored_inside_a_given_range_and_the_data_range_is_used_when_min_equals_max():
    assert mg.tensor([0.3, float("nan"), float("inf")]).histc(10, 0, 1).tolist()[3] == 1.0
    assert mg.tensor([1.0, 2.0, 3.0]).histc(4, 5, 5).tolist() == [1.0, 0.0, 1.0, 1.0]
    assert mg.tensor([2.0, 2.0]).histc(4).tolist() == [0.0, 0.0, 2.0, 0.0]
