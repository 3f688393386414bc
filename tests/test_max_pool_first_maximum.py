"""Max pooling over tiling windows gives each window's *first* maximum's value, as PyTorch does.

The numbers only differ where zeros of opposite signs tie: a window ``[-0.0, 0.0]`` pools to
``-0.0`` in PyTorch (its loop keeps the first element unless a later one is greater).  NumPy's
``maximum`` hands such a tie to one operand -- here its second, in every loop -- so a fold of
the window's slices in reading order gave the *last* tied zero's sign, while windows that do
not tile (through ``argmax``) gave the first's.  The tiled forward now folds in the order that
hands each tie to the earlier slice (``conv._first_maximum``, which asks the library once which
operand it returns), and windows whose rows lie in one contiguous block take two stages: each
window row's neighbours, then the rows.  These tests hold every path to a plain loop that
keeps the first maximum, on the CPU and the strict devices, in float32 and float64, and check
the seams: the gradient goes to the position whose value the forward returned, a checkpointed
replay gives the same bits, and forward mode agrees.

A window that holds NaNs outputs NaN; PyTorch's kernels send its gradient and its index to
the window's *last* NaN (they replace the running maximum by every NaN they meet), in 1-D,
2-D and 3-D, tiled or not -- the second half of this file.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.backend import numpy_namespace as xp
from minigrad_ckpt.nn import functional as F
from minigrad_ckpt.ops import conv as C


def first_maxima(x: np.ndarray, kh: int, kw: int) -> np.ndarray:
    """PyTorch's rule by hand: each window read row by row, the first element kept unless a
    later one is greater (a NaN, once met, stays: nothing compares greater than it)."""
    n, c, h, w = x.shape
    out = np.empty((n, c, h // kh, w // kw), x.dtype)
    for a, b, i, j in np.ndindex(*out.shape):
        window = x[a, b, i * kh:(i + 1) * kh, j * kw:(j + 1) * kw].reshape(-1)
        best = window[0]
        for v in window[1:]:
            if not np.isnan(best) and (v > best or np.isnan(v)):
                best = v
        out[a, b, i, j] = best
    return out


def layouts(x: np.ndarray) -> dict[str, np.ndarray]:
    """The same (N, C, H, W) values laid out as the engine meets them."""
    channel_major = np.ascontiguousarray(x.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3)  # a conv's output
    channels_last = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    strided = np.repeat(x, 2, axis=3)[:, :, :, ::2]
    return {"nchw": np.ascontiguousarray(x), "channel-major": channel_major, "channels-last": channels_last,
            "strided": strided}


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_array_equal(got, want)  # NaN where NaN
    assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all(), "a zero's sign differs"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_window_of_signed_zeros_pools_to_its_first_maximum(dtype):
    """All 4**4 windows of -0.0, 0.0, -1.0 and NaN, side by side in one map, in each layout."""
    windows = np.array(list(itertools.product([-0.0, 0.0, -1.0, np.nan], repeat=4)), dtype=dtype)
    x = windows.reshape(2, 128, 2, 2)
    want = first_maxima(x, 2, 2)
    assert np.signbit(want).any() and not np.signbit(want[~np.isnan(want)]).all()  # both signs occur
    for name, arr in layouts(x).items():
        got = C.max_pool2d(xp, arr, arr, (2, 2), (2, 2), (0, 0), (1, 1))
        assert got.shape == want.shape, name
        same_bits(got, want)


@pytest.mark.parametrize("kernel", [(2, 2), (3, 3), (2, 3), (3, 1), (1, 2), (4, 2)])
@pytest.mark.parametrize("extra", [(0, 0), (1, 2)])  # windows that cover the map, and rows/columns left over
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiled_windows_match_the_first_maximum_rule_in_every_layout(kernel, extra, dtype):
    """Maps full of ties (values drawn from a handful, zeros of both signs among them)."""
    kh, kw = kernel
    rng = np.random.default_rng(kh * 10 + kw + extra[0])
    shape = (3, 5, 3 * kh + extra[0], 4 * kw + extra[1])
    x = rng.choice(np.array([-0.0, 0.0, 1.5, -2.0, 1.5], dtype=dtype), size=shape)
    want = first_maxima(x, kh, kw)
    for arr in layouts(x).values():
        got = mg.nn.functional.max_pool2d(mg.tensor(arr), kernel).numpy()
        same_bits(got, want)


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_the_gradient_goes_where_the_forward_took_its_value(device):
    """-0.0 first and 0.0 after it: the output is -0.0 and the gradient lands on the -0.0; the
    same on the strict devices (whose float32-only one must see no float64 in the check)."""
    pattern = np.array([[-1.0, -0.0], [0.0, -1.0]], dtype=np.float32)
    x = np.tile(pattern, (2, 3, 4, 5))  # (2, 3, 8, 10): 20 windows a map, each the pattern
    t = mg.tensor(x, device=device, requires_grad=True)
    out = F.max_pool2d(t, 2)
    assert np.signbit(out.numpy()).all()
    out.sum().backward()
    want = np.tile(np.array([[0.0, 1.0], [0.0, 0.0]], dtype=np.float32), (2, 3, 4, 5))
    np.testing.assert_array_equal(t.grad.numpy(), want)


def test_a_conv_relu_pool_block_replays_bitwise_and_forward_mode_agrees():
    """Seams: the two-stage maxima on a convolution's channel-major output, inside a checkpoint
    (its replay gives the same bits as the plain step), and the jvp against reverse mode."""
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in [(4, 2, 10, 10), (6, 2, 3, 3), (6,)]]

    def block(x, w, b):
        return F.max_pool2d(F.relu(F.conv2d(x, w, b)), 2)

    def run(checkpointed):
        ts = [mg.tensor(a, requires_grad=True) for a in arrays]
        out = mg.checkpoint.checkpoint(block, *ts) if checkpointed else block(*ts)
        (out * out).sum().backward()
        return out.numpy(), [t.grad.numpy() for t in ts]

    (plain_out, plain), (re_out, replayed) = run(False), run(True)
    np.testing.assert_array_equal(plain_out, re_out)
    for a, b in zip(plain, replayed):
        np.testing.assert_array_equal(a, b)
    tangent = rng.standard_normal(arrays[0].shape).astype(np.float32)
    _, jvp_out = mg.func.jvp(lambda x: block(x, *[mg.tensor(a) for a in arrays[1:]]).sum(),
                             (mg.tensor(arrays[0]),), (mg.tensor(tangent),))
    x = mg.tensor(arrays[0], requires_grad=True)
    block(x, *[mg.tensor(a) for a in arrays[1:]]).sum().backward()
    assert float(jvp_out.numpy()) == pytest.approx(float(np.sum(x.grad.numpy() * tangent)), rel=1e-5)


def test_a_maximum_without_a_fixed_operand_for_ties_takes_argmax(monkeypatch):
    """Where a library's ``maximum`` hands ties to different operands in different loops, the
    probe says "mixed" and the forward takes ``argmax``, which finds the first maximum."""
    windows = np.array(list(itertools.product([-0.0, 0.0, -1.0], repeat=4)), dtype=np.float32).reshape(1, 81, 2, 2)
    monkeypatch.setitem(C._MAXIMUM_TIES, ("numpy", np.dtype(np.float32).str), "mixed")
    assert C._tiled_window_maxima(xp, windows, (2, 2)) is None
    same_bits(C.max_pool2d(xp, windows, windows, (2, 2), (2, 2), (0, 0), (1, 1)), first_maxima(windows, 2, 2))


def test_the_probe_reads_which_operand_numpy_returns():
    """The probe's answer is what NumPy does: ``maximum(-0.0, 0.0)``'s sign in each loop kind."""
    answer = C._maximum_ties(xp, np.dtype(np.float64))
    signs = {bool(np.signbit(np.maximum(a, b)).all()) for a, b in
             ((np.full(64, -0.0), np.zeros(64)), (np.full(64, -0.0)[::2], np.zeros(64)[::2]),
              (np.float64(-0.0), np.float64(0.0)))}
    assert answer == ("mixed" if len(signs) == 2 else "first" if signs == {True} else "second")


# ---------------------------------------------------------------- windows that hold NaNs
# PyTorch's max pooling kernels scan a window in row-major order and replace the running
# maximum by every NaN they meet (``val > max || isnan(val)``): the output is NaN and the
# gradient and the index go to the window's *last* NaN.  The engine sent them to the first.

def torch_picks(x: np.ndarray, kernel, stride, padding, dilation, out_hw) -> np.ndarray:
    """The flat input position ``row * W + col`` PyTorch's loop picks per window (padding never)."""
    n, c, h, w = x.shape
    picks = np.empty((n, c) + tuple(out_hw), np.int64)
    for a, b, i, j in np.ndindex(*picks.shape):
        best, pos = None, None
        for u, v in np.ndindex(*kernel):
            y, z = i * stride[0] - padding[0] + u * dilation[0], j * stride[1] - padding[1] + v * dilation[1]
            if 0 <= y < h and 0 <= z < w:
                val = x[a, b, y, z]
                if pos is None or val > best or np.isnan(val):
                    best, pos = val, y * w + z
        picks[a, b, i, j] = pos
    return picks


