"""``mg.special`` against SciPy: <= 1e-12 relative in float64 on each documented
domain (sampled densely, log-uniformly where the domain is wide), the special
values (poles, domain ends, infinities), float32, gradients, and logsumexp's
SciPy signature.  SciPy is a test-only dependency."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck, gradgradcheck

sc = pytest.importorskip("scipy.special")
S = mg.special
RNG = np.random.default_rng(1214)
RTOL = 1e-12


def _t(a, requires_grad=False, dtype="float64"):
    return mg.tensor(np.asarray(a, dtype=dtype), dtype=dtype, requires_grad=requires_grad)


def _rel(actual, expected):
    actual, expected = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    ok = np.isfinite(expected) & (expected != 0)
    assert np.array_equal(np.isnan(actual), np.isnan(expected)), "NaNs differ"
    assert np.array_equal(actual[np.isinf(expected)], expected[np.isinf(expected)]), "infinities differ"
    return float(np.max(np.abs(actual[ok] / expected[ok] - 1), initial=0.0))


def logu(lo, hi, n=4000):
    return 10 ** RNG.uniform(np.log10(lo), np.log10(hi), n)


def off(x, points, gap):
    """``x`` without the points where SciPy itself is less accurate than 1e-12."""
    keep = np.ones(x.shape, bool)
    for p in points:
        keep &= np.abs(x - p) > gap
    return x[keep]


POS = np.concatenate([logu(1e-8, 1e3), RNG.uniform(0, 30, 4000)])
# SciPy's cephes lgam/psi lose digits near the zeros of ln Gamma (1, 2) and of psi (1.4616);
# ours uses series there, checked separately against exact values
CASES = [
    ("gammaln", S.gammaln, sc.gammaln, off(POS, (1, 2), 2e-2)),
    ("digamma", S.digamma, sc.digamma, off(POS, (1.4616321449683622,), 0.3)),
    ("gamma", S.gamma, sc.gamma, POS[POS < 171]),
    ("erfc", S.erfc, sc.erfc, np.concatenate([RNG.uniform(-6, 26.5, 8000), logu(1e-12, 1)])),
    ("erfinv", S.erfinv, sc.erfinv, np.concatenate([RNG.uniform(-1, 1, 8000), 1 - logu(1e-16, 0.5),
                                                    logu(1e-300, 1)])),
    ("erfcinv", S.erfcinv, sc.erfcinv, np.concatenate([RNG.uniform(0, 2, 8000), logu(1e-300, 1)])),
    ("logit", S.logit, sc.logit, off(np.concatenate([RNG.uniform(0, 1, 8000), logu(1e-300, 1)]), (0.5,), 1e-3)),
    ("expit", S.expit, sc.expit, RNG.uniform(-700, 700, 8000)),
]


@pytest.mark.parametrize("name, fn, ref, x", CASES, ids=[c[0] for c in CASES])
def test_unary_functions_match_scipy(name, fn, ref, x):
    assert _rel(fn(_t(x)).numpy(), ref(x)) <= RTOL


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10])
def test_polygamma_matches_scipy(n):
    assert _rel(S.polygamma(n, _t(POS)).numpy(), sc.polygamma(n, POS)) <= RTOL
    np.testing.assert_array_equal(S.polygamma(0, _t(POS[:50])).numpy(), S.digamma(_t(POS[:50])).numpy())


def test_near_the_zeros_against_exact_values():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 30
    x0 = 1.4616321449683622
    for v in [1 - 1e-7, 1 + 1e-6, 2 - 1e-6, 2 + 1e-9, 0.85, 1.19, 1.81, 2.2]:
        assert abs(S.gammaln(_t(v)).item() / float(mp.loggamma(v)) - 1) <= RTOL
    for d in [1e-12, -1e-8, 3e-5, -0.1, 0.2499]:
        assert abs(S.digamma(_t(x0 + d)).item() / float(mp.digamma(x0 + d)) - 1) <= RTOL
    for p in [0.5 + 1e-9, 0.5 - 1e-6, 0.3, 0.7]:
        assert abs(S.logit(_t(p)).item() / float(mp.log(p / (1 - mp.mpf(p)))) - 1) <= RTOL


def test_negative_arguments_by_reflection():
    x = off(-RNG.uniform(0, 30, 4000), np.arange(-30, 1), 1e-3)
    for fn, ref in ((S.gammaln, sc.gammaln), (S.digamma, sc.digamma), (S.gamma, sc.gamma)):
        got, want = fn(_t(x)).numpy(), ref(x)
        assert np.max(np.abs(got - want) / np.maximum(1, np.abs(want))) <= 1e-11


def test_binary_functions_match_scipy():
    x = RNG.uniform(-5, 5, 4000)
    y = logu(1e-5, 1e5)
    assert _rel(S.xlogy(_t(x), _t(y)).numpy(), sc.xlogy(x, y)) <= RTOL
    y1 = RNG.uniform(-0.99, 100, 4000)
    assert _rel(S.xlog1py(_t(x), _t(y1)).numpy(), sc.xlog1py(x, y1)) <= RTOL
    a, b = logu(1e-3, 1e3), logu(1e-3, 1e3)
    want = sc.betaln(a, b)
    # SciPy's betaln is itself off by up to ~1e-11 absolute (it subtracts large log-gammas):
    # compared with that allowance here, and with exact values relatively below
    np.testing.assert_allclose(S.betaln(_t(a), _t(b)).numpy(), want, rtol=RTOL, atol=2e-11)
    assert _rel(S.beta(_t(a[:500]), _t(b[:500])).numpy(), sc.beta(a[:500], b[:500])) <= 1e-11
    neg = np.array([-0.5, -1.5, 2.5]), np.array([1.25, 0.75, -0.25])
    assert _rel(S.beta(_t(neg[0]), _t(neg[1])).numpy(), sc.beta(*neg)) <= 1e-12


def test_betaln_keeps_its_digits_for_large_arguments():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    pairs = [(1e6, 1.0), (735159.98, 0.1397), (1e8, 3e7), (50.0, 1e10), (707.24, 0.2237), (0.2226, 843.28)]
    pairs += list(zip(logu(1e-3, 1e6, 60), logu(1e-3, 1e6, 60)))
    for a, b in pairs:
        exact = float(mp.log(mp.beta(a, b)))
        if abs(exact) > 1e-2:  # off its zeros (there: absolute accuracy)
            assert abs(S.betaln(_t(a), _t(b)).item() / exact - 1) <= RTOL, (a, b)


def test_special_values_match_scipy():
    cases = [
        (S.gammaln, sc.gammaln, [0.0, -1.0, -2.0, np.inf, np.nan]),
        (S.digamma, sc.digamma, [0.0, -0.0, -1.0, np.inf, np.nan]),
        (S.gamma, sc.gamma, [0.0, -1.0, 200.0, np.inf, np.nan]),
        (S.erfc, sc.erfc, [np.inf, -np.inf, 30.0, np.nan]),
        (S.erfinv, sc.erfinv, [1.0, -1.0, 1.5, 0.0, np.nan]),
        (S.erfcinv, sc.erfcinv, [0.0, 2.0, -0.5, 2.5, 1.0, np.nan]),
        (S.logit, sc.logit, [0.0, 1.0, -0.1, 1.1, np.nan]),
    ]
    for fn, ref, values in cases:
        v = np.array(values)
        np.testing.assert_array_equal(fn(_t(v)).numpy(), ref(v), err_msg=fn.__name__)
    np.testing.assert_array_equal(S.xlogy(_t([0.0, 0.0, 1.0]), _t([0.0, np.nan, 0.0])).numpy(),
                                  sc.xlogy([0.0, 0.0, 1.0], [0.0, np.nan, 0.0]))
    assert S.polygamma(1, _t(0.0)).item() == np.inf and S.polygamma(2, _t(0.0)).item() == -np.inf


def test_where_scipy_and_pytorch_differ_the_pytorch_value():
    # ln|Gamma(-inf)| is +inf for C's lgamma, Python's math.lgamma and PyTorch; SciPy says -inf
    assert S.gammaln(_t(-np.inf)).item() == np.inf == math.lgamma(-math.inf)
    assert mg.lgamma(_t([-np.inf])).numpy()[0] == np.inf
    # psi's pole at 0 from either side, in float32 as well
    for dtype in ("float64", "float32"):
        np.testing.assert_array_equal(S.digamma(mg.tensor([0.0, -0.0], dtype=dtype)).numpy(), [-np.inf, np.inf])
        assert S.digamma(mg.tensor([-0.0], dtype=dtype)).numpy().dtype == np.dtype(dtype)
    # logit's derivative is NaN where its value is (outside [0, 1]), finite or infinite inside
    p = mg.tensor([-0.5, 0.0, 0.25, 1.0, 1.5], dtype="float64", requires_grad=True)
    S.logit(p).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [np.nan, np.inf, 1 / (0.25 * 0.75), np.inf, np.nan])


def test_float32_stays_float32_and_close():
    x = RNG.uniform(0.1, 10, 200)
    for fn, ref, v in ((S.gammaln, sc.gammaln, x), (S.digamma, sc.digamma, x), (S.gamma, sc.gamma, x),
                       (S.erfc, sc.erfc, x - 5), (S.erfinv, sc.erfinv, x / 11), (S.erfcinv, sc.erfcinv, x / 6),
                       (lambda t: S.polygamma(2, t), lambda a: sc.polygamma(2, a), x)):
        out = fn(_t(v, dtype="float32"))
        assert out.dtype == np.float32
        np.testing.assert_allclose(out.numpy(), ref(v.astype(np.float32)), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("fn, args", [
    (S.gammaln, [[0.3, 2.5, 9.0]]), (S.digamma, [[0.3, 2.5, 9.0]]), (lambda t: S.polygamma(3, t), [[0.5, 4.0]]),
    (S.gamma, [[0.3, 2.5, 4.0]]), (S.erfc, [[-1.0, 0.5, 3.0]]), (S.erfinv, [[-0.8, 0.1, 0.6]]),
    (S.erfcinv, [[0.2, 1.0, 1.7]]), (S.logit, [[0.1, 0.5, 0.8]]), (S.xlogy, [[0.0, 2.0], [0.5, 3.0]]),
    (S.xlog1py, [[1.0, -2.0], [-0.5, 3.0]]), (S.betaln, [[0.5, 15.0], [2.0, 30.0]]), (S.beta, [[0.5, 3.0], [2.0, 1.5]]),
])
def test_gradients(fn, args):
    ts = [_t(a, requires_grad=True) for a in args]
    assert gradcheck(fn, ts)
    assert gradgradcheck(fn, ts)


def test_logsumexp_matches_scipy():
    a = RNG.standard_normal((3, 4)) * 50
    b = RNG.standard_normal((3, 4))
    for kw in ({}, {"axis": 1}, {"axis": (0, 1), "keepdims": True}, {"axis": 0, "b": b},
               {"axis": -1, "b": b, "return_sign": True}, {"b": np.abs(b)}, {"return_sign": True, "axis": 0},
               {"axis": 1, "b": 2.0}):
        kw_mg = {k: (_t(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        got, want = S.logsumexp(_t(a), **kw_mg), sc.logsumexp(a, **kw)
        got, want = (got, want) if kw.get("return_sign") else ((got,), (want,))
        for g, w in zip(got, want):
            assert g.shape == np.shape(w)
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-12, atol=1e-12, err_msg=str(kw))
    assert np.isnan(S.logsumexp(_t([0.0, 0.0]), b=_t([1.0, -2.0])).item())  # a negative sum
    assert S.logsumexp(_t([-np.inf, -np.inf])).item() == -np.inf
    t, bt = _t(a, requires_grad=True), _t(b)
    assert gradcheck(lambda x: S.logsumexp(x, axis=1, b=bt, return_sign=True)[0], [t])


def test_xlogy_mixed_second_derivative_through_a_zero_upstream_gradient():
    # L = a * xlogy(x, y) at a = 0: d/da d/dx L = log(y), though the upstream gradient
    # reaching xlogy is 0 -- masking every zero upstream gradient made it vanish
    for fn, f in ((S.xlogy, np.log), (S.xlog1py, np.log1p)):
        a, x, y = (_t(v, requires_grad=True) for v in (0.0, 1.5, 2.0))
        (gx,) = mg.grad(a * fn(x, y), [x], create_graph=True)
        (gxa,) = mg.grad(gx, [a])
        assert gxa.item() == pytest.approx(f(2.0), rel=1e-15)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", range(6))
def test_polygamma_at_every_pole_and_at_the_infinities_is_scipys(n, dtype):
    # psi^(n) at 0, -1, -2, ... and -inf is the value from above the pole, +inf for odd n and -inf for
    # even n, as SciPy and (but for n = 1) torch 2.13; at +inf it is 0 with SciPy's sign (-0.0 for even
    # n).  The engine's was -inf at 0 but NaN at -1, -2, ... and -inf for even n, NaN at -inf for odd n.
    # (torch 2.13's trigamma is finite at -1, -2 and NaN at -inf; its polygamma for n >= 2 NaN at +inf.)
    v = np.array([0.0, -0.0, -1.0, -2.0, -7.0, np.inf, -np.inf, np.nan, -0.5])
    ref = sc.digamma(v) if n == 0 else sc.polygamma(n, v)
    got = S.polygamma(n, mg.tensor(v, dtype=dtype)).numpy()
    np.testing.assert_array_equal(got[:-1], ref[:-1].astype(dtype))
    np.testing.assert_array_equal(np.signbit(got[:-1]), np.signbit(ref[:-1]))
