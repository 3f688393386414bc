"""Implicit reparameterization of the gamma draw, PyTorch's: a draw ``x`` of ``Gamma(alpha, 1)`` moves
with ``alpha`` as ``dx/dalpha = -(dP(alpha, x)/dalpha) / p(alpha, x)`` (``P`` the CDF, ``p`` the
density), so that ``P(alpha, x)`` -- the uniform the draw stands for -- stays put.  PyTorch does not
differentiate the incomplete gamma function in ``alpha``; it approximates this quotient in three
regions (``standard_gamma_grad_one`` in ATen's ``Distributions.h``, Jankowiak and Obermeyer 2018),
and ``standard_gamma_grad`` below is that approximation, term for term, written with the engine's
ops (within 1e-13 of ``torch._standard_gamma_grad`` in float64).  A Dirichlet draw, normalized gammas,
moves as PyTorch's: each coordinate ``x_i`` by the implicit gradient of its Beta(``alpha_i``, ``total -
alpha_i``) marginal (``dirichlet_grad``: PyTorch's ``dirichlet_grad_one``, its four regions likewise,
within 1e-12 of ``torch._dirichlet_grad``), and the simplex's constraint spreads it over the others.

``reparameterized`` joins a draw made without gradient to its parameter: its value is the draw,
exactly, and its gradient in the parameter is the quotient -- a composition of recorded ops, so it
serves ``backward``, the ``mg.func`` transforms and checkpointing alike."""

from __future__ import annotations

from ..backend import host_numpy
from ..functional.elementwise import where
from ..grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["standard_gamma_grad", "dirichlet_grad", "reparameterized", "reparameterized_on_simplex", "widened"]


def widened(t: Tensor) -> Tensor:
    """``t`` in float64 where PyTorch's CPU kernels of the gamma family work in double: a float32
    (float16, bfloat16) tensor on the host.  Elsewhere ``t`` itself: a float32-only device has no
    float64, and PyTorch's CUDA kernels stay in the tensor's own dtype too."""
    if t.device.type == "cpu" and str(t.dtype) in ("float16", "bfloat16", "float32"):
        return t.double()
    return t

# PyTorch's bivariate rational approximation of log(dx/dalpha) in u = log(x / alpha), v = log(alpha):
# row k holds the coefficients of u^k; columns 0-3 the numerator's powers of v, 4-7 the denominator's.
_RATIONAL = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07),
)


def _small_x(alpha: Tensor, x: Tensor) -> Tensor:
    """``x < 0.8``: the CDF and its ``alpha``-derivative by six terms of their Taylor series in ``x``
    (NaN, where the density underflows, read as 0, as PyTorch's)."""
    numer, denom = x * 0 + 1, alpha
    series1, series2 = numer / denom, numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        series1, series2 = series1 + numer / denom, series2 + numer / (denom * denom)
    pow_x_alpha = x.pow(alpha)
    pdf = x.pow(alpha - 1) * (-x).exp()
    cdf_alpha = (x.log() - alpha.digamma()) * (pow_x_alpha * series1) - pow_x_alpha * series2
    result = -cdf_alpha / pdf
    return where(result.isnan(), 0.0, result)


def _large_alpha(alpha: Tensor, x: Tensor) -> Tensor:
    """``alpha > 8``: Rice's saddle-point expansion, with its polynomial form within 10% of the mean
    (where the expansion's terms are singular)."""
    numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
    numer_2 = 1440 * alpha * alpha + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
    near = numer_1 * numer_2 / (1244160 * alpha.pow(4))
    denom = (8 * alpha).sqrt()
    term2 = denom / (alpha - x)
    term3 = (x - alpha - alpha * (x / alpha).log()).pow(-1.5)
    term23 = where(x < alpha, term2 - term3, term2 + term3)
    term1 = (x / alpha).log() * term23 - (2 / alpha).sqrt() * (alpha + x) / ((alpha - x) * (alpha - x))
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    far = -stirling * x * term1 / denom
    return where((0.9 * alpha <= x) & (x <= 1.1 * alpha), near, far)


def _rational(alpha: Tensor, x: Tensor) -> Tensor:
    """Elsewhere: ``exp(p(u, v) / q(u, v))``, PyTorch's fitted rational function."""
    u, v = (x / alpha).log(), alpha.log()
    coef = [_RATIONAL[0][i] + u * (_RATIONAL[1][i] + u * _RATIONAL[2][i]) for i in range(8)]
    p = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]))
    q = coef[4] + v * (coef[5] + v * (coef[6] + v * coef[7]))
    return (p / q).exp()


def standard_gamma_grad(alpha: Tensor, x: Tensor) -> Tensor:
    """``dx/dalpha`` for draws ``x`` of ``Gamma(alpha, 1)`` (PyTorch's ``_standard_gamma_grad``), not
    recorded.  Every region is computed everywhere and the right one picked per element (as a GPU
    would), so the others' overflows and NaNs are discarded, never seen (nor warned of)."""
    with no_grad(), host_numpy.errstate(all="ignore"):
        dtype = x.dtype  # worked in double on the host, as PyTorch's (float32's regions lost 1e-4)
        alpha, x = widened(alpha.detach()), widened(x.detach())
        result = where(x < 0.8, _small_x(alpha, x), where(alpha > 8, _large_alpha(alpha, x), _rational(alpha, x)))
        return result.to(dtype)