GEOMETRIES = [  # kernel, stride, padding, dilation, ceil_mode
    ((2, 2), (2, 2), (0, 0), (1, 1), False), ((3, 3), (1, 1), (1, 1), (1, 1), False),
    ((2, 3), (2, 1), (1, 0), (1, 2), False), ((2, 2), (2, 2), (0, 0), (1, 1), True),
]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_a_window_with_nans_sends_its_gradient_and_index_to_its_last_nan(geometry, device):
    kernel, stride, padding, dilation, ceil = geometry
    rng = np.random.default_rng(sum(kernel) + 10 * sum(padding) + ceil)
    x = rng.choice(np.array([np.nan, 1.0, 2.0, -np.inf, 0.0]), size=(2, 3, 7, 9))
    t = mg.tensor(x, device=device, requires_grad=True)
    out, idx = F.max_pool2d(t, kernel, stride, padding, dilation, ceil_mode=ceil, return_indices=True)
    want = torch_picks(x, kernel, stride, padding, dilation, out.shape[2:])
    assert np.isnan(x.reshape(2, 3, -1)[np.arange(2)[:, None, None], np.arange(3)[None, :, None],
                                        want.reshape(2, 3, -1)]).any()  # windows with NaNs occur
    np.testing.assert_array_equal(idx.numpy(), want)
    g = rng.standard_normal(out.shape)
    out.backward(mg.tensor(g, device=device))
    expect = np.zeros(x.size)
    np.add.at(expect, (np.arange(6).reshape(2, 3, 1, 1) * x.shape[2] * x.shape[3] + want).ravel(), g.ravel())
    np.testing.assert_allclose(t.grad.numpy(), expect.reshape(x.shape), rtol=1e-15, atol=1e-15)  # (sums' order)


