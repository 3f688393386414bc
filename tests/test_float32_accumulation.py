"""float32 reductions and scans keep the digits PyTorch keeps (its CPU accumulate types).

The references are the float64 computation rounded to float32, which is what torch 2.13's CPU
kernels answer where they accumulate in double (``cumsum``: bit for bit).  The engine computes in
float32 only (the ``strict-f32`` device sees no float64) and lands within an ulp of it."""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint


def _within_ulps(got, want):
    """``got`` (float32 or complex64) equal to ``want`` rounded but at a few places (a prefix that
    cancels to far below its terms), and there within a few ulps; float32 arithmetic lost ~1e4 ulps."""
    for g, w in ((got.real, want.real), (got.imag, want.imag)) if got.dtype.kind == "c" else ((got, want),):
        ulp = np.spacing(np.abs(w).astype(np.float32))
        assert np.all(np.abs(g.astype(np.float64) - w) <= 4 * ulp), np.max(np.abs(g.astype(np.float64) - w) / ulp)
        assert np.mean(g == w.astype(g.dtype)) > 0.999


def _mixed_signs(n, seed=0):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_float32_cumsum_keeps_the_digits_of_pytorchs_double_accumulator(device):
    # torch 2.13: torch.cumsum(float32 x, 0) == cumsum(x.double()).float() bit for bit (CPU acc_type
    # double); the engine's float32 running sum of 1e5 mixed-sign values drifted to ~1e-3 relative
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    a = _mixed_signs(100_000)
    want = np.cumsum(a.astype(np.float64)).astype(np.float32)
    x = mg.tensor(a, device=device, requires_grad=True)
    y = x.cumsum(0)
    _within_ulps(y.numpy(), want)
    g = _mixed_signs(100_000, seed=1)
    y.backward(mg.tensor(g, device=device))
    want_grad = np.flip(np.cumsum(np.flip(g.astype(np.float64)))).astype(np.float32)
    _within_ulps(x.grad.numpy(), want_grad)  # torch's reversed cumsum: the same
    _, t = mg.func.jvp(lambda v: v.cumsum(0), (mg.tensor(a, device=device),), (mg.tensor(g, device=device),))
    _within_ulps(t.numpy(), np.cumsum(g.astype(np.float64)).astype(np.float32))


def test_float32_cumsum_in_checkpoint_and_complex64():
    a = _mixed_signs(20_000).reshape(200, 100)
    x = mg.tensor(a, requires_grad=True)
    y = checkpoint(lambda v: v.cumsum(0) * 2, x, use_reentrant=False)
    _within_ulps(y.numpy(), (np.cumsum(a.astype(np.float64), 0).astype(np.float32) * 2))
    y.sum().backward()
    assert x.grad.dtype == mg.float32
    c = (a + 1j * _mixed_signs(20_000, seed=2).reshape(200, 100)).astype(np.complex64)
    # torch 2.13: complex64 cumsum accumulates in complex128, bit for bit
    _within_ulps(mg.tensor(c).cumsum(1).numpy(), np.cumsum(c.astype(np.complex128), 1).astype(np.complex64))
    d = a.astype(np.float64)  # float64 unchanged: NumPy's own running sum
    np.testing.assert_array_equal(mg.tensor(d).cumsum(0).numpy(), np.cumsum(d, 0))
    flat = mg.cumsum(mg.tensor(a), None)  # NumPy's convention: over the flattened input
    _within_ulps(flat.numpy(), np.cumsum(a.astype(np.float64)).astype(np.float32))


def test_float32_cumsum_beyond_the_range_is_inf_as_plain_arithmetic():
    big = np.float32(3e38)
    got = mg.tensor(np.array([big, big, -big, 1.0, np.nan, 2.0], np.float32)).cumsum(0).numpy()
    np.testing.assert_array_equal(got, [big, np.inf, np.inf, np.inf, np.nan, np.nan])
    got = mg.tensor(np.array([1.0, np.inf, -1.0, 2.0], np.float32)).cumsum(0).numpy()
    np.testing.assert_array_equal(got, [1.0, np.inf, np.inf, np.inf])


def _rel_err(got, want):
    return float(np.max(np.abs(got.astype(np.float64) - want)) / np.max(np.abs(want)))