def reparameterized(draw: Tensor, parameter: Tensor, derivative: Tensor) -> Tensor:
    """``draw`` (made without gradient), with ``derivative`` as its gradient in ``parameter``:
    ``draw + (parameter - parameter.detach()) * derivative``, whose value is ``draw`` bit for bit
    (the difference is an exact 0; a non-finite derivative is taken as 0 so as not to make it NaN)."""
    with no_grad():
        derivative = where(derivative.isfinite(), derivative, 0.0)
    return draw + (parameter - parameter.detach()) * derivative


# PyTorch's rational correction for the Dirichlet gradient: [numerator, denominator][power of u][power
# of a][power of b], in u = log x, a = log(alpha) - u, b = log(total) - a.
_DIRICHLET_RATIONAL = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)


def _beta_alpha_small(x: Tensor, alpha: Tensor, beta: Tensor) -> Tensor:
    """``x`` near 0: eleven terms of the Taylor series in ``x`` of the gradient in ``alpha``."""
    factor = alpha.digamma() - (alpha + beta).digamma() - x.log()
    numer = x * 0 + 1
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * (i - beta) * x / i
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * (1 - x).pow(-beta) * series
    return where(result.isnan(), 0.0, result)


def _beta_beta_small(x: Tensor, alpha: Tensor, beta: Tensor) -> Tensor:
    """``x`` near 0: nine terms of the Taylor series in ``x`` of the gradient in ``beta``."""
    factor = (alpha + beta).digamma() - beta.digamma()
    numer, betas, dbetas, series = x * 0 + 1, x * 0 + 1, x * 0, factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas, betas = dbetas * (beta - i) + betas, betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -(1 - x).pow(1 - beta) * series
    return where(result.isnan(), 0.0, result)


def _beta_alpha_mid(x: Tensor, alpha: Tensor, beta: Tensor) -> Tensor:
    """``alpha``, ``beta`` both above 6: Rice's saddle-point expansion, its polynomial form within a
    tenth of a standard deviation of the mean."""
    total = alpha + beta
    mean, std = alpha / total, (alpha * beta / (total + 1)).sqrt() / total
    b2 = beta * beta
    poly = 47 * x * b2 * b2 + alpha * ((43 + 20 * (16 + 27 * beta) * x) * b2 * beta + alpha * (
        3 * (59 + 180 * beta - 90 * x) * b2 + alpha * ((453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
            8 * (1 - x) * (135 * beta - 11)))))
    near = ((1 + 12 * alpha) * (1 + 12 * beta) / (total * total) / (1 - x) * poly
            / (12960 * alpha.pow(3) * b2 * (1 + 12 * total)))
    prefactor = -x / (2 * alpha * beta / total).sqrt()
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * b2))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    axbx = alpha * (x - 1) + beta * x
    term1 = ((2 * alpha * alpha * (x - 1) + alpha * beta * (x - 1) - x * b2)
             / ((2 * alpha / beta).sqrt() * total.pow(1.5) * axbx * axbx))
    term2 = 0.5 * (alpha / (total * x)).log()
    term3 = (8 * alpha * beta / total).sqrt() / axbx
    term4 = (beta * (beta / (total * (1 - x))).log() + alpha * (alpha / (total * x)).log()).pow(-1.5)
    far = stirling * prefactor * (term1 + term2 * (term3 + where(x < mean, term4, -term4)))
    return where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


def _beta_rational(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """Elsewhere: PyTorch's rational correction to ``x (digamma(total) - digamma(alpha)) / beta``."""
    u = x.log()
    a = alpha.log() - u
    b = total.log() - a
    p = q = x * 0
    for i, u_power in enumerate((1, u, u * u)):
        for j, a_power in enumerate((1, a, a * a)):
            ua = u_power * a_power
            cp, cq = _DIRICHLET_RATIONAL[0][i][j], _DIRICHLET_RATIONAL[1][i][j]
            p = p + ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q = q + ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    return p / q * (x * (total.digamma() - alpha.digamma()) / (total - alpha))


def dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """PyTorch's ``_dirichlet_grad``: ``-(dI_x(alpha, beta)/dalpha) / density / (1 - x)`` for ``x`` a
    draw of Beta(``alpha``, ``beta = total - alpha``), not recorded; the region picked per element (the
    others' overflows discarded, unwarned)."""
    with no_grad(), host_numpy.errstate(all="ignore"):
        # worked in double on the host, as PyTorch's: in float32 Rice's expansion (both concentrations
        # above 6) was off by up to 1% of torch's gradient
        dtype = x.dtype
        x, alpha, total = widened(x.detach()), widened(alpha.detach()), widened(total.detach())
        beta, boundary = total - alpha, total * x * (1 - x)
        inner = where((alpha > 6) & (beta > 6), _beta_alpha_mid(x, alpha, beta), _beta_rational(x, alpha, total))
        near_one = where((x >= 0.5) & (boundary < 0.75), -_beta_beta_small(1 - x, beta, alpha), inner)
        return where((x <= 0.5) & (boundary < 2.5), _beta_alpha_small(x, alpha, beta), near_one).to(dtype)


def reparameterized_on_simplex(draw: Tensor, concentration: Tensor, derivative: Tensor) -> Tensor:
    """A Dirichlet ``draw`` (last dim the simplex's) with PyTorch's backward: the gradient ``g`` reaches
    ``concentration`` as ``derivative * (g - sum(draw * g))``.  ``s = (c - c.detach()) * derivative`` is
    an exact 0, so the value is ``draw``; its vector-Jacobian product is that one."""
    with no_grad():
        derivative = where(derivative.isfinite(), derivative, 0.0)
    shift = (concentration - concentration.detach()) * derivative
    return draw + shift - draw * shift.sum(-1, keepdim=True)
