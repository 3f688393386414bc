"""``erf`` and ``erfc`` of complex numbers (through the Faddeeva function), against SciPy and
mpmath: across magnitudes, near and on the axes, at the infinities; complex64 in complex64
arithmetic (the strict-f32 device); gradients, jvps and second derivatives in the complex
convention of docs/complex.md (both are holomorphic: ``erf'(z) = 2/sqrt(pi) exp(-z^2)``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import gradcheck, gradgradcheck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

sc = pytest.importorskip("scipy.special")
FUNCTIONS = {"erf": (mg.erf, sc.erf), "erfc": (mg.special.erfc, sc.erfc)}
RNG = np.random.default_rng(2506)


def _points(n: int = 6000) -> np.ndarray:
    """Log-uniform magnitudes 1e-4 .. 300 in every direction, and points 1e-9 and 1e-5 (relative)
    off both axes."""
    r = 10 ** RNG.uniform(-4, 2.5, n)
    z = r * np.exp(1j * RNG.uniform(-np.pi, np.pi, n))
    off = [r[:500] * (1 + s * 1j * RNG.standard_normal(500)) for s in (1e-9, 1e-5)]
    return np.concatenate([z, *off, *(1j * o for o in off), -off[0], -1j * off[1]])


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_complex128_agrees_with_scipy_relative_to_the_magnitude(name):
    """Within 1e-13 of |f(z)| times erf's condition number ~ max(1, |z|^2); SciPy is itself off
    by up to 1.4e-13 near |z| = 0.006 (mpmath agrees with the engine there)."""
    ours, theirs = FUNCTIONS[name]
    z = _points()
    with np.errstate(all="ignore"):
        want = theirs(z)
    got = ours(mg.tensor(z)).numpy()
    assert got.dtype == np.complex128
    ok = np.isfinite(want) & (np.abs(want) > 1e-300) & (np.abs(want) < 1e300)
    with np.errstate(invalid="ignore"):
        rel = np.abs(got - want)[ok] / np.abs(want)[ok]
    assert np.all(rel <= 2e-13 * np.maximum(1, np.abs(z[ok]) ** 2))
    assert np.median(rel) < 1e-15


def test_each_part_near_the_axes_against_mpmath():
    """Near the imaginary axis ``Re erf`` is tiny beside ``|erf|``; near the real axis ``Im erf``
    is: each part keeps its own digits (a series in the small part, not ``1 - erfc``)."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    small = 10 ** RNG.uniform(-8, -1, 60) * RNG.choice([-1, 1], 60)
    big = RNG.uniform(-6, 6, 60)
    z = np.concatenate([small + 1j * big, big + 1j * small])
    for ours, exact in ((mg.erf, mpmath.erf), (mg.special.erfc, mpmath.erfc)):
        got = ours(mg.tensor(z)).numpy()
        want = np.array([complex(exact(mpmath.mpc(v))) for v in z])
        for part in ("real", "imag"):
            g, w = getattr(got, part), getattr(want, part)
            assert np.all(np.abs(g - w) <= 1e-12 * np.abs(w) + 1e-300), (ours, part)


