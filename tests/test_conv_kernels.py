"""The convolution and pooling kernels' fast paths against their definitions.

``conv2d`` is one matrix product per group and chunk of images,
``conv2d_input_grad`` the columns' gradient added back per kernel offset
("col2im"), ``conv2d_weight_grad`` one product per group and chunk: each is
checked against the direct-loop reference and by the adjoint identities
<conv(x, w), g> = <x, input_grad(g, w)> = <w, weight_grad(x, g)>, over
strides, paddings (including more padding than ``dilation * (k - 1)``),
dilations, groups and chunk sizes.  Max pooling's tiled backward (stride =
kernel) and its one-pass forward against the reference ops.
"""

from __future__ import annotations

import numpy as np
import pytest
from resume_steps import uninterrupted_and_resumed

from minigrad_ckpt.backend import numpy_namespace as xp
from minigrad_ckpt.ops import conv as C

CASES = [  # h, w, k, stride, padding, dilation, groups
    (7, 6, 3, 1, 1, 1, 1), (7, 6, 3, 2, 1, 1, 1), (8, 8, 3, 2, 0, 1, 2), (9, 7, 2, 3, 1, 2, 1),
    (6, 6, 3, 1, 3, 1, 1), (5, 8, 1, 2, 0, 1, 3), (10, 9, 3, 3, 2, 2, 1), (6, 7, 3, 1, 2, 1, 1),
    # narrow images: channels-last columns, the input gradient as a flipped convolution
    (4, 4, 3, 1, 1, 1, 1), (3, 4, 3, 1, 2, 2, 1), (5, 3, 2, 1, 0, 1, 1), (4, 3, 2, 1, 2, 1, 1), (6, 4, 3, 2, 1, 1, 1),
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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,k", [((2, 3, 8, 8), 2), ((2, 2, 7, 9), 2), ((1, 2, 9, 6), 3), ((2, 1, 4, 4), 1)])
def test_tiled_max_pool_backward_takes_the_saved_maxima_bitwise(shape, k, dtype):
    """Given the forward's output as the window maxima, the tiled backward sends every gradient
    where it does when it takes the maxima again: ties, NaN (the last NaN wins), infinities,
    signed zeros, an infinite gradient (exactly 0 beside it), and every memory layout."""
    rng = np.random.default_rng(k)
    specials = np.array([0.0, -0.0, 1.0, np.nan, np.inf, -np.inf], dtype=dtype)
    x = rng.choice(specials, size=shape)
    for layout in [(0, 1, 2, 3), (1, 0, 2, 3), (0, 2, 3, 1)]:
        routing = np.ascontiguousarray(x.transpose(layout)).transpose(np.argsort(layout))
        geo = ((k, k), (k, k), (0, 0), (1, 1))
        top = C.max_pool2d(xp, routing, routing, *geo)
        g = rng.standard_normal(top.shape).astype(dtype)
        g.flat[::5] = np.inf
        again = C.max_pool2d_backward(xp, g, routing, *geo)
        saved = C.max_pool2d_backward(xp, g, routing, *geo, top=top)
        assert saved.dtype == again.dtype and C._axis_order(saved) == C._axis_order(again)
        assert np.ascontiguousarray(saved).tobytes() == np.ascontiguousarray(again).tobytes()
        ref = C.MaxPool2dBackward(kernel=(k, k), stride=(k, k), padding=(0, 0), dilation=(1, 1)).reference(np, g, x)
        np.testing.assert_array_equal(saved, ref)


def test_max_pool2d_hands_its_backward_the_saved_maxima(monkeypatch):
    """``F.max_pool2d`` passes ``x`` as values and routing, marks the op ``own_max`` and the
    tiled backward reads the saved output instead of taking the maxima again; with
    ``ceil_mode`` padding (values padded with 0, routing with -inf) it does not: the
    gradients are the reference's both ways, and what checkpoint replay gives."""
    import minigrad_ckpt as mg
    from minigrad_ckpt.nn import functional as F

    tops = []
    real = C._tiled_pool_backward
    monkeypatch.setattr(C, "_tiled_pool_backward", lambda xp_, g, r, kh, kw, top=None: tops.append(top is not None)
                        or real(xp_, g, r, kh, kw, top))
    rng = np.random.default_rng(3)
    for ceil, shape, expect in [(False, (2, 3, 6, 6), True), (True, (2, 3, 7, 7), False)]:
        data = rng.integers(-2, 3, shape).astype(np.float64)
        x = mg.tensor(data, requires_grad=True)
        out = F.max_pool2d(x, 2, ceil_mode=ceil)
        assert out.grad_fn.op.own_max is expect
        g = rng.standard_normal(out.shape)
        out.backward(mg.tensor(g))
        assert tops[-1] is expect
        plain = x.grad.numpy().copy()
        x2 = mg.tensor(data, requires_grad=True)
        mg.checkpoint.checkpoint(lambda t, c=ceil: F.max_pool2d(t * 1.0, 2, ceil_mode=c), x2).backward(mg.tensor(g))
        np.testing.assert_array_equal(x2.grad.numpy(), plain)
        if not ceil:
            ref = C.MaxPool2dBackward(kernel=(2, 2), stride=(2, 2), padding=(0, 0), dilation=(1, 1)).reference(
                np, g, data)
            np.testing.assert_array_equal(plain, ref)
    # values routed by another array (a second derivative's op): the output is no maximum of the
    # routing, and backward must not take it for one
    attrs = dict(kernel=(2, 2), stride=(2, 2), padding=(0, 0), dilation=(1, 1))
    routing, values = rng.standard_normal((2, 3, 6, 6)), rng.standard_normal((2, 3, 6, 6))
    op = C.MaxPool2d(**attrs)
    assert op.own_max is False
    out = op.forward(xp, values, routing)
    g = rng.standard_normal(out.shape)
    gx, _ = op.backward(xp, g, out, None, routing)
    np.testing.assert_array_equal(gx, C.MaxPool2dBackward(**attrs).reference(np, g, routing))


@pytest.mark.parametrize("chunk_bytes", [1, 700, 1 << 21])
@pytest.mark.parametrize("h,w,k,s,p,d,groups", CASES)
def test_kernels_cut_the_batch_into_chunks_without_changing_the_result(h, w, k, s, p, d, groups, chunk_bytes,
                                                                        monkeypatch):
    """One image per chunk, a few, or the whole batch: the same numbers to rounding (BLAS blocks
    a narrower product differently), and the reference adjoint's gradients, in float32 and float64."""
    rng = np.random.default_rng(h * 10 + k)
    a = ((s, s), (p, p), (d, d), groups)
    x = rng.standard_normal((5, 3 * groups, h, w))
    wt = rng.standard_normal((2 * groups, 3, k, k))
    whole = C.conv2d(xp, x, wt, *a)
    monkeypatch.setattr(C, "_CHUNK_BYTES", chunk_bytes)
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 2e-5)):
        xd, wd = x.astype(dtype), wt.astype(dtype)
        out = C.conv2d(xp, xd, wd, *a)
        assert out.dtype == dtype
        np.testing.assert_allclose(out, whole, rtol=tol, atol=tol)
        g = rng.standard_normal(out.shape).astype(dtype)
        gx = C.conv2d_input_grad(xp, g, wd, x.shape, *a)
        gw = C.conv2d_weight_grad(xp, xd, g, wt.shape, *a)
        assert gx.dtype == dtype and gw.dtype == dtype
        ref_gx, ref_gw = _reference_grads((h, w, k, s, p, d, groups, dtype), x, wt, g.astype(np.float64))
        np.testing.assert_allclose(gx, ref_gx, rtol=tol, atol=tol * 10)
        np.testing.assert_allclose(gw, ref_gw, rtol=tol, atol=tol * 100)


