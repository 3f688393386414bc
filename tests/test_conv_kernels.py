"""The convolution and pooling kernels' fast paths against their definitions.

``conv2d`` is one matrix product over the whole batch, ``conv2d_input_grad`` a
transposed convolution computed as an ordinary one, ``conv2d_weight_grad`` one
product per group: each is checked against the direct-loop reference and by the
adjoint identities <conv(x, w), g> = <x, input_grad(g, w)> = <w, weight_grad(x, g)>,
over strides, paddings (including more padding than ``dilation * (k - 1)``, the
second branch of the input gradient), dilations and groups.  Max pooling's tiled
backward (stride = kernel) and its one-pass forward against the reference ops.
"""

from __future__ import annotations

import numpy as np
import pytest

from minigrad_ckpt.backend import numpy_namespace as xp
from minigrad_ckpt.ops import conv as C

CASES = [  # h, w, k, stride, padding, dilation, groups
    (7, 6, 3, 1, 1, 1, 1), (7, 6, 3, 2, 1, 1, 1), (8, 8, 3, 2, 0, 1, 2), (9, 7, 2, 3, 1, 2, 1),
    (6, 6, 3, 1, 3, 1, 1), (5, 8, 1, 2, 0, 1, 3), (10, 9, 3, 3, 2, 2, 1), (6, 7, 3, 1, 2, 1, 1),
]


@pytest.mark.parametrize("h,w,k,s,p,d,groups", CASES)
def test_conv_kernels_match_reference_and_are_adjoint(h, w, k, s, p, d, groups):
    rng = np.random.default_rng(h * 100 + w)
    x = rng.standard_normal((2, 3 * groups, h, w))
    wt = rng.standard_normal((2 * groups, 3, k, k))
    a = ((s, s), (p, p), (d, d), groups)
    out = C.conv2d(xp, x, wt, *a)
    np.testing.assert_allclose(out, C._reference_conv(np, x, wt, *a), rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(out.shape)
    gx = C.conv2d_input_grad(xp, g, wt, x.shape, *a)
    gw = C.conv2d_weight_grad(xp, x, g, wt.shape, *a)
    assert gx.shape == x.shape and gw.shape == wt.shape
    xr, wr = rng.standard_normal(x.shape), rng.standard_normal(wt.shape)
    assert np.sum(C.conv2d(xp, xr, wt, *a) * g) == pytest.approx(np.sum(xr * gx), rel=1e-10)
    assert np.sum(C.conv2d(xp, x, wr, *a) * g) == pytest.approx(np.sum(wr * gw), rel=1e-10)


@pytest.mark.parametrize("shape,k", [((2, 3, 8, 8), 2), ((2, 2, 7, 9), 2), ((1, 2, 9, 6), 3), ((2, 1, 4, 4), 4)])
def test_tiled_max_pool_matches_reference(shape, k):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, shape).astype(np.float64)  # many ties: the first maximum wins
    attrs = dict(kernel=(k, k), stride=(k, k), padding=(0, 0), dilation=(1, 1))
    fwd, bwd = C.MaxPool2d(**attrs), C.MaxPool2dBackward(**attrs)
    out = C.max_pool2d(xp, x, x, (k, k), (k, k), (0, 0), (1, 1))
    np.testing.assert_array_equal(out, fwd.reference(np, x, x))
    # the two-argument form (values routed by another array) agrees with the reference too
    v = rng.standard_normal(shape)
    np.testing.assert_array_equal(C.max_pool2d(xp, v, x, (k, k), (k, k), (0, 0), (1, 1)), fwd.reference(np, v, x))
    g = rng.standard_normal(out.shape)
    got = C.max_pool2d_backward(xp, g, x, (k, k), (k, k), (0, 0), (1, 1))
    np.testing.assert_allclose(got, bwd.reference(np, g, x), rtol=0, atol=0)


FULL_GRID_CASES = [  # n, c, o, h, w, k, padding, dilation: stride 1, more output than input channels
    (2, 1, 4, 7, 6, 3, 0, 1), (3, 2, 8, 6, 7, 3, 1, 1), (2, 1, 6, 9, 8, 3, 2, 2), (2, 2, 9, 5, 6, 2, 0, 1),
    (1, 1, 5, 6, 6, 3, 3, 1),
]


@pytest.mark.parametrize("n,c,o,h,w,k,p,d", FULL_GRID_CASES)
def test_full_grid_input_grad_matches_the_transposed_convolution(n, c, o, h, w, k, p, d):
    """Stride-1 input gradients with few input channels take the full grid (no column
    matrix); they agree with the transposed convolution and with the reference adjoint."""
    rng = np.random.default_rng(n * 1000 + o * 10 + h)
    x_shape = (n, c, h, w)
    wt = rng.standard_normal((o, c, k, k))
    a = ((1, 1), (p, p), (d, d), 1)
    assert C._full_grid_applies(xp, (1, 1), (p, p), 1, x_shape, wt)
    g = rng.standard_normal(C.conv2d(xp, np.zeros(x_shape), wt, *a).shape)
    got = C.conv2d_input_grad(xp, g, wt, x_shape, *a)
    np.testing.assert_allclose(got, C.Conv2dInputGrad(x_shape=x_shape, stride=(1, 1), padding=(p, p),
                                                       dilation=(d, d), groups=1).reference(np, g, wt),
                               rtol=1e-12, atol=1e-12)
    bad = wt.copy()
    bad[0, 0, 0, 0] = np.inf  # a non-finite weight goes the column way: no 0 * inf from the extra outputs
    assert not C._full_grid_applies(xp, (1, 1), (p, p), 1, x_shape, bad)
