"""``interpolate``'s linear, bicubic and antialiased modes compute their source positions and weights
in float32 for float32 input, with the fused multiply-adds of PyTorch's compiled CPU kernels.

They were computed in float64 and rounded: the float32 position ``(j + 1/2) s - 1/2`` near 60 is off
by up to 4e-6, so the float64 weights moved a resized image by ~1e-6 (7e-6 of the range for a 60x80
image resized to 300x300: porting sgrvinod's SSD tutorial, whose ``resize`` of every training image
differed from PyTorch's in the fifth digit while the rest of the program agreed to round-off).

The expected values are PyTorch 2.13's (CPU), at the outputs where the float64 weights were furthest
off; the engine's sums of the taps may differ from PyTorch's by an ulp or two.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F


def _ramp(shape):
    """A steep, irregular input: (k^2 mod 7) / 6, so a position's error shows in the output."""
    n = int(np.prod(shape))
    return mg.tensor([(k * k % 7) / 6 for k in range(n)], dtype=mg.float32).reshape(shape)


CASES = [
    ("linear", dict(size=300, mode="linear", align_corners=False), (1, 1, 60),
     {170: 0.3666655421257019, 205: 0.3666655421257019, 220: 0.4666678011417389, 240: 0.3666655421257019,
      275: 0.3666655421257019}),
    ("bicubic", dict(size=(1, 211), mode="bicubic", align_corners=False), (1, 1, 1, 47),
     {152: 0.4816424548625946, 171: 0.44927701354026794, 186: 0.14623549580574036, 197: 0.4593104124069214,
      201: 0.5979266166687012}),
    ("bilinear scale_factor", dict(scale_factor=(1, 3.7), mode="bilinear", align_corners=False), (1, 1, 1, 29),
     {72: 0.61937016248703, 74: 0.3490998148918152, 83: 0.2004496306180954, 85: 0.47071999311447144,
      101: 0.2004515379667282}),
    ("bilinear antialias", dict(size=(1, 300), mode="bilinear", antialias=True), (1, 1, 1, 60),
     {170: 0.3666655421257019, 205: 0.3666655421257019, 220: 0.4666678309440613, 240: 0.3666655421257019,
      255: 0.4666678309440613}),
]


@pytest.mark.parametrize("name, kwargs, shape, expected", CASES, ids=[c[0] for c in CASES])
def test_float32_resampling_is_pytorchs_to_round_off(name, kwargs, shape, expected):
    out = F.interpolate(_ramp(shape), **kwargs).reshape(-1)
    assert out.dtype == mg.float32
    got = np.array([out[i].item() for i in expected])
    want = np.array(list(expected.values()))
    np.testing.assert_allclose(got, want, rtol=0, atol=1.5e-7)  # two float32 ulps at these values


def test_float64_keeps_float64_positions():
    """float64 input keeps float64 positions (PyTorch's opmath for double): a 1-D ramp resampled
    linearly is the ramp at the exact positions, to float64 round-off."""
    x = mg.arange(60, dtype=mg.float64).reshape(1, 1, 60)
    out = F.interpolate(x, size=300, mode="linear", align_corners=False).reshape(-1).numpy()
    src = np.clip((np.arange(300) + 0.5) * (60 / 300) - 0.5, 0, 59)
    np.testing.assert_allclose(out, src, rtol=0, atol=1e-13)


def test_bicubic_weights_sum_to_one_in_float32():
    """Keys' cubic weights sum to 1 at every position, so a constant image stays constant."""
    x = mg.full((1, 1, 5, 9), 0.7, dtype=mg.float32)
    out = F.interpolate(x, size=(13, 31), mode="bicubic", align_corners=False)
    np.testing.assert_allclose(out.numpy(), 0.7, rtol=0, atol=1e-6)  # PyTorch's is 4e-7 off
