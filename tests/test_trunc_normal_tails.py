"""``nn.init.trunc_normal_`` with ``[a, b]`` in a tail of N(mean, std^2) draws the truncated normal.

Drawn by rejection alone, an interval with little of the normal's mass (``mean=5, a=-2, b=2``: 0.13%;
``a=3, b=5`` of N(0, 1)) raised "holds too little ... to draw from" after 1000 rounds, where PyTorch
(with a warning) returns values.  Such an interval is now drawn by inverting the CDF; the law is the
same, so the checks are its moments and its bounds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in devices)


def _truncated_moments(mean: float, std: float, a: float, b: float) -> tuple[float, float]:
    """The mean and standard deviation of N(mean, std^2) conditioned on [a, b] (mpmath-free: the
    intervals below keep the CDF difference well away from round-off)."""
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    if alpha > 0:  # the mirror image's lower-tail CDF keeps its digits
        mass = 0.5 * (math.erfc(alpha / math.sqrt(2)) - math.erfc(beta / math.sqrt(2)))
    else:
        mass = 0.5 * (math.erfc(-beta / math.sqrt(2)) - math.erfc(-alpha / math.sqrt(2)))
    shift = (pdf(alpha) - pdf(beta)) / mass
    var = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / mass - shift * shift
    return mean + std * shift, std * math.sqrt(var)


@pytest.mark.parametrize("device, dtype", [("cpu", "float32"), ("cpu", "float64"), ("strict-f32", "float32"),
                                           ("strict", "float64")])
@pytest.mark.parametrize("mean, std, a, b", [
    (5.0, 1.0, -2.0, 2.0),     # torch's own warning case: the mean 3 std past b
    (10.0, 1.0, -2.0, 2.0),
    (0.0, 1.0, 3.0, 5.0),      # an interval in the upper tail
    (0.0, 1.0, -12.0, -11.0),  # far in the lower tail: Phi is 1e-28 there
    (0.0, 0.02, 0.1, 0.3),
    (0.0, 1.0, -0.1, 0.1),     # narrow around the mean: 8% of the mass
])
def test_an_interval_with_little_mass_draws_the_truncated_normal(device, dtype, mean, std, a, b):
    mg.manual_seed(0)
    t = nn.init.trunc_normal_(mg.empty(100_000, dtype=dtype, device=device), mean=mean, std=std, a=a, b=b)
    v = t.numpy().astype(np.float64)
    assert t.dtype == dtype and v.min() >= a and v.max() <= b
    want_mean, want_std = _truncated_moments(mean, std, a, b)
    assert abs(v.mean() - want_mean) < 0.02 * want_std and abs(v.std() / want_std - 1) < 0.02
    mg.manual_seed(0)
    again = nn.init.trunc_normal_(mg.empty(100_000, dtype=dtype, device=device), mean=mean, std=std, a=a, b=b)
    np.testing.assert_array_equal(again.numpy(), t.numpy())  # a seed reproduces it


def test_a_generator_drives_the_tail_draws_and_a_float16_tensor_keeps_its_dtype():
    draw = lambda seed: nn.init.trunc_normal_(mg.empty(1000, dtype="float16"), mean=5.0, a=-2.0, b=2.0,  # noqa: E731
                                              generator=mg.Generator().manual_seed(seed))
    first, second = draw(3), draw(3)
    assert first.dtype == "float16" and np.isfinite(first.numpy()).all()
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    assert 1.6 < first.numpy().astype(np.float64).mean() < 1.85  # the law's mean: 1.717


def test_an_interval_past_the_working_precision_fills_its_near_bound():
    t = nn.init.trunc_normal_(mg.empty(10, dtype="float64"), mean=100.0, std=1.0, a=-2.0, b=2.0)
    np.testing.assert_array_equal(t.numpy(), np.full(10, 2.0))  # the law's mass piles up there (mean 1.99)
