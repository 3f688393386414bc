"""HIPS autograd's tests of ``scipy.special`` (the "Special" section of tests/test_scipy.py of
https://github.com/HIPS/autograd, MIT licence, by the autograd authors), run against
minigrad_ckpt through the adapter in tests/hips_autograd.py.  Upstream: HIPS/autograd@015b6da.

Ported: every function there that ``mg.special`` has -- ``erf`` and ``erfc`` with their
complex checks (``test_complex=True``) among them.  The bodies are autograd's, unchanged
(upstream checks reverse mode only, as its scipy functions had no forward mode; ``mg`` runs
both where autograd's ``modes`` are not given).  Not ported: ``betainc``, ``jn``, ``yn``,
``gammasgn``, ``rgamma``, ``j0``, ``j1``, ``y0``, ``y1``, ``iv``, ``ive`` (``mg.special`` has
no such functions).
"""
# ruff: noqa: E731  (autograd's lambdas, kept as written upstream)

from functools import partial

import pytest
from hips_autograd import combo_check, npr, special, unary_ufunc_check

if special is None:
    pytest.skip("scipy is not installed", allow_module_level=True)

npr.seed(1)
R = npr.randn
U = npr.uniform

combo_check = partial(combo_check, modes=["rev"])
unary_ufunc_check = partial(unary_ufunc_check, modes=["rev"])


def test_beta():
    combo_check(special.beta, [0, 1])([R(4) ** 2 + 1.1], [R(4) ** 2 + 1.1])


def test_betaln():
    combo_check(special.betaln, [0, 1])([R(4) ** 2 + 1.1], [R(4) ** 2 + 1.1])


def test_gammainc():
    combo_check(special.gammainc, [1])([1], R(4) ** 2 + 1.3)


def test_gammaincc():
    combo_check(special.gammaincc, [1])([1], R(4) ** 2 + 1.3)


def test_polygamma():
    combo_check(special.polygamma, [1])([0], R(4) ** 2 + 1.3)


def test_psi():
    unary_ufunc_check(special.psi, lims=[0.3, 2.0], test_complex=False)


def test_digamma():
    unary_ufunc_check(special.digamma, lims=[0.3, 2.0], test_complex=False)


def test_gamma():
    unary_ufunc_check(special.gamma, lims=[0.3, 2.0], test_complex=False)


def test_gammaln():
    unary_ufunc_check(special.gammaln, lims=[0.3, 2.0], test_complex=False)


def test_multigammaln():
    combo_check(special.multigammaln, [0])([U(4.0, 5.0), U(4.0, 5.0, (2, 3))], [1, 2, 3])


def test_i0():
    unary_ufunc_check(special.i0, lims=[0.2, 20.0], test_complex=False)


def test_i1():
    unary_ufunc_check(special.i1, lims=[0.2, 20.0], test_complex=False)


def test_erf():
    unary_ufunc_check(special.erf, lims=[-3.0, 3.0], test_complex=True)


def test_erfc():
    unary_ufunc_check(special.erfc, lims=[-3.0, 3.0], test_complex=True)


def test_erfinv():
    unary_ufunc_check(special.erfinv, lims=[-0.95, 0.95], test_complex=False)


def test_erfcinv():
    unary_ufunc_check(special.erfcinv, lims=[0.05, 1.95], test_complex=False)


def test_logit():
    unary_ufunc_check(special.logit, lims=[0.10, 0.90], test_complex=False)


def test_expit():
    unary_ufunc_check(special.expit, lims=[-4.05, 4.95], test_complex=False)