def test_one_and_three_dimensional_max_pools_pick_the_last_nan_too():
    x1 = np.array([[[np.nan, 1.0, np.nan, 2.0, 5.0, np.nan, 3.0, 4.0]]])
    t = mg.tensor(x1, requires_grad=True)
    out, idx = F.max_pool1d(t, 4, return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), [[[2, 5]]])
    out.sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), [[[0, 0, 1, 0, 0, 1, 0, 0]]])
    x3 = np.arange(16.0).reshape(1, 1, 2, 2, 4)
    x3[0, 0, 0, 0, 0] = x3[0, 0, 1, 0, 1] = x3[0, 0, 0, 1, 0] = np.nan  # three NaNs in the first window
    t3 = mg.tensor(x3, requires_grad=True)
    out3, idx3 = F.max_pool3d(t3, 2, return_indices=True)
    np.testing.assert_array_equal(idx3.numpy().ravel(), [9, 15])  # (d=1, h=0, w=1), and 15 (no NaN)
    out3.sum().backward()
    assert t3.grad.numpy()[0, 0, 1, 0, 1] == 1 and t3.grad.numpy().sum() == 2


def test_nan_windows_replay_bitwise_under_checkpointing_and_unpool_round_trips():
    """Seams: the general path a NaN window takes in backward, inside a checkpoint, gives the
    plain step's bits; ``max_unpool2d`` puts each output back where its index says."""
    rng = np.random.default_rng(11)
    x = rng.choice(np.array([np.nan, 1.0, -1.0, 0.5]), size=(2, 2, 6, 6)).astype(np.float32)

    def grads(checkpointed):
        t = mg.tensor(x, requires_grad=True)
        fn = lambda a: F.max_pool2d(a * 2.0, 2)  # noqa: E731
        out = mg.checkpoint.checkpoint(fn, t) if checkpointed else fn(t)
        out.backward(mg.tensor(np.ones(out.shape, np.float32)))
        return t.grad.numpy()

    np.testing.assert_array_equal(grads(True), grads(False))
    out, idx = F.max_pool2d(mg.tensor(x), 2, return_indices=True)
    back = F.max_unpool2d(out, idx, 2).numpy()
    flat = back.reshape(2, 2, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, idx.numpy().reshape(2, 2, -1), axis=2),
                                  out.numpy().reshape(2, 2, -1))


