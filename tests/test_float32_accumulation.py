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
