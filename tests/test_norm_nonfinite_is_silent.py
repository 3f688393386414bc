"""``F.layer_norm`` and ``F.batch_norm`` of a slice holding ``inf`` answer PyTorch's NaN slice without
NumPy's ``RuntimeWarning: invalid value encountered in subtract`` (the slice's mean is inf, and
``x - mean`` is ``inf - inf``), values and gradients; the other slices are untouched.  Found by a survey
of non-finite inputs against torch 2.13 while porting minimalRL (after its softmax and loss fixes).

Expected: torch 2.13 (CPU, float32), written in.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

import minigrad_ckpt as mg

F = mg.nn.functional
INF, NAN = math.inf, math.nan


def _silently(f, *xs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        y = f(*xs)
        return y, mg.autograd.grad(y.sum(), xs)


def test_layer_norm_of_a_row_holding_inf():
    x = mg.tensor([[INF, 1.0], [0.5, 2.0]], requires_grad=True)
    w = mg.ones(2, requires_grad=True)
    y, (gx, gw) = _silently(lambda a, b: F.layer_norm(a, (2,), b, mg.zeros(2)), x, w)
    np.testing.assert_allclose(y.detach().numpy(), [[NAN, NAN], [-0.9999910593032837, 0.9999910593032837]], rtol=1e-6)
    np.testing.assert_allclose(gx.numpy(), [[NAN, NAN], [0.0, 0.0]], atol=1e-6)
    assert np.isnan(gw.numpy()).all()


def test_batch_norm_of_a_channel_holding_inf():
    x = mg.tensor([[INF], [1.0]], requires_grad=True)
    y, (g,) = _silently(lambda a: F.batch_norm(a, None, None, training=True), x)
    assert np.isnan(y.detach().numpy()).all() and np.isnan(g.numpy()).all()