def _tall(rows=100_000, cols=10, offset=1.0, seed=3):
    return (offset + np.random.default_rng(seed).standard_normal((rows, cols))).astype(np.float32)


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_float32_sums_over_rows_keep_pytorchs_accuracy(device):
    # torch 2.13 (cascade sum): x.sum(0) of a float32 (1e5, 10) array within 7e-8 of the exact sums,
    # x.mean(0) 1e-7, x.var(0) (offset 1e3) 5e-8; NumPy's row-by-row float32 sum was 1.2e-5 off,
    # the variance 8e-6 (its mean moved every deviation)
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    a = _tall()
    a64 = a.astype(np.float64)
    x = mg.tensor(a, device=device, requires_grad=True)
    assert _rel_err(x.sum(0).numpy(), a64.sum(0)) < 3e-7
    assert _rel_err(x.mean(0).numpy(), a64.mean(0)) < 3e-7
    assert _rel_err(mg.sum(x, (0,), keepdim=True).numpy(), a64.sum(0, keepdims=True)) < 3e-7
    b = _tall(offset=1e3, seed=4)
    y = mg.tensor(b, device=device)
    assert _rel_err(y.var(0).numpy(), b.astype(np.float64).var(0, ddof=1)) < 3e-7
    assert _rel_err(y.std(0).numpy(), b.astype(np.float64).std(0, ddof=1)) < 3e-7
    # a broadcast bias's gradient is the same sum over the rows (torch 2.13: 1e-6 off; the engine 2e-5)
    bias = mg.zeros(10, device=device, requires_grad=True)
    (x + bias).backward(mg.tensor(a, device=device))
    assert _rel_err(bias.grad.numpy(), a64.sum(0)) < 3e-7
    # the tangent of a mean over rows is the same sum
    _, t = mg.func.jvp(lambda v: v.mean(0), (mg.tensor(a, device=device),), (mg.tensor(a, device=device),))
    assert _rel_err(t.numpy(), a64.mean(0)) < 3e-7
    # the max-shifted exponentials of logsumexp over rows (torch 2.13: 4e-8; the engine 3e-7)
    lse = mg.logsumexp(mg.tensor(b - 1e3, device=device), 0).numpy()
    want = np.log(np.exp(b.astype(np.float64) - 1e3).sum(0))
    assert _rel_err(lse, want) < 1.5e-7


def test_float32_row_sums_agree_across_devices_and_float64_keeps_numpys_sum():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    a = _tall(rows=9 * 1001, cols=7).reshape(9, 1001, 7)  # lengths that leave rows over at each level
    for axes in ((0,), (1,), (0, 1), (0, 2), (1, 2)):
        cpu = mg.sum(mg.tensor(a), axes).numpy()
        np.testing.assert_array_equal(mg.sum(mg.tensor(a, device="strict-f32"), axes).numpy(), cpu)
        assert _rel_err(cpu, a.astype(np.float64).sum(axes)) < 3e-7
        d = a.astype(np.float64)
        np.testing.assert_array_equal(mg.sum(mg.tensor(d), axes).numpy(), d.sum(axes))
        np.testing.assert_array_equal(mg.mean(mg.tensor(d), axes).numpy(), d.mean(axes))
    # inside a checkpoint the recomputed sum is the same
    x = mg.tensor(a, requires_grad=True)
    y = checkpoint(lambda v: (v * v).sum(0), x, use_reentrant=False)
    np.testing.assert_array_equal(y.numpy(), mg.tensor(a * a).sum(0).numpy())
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * a)


def test_float16_sums_over_rows_accumulate_in_float32():
    # torch 2.13: float16 sum(0) of a (1e4, 10) array of ~1 is 1e4 to float16's rounding (float
    # accumulator); NumPy's float16 row-by-row sum stalled near 2048 (60% off)
    a = _tall(rows=10_000).astype(np.float16)
    want = a.astype(np.float64).sum(0)
    got = mg.tensor(a).sum(0).numpy()
    assert got.dtype == np.float16 and _rel_err(got, want) < 1e-3
    bias = mg.zeros(10, dtype=mg.float16, requires_grad=True)
    (mg.tensor(a) + bias).backward(mg.tensor(a))
    assert _rel_err(bias.grad.numpy(), want) < 1e-3
    big = mg.tensor(np.full((4, 3), 3e4, np.float16)).sum(0).numpy()  # beyond 65504: inf, as torch's
    assert np.all(np.isinf(big))


