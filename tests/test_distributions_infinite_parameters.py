"""A family built on a simpler base must not hand that base a NaN made from its own infinite parameter.

``Weibull`` built its ``Exponential(1)`` base as ``Exponential(scale * 0 + 1)`` and ``Kumaraswamy`` its
``Uniform(0, 1)`` as ``Uniform(c0 * 0, c0 * 0 + 1)``: at ``scale = inf`` (or ``c0 = inf``) that is NaN, so the
base refused it (ValueError) where PyTorch's (``ones_like``/``zeros_like``) builds the distribution and
answers its moments. Expected values are torch 2.13's (float64), pasted as literals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.distributions import Kumaraswamy, Weibull

NAN, INF = math.nan, math.inf


def _t(values, dtype=mg.float64):
    return mg.tensor(values, dtype=dtype)


def _close(out, expected, rtol=1e-12):
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=rtol, equal_nan=True)


def test_weibull_with_an_infinite_scale_is_built_and_answers_torchs_moments():
    d = Weibull(_t([INF, 1.0, 2.0]), _t([1.0, 2.0, 0.5]))
    _close(d.mean, [INF, 0.886226925452758, 4.0])
    _close(d.variance, [INF, 0.21460183660255172, 80.00000000000001])
    _close(d.entropy(), [INF, 0.5954606518908212, 1.8090786962183576])
    _close(d.log_prob(_t([0.5, 1.5, 2.5])), [NAN, -1.1513877113318902, -2.6159001255268906])


def test_kumaraswamy_with_an_infinite_concentration0_is_built_and_answers_torchs_moments():
    d = Kumaraswamy(_t([1.0, 2.0, 0.5]), _t([INF, 1.5, 3.0]))
    _close(d.mean, [NAN, 0.5890486225480863, 0.10000000000000003])
    _close(d.variance, [NAN, 0.053021720274202155, 0.018571428571428544])
    _close(d.log_prob(_t([0.2, 0.3, 0.4])), [NAN, -0.15251585539344703, -1.1382114587155572])


@pytest.mark.parametrize("dtype, rtol", [(mg.float64, 1e-12), (mg.float32, 1e-5)])
def test_the_bases_constants_keep_log_prob_differentiable_under_vmap_and_grad(dtype, rtol):
    scales = _t([1.0, 2.0, 3.0], dtype)

    def weibull(s):
        return Weibull(s, _t(1.5, dtype)).log_prob(_t(0.7, dtype))

    def kumaraswamy(c0):
        return Kumaraswamy(_t(1.5, dtype), c0).log_prob(_t(0.3, dtype))

    _close(mg.func.vmap(weibull)(scales), [-0.3585343824350546, -1.0196559271096062, -1.5335015048892842], rtol)
    _close(mg.func.vmap(mg.func.grad(weibull))(scales), [-0.6215069721392207, -0.5947029056936348,
                                                         -0.4436446459870409], rtol)
    _close(mg.func.vmap(mg.func.grad(kumaraswamy))(scales), [0.8204943541030819, 0.3204943541030819,
                                                             0.15382768743641526], rtol)
    assert Weibull(scales, _t(1.5, dtype)).sample((2,)).dtype == dtype