# ---------------------------------------------------------------- what the gradient adds into zeros
@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_the_tiled_backward_adds_into_zeros_as_pytorch(device):
    """PyTorch's backward adds each window's gradient into zeros: +0.0 beside the maximum whatever
    the gradient (a product with the mask left -0.0 beside a negative one), +0.0 at a maximum whose
    gradient is -0.0, and infinities only at the maximum -- in every layout of the routing."""
    x = np.tile(np.array([[3.0, 1.0], [2.0, 0.0]], np.float32), (2, 3, 2, 3))  # (2, 3, 4, 6): the maximum first
    g = np.resize(np.array([-2.0, -0.0, np.inf, -np.inf, 1.5, -0.0], np.float32), (2, 3, 2, 3))
    at_max = np.where(g == 0, np.float32(0.0), g)  # -0.0 + 0 is +0.0
    want = np.zeros(x.shape, np.float32)
    want[:, :, ::2, ::2] = at_max
    for arr in layouts(x).values():
        t = mg.tensor(arr, device=device, requires_grad=True)
        F.max_pool2d(t, 2).backward(mg.tensor(g, device=device))
        same_bits(t.grad.numpy(), want)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_a_3d_window_of_lowest_values_beside_the_padding_picks_its_first_input(device, dtype):
    """A window whose input taps all hold -inf (an integer's minimum) ties with its padding: PyTorch's
    loop keeps the first input tap, where ``argmax`` picked a padding tap (index -1, no gradient)."""
    lowest = -np.inf if dtype is np.float64 else np.iinfo(dtype).min
    x = np.array([lowest, lowest, 5], dtype=dtype).reshape(1, 1, 1, 1, 3)
    out, idx = F.max_pool3d(mg.tensor(x, device=device), (1, 1, 2), (1, 1, 2), (0, 0, 1), return_indices=True)
    np.testing.assert_array_equal(idx.numpy().ravel(), [0, 2])
    np.testing.assert_array_equal(out.numpy().ravel(), [lowest, 5])
    if dtype is np.float64:
        t = mg.tensor(x, device=device, requires_grad=True)
        F.max_pool3d(t, (1, 1, 2), (1, 1, 2), (0, 0, 1)).sum().backward()
        np.testing.assert_array_equal(t.grad.numpy().ravel(), [1.0, 0.0, 1.0])