def test_linear_and_conv_bias_gradients_sum_the_rows_pairwise():
    # torch 2.13: linear's float32 bias gradient over 1e5 rows is 1.3e-7 off the exact sum; the
    # engine's Linear op summed them row by row, 7e-6 off
    rng = np.random.default_rng(6)
    g = (1 + rng.standard_normal((100_000, 4))).astype(np.float32)
    x = mg.tensor(rng.standard_normal((100_000, 3)).astype(np.float32))
    w = mg.tensor(rng.standard_normal((4, 3)).astype(np.float32), requires_grad=True)
    b = mg.zeros(4, requires_grad=True)
    mg.nn.functional.linear(x, w, b).backward(mg.tensor(g))
    assert _rel_err(b.grad.numpy(), g.astype(np.float64).sum(0)) < 3e-7
    gc = (1 + rng.standard_normal((2000, 2, 5, 5))).astype(np.float32)
    bc = mg.zeros(2, requires_grad=True)
    xc = mg.tensor(rng.standard_normal((2000, 1, 5, 5)).astype(np.float32))
    mg.nn.functional.conv2d(xc, mg.ones(2, 1, 1, 1), bc).backward(mg.tensor(gc))
    assert _rel_err(bc.grad.numpy(), gc.astype(np.float64).sum((0, 2, 3))) < 3e-7


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_float32_cumprod_keeps_the_digits_of_pytorchs_double_accumulator(device):
    # torch 2.13's CPU cumprod accumulates in double: its float32 running product of 1000 factors
    # near 1 is cumprod(x.double()).float(), 6e-8 relative; the engine's float32 one drifted 1.2e-6
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    a = (1 + 0.01 * np.random.default_rng(7).standard_normal((1000, 3))).astype(np.float32)
    want = np.cumprod(a.astype(np.float64), 0)
    x = mg.tensor(a, device=device, requires_grad=True)
    y = x.cumprod(0)
    _within_ulps(y.numpy(), want)
    g = np.random.default_rng(8).standard_normal((1000, 3)).astype(np.float32)
    y.backward(mg.tensor(g, device=device))
    # d/dx_i of sum_j g_j prod_{k<=j} x_k = (sum_{j>=i} g_j out_j) / x_i
    g64 = np.flip(np.cumsum(np.flip(g * want, 0), 0), 0) / a
    assert _rel_err(x.grad.numpy(), g64) < 5e-7
    flat = mg.cumprod(mg.tensor(a, device=device), None).numpy()  # over the flattened input
    assert _rel_err(flat, np.cumprod(a.astype(np.float64))) < 3e-7


