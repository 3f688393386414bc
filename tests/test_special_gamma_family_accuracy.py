"""The accuracy gate of ``gammainc``/``gammaincc``, ``gammaln`` and ``digamma`` against SciPy (a
test-only reference), in float64: the bounds are what the kernels reached while every element ran
every method (400 series and continued-fraction steps each, a log per recurrence step), so the
kernels that compute each method on its own elements, until converged, are held to them."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

sc = pytest.importorskip("scipy.special")
RNG = np.random.default_rng(20240611)
N = 20000


def logu(lo, hi, n=N):
    return 10 ** RNG.uniform(np.log10(lo), np.log10(hi), n)


def _max_rel(actual, expected):
    ok = np.isfinite(expected) & (np.abs(expected) > 1e-300)
    assert np.array_equal(np.isnan(actual), np.isnan(expected))
    return float(np.max(np.abs(actual[ok] / expected[ok] - 1)))


_A_NEAR = logu(1, 20)
IGAMMA = [("uniform", RNG.uniform(0.1, 20, N), RNG.uniform(0.1, 20, N), 2.3e-14, 2.7e-14),
          ("a near x", _A_NEAR, np.abs(_A_NEAR + RNG.normal(0, 1, N) * np.sqrt(_A_NEAR)), 2e-14, 2.7e-14),
          ("tiny x", logu(1e-3, 1e3), logu(1e-300, 1e-5), 1.7e-13, 7.4e-15),
          ("wide", logu(1e-10, 1e5), logu(1e-10, 1e5), 6.6e-12, None)]  # SciPy's Q loses digits there


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name, a, x, tol_p, tol_q", IGAMMA, ids=[c[0] for c in IGAMMA])
def test_incomplete_gamma_matches_scipy(device, name, a, x, tol_p, tol_q):
    at, xt = mg.tensor(a, device=device), mg.tensor(x, device=device)
    assert _max_rel(mg.special.gammainc(at, xt).cpu().numpy(), sc.gammainc(a, x)) <= tol_p
    if tol_q is not None:
        assert _max_rel(mg.special.gammaincc(at, xt).cpu().numpy(), sc.gammaincc(a, x)) <= tol_q


GAMMA_X = [("uniform", RNG.uniform(0, 30, N), 1.3e-12, 3.6e-15),
           ("wide", logu(1e-300, 1e300), 2.2e-15, 1.6e-15),
           ("negative", -RNG.uniform(0, 200, N), 1.8e-14, 1.1e-11),
           ("near 1 and 2", np.concatenate([1 + RNG.uniform(-.3, .3, N), 2 + RNG.uniform(-.3, .3, N)]),
            4.8e-11, 4.7e-15),
           ("near digamma's zero", 1.4616321449683622 + RNG.uniform(-0.3, 0.3, N), 6.5e-15, 5.2e-15)]


@pytest.mark.parametrize("name, x, tol_lgamma, tol_digamma", GAMMA_X, ids=[c[0] for c in GAMMA_X])
def test_gammaln_and_digamma_match_scipy(name, x, tol_lgamma, tol_digamma):
    assert _max_rel(mg.special.gammaln(mg.tensor(x)).numpy(), sc.gammaln(x)) <= tol_lgamma
    assert _max_rel(mg.special.digamma(mg.tensor(x)).numpy(), sc.digamma(x)) <= tol_digamma