def test_on_the_axes_and_at_the_infinities():
    inf, nan = math.inf, math.nan
    z = np.array([2.0 + 0j, complex(-0.5, -0.0), 3j, -30j, complex(1e-300, 30), complex(inf, 0), complex(inf, 1),
                  complex(-inf, -1), complex(0, inf), complex(0, -inf), complex(nan, 0), complex(inf, inf)])
    erf = mg.erf(mg.tensor(z)).numpy()
    np.testing.assert_array_equal(erf[:2], [math.erf(2.0), math.erf(-0.5)])  # the real kernel's values
    assert erf[2].real == 0 and erf[2].imag == pytest.approx(sc.erfi(3.0), rel=1e-14)  # erf(iy) = i erfi(y)
    assert erf[3] == complex(0, -inf)
    assert erf[4].real == pytest.approx(2 / math.sqrt(math.pi) * math.exp(900 + math.log(1e-300)), rel=1e-12)
    np.testing.assert_array_equal(erf[5:10], [1, 1, -1, complex(0, inf), complex(0, -inf)])
    assert np.isnan(erf[10].real) and erf[10].imag == 0 and np.isnan(erf[11]).all()
    erfc = mg.special.erfc(mg.tensor(z)).numpy()
    assert erfc[2].real == 1 and erfc[2].imag == pytest.approx(-sc.erfi(3.0), rel=1e-14)
    np.testing.assert_array_equal(erfc[5:10], [0, 0, 2, complex(1, -inf), complex(1, inf)])


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_complex64_in_complex64_arithmetic_on_the_strict_device(name):
    ours, theirs = FUNCTIONS[name]
    z = (RNG.uniform(-4, 4, 400) + 1j * RNG.uniform(-4, 4, 400)).astype(np.complex64)
    got = ours(mg.tensor(z)).numpy()
    assert got.dtype == np.complex64
    want = theirs(z.astype(np.complex128))
    assert np.all(np.abs(got - want) <= 2e-5 * np.maximum(np.abs(want), 1) * np.maximum(1, np.abs(z) ** 2))
    strict = ours(mg.tensor(z, device="strict-f32")).to("cpu").numpy()  # no complex128 anywhere
    np.testing.assert_allclose(strict, got, rtol=4 * np.finfo(np.float32).eps, atol=0)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_gradients_jvps_and_second_derivatives(name):
    ours, _ = FUNCTIONS[name]
    z = mg.tensor(RNG.uniform(-2, 2, 5) + 1j * RNG.uniform(-2, 2, 5), requires_grad=True)
    assert gradcheck(ours, (z,), modes=("rev", "fwd"))
    assert gradgradcheck(ours, (z,), modes=("rev", "fwd"))
    # a real loss: the gradient is dL/dRe + i dL/dIm = conj(f'(z)) for L = Re f(z)
    (g,) = mg.grad(mg.real(ours(z)).sum(), [z])
    slope = 2 / math.sqrt(math.pi) * np.exp(-z.detach().numpy() ** 2) * (1 if name == "erf" else -1)
    np.testing.assert_allclose(g.numpy(), np.conj(slope), rtol=1e-13)
    _, tangent = mg.func.jvp(ours, (z.detach(),), (mg.ones_like(z.detach()),))
    np.testing.assert_allclose(tangent.numpy(), slope, rtol=1e-13)


def test_ndtr_of_complex_numbers_follows():
    z = RNG.uniform(-3, 3, 50) + 1j * RNG.uniform(-3, 3, 50)
    np.testing.assert_allclose(mg.special.ndtr(mg.tensor(z)).numpy(), sc.ndtr(z), rtol=1e-13, atol=1e-15)


def test_a_complex_number_from_an_infinite_imaginary_part():
    """``complex(re, +-inf)``: ``im * 1j`` made the real part ``inf * 0 = NaN``."""
    z = mg.complex(mg.tensor([1.0, -2.0, 3.0]), mg.tensor([math.inf, -math.inf, 0.5])).numpy()
    np.testing.assert_array_equal(z, np.array([complex(1, math.inf), complex(-2, -math.inf), 3 + 0.5j]))


def test_scipy_logsumexp_of_complex_numbers_with_weights_and_sign():
    """special.logsumexp with b= (or return_sign=) on complex input compared the sum with 0
    and raised 'less: complex numbers have no order'; SciPy answers the principal complex log,
    and with return_sign the real log|sum| and the phase. SciPy 1.17's values:
    logsumexp(a, b=b), logsumexp(a, b=b, return_sign=True), logsumexp(a, return_sign=True)."""
    a = mg.tensor([1 + 3j, 1 - 3j, 0.9 - 2.5j], dtype="complex128")
    b = mg.tensor([1.0, 2.0, 0.5], dtype="float64")
    np.testing.assert_allclose(mg.special.logsumexp(a, b=b).numpy(), 2.2112821395621234 - 3.0186188183265017j)
    value, sign = mg.special.logsumexp(a, b=b, return_sign=True)
    np.testing.assert_allclose(value.numpy(), 2.2112821395621234)
    np.testing.assert_allclose(sign.numpy(), -0.9924482419493847 - 0.12266412291935862j)
    value, sign = mg.special.logsumexp(a, return_sign=True)
    np.testing.assert_allclose(value.numpy(), 2.014710052150295)
    np.testing.assert_allclose(sign.numpy(), -0.9805428697821879 - 0.19630507002956277j)
    z = mg.tensor(a.numpy(), requires_grad=True)
    w = mg.tensor(b.numpy() + 0.5j, requires_grad=True)
    assert gradgradcheck(lambda t, u: mg.special.logsumexp(t, b=u), (z, w))