_REFERENCE_GRADS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _reference_grads(key: tuple, x: np.ndarray, wt: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reference adjoints' gradients, made once per case and dtype: the loops of the references
    are slow, and every chunk size draws the same ``g`` (its generator is seeded by the case)."""
    if key not in _REFERENCE_GRADS:
        h, w, k, s, p, d, groups, _ = key
        a = dict(stride=(s, s), padding=(p, p), dilation=(d, d), groups=groups)
        _REFERENCE_GRADS[key] = (C.Conv2dInputGrad(x_shape=x.shape, **a).reference(np, g, wt),
                                 C.Conv2dWeightGrad(w_shape=wt.shape, **a).reference(np, x, g))
    return _REFERENCE_GRADS[key]


def test_chunks_cover_the_batch_once():
    for n, per in [(0, 10), (1, 10), (7, 1), (64, 700_000), (5, 1 << 30)]:
        parts = C._image_chunks(xp, n, per)
        assert [i for part in parts for i in range(n)[part]] == list(range(n))


@pytest.mark.parametrize("g_layout", [(0, 1, 2, 3), (1, 0, 2, 3), (3, 2, 1, 0)])
def test_tiled_max_pool_backward_takes_a_gradient_of_any_layout(g_layout):
    """The routing channel-major (as a convolution leaves it), the gradient laid out otherwise
    (a flatten leaves it batch-major): copied into the routing's layout, the same bits."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, (3, 2, 6, 6)).astype(np.float32).transpose(1, 0, 2, 3)  # (2, 3, 6, 6), channel-major
    g = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    g_other = np.ascontiguousarray(g.transpose(g_layout)).transpose(np.argsort(g_layout))
    np.testing.assert_array_equal(g_other, g)
    ref = C.MaxPool2dBackward(kernel=(2, 2), stride=(2, 2), padding=(0, 0), dilation=(1, 1)).reference(np, g, x)
    got = C.max_pool2d_backward(xp, g_other, x, (2, 2), (2, 2), (0, 0), (1, 1))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("h,w,k,p,d", [(4, 4, 3, 1, 1), (7, 6, 3, 0, 1), (9, 8, 3, 2, 2), (6, 6, 2, 3, 1),
                                       (20, 19, 3, 1, 1)])
def test_the_grid_and_col2im_input_gradients_are_the_same_bits(h, w, k, p, d, monkeypatch):
    """Stride 1 and one group: the grid path (narrow images) and col2im add the same products in
    the same order; with one image per chunk too (a chunk's extra outputs add zeros to the next)."""
    rng = np.random.default_rng(h * w)
    x_shape = (4, 3, h, w)
    wt = rng.standard_normal((5, 3, k, k))
    a = ((1, 1), (p, p), (d, d), 1)
    g = rng.standard_normal(C.conv2d(xp, np.zeros(x_shape), wt, *a).shape)
    col2im = C._col2im_input_grad(xp, g, wt, x_shape, *a)
    np.testing.assert_array_equal(C._grid_input_grad(xp, g, wt, x_shape, (p, p), (d, d)), col2im)
    monkeypatch.setattr(C, "_CHUNK_BYTES", 1)
    np.testing.assert_array_equal(C._grid_input_grad(xp, g, wt, x_shape, (p, p), (d, d)), col2im)


def test_a_non_finite_kernel_takes_col2im():
    """On the grid an infinite weight would meet an extra output's zero gradient (0 * inf = nan)
    where no true window pairs them: such a kernel goes the col2im way."""
    rng = np.random.default_rng(1)
    x_shape, a = (2, 2, 5, 5), ((1, 1), (1, 1), (1, 1), 1)
    wt = rng.standard_normal((3, 2, 3, 3))
    wt[0, 0, 2, 2] = np.inf
    g = rng.standard_normal((2, 3, 5, 5))
    got = C.conv2d_input_grad(xp, g, wt, x_shape, *a)
    np.testing.assert_array_equal(got, C._col2im_input_grad(xp, g, wt, x_shape, *a))
    grid = C._grid_input_grad(xp, g, wt, x_shape, (1, 1), (1, 1))
    assert np.isnan(grid).sum() > np.isnan(got).sum()  # what the rule avoids


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_chunked_convolutions_with_bias_replay_bitwise_under_checkpointing(device, monkeypatch):
    """Seams of the chunked kernels and the bias inside Conv2d: a float32 conv-relu-pool-conv
    block, one image per chunk, on the CPU and the float32-only strict device; checkpointed,
    its replay gives the same bits as the plain step, and forward mode agrees with reverse."""
    import minigrad_ckpt as mg
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
    from minigrad_ckpt.nn import functional as F

    monkeypatch.setattr(C, "_CHUNK_BYTES", 1)
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in [(3, 2, 9, 8), (4, 2, 3, 3), (4,), (3, 4, 3, 3), (3,)]]

    def block(x, w1, b1, w2, b2):
        h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=1)), 2)
        return F.conv2d(h, w2, b2, stride=1, padding=1)

    def grads(checkpointed):
        ts = [mg.tensor(a, device=device, requires_grad=True) for a in arrays]
        out = mg.checkpoint.checkpoint(block, *ts) if checkpointed else block(*ts)
        (out * out).sum().backward()
        return [t.grad.numpy() for t in ts]

    plain, replayed = grads(False), grads(True)
    for a, b in zip(plain, replayed):
        assert a.dtype == np.float32
        np.testing.assert_array_equal(a, b)
    # forward mode: the directional derivative of the loss equals <reverse gradient, direction>
    ts = [mg.tensor(a, device=device) for a in arrays]
    dirs = [mg.tensor(rng.standard_normal(a.shape).astype(np.float32), device=device) for a in arrays]
    _, tangent = mg.func.jvp(lambda *xs: (block(*xs) ** 2).sum(), tuple(ts), tuple(dirs))
    expected = sum(float(np.sum(g.astype(np.float64) * d.numpy())) for g, d in zip(plain, dirs))
    assert float(tangent.numpy()) == pytest.approx(expected, rel=1e-4)


