"""``betaln`` and ``beta`` at the poles of the gammas and at the infinities, forward and
gradient, float32 and float64, CPU and the strict devices.

``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``.  Where ``a = -m`` is a pole and ``b = n``
a positive integer with ``n <= m``, ``Gamma(a + b)`` has a pole too and the two cancel:
``B(x, n) = (n-1)! / (x (x+1) ... (x+n-1))`` is a rational function of ``x``, finite at
``x = -m`` (SciPy's and mpmath's value as well).  Everywhere else a pole of ``Gamma(a)``
or ``Gamma(b)`` makes ``|B|`` infinite, and the gradient is NaN where the value is a pole.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

S = mg.special
DTYPES = ["float64", "float32"]


def _exact_beta(m: int, n: int) -> float:
    """``B(-m, n)`` for integers ``1 <= n <= m``: ``(-1)^n (n-1)! (m-n)! / m!``."""
    return (-1) ** n * math.factorial(n - 1) * math.factorial(m - n) / math.factorial(m)


CANCELLING = [(-1, 1), (-2, 1), (-3, 2), (-3, 3), (-4, 2), (-10, 3), (-30, 30)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("a, b", CANCELLING)
def test_cancelling_poles_are_finite_in_both_orders(a, b, dtype):
    exact = _exact_beta(-a, b)
    tol = 1e-13 if dtype == "float64" else 2e-6
    for x, y in ((a, b), (b, a)):
        got = S.betaln(mg.tensor([float(x)], dtype=dtype), mg.tensor([float(y)], dtype=dtype)).numpy()
        assert got.dtype == dtype
        assert abs(got[0] - math.log(abs(exact))) <= tol * max(1.0, abs(math.log(abs(exact))))
        beta = S.beta(mg.tensor([float(x)], dtype=dtype), mg.tensor([float(y)], dtype=dtype)).numpy()[0]
        assert abs(beta / exact - 1) <= 10 * tol


def test_cancelling_poles_match_scipy_and_mpmath():
    sc = pytest.importorskip("scipy.special")
    mpmath = pytest.importorskip("mpmath")
    a = np.array([p[0] for p in CANCELLING], dtype=float)
    b = np.array([p[1] for p in CANCELLING], dtype=float)
    np.testing.assert_allclose(S.betaln(mg.tensor(a), mg.tensor(b)).numpy(), sc.betaln(a, b), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(S.beta(mg.tensor(a), mg.tensor(b)).numpy(), sc.beta(a, b), rtol=1e-13)
    assert [float(mpmath.beta(int(x), int(y))) for x, y in zip(a, b)] == pytest.approx(
        S.beta(mg.tensor(a), mg.tensor(b)).numpy().tolist(), rel=1e-13)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cancelling_poles_at_the_largest_float(dtype):
    big = float(np.finfo(dtype).max)  # an integer, so a pole: B(-big, n) = (n-1)! (big-n)! / big! ~ (n-1)! big^-n
    for n in (1.0, 2.0, 30.0):
        got = S.betaln(mg.tensor([-big], dtype=dtype), mg.tensor([n], dtype=dtype)).numpy()[0]
        want = math.lgamma(n) - n * math.log(big)
        assert got == pytest.approx(want, rel=1e-6 if dtype == "float32" else 1e-13)


POLES = [(-3.0, -4.0), (-3.0, 4.0), (0.0, 1.0), (0.0, 0.0), (-0.0, -1.0), (-1.0, -1.0), (-3.0, 2.5),
         (-1.0, 2.0), (0.5, -1e30), (-2.5, -1e30)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("a, b", POLES)
def test_uncancelled_poles_are_infinite_with_a_nan_gradient(a, b, dtype):
    x = mg.tensor([a], dtype=dtype, requires_grad=True)
    y = mg.tensor([b], dtype=dtype, requires_grad=True)
    out = S.betaln(x, y)
    assert out.numpy()[0] == np.inf
    out.sum().backward()
    assert np.isnan(x.grad.numpy()[0]) and np.isnan(y.grad.numpy()[0])


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_gradient_where_the_poles_cancel(dtype):
    """Along ``a`` with ``b = n`` held, ``d/da ln|B(a, n)| = -sum_k 1/(a + k)``: finite.
    Along ``b``, ``B(-m, .)`` is infinite on both sides of ``n``: no derivative, NaN."""
    for a, b in CANCELLING:
        x = mg.tensor([float(a)], dtype=dtype, requires_grad=True)
        y = mg.tensor([float(b)], dtype=dtype, requires_grad=True)
        S.betaln(x, y).sum().backward()
        want = -sum(1 / (a + k) for k in range(b))
        assert x.grad.numpy()[0] == pytest.approx(want, rel=1e-12 if dtype == "float64" else 2e-5, abs=1e-6)
        assert np.isnan(y.grad.numpy()[0])
        # the same in the other order
        x = mg.tensor([float(b)], dtype=dtype, requires_grad=True)
        y = mg.tensor([float(a)], dtype=dtype, requires_grad=True)
        S.betaln(x, y).sum().backward()
        assert np.isnan(x.grad.numpy()[0])
        assert y.grad.numpy()[0] == pytest.approx(want, rel=1e-12 if dtype == "float64" else 2e-5, abs=1e-6)


def test_the_cancelled_pole_against_central_differences_to_second_order():
    """With ``b`` a constant, ``betaln(., n)`` is smooth through the cancelled pole: its first
    and second derivatives (``sum_k 1/(a + k)^2``) and its jvp are those of the rational function."""
    for a, n in ((-3.0, 2.0), (-5.0, 3.0), (-1.0, 1.0)):
        x = mg.tensor([a], dtype="float64", requires_grad=True)
        assert gradcheck(lambda t, n=n: S.betaln(t, n), (x,), modes=("rev", "fwd"))
        (g,) = mg.grad(S.betaln(x, n).sum(), [x], create_graph=True)
        (h,) = mg.grad(g.sum(), [x])
        assert h.numpy()[0] == pytest.approx(sum(1 / (a + k) ** 2 for k in range(int(n))), rel=1e-10)
        _, tangent = mg.func.jvp(lambda t, n=n: S.betaln(t, n), (x.detach(),), (mg.ones_like(x.detach()),))
        assert tangent.numpy()[0] == pytest.approx(-sum(1 / (a + k) for k in range(int(n))), rel=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_infinities_take_the_limits_that_exist(dtype):
    inf, nan = np.inf, np.nan
    cases = [  # (a, b, betaln): symmetric, so each is checked in both orders
        (inf, inf, -inf), (2.0, inf, -inf), (-2.5, inf, inf), (-3.0, inf, inf), (0.0, inf, inf),
        (2.0, -inf, -inf), (1.0, -inf, -inf), (-3.0, -inf, inf), (0.5, -inf, nan), (-2.5, -inf, nan),
        (-inf, -inf, nan), (inf, -inf, nan), (nan, 2.0, nan), (nan, -3.0, nan), (nan, 0.0, nan),
    ]
    for a, b, want in cases:
        for x, y in ((a, b), (b, a)):
            got = S.betaln(mg.tensor([x], dtype=dtype), mg.tensor([y], dtype=dtype)).numpy()[0]
            assert (np.isnan(got) and np.isnan(want)) or got == want, (x, y, got, want)


def test_beta_takes_its_sign_without_evaluating_gamma():
    """``Gamma(-200.5)`` underflows to 0: a sign taken from it made ``beta(-200.5, 1)`` 0."""
    got = S.beta(mg.tensor([-200.5, -200.5, -0.5], dtype="float64"), mg.tensor([1.0, 2.0, 0.5], dtype="float64"))
    got = got.numpy()
    want = [1 / -200.5, 1 / (-200.5 * -199.5), 0.0]  # B(x, 1) = 1/x, B(x, 2) = 1/(x(x+1)), 1/Gamma(0) = 0
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert np.isnan(S.beta(mg.tensor([-3.0]), mg.tensor([4.0])).numpy()[0])  # the sign flips across the pole
    assert S.beta(mg.tensor([0.0]), mg.tensor([2.5])).numpy()[0] == np.inf  # as gamma(0) = +inf


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_the_strict_devices_give_the_cpu_values(device):
    dtype = "float32" if device == "strict-f32" else "float64"
    big = float(np.finfo(dtype).max)
    a = np.array([-3.0, 2.0, -3.0, 0.0, -big, np.inf, 2.0, -200.5, 0.5], dtype=dtype)
    b = np.array([2.0, -4.0, -4.0, 1.0, 2.0, np.inf, -np.inf, 1.0, -np.inf], dtype=dtype)
    for fn in (S.betaln, S.beta):
        want = fn(mg.tensor(a), mg.tensor(b)).numpy()
        got = fn(mg.tensor(a, device=device), mg.tensor(b, device=device)).to("cpu").numpy()
        np.testing.assert_array_equal(got, want)
    x = mg.tensor(a, device=device, requires_grad=True)
    S.betaln(x, mg.tensor(b, device=device)).backward(gradient=mg.ones(a.shape, dtype=dtype, device=device))
    xc = mg.tensor(a, requires_grad=True)
    S.betaln(xc, mg.tensor(b)).backward(gradient=np.ones(a.shape, dtype=dtype))
    np.testing.assert_array_equal(x.grad.to("cpu").numpy(), xc.grad.numpy())
