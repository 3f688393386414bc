"""``mse_loss``, ``l1_loss``, ``smooth_l1_loss`` and ``huber_loss`` of an input and a target both ``inf`` (a
diverged value network against a diverged target) or whose square overflows answer PyTorch's NaN and inf
without NumPy's ``RuntimeWarning`` (``invalid value encountered in subtract`` for ``inf - inf``,
``overflow encountered in multiply`` for ``d * d``), forward and backward.  Found porting minimalRL,
whose every critic is trained with ``F.smooth_l1_loss``.

Expected: torch 2.13 (CPU, float32), input ``[inf, 1e30, 2]`` and target ``[inf, -1e30, 1]``, written in.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg

INF, NAN = math.inf, math.nan
TORCH = {  # (loss, reduction): (value, gradient of its sum)
    ("mse_loss", "none"): ([NAN, INF, 1.0], [NAN, 4.000000060189865e+30, 2.0]),
    ("mse_loss", "mean"): (NAN, [NAN, 1.3333333533966216e+30, 0.6666666865348816]),
    ("l1_loss", "none"): ([NAN, 2.0000000300949324e+30, 1.0], [0.0, 1.0, 1.0]),
    ("l1_loss", "mean"): (NAN, [0.0, 0.3333333432674408, 0.3333333432674408]),
    ("smooth_l1_loss", "none"): ([NAN, 2.0000000300949324e+30, 0.5], [NAN, 1.0, 1.0]),
    ("smooth_l1_loss", "mean"): (NAN, [NAN, 0.3333333432674408, 0.3333333432674408]),
    ("huber_loss", "none"): ([NAN, 2.0000000300949324e+30, 0.5], [NAN, 1.0, 1.0]),
    ("huber_loss", "mean"): (NAN, [NAN, 0.3333333432674408, 0.3333333432674408]),
}


@pytest.mark.parametrize("loss, reduction", list(TORCH))
def test_infinite_difference_is_silent(loss, reduction):
    value, gradient = TORCH[(loss, reduction)]
    x = mg.tensor([INF, 1e30, 2.0], requires_grad=True)
    y = mg.tensor([INF, -1e30, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = getattr(mg.nn.functional, loss)(x, y, reduction=reduction)
        (g,) = mg.autograd.grad(out.sum(), x)
    np.testing.assert_allclose(out.detach().numpy(), value, rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), gradient, rtol=1e-6)


def test_infinite_difference_tangent_is_silent():
    x, y = mg.tensor([INF, 2.0]), mg.tensor([INF, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _, tangent = mg.func.jvp(lambda a: mg.nn.functional.smooth_l1_loss(a, y, reduction="none"),
                                 (x,), (mg.ones(2),))
    np.testing.assert_allclose(tangent.numpy(), [NAN, 1.0])