PATHS = [  # x shape, w shape, stride, padding, dilation: each runs channels-last somewhere
    ((3, 4, 4, 4), (5, 4, 3, 3), 1, 1, 1), ((2, 6, 8, 8), (3, 6, 3, 3), 1, 1, 1), ((2, 8, 5, 4), (4, 8, 3, 2), 1, 2, 2),
    ((2, 5, 7, 9), (3, 5, 3, 3), 2, 1, 1), ((2, 16, 10, 12), (4, 16, 3, 3), 1, 0, 1),
    ((0, 4, 4, 4), (2, 4, 3, 3), 1, 1, 1), ((2, 4, 2, 2), (3, 4, 3, 3), 1, 0, 1),
]


@pytest.mark.parametrize("x_shape,w_shape,s,p,d", PATHS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_channels_last_and_channel_major_kernels_agree(x_shape, w_shape, s, p, d, dtype, monkeypatch):
    """Every kernel with the channels-last columns taken wherever they may be (the width limits
    lifted) against the same kernel with them never taken: the same numbers to rounding, the
    dtype kept, the results channel-major (the layout the per-channel reductions after them
    read fast), and the weight gradient contiguous."""
    rng = np.random.default_rng(sum(x_shape) + sum(w_shape))
    cast = (lambda a: a.astype(dtype)) if dtype != np.complex128 else (lambda a: (a + 1j * a[::-1]).astype(dtype))
    x, wt = cast(rng.standard_normal(x_shape)), cast(rng.standard_normal(w_shape))
    a = ((s, s), (p, p), (d, d), 1)
    g = cast(rng.standard_normal(C.conv2d(xp, x, wt, *a).shape))

    def kernels():
        return (C.conv2d(xp, x, wt, *a), C.conv2d_input_grad(xp, g, wt, x_shape, *a),
                C.conv2d_weight_grad(xp, x, g, w_shape, *a))

    monkeypatch.setattr(C, "_CHANNELS_LAST_FORWARD_MAX_WIDTH", 1 << 30)
    monkeypatch.setattr(C, "_FLIPPED_INPUT_GRAD_MAX_WIDTH", 1 << 30)
    channels_last = kernels()
    monkeypatch.setattr(C, "_channels_last_pays", lambda *args: False)
    channel_major = kernels()
    tol = 2e-5 if dtype == np.float32 else 1e-12
    for got, want in zip(channels_last, channel_major):
        assert got.dtype == want.dtype == dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    out, gx, gw = channels_last
    for arr in (out, gx):
        assert C._axis_order(arr)[0] == 1 or arr.size == 0  # channels outermost in memory
    assert gw.flags.c_contiguous


def test_the_narrow_paths_are_taken_where_they_pay():
    """The routes, by shape: the digits CNN's 16 -> 32 layer on 4x4 images goes channels-last in
    all three kernels; one input channel (runs of 3 against rows of 8) stays channel-major; a
    26-wide output keeps the channel-major forward but takes channels-last weight gradients."""
    geo = ((1, 1), (1, 1), (1, 1), 1)
    assert C._channels_last_pays((64, 16, 4, 4), (32, 16, 3, 3), *geo)
    assert not C._channels_last_pays((64, 1, 8, 8), (16, 1, 3, 3), *geo)
    assert C._channels_last_pays((64, 32, 26, 26), (64, 32, 3, 3), (1, 1), (0, 0), (1, 1), 1)
    assert not C._channels_last_pays((64, 32, 26, 26), (64, 32, 3, 3), (1, 1), (0, 0), (1, 1), 2)  # groups
    assert C._out_size(26, 3, 1, 0, 1) > C._CHANNELS_LAST_FORWARD_MAX_WIDTH


def test_a_non_finite_kernel_on_narrow_images_takes_col2im_too():
    """Inputs 4 wide take the flipped convolution, whose padding of g meets every weight:
    an infinite weight there would make NaN where no true window pairs it, so such a kernel
    goes the col2im way, as on the grid."""
    rng = np.random.default_rng(2)
    x_shape, a = (2, 6, 4, 4), ((1, 1), (1, 1), (1, 1), 1)
    wt = rng.standard_normal((5, 6, 3, 3))
    g = rng.standard_normal((2, 5, 4, 4))
    assert C._channels_last_pays(g.shape, C._flipped_shape(wt.shape), (1, 1), (1, 1), (1, 1), 1)
    finite = C.conv2d_input_grad(xp, g, wt, x_shape, *a)
    np.testing.assert_allclose(finite, C._col2im_input_grad(xp, g, wt, x_shape, *a), rtol=1e-12, atol=1e-12)
    wt[1, 2, 0, 0] = np.inf
    got = C.conv2d_input_grad(xp, g, wt, x_shape, *a)
    np.testing.assert_array_equal(got, C._col2im_input_grad(xp, g, wt, x_shape, *a))
    flipped = C._channels_last_conv2d(xp, g, C._flipped_kernel(xp, wt), (1, 1), (1, 1), (1, 1))
    assert np.isnan(flipped).sum() > np.isnan(got).sum()  # what the rule avoids


@pytest.mark.parametrize("layout", [(0, 1, 2, 3), (1, 0, 2, 3), (0, 2, 3, 1)])
def test_tiled_max_pool_backward_follows_the_routings_layout(layout):
    """The gradient is written in the routing's memory layout (NCHW, channel-major or NHWC),
    so the layers around the pooling read one layout; the values are the reference's."""
    rng = np.random.default_rng(4)
    x = rng.integers(0, 3, (2, 3, 6, 6)).astype(np.float64)
    routing = np.ascontiguousarray(x.transpose(layout)).transpose(np.argsort(layout))
    g = rng.standard_normal((2, 3, 3, 3))
    got = C.max_pool2d_backward(xp, g, routing, (2, 2), (2, 2), (0, 0), (1, 1))
    assert C._axis_order(got) == C._axis_order(routing) == list(layout)
    ref = C.MaxPool2dBackward(kernel=(2, 2), stride=(2, 2), padding=(0, 0), dilation=(1, 1)).reference(np, g, x)
    np.testing.assert_array_equal(got, ref)


def test_a_pointwise_convolution_keeps_its_free_columns():
    """A 1x1 kernel with stride 1 and no padding: its columns are the input itself, a view of
    a channel-major input, so the channels-last copy never pays however many channels."""
    geo = ((1, 1), (0, 0), (1, 1), 1)
    assert not C._channels_last_pays((64, 64, 8, 8), (64, 64, 1, 1), *geo)
    assert C._channels_last_pays((64, 64, 8, 8), (64, 64, 1, 1), (1, 1), (1, 1), (1, 1), 1)  # padded: copied anyway


def test_channels_last_columns_are_taken_a_chunk_at_a_time(monkeypatch):
    """The padded channels-last copy is made per chunk of images, as the columns are: with
    one image per chunk no array the size of the padded batch is made."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((6, 8, 4, 4))
    wt = rng.standard_normal((3, 8, 3, 3))
    seen = []
    real = C._padded_channels_last
    monkeypatch.setattr(C, "_padded_channels_last", lambda xp_, a, p: seen.append(a.shape[0]) or real(xp_, a, p))
    monkeypatch.setattr(C, "_CHUNK_BYTES", 1)
    a = ((1, 1), (1, 1), (1, 1), 1)
    out = C.conv2d(xp, x, wt, *a)
    C.conv2d_weight_grad(xp, x, out, wt.shape, *a)
    assert seen and max(seen) == 1


def _narrow_net_routes(monkeypatch) -> list:
    """Record which channels-last kernels run (``x`` is 4 wide with 3 channels: the forward, the
    weight gradient and the flipped input gradient all take them)."""
    routes = []
    for name in ("_channels_last_conv2d", "_channels_last_weight_grad"):
        real = getattr(C, name)
        monkeypatch.setattr(C, name, lambda *a, _real=real, _name=name: routes.append(_name) or _real(*a))
    return routes


def test_narrow_convolutions_through_transforms_closures_and_second_derivatives(monkeypatch):
    """The channels-last routes under the engine's other parts: a function closing over its
    weights, differentiated by ``mg.func.grad`` and ``jacfwd`` (forward mode), agrees with a
    plain backward; its Hessian-vector product (second derivatives through the kernels' own
    ops) agrees with central differences of the gradient; and an in-place write to the input
    after the forward is refused at backward, as for any saved input."""
    import minigrad_ckpt as mg
    from minigrad_ckpt.nn import functional as F

    routes = _narrow_net_routes(monkeypatch)
    rng = np.random.default_rng(11)
    w1 = mg.tensor(rng.standard_normal((4, 3, 3, 3)), requires_grad=True)
    w2 = mg.tensor(rng.standard_normal((2, 4, 3, 3)), requires_grad=True)
    x0 = rng.standard_normal((2, 3, 4, 4))

    def f(x):  # closes over w1 and w2
        return (F.conv2d(F.tanh(F.conv2d(x, w1, padding=1)), w2, padding=1) ** 2).sum()

    x = mg.tensor(x0, requires_grad=True)
    f(x).backward()
    plain = x.grad.numpy()
    assert {"_channels_last_conv2d", "_channels_last_weight_grad"} <= set(routes)
    np.testing.assert_allclose(mg.func.grad(f)(mg.tensor(x0)).numpy(), plain, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mg.func.jacfwd(f)(mg.tensor(x0)).numpy(), plain, rtol=1e-10, atol=1e-10)

    v = rng.standard_normal(x0.shape)
    _, hv = mg.func.hvp(f, (mg.tensor(x0),), (mg.tensor(v),))
    eps = 1e-6
    numeric = (mg.func.grad(f)(mg.tensor(x0 + eps * v)).numpy() - mg.func.grad(f)(mg.tensor(x0 - eps * v)).numpy())
    np.testing.assert_allclose((hv[0] if isinstance(hv, tuple) else hv).numpy(), numeric / (2 * eps),
                               rtol=1e-5, atol=1e-6)

    h = mg.tensor(x0.copy(), requires_grad=True) * 1.0
    y = F.conv2d(h, w1, padding=1)  # saves h: its weight gradient reads it
    with mg.no_grad():
        h.add_(1.0)
    with pytest.raises(RuntimeError, match="in place|modified|version"):
        y.sum().backward()


# ---------------------------------------------------------------- wide rows
WIDE = [  # h, w, k, padding, dilation: 8+ input channels, outputs 5 to 24 wide
    (5, 20, 3, 1, 1), (6, 24, 3, 0, 1), (4, 19, 2, 0, 1), (7, 22, 3, 2, 2), (5, 18, 5, 2, 1), (3, 17, 1, 0, 1),
    (4, 21, 3, 4, 1),  # more padding than dilation * (k - 1)
    (6, 6, 3, 1, 1), (5, 9, 3, 0, 2), (8, 7, 2, 1, 1), (4, 12, 5, 2, 1), (9, 5, 1, 0, 1),  # as narrow as the grid's
    (3, 11, 3, 0, 1),  # shorter than the kernel is wide: two output rows of nine
    # (KH, KW), (PH, PW), (DH, DW) apart: a shift along the rows by a row's dilation, or down by a column's, is wrong
    (7, 14, (3, 2), (1, 2), (2, 1)), (6, 12, (2, 3), (2, 0), (1, 3)), (5, 18, (1, 3), (0, 1), (1, 2)),
    (8, 9, (3, 1), (1, 0), (3, 1)),
]


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


@pytest.mark.parametrize("chunk_bytes", [1, 2000, 1 << 21])
@pytest.mark.parametrize("h,w,k,p,d", WIDE)
def test_wide_rows_input_gradient_is_col2ims_to_rounding_and_the_adjoint(h, w, k, p, d, chunk_bytes, monkeypatch):
    """Stride 1, one group, at least 8 input channels, inputs wider than 4: ``g``'s rows
    widened to the padded input's and shifted along them by each kernel column; the extra
    columns' zero products land on the next row or the padding (and past the last image, with
    one image per chunk too), and a shift past a row's start reads the previous row's zeros.
    The same numbers as col2im to rounding, in float64 and float32, and the adjoint of the
    forward."""
    monkeypatch.setattr(C, "_CHUNK_BYTES", chunk_bytes)
    (kh, kw), p, d = _pair(k), _pair(p), _pair(d)
    rng = np.random.default_rng(h * w + kh * kw)
    x_shape = (3, 8, h, w)
    wt = rng.standard_normal((5, 8, kh, kw))
    a = ((1, 1), p, d, 1)
    out_shape = C.conv2d(xp, np.zeros(x_shape), wt, *a).shape
    g = rng.standard_normal(out_shape)
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 2e-5)):
        gd, wd = g.astype(dtype), wt.astype(dtype)
        got = C.conv2d_input_grad(xp, gd, wd, x_shape, *a)
        assert got.dtype == dtype and got.shape == x_shape
        np.testing.assert_array_equal(got, C._wide_rows_input_grad(xp, gd, wd, x_shape, p, d))
        np.testing.assert_allclose(got, C._col2im_input_grad(xp, gd, wd, x_shape, *a), rtol=tol, atol=tol)
    xr = rng.standard_normal(x_shape)
    gx = C.conv2d_input_grad(xp, g, wt, x_shape, *a)
    assert np.sum(C.conv2d(xp, xr, wt, *a) * g) == pytest.approx(np.sum(xr * gx), rel=1e-10)


def test_the_wide_rows_are_taken_where_they_pay_and_a_non_finite_kernel_takes_col2im(monkeypatch):
    """The MNIST example's 32 -> 64 layer (24 wide) takes the wide rows, and so do 8 channels
    on 10x10 images (the grid's before); 3 or 4 input channels, a stride of 2 or two groups
    keep col2im, 4 channels on 10x10 the grid, 16 channels 4 wide the flipped convolution; so
    does a kernel with an infinite weight, whose product with an extra column's zero would be
    NaN where no true window pairs them."""
    taken = []
    real = C._wide_rows_input_grad
    monkeypatch.setattr(C, "_wide_rows_input_grad", lambda *args: taken.append(args[3]) or real(*args))
    rng = np.random.default_rng(4)
    for x_shape, w_shape, s, groups, wide in [((2, 32, 26, 26), (8, 32, 3, 3), 1, 1, True),
                                              ((2, 8, 10, 10), (8, 8, 3, 3), 1, 1, True),
                                              ((2, 3, 26, 26), (8, 3, 3, 3), 1, 1, False),
                                              ((2, 4, 26, 26), (8, 4, 3, 3), 1, 1, False),
                                              ((2, 4, 10, 10), (8, 4, 3, 3), 1, 1, False),
                                              ((2, 16, 4, 4), (8, 16, 3, 3), 1, 1, False),
                                              ((2, 8, 40, 40), (8, 8, 3, 3), 2, 1, False),
                                              ((2, 8, 26, 26), (8, 4, 3, 3), 1, 2, False)]:
        wt = rng.standard_normal(w_shape)
        a = ((s, s), (0, 0), (1, 1), groups)
        g = rng.standard_normal(C.conv2d(xp, np.zeros(x_shape), wt, *a).shape)
        taken.clear()
        C.conv2d_input_grad(xp, g, wt, x_shape, *a)
        assert taken == ([x_shape] if wide else [])
    x_shape, a = (2, 8, 5, 20), ((1, 1), (1, 1), (1, 1), 1)
    wt = rng.standard_normal((3, 8, 3, 3))
    wt[0, 0, 2, 2] = np.inf
    g = rng.standard_normal((2, 3, 5, 20))
    taken.clear()
    got = C.conv2d_input_grad(xp, g, wt, x_shape, *a)
    assert taken == []
    np.testing.assert_array_equal(got, C._col2im_input_grad(xp, g, wt, x_shape, *a))
    with np.errstate(invalid="ignore"):
        assert np.isnan(real(xp, g, wt, x_shape, (1, 1), (1, 1))).sum() > np.isnan(got).sum()  # what the rule avoids


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_wide_rows_under_transforms_checkpointing_and_in_place_writes(device, monkeypatch):
    """The wide rows inside the engine: a conv-tanh-conv block on 20-wide images closing over its
    weights -- ``mg.func.grad`` equals a plain backward, forward mode agrees with reverse, a
    checkpointed step replays the same bits, and an in-place write to a saved input is refused."""
    import minigrad_ckpt as mg
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
    from minigrad_ckpt.nn import functional as F

    taken = []
    real = C._wide_rows_input_grad
    monkeypatch.setattr(C, "_wide_rows_input_grad", lambda *args: taken.append(args[3]) or real(*args))
    rng = np.random.default_rng(12)
    w1 = mg.tensor(rng.standard_normal((8, 2, 3, 3)).astype(np.float32), device=device, requires_grad=True)
    w2 = mg.tensor(rng.standard_normal((3, 8, 3, 3)).astype(np.float32), device=device, requires_grad=True)
    x0 = rng.standard_normal((2, 2, 6, 20)).astype(np.float32)

    def f(x):  # closes over w1 and w2; the second layer's input gradient takes the wide rows
        return (F.conv2d(F.tanh(F.conv2d(x, w1, padding=1)), w2, padding=1) ** 2).sum()

    x = mg.tensor(x0, device=device, requires_grad=True)
    f(x).backward()
    plain = x.grad.numpy()
    assert taken == [(2, 8, 6, 20)]
    np.testing.assert_array_equal(mg.func.grad(f)(mg.tensor(x0, device=device)).numpy(), plain)
    v = rng.standard_normal(x0.shape).astype(np.float32)
    _, tangent = mg.func.jvp(f, (mg.tensor(x0, device=device),), (mg.tensor(v, device=device),))
    assert float(tangent.numpy()) == pytest.approx(float(np.sum(plain.astype(np.float64) * v)), rel=1e-4)
    xc = mg.tensor(x0, device=device, requires_grad=True)
    mg.checkpoint.checkpoint(f, xc).backward()
    np.testing.assert_array_equal(xc.grad.numpy(), plain)
    h = mg.tensor(x0, device=device, requires_grad=True) * 1.0
    y = F.conv2d(h, w1, padding=1)  # saves h: its weight gradient reads it
    with mg.no_grad():
        h.add_(1.0)
    with pytest.raises(RuntimeError, match="in place|modified|version"):
        y.sum().backward()


@pytest.mark.parametrize("geometry", [((1, 1), (1, 1), (1, 1)), ((2, 3), (1, 0), (1, 2))])
def test_the_op_battery_through_the_wide_rows(geometry, monkeypatch):
    """``check_op`` (the forward against the reference, gradcheck and gradgradcheck in both modes,
    non-contiguous inputs, no mutation or aliasing) on the three convolution ops at 8 input
    channels, where the input gradient -- ``Conv2dInputGrad``'s forward, ``Conv2d``'s backward and
    the second derivatives of ``Conv2dWeightGrad`` -- takes the wide rows (the op battery's own
    samples have at most 4 channels)."""
    from minigrad_ckpt.testing import check_op

    kernel, padding, dilation = geometry
    taken = []
    real = C._wide_rows_input_grad
    monkeypatch.setattr(C, "_wide_rows_input_grad", lambda *args: taken.append(args[3]) or real(*args))
    rng = np.random.default_rng(sum(kernel + padding + dilation))
    x_shape, w_shape = (2, 8, 4, 6), (3, 8) + kernel
    attrs = dict(stride=(1, 1), padding=padding, dilation=dilation, groups=1)
    x, w, b = rng.standard_normal(x_shape), rng.standard_normal(w_shape), rng.standard_normal(3)
    g = rng.standard_normal(C.conv2d(xp, x, w, (1, 1), padding, dilation, 1).shape)
    check_op(C.Conv2d(**attrs), x, w, b)
    check_op(C.Conv2dInputGrad(x_shape=x_shape, **attrs), g, w)
    check_op(C.Conv2dWeightGrad(w_shape=w_shape, **attrs), x, g)
    assert taken and set(taken) == {x_shape}


def test_a_training_run_through_the_wide_rows_resumes_bitwise_from_a_snapshot(tmp_path, monkeypatch):
    """Snapshot and resume across the wide rows: a conv-tanh-conv regression net (8 channels into the
    second convolution, 18 wide) trained with SGD and momentum for four steps equals, bit for bit,
    two steps, its model and optimizer state saved and loaded into new objects, and two more."""
    import minigrad_ckpt as mg
    from minigrad_ckpt import nn

    taken = []
    real = C._wide_rows_input_grad
    monkeypatch.setattr(C, "_wide_rows_input_grad", lambda *args: taken.append(args[3]) or real(*args))
    rng = np.random.default_rng(21)
    batches = [(mg.tensor(rng.standard_normal((3, 2, 4, 18)), dtype="float32"),
                mg.tensor(rng.standard_normal((3, 4)), dtype="float32"))
               for _ in range(4)]

    def fresh():
        mg.manual_seed(5)
        net = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.Tanh(), nn.Conv2d(8, 4, 3, padding=1), nn.Flatten(),
                            nn.Linear(4 * 4 * 18, 4))
        return net, mg.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)

    net, resumed = uninterrupted_and_resumed(fresh, batches, tmp_path / "run.mg")
    assert taken and set(taken) == {(3, 8, 4, 18)}
    for a, b in zip(net.parameters(), resumed.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
