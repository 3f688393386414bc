"""``interpolate(mode="area")``, ``adaptive_avg_pool3d`` (which is area interpolation) and the
antialiased modes sum windows of different lengths; the taps past a shorter window's end must add
nothing.  They added ``0 * x`` of the element they pointed at, which is NaN where that element
(outside the window) is infinite: ``adaptive_avg_pool3d`` of ``[1, inf, 2, 3, 5]`` to 3 gave
``[nan, inf, 4]`` where PyTorch gives ``[inf, inf, 4]``.  Found by comparing the pools with
PyTorch's on inputs holding inf and NaN."""

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F

INF = math.inf


def _row(values, dims, dtype=mg.float64):
    """``values`` along the last of ``dims`` spatial axes of a (1, 1, 1, ..., L) tensor."""
    return mg.tensor(np.asarray(values, dtype=float).reshape((1, 1) + (1,) * (dims - 1) + (-1,)), dtype=dtype)


# 5 -> 3: windows [0, 2), [1, 4), [3, 5): lengths 2, 3, 2 -- the short ones get a padding tap
CASES = [([1.0, INF, 2.0, 3.0, 5.0], [INF, INF, 4.0]),
         ([1.0, 2.0, 3.0, 4.0, -INF], [1.5, 3.0, -INF])]


@pytest.mark.parametrize("values, expected", CASES)
@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_area_window_with_an_infinity_is_that_infinity_not_nan(values, expected, dims, dtype):
    out = F.interpolate(_row(values, dims, dtype), size=(1,) * (dims - 1) + (3,), mode="area")
    assert out.dtype == dtype
    np.testing.assert_allclose(out.numpy().ravel(), expected, rtol=1e-6)


@pytest.mark.parametrize("values, expected", CASES)
def test_adaptive_avg_pools_agree_on_infinities(values, expected):
    for dims, pool in ((1, F.adaptive_avg_pool1d), (2, F.adaptive_avg_pool2d), (3, F.adaptive_avg_pool3d)):
        out = pool(_row(values, dims), (1,) * (dims - 1) + (3,) if dims > 1 else 3)
        np.testing.assert_allclose(out.numpy().ravel(), expected)


def test_area_gradient_of_a_window_beside_an_infinity_is_finite():
    x = _row([1.0, INF, 2.0, 3.0, 5.0], 3).requires_grad_()
    F.adaptive_avg_pool3d(x, (1, 1, 3)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy().ravel(), [1 / 2, 1 / 2 + 1 / 3, 1 / 3, 1 / 3 + 1 / 2, 1 / 2])


# torch 2.13's answers (generated offline): a shorter window's padding tap pointed at the inf
@pytest.mark.parametrize("mode, values, size, expected", [
    ("bilinear", [1.0, INF], 3, [1.0, INF, INF]),
    ("bicubic", [1.0, 2.0, INF], 4, [0.9477611940298508, -INF, INF, INF]),
])
def test_antialias_window_beside_an_infinity_is_finite(mode, values, size, expected):
    x = mg.tensor(np.asarray(values).reshape(1, 1, 1, -1))
    out = F.interpolate(x, size=(1, size), mode=mode, antialias=True)
    np.testing.assert_allclose(out.numpy().ravel(), expected, rtol=1e-12)


def test_area_under_jvp_and_checkpoint_keeps_the_infinity():
    x = _row([1.0, INF, 2.0, 3.0, 5.0], 3)
    f = lambda t: F.adaptive_avg_pool3d(t, (1, 1, 3))  # noqa: E731
    out, tangent = mg.func.jvp(f, (x,), (mg.ones_like(x),))
    np.testing.assert_allclose(out.numpy().ravel(), [INF, INF, 4.0])
    np.testing.assert_allclose(tangent.numpy().ravel(), [1.0, 1.0, 1.0])
    y = x.clone().requires_grad_()
    out = mg.checkpoint.checkpoint(f, y, use_reentrant=False)
    np.testing.assert_allclose(out.detach().numpy().ravel(), [INF, INF, 4.0])
    out.sum().backward()
    assert np.isfinite(y.grad.numpy()).all()


def test_on_the_strict_device():
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
    x = mg.tensor(np.array([1.0, INF, 2.0, 3.0, 5.0]).reshape(1, 1, 1, 1, 5), device="strict")
    np.testing.assert_allclose(F.adaptive_avg_pool3d(x, (1, 1, 3)).numpy().ravel(), [INF, INF, 4.0])
