"""``conv_transpose3d``, ``adaptive_max_pool3d``, ``max_unpool3d`` and their layers at the seams:
checkpointed (bitwise the same gradients), on the strict float32 stand-in device (the CPU's float32
values), under ``mg.func`` (forward mode equal to reverse mode), with PyTorch's parameter
initialisation and ``output_size=``, and with clear errors.  Their values, gradients and edge values
(+-inf, NaN, -0.0, subnormals) against PyTorch are in ``test_nn_vs_torch.py`` (``torch_3d_ops.npz``);
derivatives of every order against central differences in ``test_nn_functions_added.py``.  Random
geometries: the transpose is the adjoint of ``conv3d``; the adaptive max pool equals a loop over
PyTorch's windows at edge values, and unpooling puts each value back at its index."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.nn.functional.pooling import _unpool


class _PoolUnpool(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pool, self.unpool = nn.MaxPool3d(2, return_indices=True), nn.MaxUnpool3d(2)

    def forward(self, x):
        return self.unpool(*self.pool(x))


class _MaxOnly(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pool = nn.AdaptiveMaxPool3d((2, 3, 2), return_indices=True)

    def forward(self, x):
        return self.pool(x)[0]


LAYERS = {
    "ConvTranspose3d": lambda: nn.ConvTranspose3d(2, 4, (2, 3, 2), stride=(2, 1, 2), padding=(0, 1, 1),
                                                  output_padding=(1, 0, 0), groups=2, dilation=(1, 1, 2)),
    "AdaptiveMaxPool3d": _MaxOnly,
    "MaxUnpool3d": _PoolUnpool,
}


def _grads(layer, xs, checkpointed):
    x = mg.tensor(xs, requires_grad=True)
    layer.zero_grad()
    with warnings.catch_warnings():  # unpooling alone keeps its input to replay from: a cost, reported
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        y = ck.checkpoint(layer, x) if checkpointed else layer(x)
    (y.tanh() * mg.tensor(np.linspace(-1, 1, y.size).reshape(y.shape).astype(xs.dtype))).sum().backward()
    return [x.grad.numpy().copy()] + [p.grad.numpy().copy() for p in layer.parameters()]


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layers_at_the_seams(name):
    rng = np.random.default_rng(5)
    mg.manual_seed(0)
    layer = LAYERS[name]()
    xs = rng.standard_normal((2, 2, 4, 6, 4)).astype(np.float32)
    # checkpointed: bitwise the same gradients of the input and the parameters
    for a, b in zip(_grads(layer, xs, False), _grads(layer, xs, True), strict=True):
        np.testing.assert_array_equal(a, b)
    # the strict float32 stand-in device: the CPU's values and gradients
    strict = mg.device("strict-f32")
    on_strict = layer.to(strict)
    xst = mg.tensor(xs, device=strict, requires_grad=True)
    ys = on_strict(xst)
    (gs,) = mg.grad(ys.sum(), [xst])
    cpu = layer.to("cpu")
    x = mg.tensor(xs, requires_grad=True)
    y = cpu(x)
    (g,) = mg.grad(y.sum(), [x])
    assert str(ys.device).startswith("strict") and ys.dtype == np.float32
    np.testing.assert_allclose(ys.numpy(), y.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gs.numpy(), g.numpy(), rtol=1e-6, atol=1e-6)
    # mg.func: forward mode equals the reverse-mode directional derivative; jacfwd equals jacrev
    layer = layer.to(dtype="float64")
    x64 = xs.astype(np.float64)
    v = rng.standard_normal(x64.shape)
    cot = rng.standard_normal(layer(mg.tensor(x64)).shape)

    def f(a):
        return (layer(a).tanh() * mg.tensor(cot)).sum()

    _, tangent = mg.func.jvp(f, (mg.tensor(x64),), (mg.tensor(v),))
    grad = mg.func.grad(f)(mg.tensor(x64))
    np.testing.assert_allclose(float(tangent.numpy()), float(np.sum(grad.numpy() * v)), rtol=1e-12)
    small = x64[:1, :, :2, :3, :2]
    np.testing.assert_allclose(mg.func.jacfwd(lambda a: layer(a))(mg.tensor(small)).numpy(),
                               mg.func.jacrev(lambda a: layer(a))(mg.tensor(small)).numpy(), rtol=1e-12, atol=1e-14)


def test_conv_transpose_layers_initialise_as_pytorch():
    # weight (in, out/groups, *kernel); Kaiming-uniform with a = sqrt(5) and the bias both bounded by
    # 1/sqrt(fan_in), fan_in = weight.shape[1] * prod(kernel) (PyTorch's rule for the transpose too)
    mg.manual_seed(0)
    layer = nn.ConvTranspose3d(6, 8, (3, 2, 4), groups=2)
    assert layer.weight.shape == (6, 4, 3, 2, 4) and layer.bias.shape == (8,)
    bound = 1 / math.sqrt(4 * 3 * 2 * 4)
    w, b = np.abs(layer.weight.numpy()), np.abs(layer.bias.numpy())
    assert w.max() <= bound and w.max() > 0.95 * bound and abs(w.mean() - bound / 2) < 0.05 * bound
    assert b.max() <= bound
    assert nn.ConvTranspose3d(2, 2, 1, bias=False).bias is None
    assert repr(nn.ConvTranspose3d(2, 3, 2, stride=2)) == \
        "ConvTranspose3d(2, 3, kernel_size=(2, 2, 2), stride=(2, 2, 2))"  # torch 2.13's


def test_output_size_picks_the_output_padding_as_pytorch():
    mg.manual_seed(0)
    layer = nn.ConvTranspose3d(4, 2, 3, stride=(2, 3, 3), padding=1)
    x = mg.randn(2, 4, 3, 4, 3)
    # the smallest output (n - 1) * stride - 2 * padding + kernel is (5, 10, 7), the largest stride - 1 above
    assert layer(x).shape == (2, 2, 5, 10, 7)
    for size in [(6, 12, 8), (2, 2, 6, 12, 8)]:
        want = F.conv_transpose3d(x, layer.weight, layer.bias, (2, 3, 3), 1, output_padding=(1, 2, 1))
        np.testing.assert_array_equal(layer(x, output_size=size).numpy(), want.numpy())
    assert layer(x[0], output_size=(2, 5, 11, 9)).shape == (2, 5, 11, 9)  # unbatched: (C, D, H, W)
    with pytest.raises(ValueError, match=r"valid sizes range from \(5, 10, 7\) to \(6, 12, 9\)"):
        layer(x, output_size=(5, 9, 7))
    with pytest.raises(ValueError, match="output_size"):
        layer(x, output_size=(5, 10))
    # the 1-D and 2-D layers take it too
    assert nn.ConvTranspose2d(1, 1, 2, stride=3)(mg.randn(1, 1, 2, 2), output_size=(6, 7)).shape == (1, 1, 6, 7)
    assert nn.ConvTranspose1d(1, 1, 2, stride=3)(mg.randn(1, 1, 2), output_size=[7]).shape == (1, 1, 7)


def test_adaptive_max_pools_send_the_gradient_to_the_last_nan_as_pytorch():
    # PyTorch's adaptive kernels replace the running maximum by every NaN they meet (max_pool keeps
    # the first): its indices here are 2 (a plane) and 2 (a volume)
    x = mg.tensor(np.array([np.nan, 1.0, np.nan, np.inf]).reshape(1, 1, 2, 2), requires_grad=True)
    out, idx = F.adaptive_max_pool2d(x, 1, return_indices=True)
    assert np.isnan(out.numpy()).all() and idx.numpy().ravel().tolist() == [2]
    (g,) = mg.grad(out.sum(), [x])
    np.testing.assert_array_equal(g.numpy().ravel(), [0.0, 0.0, 1.0, 0.0])
    vol = mg.tensor(np.array([np.nan, 1.0, np.nan, np.inf, -np.inf, -0.0, 0.0, 2.0]).reshape(1, 1, 2, 2, 2))
    assert F.adaptive_max_pool3d(vol, (2, 1, 1), return_indices=True)[1].numpy().ravel().tolist() == [2, 7]
    assert F.adaptive_max_pool1d(mg.reshape(vol, (1, 8)), 1, return_indices=True)[1].numpy().tolist() == [[2]]


@pytest.mark.parametrize("call, match", [
    (lambda: F.conv_transpose3d(mg.ones(1, 2, 3, 3, 3), mg.ones(2, 2, 2, 2)), "5-D weight"),
    (lambda: F.conv_transpose3d(mg.ones(2, 3, 3), mg.ones(2, 2, 2, 2, 2)),
     r"Expected 4D \(unbatched\) or 5D \(batched\) input to conv_transpose3d"),
    (lambda: F.conv_transpose3d(mg.ones(1, 2, 3, 3, 3), mg.ones(2, 2, 2, 2, 2), stride=2, output_padding=(0, 2, 0)),
     "output_padding"),
    (lambda: F.conv_transpose3d(mg.ones(1, 2, 3, 3, 3), mg.ones(2, 2, 2, 2, 2), stride=(1, 2)), "triple"),
    (lambda: F.conv_transpose3d(mg.ones(1, 3, 3, 3, 3), mg.ones(2, 2, 2, 2, 2)),
     r"Given transposed=1, weight of size \[2, 2, 2, 2, 2\], expected input\[1, 3, 3, 3, 3\] to have 2 channels"),
    (lambda: F.adaptive_max_pool3d(mg.ones(1, 1, 0, 2, 2), 1), "empty"),
    (lambda: F.adaptive_max_pool3d(mg.ones(1, 1, 2, 2, 2), (1, 1)), r"output_size.size\(\) must be 3"),
    (lambda: F.adaptive_max_pool3d(mg.ones(1, 1, 2, 2, 2), -1), "greater than or equal to 0"),  # (0: empty)
    (lambda: F.max_unpool3d(mg.ones(1, 1, 1, 1, 2), mg.tensor([[[[[0, 16]]]]]), 2),
     "Found an invalid max index: 16"),  # (torch 2.13's words)
    (lambda: F.max_unpool3d(mg.ones(1, 1, 1, 1, 2), mg.ones(1, 1, 1, 1, 2), 2), "integers"),
    (lambda: F.max_unpool3d(mg.ones(1, 1, 2), mg.tensor([[[0, 1]]]), 2), "4-D or 5-D"),
    (lambda: nn.ConvTranspose3d(2, 2, 2, padding_mode="reflect"),
     'Only "zeros" padding mode is supported for ConvTranspose3d'),
])
def test_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_layers_call_their_functions():
    mg.manual_seed(0)
    x = mg.randn(2, 3, 5, 4, 4, dtype="float64")
    out, idx = nn.AdaptiveMaxPool3d((2, None, 3), return_indices=True)(x)
    want, want_idx = F.adaptive_max_pool3d(x, (2, None, 3), return_indices=True)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    np.testing.assert_array_equal(idx.numpy(), want_idx.numpy())
    pooled, where = F.max_pool3d(x, 2, return_indices=True)
    np.testing.assert_array_equal(nn.MaxUnpool3d(2)(pooled, where, output_size=(5, 4, 4)).numpy(),
                                  F.max_unpool3d(pooled, where, 2, output_size=(5, 4, 4)).numpy())
    # repr(torch.nn.MaxUnpool3d(2)): PyTorch keeps the sizes as triples
    assert repr(nn.MaxUnpool3d(2)) == "MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))"


def test_an_infinite_weight_in_a_transposed_convolution_meets_the_inserted_zeros():
    # the convention docs/ops.md states: the spread-out input is correlated with the whole kernel, so an
    # infinite weight times an inserted zero is NaN, where PyTorch (scattering each input element) gets
    # inf at the 8 places that one weight reaches; an infinite input gives PyTorch's values
    x, w = np.ones((1, 1, 2, 2, 2)), np.ones((1, 1, 2, 2, 2))
    w[0, 0, 0, 0, 0] = np.inf
    with np.errstate(all="ignore"):
        out = F.conv_transpose3d(mg.tensor(x), mg.tensor(w), stride=2).numpy()
        assert np.isnan(out).sum() == 56 and np.isposinf(out).sum() == 8
        x[0, 0, 1, 1, 1], w[0, 0, 0, 0, 0] = np.inf, 1.0
        out = F.conv_transpose3d(mg.tensor(x), mg.tensor(w), stride=2).numpy()
    assert np.isposinf(out[0, 0, 2:, 2:, 2:]).all() and np.isfinite(out).sum() == 56


# ---------------------------------------------------------------- properties of random geometries

EDGE_VALUES = [np.inf, -np.inf, np.nan, -0.0, 0.0, np.finfo(np.float64).max, np.finfo(np.float64).tiny, 5e-324]


@st.composite
def transposed_geometry(draw):
    groups = draw(st.sampled_from([1, 2]))
    cin, cog = groups * draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(3))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(3))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(3))
    padding = tuple(draw(st.integers(0, d * (k - 1) + 1)) for k, d in zip(kernel, dilation))
    extra = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation))
    sizes = tuple(draw(st.integers(1, 3)) for _ in range(3))
    out = [(n - 1) * s - 2 * p + d * (k - 1) + o + 1 for n, s, p, d, k, o in
           zip(sizes, stride, padding, dilation, kernel, extra)]
    assume(min(out) >= 1)  # padding beyond the kernel's reach crops; not below an empty output
    return dict(cin=cin, cog=cog, groups=groups, kernel=kernel, stride=stride, dilation=dilation, padding=padding,
                output_padding=extra, sizes=sizes, seed=draw(st.integers(0, 2**16)))


@settings(max_examples=25, deadline=None)
@given(transposed_geometry())
def test_conv_transpose3d_is_the_adjoint_of_conv3d(geo):
    # <conv_transpose3d(x, w), y> = <x, conv3d(y, w)> for every geometry: the transpose is what its name says
    rng = np.random.default_rng(geo["seed"])
    n = 2
    x = rng.standard_normal((n, geo["cin"]) + geo["sizes"])
    w = rng.standard_normal((geo["cin"], geo["cog"]) + geo["kernel"])
    a = (geo["stride"], geo["padding"], geo["output_padding"], geo["groups"], geo["dilation"])
    out = F.conv_transpose3d(mg.tensor(x), mg.tensor(w), None, *a)
    y = rng.standard_normal(out.shape)
    back = F.conv3d(mg.tensor(y), mg.tensor(w), None, geo["stride"], geo["padding"], geo["dilation"], geo["groups"])
    # conv3d of the transposed output's shape covers x's shape (and a row more where output_padding >= stride)
    back = back.numpy()[(slice(None),) * 2 + tuple(slice(0, s) for s in geo["sizes"])]
    np.testing.assert_allclose(np.sum(out.numpy() * y), np.sum(x * back), rtol=1e-10, atol=1e-10)


def _reference_adaptive_max(x, sizes):
    """Loops over PyTorch's windows: the maximum, or the last NaN of a window that has one."""
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    out = np.zeros((n, c) + sizes)
    idx = np.zeros((n, c) + sizes, dtype=np.int64)
    for pos in np.ndindex(*sizes):
        bounds = [((i * s) // o, -((-(i + 1) * s) // o)) for i, s, o in zip(pos, spatial, sizes)]
        win = x[(slice(None),) * 2 + tuple(slice(a, b) for a, b in bounds)].reshape(n, c, -1)
        for b in range(n):
            for ch in range(c):
                vals = win[b, ch]
                nans = np.flatnonzero(np.isnan(vals))
                k = int(nans[-1]) if nans.size else int(np.argmax(vals))
                local = np.unravel_index(k, [hi - lo for lo, hi in bounds])
                idx[(b, ch) + pos] = np.ravel_multi_index(tuple(lo + q for (lo, _), q in zip(bounds, local)), spatial)
                out[(b, ch) + pos] = vals[k]
    return out, idx


@settings(max_examples=25, deadline=None)
@given(shape=st.tuples(*[st.integers(1, 5)] * 3), sizes=st.tuples(*[st.integers(1, 5)] * 3),
       edges=st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(EDGE_VALUES)), max_size=6),
       seed=st.integers(0, 2**16))
def test_adaptive_max_pool3d_and_max_unpool3d_at_edge_values(shape, sizes, edges, seed):
    # random shapes and output sizes (smaller or larger than the input), some elements edge values:
    # the values and indices of a loop over PyTorch's windows; max_unpool3d puts each value back at its index
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 2) + shape)
    flat = x.reshape(-1)
    for i, v in edges:
        flat[i % flat.size] = v
    out, idx = F.adaptive_max_pool3d(mg.tensor(x), sizes, return_indices=True)
    want, want_idx = _reference_adaptive_max(x, sizes)
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    np.testing.assert_array_equal(out.numpy(), want)  # NaN where NaN, the very same numbers elsewhere
    assert (np.signbit(out.numpy()) == np.signbit(want)).all()
    # (the placement under max_unpool3d: its output_size check, PyTorch's, refuses sizes that no
    # pooling of `out` could have come from, and adaptive pooling's may be any)
    unpooled = _unpool("max_unpool3d", out, idx, shape).numpy().reshape(2, 2, -1)
    got = np.take_along_axis(unpooled, idx.numpy().reshape(2, 2, -1), axis=-1)
    np.testing.assert_array_equal(got, out.numpy().reshape(2, 2, -1))
