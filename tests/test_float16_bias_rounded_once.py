"""A float16 layer's bias, and a fused product's input, join the product in float32 before the one
rounding to float16, as in PyTorch's half kernels.  The product used to be rounded to float16 first and
the bias added after, a second rounding: ``linear`` and ``addmm`` were 1.2 units in the last place off
(torch 2.13: 0.5), ``conv1d`` of kernel 1 (a float16 UNet's 1x1 layers) 38 where the bias cancelled the
sums, and ``conv3d``, whose depths were each rounded and then added, hundreds.

The operands here are multiples of 1/64 no larger than 4 and the biases multiples of 1/1024: every
sum is exact in float32, so the float64 reference rounded once is the exact answer, bit for bit.
"""
from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

DEVICES = ["cpu", "strict"]


def coarse(rng, *shape, step=1 / 64, bound=4):
    """float16 values on a grid of ``step`` within ``[-bound, bound]``."""
    return (np.round(rng.uniform(-bound, bound, shape) / step) * step).astype(np.float16)


def operands(seed, *shapes):
    """Coarse operands of ``shapes``, the last one a bias (finer, so that it cancels the product)."""
    rng = np.random.default_rng(seed)
    return [coarse(rng, *s) for s in shapes[:-1]] + [coarse(rng, *shapes[-1], step=1 / 1024, bound=8)]


def correlate(x, w, spatial):
    """Cross-correlation in float64 (stride 1, no padding): the reference of conv1d/2d/3d."""
    axes = tuple(range(2, 2 + spatial))
    win = sliding_window_view(x.astype(np.float64), w.shape[2:], axis=axes)
    letters = "dhw"[3 - spatial:]
    return np.einsum(f"nc{letters.upper()}{letters},oc{letters}->no{letters.upper()}", win, w.astype(np.float64))


def assert_rounded_once(got, exact):
    got = got.numpy()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, exact.astype(np.float16))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("rows", [(7,), (3, 5)])
def test_linear(rows, device):
    x, w, b = operands(0, rows + (16,), (6, 16), (6,))
    exact = x.astype(np.float64) @ w.astype(np.float64).T + b
    assert_rounded_once(F.linear(*(mg.tensor(a, device=device) for a in (x, w, b))), exact)
    layer = mg.nn.Linear(16, 6, dtype=mg.float16, device=device)
    layer.weight.data, layer.bias.data = mg.tensor(w, device=device), mg.tensor(b, device=device)
    assert_rounded_once(layer(mg.tensor(x, device=device)), exact)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("spatial, kernel", [(1, (1,)), (1, (3,)), (2, (3, 2)), (3, (3, 2, 2))])
def test_convolution(spatial, kernel, device):
    x, w, b = operands(spatial, (2, 8) + (6,) * spatial, (5, 8) + kernel, (5,))
    conv = (F.conv1d, F.conv2d, F.conv3d)[spatial - 1]
    exact = correlate(x, w, spatial) + b.reshape((1, -1) + (1,) * spatial)
    assert_rounded_once(conv(*(mg.tensor(a, device=device) for a in (x, w, b))), exact)


@pytest.mark.parametrize("device", DEVICES)
def test_conv3d_sums_its_depths_once_without_a_bias(device):
    x, w, _ = operands(4, (2, 8, 5, 4, 4), (5, 8, 3, 1, 1), (5,))
    exact = correlate(x, w, 3)
    assert_rounded_once(F.conv3d(mg.tensor(x, device=device), mg.tensor(w, device=device)), exact)


FUSED = {  # name: (input, first, second) shapes and the float64 product
    "addmm": (((7, 6), (7, 16), (16, 6)), np.matmul),
    "addmv": (((7,), (7, 16), (16,)), np.matmul),
    "baddbmm": (((2, 7, 6), (2, 7, 16), (2, 16, 6)), np.matmul),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("beta, alpha", [(1, 1), (0.5, 2), (0, 1)])
@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_product(name, beta, alpha, device):
    shapes, product = FUSED[name]
    a, b, i = operands(5, shapes[1], shapes[2], shapes[0])
    exact = beta * i.astype(np.float64) + alpha * product(a.astype(np.float64), b.astype(np.float64))
    got = getattr(mg, name)(*(mg.tensor(v, device=device) for v in (i, a, b)), beta=beta, alpha=alpha)
    assert_rounded_once(got, exact)


@pytest.mark.parametrize("device", DEVICES)
def test_addmm_method_and_in_place(device):
    a, b, i = operands(6, (7, 16), (16, 6), (7, 6))
    exact = i.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    ti, ta, tb = (mg.tensor(v, device=device) for v in (i, a, b))
    assert_rounded_once(ti.addmm(ta, tb), exact)
    assert_rounded_once(ti.clone().addmm_(ta, tb), exact)


def test_fused_gradients_are_rounded_once():
    """``alpha * (g @ b.T)``: ``g * 1.7`` rounded to float16 before the product was a second rounding."""
    a, b, i = operands(7, (7, 16), (16, 6), (7, 6))
    g = coarse(np.random.default_rng(8), 7, 6)
    ta, tb, ti = (mg.tensor(v, requires_grad=True) for v in (a, b, i))
    mg.addmm(ti, ta, tb, beta=0.3, alpha=1.7).backward(mg.tensor(g))
    g64 = g.astype(np.float64)
    for t, exact in ((ta, 1.7 * g64 @ b.astype(np.float64).T), (tb, 1.7 * a.astype(np.float64).T @ g64),
                     (ti, 0.3 * g64)):
        got = t.grad.numpy()
        assert got.dtype == np.float16
        units = np.abs(got - exact) / np.spacing(np.abs(exact.astype(np.float16))).astype(np.float64)
        assert units.max() <= 0.5 + 1e-3  # (1.7 and 0.3 are rounded in float32: a hair over half a unit)


def test_float32_bias_is_still_added_in_float32():
    """The float32 path is untouched: the product and the bias in float32, as before."""
    x, w, b = (v.astype(np.float32) for v in operands(9, (7, 16), (6, 16), (6,)))
    got = F.linear(mg.tensor(x), mg.tensor(w), mg.tensor(b)).numpy()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, (x @ w.T).astype(np.float32) + b)