def test_float32_cumprod_at_zeros_infinities_and_underflow_is_plain_arithmetic():
    tiny = np.array([1e-20, 1e-20, 1e30, 1e30, 3.0], np.float32)
    np.testing.assert_array_equal(mg.tensor(tiny).cumprod(0).numpy(), np.cumprod(tiny))
    edge = np.array([2.0, 0.0, 5.0, np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(mg.tensor(edge).cumprod(0).numpy(), [2.0, 0.0, 0.0, np.nan, np.nan])
    big = np.array([3e38, 2.0, 0.5], np.float32)
    np.testing.assert_array_equal(mg.tensor(big).cumprod(0).numpy(), np.array([3e38, np.inf, np.inf], np.float32))
    d = np.random.default_rng(9).uniform(0.5, 1.5, 100)  # float64: NumPy's own
    np.testing.assert_array_equal(mg.tensor(d).cumprod(0).numpy(), np.cumprod(d))


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_float32_variance_takes_out_the_mean_rounding_error(device):
    # torch 2.13: float32 var(1) of 1e4 + N(0, 1) rows of 1e4 within 5e-8 of the exact variance; the
    # engine's two-pass sum of squared deviations carried the float32 mean's error squared: 6e-7
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    a = (1e4 + np.random.default_rng(10).standard_normal((20, 10_000))).astype(np.float32)
    a64 = a.astype(np.float64)
    x = mg.tensor(a, device=device)
    assert _rel_err(x.var(1).numpy(), a64.var(1, ddof=1)) < 3e-7
    assert _rel_err(x.std(1).numpy(), a64.std(1, ddof=1)) < 3e-7
    assert _rel_err(mg.var_mean(x, 1)[0].numpy(), a64.var(1, ddof=1)) < 3e-7
    c = (a + 1j * a[::-1]).astype(np.complex64)  # complex64: the mean of |x - mean|^2, real
    assert _rel_err(mg.tensor(c, device=device).var(1).numpy(), c.astype(np.complex128).var(1, ddof=1)) < 3e-7
    const = mg.tensor(np.full((3, 1000), 0.1, np.float32), device=device, requires_grad=True)
    s = const.std(1)  # a constant slice: 0 (never the square root of a rounding below 0)
    np.testing.assert_array_equal(s.numpy(), np.zeros(3, np.float32))
    s.sum().backward()
    np.testing.assert_array_equal(const.grad.numpy(), np.zeros((3, 1000), np.float32))
    d = a64[:, :100]  # float64: the plain two-pass sum, bit for bit NumPy's
    np.testing.assert_array_equal(mg.tensor(d).var(1, correction=0).numpy(), d.var(1))


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_one_operand_einsum_sums_pairwise(device):
    # torch 2.13: einsum("ij->j") of a float32 (1e4, 10) array 7e-8 off the exact sums; NumPy's
    # einsum added the rows one by one, 2e-6 off ("bij->ji": 1.1e-6, torch 1.2e-7)
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    a = _tall(rows=10_000)
    a64 = a.astype(np.float64)
    x = mg.tensor(a, device=device)
    assert _rel_err(mg.einsum("ij->j", x).numpy(), a64.sum(0)) < 3e-7
    b = a.reshape(1000, 10, 10)
    got = mg.einsum("bij->ji", mg.tensor(b, device=device)).numpy()
    assert got.flags["C_CONTIGUOUS"] and _rel_err(got, b.astype(np.float64).sum(0).T) < 3e-7
    _, t = mg.func.jvp(lambda v: mg.einsum("ij->j", v), (x,), (x,))
    assert _rel_err(t.numpy(), a64.sum(0)) < 3e-7
    w = mg.tensor(a, device=device, requires_grad=True)
    mg.einsum("ij->j", w).backward(mg.ones(10, device=device))
    np.testing.assert_array_equal(w.grad.numpy(), np.ones_like(a))
    d = a64[:100]  # float64: NumPy's einsum, bit for bit
    np.testing.assert_array_equal(mg.einsum("ij->j", mg.tensor(d)).numpy(), np.einsum("ij->j", d))


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_float32_variance_gradient_uses_a_refined_mean(device):
    # the gradient of var() is 2 (x - mean) / (n - 1): with a float32 mean of 1e6 values 1e4 + N(0, 1)
    # off by an ulp (1e-3), 13 times PyTorch 2.13's error on the harness's inputs; refined, the mean
    # is off by at most half an ulp, the best a float32 mean can be
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    a = (1e4 + np.random.default_rng(27).standard_normal(1_000_000)).astype(np.float32)  # (its sum: 1.6 half-ulps)
    a64 = a.astype(np.float64)
    half_ulp = 0.5 * float(np.spacing(np.float32(1e4)))
    x = mg.tensor(a, device=device, requires_grad=True)
    x.var().backward()
    deviation = x.grad.numpy().astype(np.float64) * (a.size - 1) / 2
    assert np.max(np.abs(deviation - (a64 - a64.mean()))) < 1.05 * half_ulp
    x.grad = None
    x.std().backward()
    deviation = x.grad.numpy().astype(np.float64) * (a.size - 1) * a64.std(ddof=1)
    assert np.max(np.abs(deviation - (a64 - a64.mean()))) < 1.05 * half_ulp
    _, t = mg.func.jvp(lambda v: v.var(), (mg.tensor(a, device=device),), (mg.ones(a.size, device=device),))
    # a shift moves the variance by 2 sum(x - mean) / (n - 1): 2 (mean's error), no more than an ulp
    assert abs(float(t.numpy())) < 2.1 * half_ulp
    inf = mg.tensor(np.array([1.0, np.inf, 2.0], np.float32), device=device, requires_grad=True)
    assert np.isnan(inf.var().numpy())  # as before (and as PyTorch's)


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_float32_sums_over_a_strided_last_axis_are_pairwise(device):
    # torch 2.13: x.T.sum(1) of a float32 (1e5, 10) array 6e-8 off; NumPy runs its loop over the
    # contiguous axis and adds the strided one row by row: 5.8e-6 (x.t().mean(1), softmax over a
    # transposed axis the same); a full sum of a sliced (non-contiguous) array too
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    a = _tall()
    want = a.astype(np.float64).sum(0)
    x = mg.tensor(a, device=device)
    assert _rel_err(x.T.sum(1).numpy(), want) < 3e-7
    assert _rel_err(x.t().mean(1).numpy(), want / a.shape[0]) < 3e-7
    assert _rel_err(x[:, :5].sum().numpy(), want[:5].sum()) < 3e-7
    h = mg.tensor(a[:1000].astype(np.float16), device="cpu")  # float16: in float32 whenever rows add up
    assert _rel_err(h.T.sum(1).numpy(), a[:1000].astype(np.float16).astype(np.float64).sum(0)) < 1e-3


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
@pytest.mark.parametrize("layout", ["channels_last", "contiguous", "sliced"])
def test_a_conv_bias_gradient_is_one_tree_over_the_merged_axes(device, layout):
    # (N, C, H, W) summed over (0, 2, 3): in memory order the summed axes of a channels-last array are
    # neighbours, one axis of N*H*W rows (three strided reductions before: 95 -> 18 us for (64, 16, 8, 8))
    rng = np.random.default_rng(7)
    base = (1 + rng.standard_normal((64, 20, 20, 3))).astype(np.float32)  # N, H, W, C in memory
    g = {"channels_last": base.transpose(0, 3, 1, 2), "contiguous": np.ascontiguousarray(base.transpose(0, 3, 1, 2)),
         "sliced": base.transpose(0, 3, 1, 2)[:, :, 1:, :]}[layout]  # (sliced: no free view; summed as before)
    want = g.astype(np.float64).sum((0, 2, 3))
    xp = mg.device(device).xp
    for keepdims in (False, True):
        got = xp.to_host(xp.pairwise_sum(xp.asarray(g), (0, 2, 3), keepdims=keepdims))
        assert got.dtype == np.float32 and got.shape == ((1, 3, 1, 1) if keepdims else (3,))
        assert _rel_err(got.reshape(3), want) < 3e-7
    naive = g.sum((0, 2, 3))  # NumPy's float32 sum, row by row over the strided axes
    assert _rel_err(naive, want) > 3e-7 or layout == "contiguous"
    x = mg.tensor(rng.standard_normal((64, 1) + g.shape[2:]).astype(np.float32), device=device)
    bc = mg.zeros(3, requires_grad=True, device=device)
    mg.nn.functional.conv2d(x, mg.ones(3, 1, 1, 1, device=device), bc).backward(mg.tensor(g, device=device))
    assert _rel_err(bc.grad.cpu().numpy(), want) < 3e-7


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_float32_cumsum_of_same_signed_terms_keeps_the_digits(device):
    # Found running PyTorch's test_reductions.py: 1e6 float32 tenths summed to 1e5 by torch 2.13
    # (double accumulator) and to 99994.195 here. The steps' rounding errors, recovered exactly,
    # all have one sign there; their own float32 running sum drifted as the first one had, so the
    # errors of that sum are recovered too, until nothing is lost.
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    a = np.full(1_000_000, 0.1, np.float32)
    a[::7] = np.float32(3.3)
    want = np.cumsum(a.astype(np.float64)).astype(np.float32)
    x = mg.tensor(a, device=device, requires_grad=True)
    y = x.cumsum(0)
    _within_ulps(y.numpy(), want)
    y.backward(mg.tensor(a, device=device))
    _within_ulps(x.grad.numpy(), np.flip(np.cumsum(np.flip(a.astype(np.float64)))).astype(np.float32))
