"""``mg.special``'s normal-distribution, scaled and Bessel functions, ``entr``,
``multigammaln`` and ``sinc`` against SciPy (a test dependency only), with derivatives of
every order in both modes, float32, the strict device and their special values."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the "strict" device)

S = mg.special
GRID = np.concatenate([np.linspace(-45, 45, 3001), np.geomspace(1e-10, 1e4, 300), -np.geomspace(1e-10, 700, 300),
                       [0.0, -0.0, 1.0, -1.0, 8.0, 27.0, 30.0, -30.0, 26.999, 27.001, 29.999, 30.001]])


@pytest.mark.parametrize("name, rtol", [("ndtr", 1e-12), ("log_ndtr", 1e-12), ("erfcx", 1e-13), ("i0", 1e-13),
                                        ("i0e", 1e-13), ("i1", 1e-13), ("i1e", 1e-13), ("entr", 1e-14),
                                        ("sinc", 1e-14)])
def test_values_match_scipy(name, rtol):
    x = GRID
    want = np.sinc(x) if name == "sinc" else getattr(sp, name)(x)
    got = getattr(S, name)(mg.tensor(x)).numpy()
    # SciPy's ndtr flushes to 0 below -38 where the true value is subnormal; compare normal numbers
    normal = np.isfinite(want) & (np.abs(want) > 1e-300)
    np.testing.assert_allclose(got[normal], want[normal], rtol=rtol, atol=0)
    assert np.array_equal(np.isinf(got) & (np.abs(want) > 1e-300), np.isinf(want)), name


def test_ndtri_and_multigammaln_match_scipy():
    p = np.concatenate([np.linspace(0, 1, 1001), np.geomspace(1e-300, 0.1, 300), 1 - np.geomspace(1e-16, 0.1, 50)])
    np.testing.assert_allclose(S.ndtri(mg.tensor(p)).numpy(), sp.ndtri(p), rtol=1e-12)
    a = np.linspace(1.6, 40, 60)
    for d in (1, 2, 4):
        np.testing.assert_allclose(S.multigammaln(mg.tensor(a), d).numpy(), sp.multigammaln(a, d), rtol=1e-13)


def test_special_values():
    inf, nan = np.inf, np.nan
    x = mg.tensor([inf, -inf, nan], dtype="float64")
    np.testing.assert_array_equal(S.erfcx(x).numpy(), [0.0, inf, nan])
    np.testing.assert_array_equal(S.i0(x).numpy(), [inf, inf, nan])
    np.testing.assert_array_equal(S.i1(x).numpy(), [inf, -inf, nan])
    np.testing.assert_array_equal(S.i0e(x).numpy(), [0.0, 0.0, nan])
    np.testing.assert_array_equal(S.ndtr(x).numpy(), [1.0, 0.0, nan])
    np.testing.assert_array_equal(S.log_ndtr(x).numpy(), [0.0, -inf, nan])
    np.testing.assert_array_equal(S.entr(mg.tensor([0.0, -1.0, inf, nan])).numpy(), [0.0, -inf, -inf, nan])
    np.testing.assert_array_equal(S.ndtri(mg.tensor([0.0, 1.0, -0.5, 1.5, nan])).numpy(), [-inf, inf, nan, nan, nan])
    assert S.i0(mg.tensor(0.0)).item() == 1.0 and S.i1e(mg.tensor(0.0)).item() == 0.0


CALLS = {
    "ndtr": (S.ndtr, [-30.0, -3.0, -0.4, 0.0, 1.3, 7.0]),
    "log_ndtr": (S.log_ndtr, [-40.0, -3.0, -1.0001, -0.9, 0.5, 6.0]),
    "ndtri": (S.ndtri, [0.01, 0.3, 0.5, 0.7, 0.999]),
    "erfcx": (S.erfcx, [-5.0, -0.3, 0.0, 2.0, 9.0, 40.0]),
    "i0": (S.i0, [-40.0, -2.0, 0.0, 0.3, 5.0, 31.0]),
    "i0e": (S.i0e, [-40.0, -2.0, -0.01, 0.3, 5.0, 31.0]),  # |x| makes a kink at 0
    "i1": (S.i1, [-40.0, -2.0, 0.0, 0.3, 5.0, 31.0]),
    "i1e": (S.i1e, [-40.0, -2.0, 1e-3, 0.3, 5.0, 31.0]),
    "entr": (S.entr, [0.01, 0.3, 1.0, 4.0]),
    "multigammaln": (lambda a: S.multigammaln(a, 3), [1.2, 2.0, 7.5]),
    "sinc": (S.sinc, [-2.5, -0.3, 0.1, 1.7]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_derivatives_both_modes_and_second_order(name):
    fn, values = CALLS[name]
    x = mg.tensor(values, dtype="float64", requires_grad=True)
    assert gradcheck(fn, x, modes=("rev", "fwd"))
    assert gradgradcheck(fn, x)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_float32_and_the_strict_device(name):
    fn, values = CALLS[name]
    x32 = mg.tensor(values, dtype="float32", requires_grad=True)
    out = fn(x32)
    (g,) = mg.grad(out.sum(), [x32])
    assert out.dtype == np.float32 and g.dtype == np.float32
    x, xs = (mg.tensor(values, dtype="float64", device=d, requires_grad=True) for d in ("cpu", "strict"))
    np.testing.assert_allclose(fn(xs).numpy(), fn(x).numpy(), rtol=1e-14)
    np.testing.assert_allclose(mg.grad(fn(xs).sum(), [xs])[0].numpy(), mg.grad(fn(x).sum(), [x])[0].numpy(),
                               rtol=1e-14)


def test_derivatives_match_the_closed_forms():
    x = np.array([-3.0, -0.5, 0.2, 2.0, 12.0])
    t = mg.tensor(x, requires_grad=True)
    (g,) = mg.grad(S.i0(t).sum(), [t])
    np.testing.assert_allclose(g.numpy(), sp.i1(x), rtol=1e-13)
    (g,) = mg.grad(S.i1(t).sum(), [t])
    np.testing.assert_allclose(g.numpy(), sp.i0(x) - sp.i1(x) / x, rtol=1e-13)
    (g,) = mg.grad(S.log_ndtr(t).sum(), [t])
    np.testing.assert_allclose(g.numpy(), np.exp(-x * x / 2) / np.sqrt(2 * np.pi) / sp.ndtr(x), rtol=1e-12)
    big = mg.tensor([30.0, 1e3, 1e6], dtype="float64", requires_grad=True)  # 2x erfcx(x) - 2/sqrt(pi), no cancellation
    (g,) = mg.grad(S.erfcx(big).sum(), [big])
    b = big.numpy()
    u = 1 / (2 * b * b)  # 2/sqrt(pi) (S - 1), S = sum_k (-1)^k (2k-1)!! u^k: no cancellation
    terms = [np.prod(np.arange(1, 2 * k, 2.0)) * (-u) ** k for k in range(1, 12)]
    np.testing.assert_allclose(g.numpy(), 2 / np.sqrt(np.pi) * np.sum(terms, axis=0), rtol=1e-12)
    assert (g.numpy() < 0).all()


def test_multigammaln_refuses_a_too_small_argument():
    with pytest.raises(ValueError, match=r"greater than \(p - 1\) / 2"):
        S.multigammaln(mg.tensor([0.9, 3.0]), 3)
    with pytest.raises(ValueError, match="positive int"):
        S.multigammaln(mg.tensor([3.0]), 0)


def test_zeta_matches_scipy_and_differentiates_in_q():
    x = np.array([1.01, 1.5, 2.0, 3.7, 10.0, 55.0])[:, None]
    q = np.array([1e-3, 0.3, 1.0, 2.5, 40.0, 1e4])[None, :]
    np.testing.assert_allclose(S.zeta(mg.tensor(x), mg.tensor(q)).numpy(), sp.zeta(x, q), rtol=1e-13)
    riemann = S.zeta(mg.tensor([2.0, 4.0], dtype="float64")).numpy()
    np.testing.assert_allclose(riemann, [np.pi ** 2 / 6, np.pi ** 4 / 90], rtol=1e-15)
    qt = mg.tensor([0.4, 1.3, 7.0], dtype="float64", requires_grad=True)
    s = mg.tensor([1.5, 2.5, 4.0], dtype="float64")
    assert gradcheck(lambda t: S.zeta(s, t), qt, modes=("rev", "fwd"))
    assert gradgradcheck(lambda t: S.zeta(s, t), qt)
    (g,) = mg.grad(S.zeta(s, qt).sum(), [qt])
    np.testing.assert_allclose(g.numpy(), -s.numpy() * sp.zeta(s.numpy() + 1, qt.numpy()), rtol=1e-13)
    edges = S.zeta(mg.tensor([1.0, 0.5, 2.0, 2.0]), mg.tensor([1.0, 1.0, 0.0, -2.0])).numpy()
    np.testing.assert_array_equal(edges, [np.inf, np.nan, np.inf, np.inf])
    with pytest.raises(NotImplementedError, match="derivative for 'zeta' in x"):  # when asked for, as PyTorch's
        S.zeta(mg.tensor([2.0], requires_grad=True), 1.0).sum().backward()
    x32 = S.zeta(mg.tensor([2.0], dtype="float32"), mg.tensor([1.0], dtype="float32"))
    assert x32.dtype == np.float32


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_matches_scipy_and_differentiates_in_x(name):
    a = np.geomspace(1e-3, 1000, 40)[:, None]
    x = np.concatenate([np.geomspace(1e-6, 2000, 60), [0.0, np.inf]])[None, :]
    got = getattr(S, name)(mg.tensor(a), mg.tensor(x)).numpy()
    want = getattr(sp, name)(a, x)
    normal = np.abs(want) > 1e-290
    np.testing.assert_allclose(got[normal], want[normal], rtol=5e-12)
    np.testing.assert_allclose(got[~normal], want[~normal], rtol=0, atol=1e-290)  # 0 or a subnormal tail
    s = mg.tensor([0.5, 2.0, 7.0], dtype="float64")
    xt = mg.tensor([0.3, 4.0, 6.5], dtype="float64", requires_grad=True)
    fn = getattr(S, name)
    assert gradcheck(lambda t: fn(s, t), xt, modes=("rev", "fwd"))
    assert gradgradcheck(lambda t: fn(s, t), xt)
    (g,) = mg.grad(fn(s, xt).sum(), [xt])
    density = np.exp((s.numpy() - 1) * np.log(xt.numpy()) - xt.numpy() - sp.gammaln(s.numpy()))
    np.testing.assert_allclose(g.numpy(), density if name == "gammainc" else -density, rtol=1e-13)
    assert np.isnan(fn(mg.tensor([-1.0, 1.0]), mg.tensor([1.0, -1.0])).numpy()).all()
    with pytest.raises(NotImplementedError, match="in a is not implemented"):  # when asked for, as PyTorch's
        fn(mg.tensor([1.0], requires_grad=True), 1.0).sum().backward()
    assert fn(mg.tensor([2.0], dtype="float32"), mg.tensor([1.0], dtype="float32")).dtype == np.float32


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_functions_at_the_ends_of_the_float_range(dtype):
    """Far arguments, subnormals and infinities, where a kernel's intermediate overflows while
    the answer does not (inf * 0, inf - inf, 1 / subnormal): each checked against SciPy.  float32
    stays float32 arithmetic (the strict-f32 device allows no float64 inside)."""
    f = np.dtype(dtype).type
    big, tiny = np.finfo(dtype).max, np.finfo(dtype).smallest_subnormal
    x = np.array([30.0, 60.0, 1e10, 3.0, big], dtype)
    q = np.array([1.0, 2.0, 0.5, np.inf, np.inf], dtype)
    z = S.zeta(mg.tensor(x), mg.tensor(q)).numpy()
    np.testing.assert_allclose(z, sp.zeta(x, q).astype(dtype), rtol=1e-5 if dtype == "float32" else 1e-13)
    a, xs = np.array([tiny, tiny], dtype), np.array([np.finfo(dtype).tiny, 1.0], dtype)
    np.testing.assert_array_equal(S.gammainc(mg.tensor(a), mg.tensor(xs)).numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(S.gammaincc(mg.tensor(a), mg.tensor(xs)).numpy(), [0.0, 0.0])
    lo = np.array([-0.0, -0.5, -5.5, 1.0], dtype)
    hi = np.array([big, big, f(20.0), big], dtype)
    np.testing.assert_allclose(S.betaln(mg.tensor(lo), mg.tensor(hi)).numpy(), sp.betaln(lo, hi),
                               rtol=2e-6 if dtype == "float32" else 1e-12)
    g = np.array([29.247044, 33.5, -2.5, 0.5], dtype)  # within float32's rounding of the exact value
    np.testing.assert_allclose(S.gamma(mg.tensor(g)).numpy(), sp.gamma(g.astype(np.float64)),
                               rtol=1e-6 if dtype == "float32" else 1e-13)
    e = np.array([tiny, 1e-30, 0.3, 1.7], dtype)
    np.testing.assert_allclose(S.erfcinv(mg.tensor(e)).numpy(), sp.erfcinv(e.astype(np.float64)) if tiny > 1e-300
                               else [27.21329321081295, *sp.erfcinv(e[1:])],  # mpmath's (SciPy says inf)
                               rtol=1e-6 if dtype == "float32" else 1e-13)
    assert S.gammaln(mg.tensor(big)).item() == np.inf


def test_far_special_values_on_the_float32_only_device_equal_the_cpu():
    x = np.array([29.247044, 33.5, 0.5, -2.5], np.float32)
    z = np.array([np.finfo(np.float32).smallest_subnormal, 1e-30, 0.3], np.float32)
    for fn, v in ((S.gamma, x), (S.erfcinv, z)):
        got = fn(mg.tensor(v).to("strict-f32")).to("cpu").numpy()
        np.testing.assert_array_equal(got, fn(mg.tensor(v)).numpy())


_TINY = np.array([1e-300, -1e-300, 1e-20, 1e-8, -1e-8, 1e-4, 0.1, 2.0, -5.0, 40.0])


def _gradient(fn, values):
    x = mg.tensor(values, dtype="float64", requires_grad=True)
    fn(x).sum().backward()
    return x.grad.numpy()


def test_bessel_derivatives_near_zero_keep_every_digit():
    # I0' = I1 and I1' = I0 - I1/x.  Taken through i0e(x) exp(|x|), the terms cancel near 0:
    # I0'(1e-8) came out with 8 correct digits and I0'(1e-300) as 0.
    np.testing.assert_allclose(_gradient(S.i0, _TINY), sp.i1(_TINY), rtol=1e-14, atol=0)
    want = np.where(np.abs(_TINY) < 1e-7, 0.5, sp.i0(_TINY) - sp.i1(_TINY) / _TINY)
    np.testing.assert_allclose(_gradient(S.i1, _TINY), want, rtol=1e-13, atol=0)


def test_bessel_derivatives_at_infinities_and_nan():
    inf, nan = np.inf, np.nan
    edges = np.array([inf, -inf, nan, 1.7e308, -1.7e308])
    np.testing.assert_array_equal(_gradient(S.i0, edges), [inf, -inf, nan, inf, -inf])  # I1, odd
    np.testing.assert_array_equal(_gradient(S.i1, edges), [inf, inf, nan, inf, inf])  # even, growing
    np.testing.assert_array_equal(S.i0(mg.tensor(edges)).numpy(), [inf, inf, nan, inf, inf])
    np.testing.assert_array_equal(S.i1(mg.tensor(edges)).numpy(), [inf, -inf, nan, inf, -inf])


def test_unscaled_bessel_overflows_only_past_the_float_range():
    # I0(712) = 2.47e307 is a float64; exp(712) alone is not
    x = np.array([700.0, 712.0, -712.0, 713.9])
    np.testing.assert_allclose(S.i0(mg.tensor(x)).numpy(), sp.i0e(x) * np.exp(np.abs(x) / 2) * np.exp(np.abs(x) / 2),
                               rtol=1e-13)
    assert np.isfinite(S.i1(mg.tensor(x)).numpy()).all()
    assert np.isinf(S.i0(mg.tensor([714.0], dtype="float64")).numpy()).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_entr_derivative_is_pytorchs_at_zero_below_and_at_the_edges(dtype):
    inf, nan = np.inf, np.nan
    points = [0.0, -0.0, 0.5, 2.0, -1.0, inf, nan]
    # x.grad of torch.special.entr(x).sum().backward() (and torch.func.jvp's tangent) for
    # x = tensor(points, dtype): -(1 + log x), +inf at 0 where the value is 0
    want = {"float32": [inf, inf, -0.3068528175354004, -1.6931471824645996, nan, -inf, nan],
            "float64": [inf, inf, -0.3068528194400547, -1.6931471805599454, nan, -inf, nan]}[dtype]
    x = mg.tensor(points, dtype=dtype, requires_grad=True)
    S.entr(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.array(want, dtype=dtype))
    np.testing.assert_array_equal(mg.func.grad(lambda v: S.entr(v).sum())(x.detach()).numpy(),
                                  np.array(want, dtype=dtype))
    _, tangent = mg.func.jvp(S.entr, (x.detach(),), (mg.ones_like(x),))
    np.testing.assert_array_equal(tangent.numpy(), np.array(want, dtype=dtype))
    # torch: entr(x) of the same points (values unchanged), float32 stays float32
    value = S.entr(x)
    assert value.dtype == x.dtype
    np.testing.assert_array_equal(value.numpy()[[0, 1, 4, 5, 6]], [0.0, 0.0, -inf, -inf, nan])
    # a zero gradient at 0 stays zero (the house rule for singular points): where() hands the
    # unselected branch zeros, and entr' = inf there must not make them NaN
    z = mg.tensor([0.0, 1.0], dtype=dtype, requires_grad=True)
    mg.where(z > 0, S.entr(z), z).sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [1.0, -1.0])


def test_entr_second_derivative_is_minus_one_over_x():
    x = mg.tensor([0.5, 2.0], dtype="float64", requires_grad=True)
    (g,) = mg.autograd.grad(S.entr(x).sum(), x, create_graph=True)
    (gg,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [-2.0, -0.5], rtol=1e-15)  # torch: same, -1/x


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64], ids=str)
def test_incomplete_gamma_at_an_infinite_shape(dtype):
    # torch 2.13 and SciPy: gammainc(inf, x) = 0 and gammaincc(inf, x) = 1 for finite x >= 0,
    # NaN for x = inf or x < 0 (they were NaN everywhere here)
    a = mg.tensor([np.inf] * 4, dtype=dtype)
    x = mg.tensor([0.0, 1.0, np.inf, -1.0], dtype=dtype)
    np.testing.assert_array_equal(mg.special.gammainc(a, x).numpy(), [0.0, 0.0, np.nan, np.nan])
    np.testing.assert_array_equal(mg.special.gammaincc(a, x).numpy(), [1.0, 1.0, np.nan, np.nan])


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_erfcx_second_derivative_is_whole_at_its_branch_point(device):
    # The derivative switches to an asymptotic series at x = 27; a clamp by maximum there used to
    # split the second derivative between maximum's two equal arguments, so it came out halved.
    x = np.array([26.999, 27.0, 27.001, 40.0])
    t = mg.tensor(x, device=device, requires_grad=True)
    (g,) = mg.grad(S.erfcx(t).sum(), [t], create_graph=True)
    (h,) = mg.grad(g.sum(), [t])
    # erfcx'' = 2 erfcx + 2x erfcx' = (4x^2 + 2) erfcx - 4x/sqrt(pi); from the series of erfcx, term by term
    u = 1 / (2 * x * x)
    s = sum(np.prod(np.arange(1, 2 * k, 2.0)) * (-u) ** k for k in range(0, 12))
    ds = sum(np.prod(np.arange(1, 2 * k, 2.0)) * (-1) ** k * k * u ** (k - 1) * (-1 / x ** 3) for k in range(1, 12))
    f = s / (x * np.sqrt(np.pi))  # erfcx(x) = S(x) / (x sqrt(pi))
    fp = (ds * x - s) / (x * x * np.sqrt(np.pi))
    expected = 2 * f + 2 * x * fp
    np.testing.assert_allclose(h.numpy(), expected, rtol=1e-9)
    gradgradcheck(lambda v: S.erfcx(v), [mg.tensor(x, device=device, requires_grad=True)])
    # forward over reverse reads the same derivative rule: the whole second derivative there too
    a = mg.tensor(x, device=device)
    _, tangent = mg.func.jvp(mg.func.grad(lambda v: S.erfcx(v).sum()), (a,), (mg.ones_like(a),))
    np.testing.assert_allclose(tangent.numpy(), expected, rtol=1e-9)
