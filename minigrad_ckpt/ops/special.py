"""Special functions: log-gamma, digamma and polygamma, gamma, the error function
and its complement, their inverses, logit, xlogy/xlog1py and log-beta --
SciPy's ``scipy.special`` names, without SciPy.

Each function is a *kernel* (``backend.register_kernel``) written with array
namespace functions only, so it runs on NumPy, CuPy and the strict device
alike, plus an op that differentiates it (the derivative of one special
function is another: ``gammaln' = digamma``, ``digamma' = polygamma(1, .)``).
Accuracy in float64, checked against SciPy in ``tests/test_special.py``:

============  =========================================  ======================
function      method                                     relative error
============  =========================================  ======================
gammaln       Cephes' rational approximation on [2, 3)   <= 1e-12 for x > 0
              and Stirling's series; Taylor series of    (near its zeros 1, 2
              ln Gamma(1 + t) within 0.2 of 1 and 2      too); x < 0: reflection
digamma       recurrence up to x >= 10 and the           <= 1e-12 for x > 0
              asymptotic series; Taylor series around    (near its zero too);
              its positive zero x0 = 1.4616...           x < 0: reflection
polygamma     (-1)^(n+1) n! zeta(n + 1, x), Hurwitz      <= 1e-12 for x > 0
              zeta by Euler-Maclaurin summation
gamma         exp(gammaln), reflection for x < 0         <= 1e-12 (x <= 171)
erf           Cephes' rational approximations (one       within 3 ulp
              table of coefficients for erf and erfc)
erfc          Cephes' erf/erfc rational approximations   <= 1e-12 (x < 26.5)
erf, erfc     the Faddeeva function w by Weideman's      ~1e-14 of |erf(z)| (and
of complex z  rational approximation; Taylor near 0 and  erf's condition number
              near the imaginary axis                    ~2|z|^2)
erfinv,       Wichura's AS241 rational approximations    ~1e-15 on (-1, 1) /
erfcinv       and one Halley step on erf (erfc in the    (0, 2)
              tails; Newton on ln erfc where it is tiny)
betaln        gammaln, or Stirling differences for large <= 1e-12 off the zeros
              arguments (no cancellation of huge terms)  of betaln
============  =========================================  ======================
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from ..backend import half_in_float32, host_numpy, register_kernel
from .elementwise import _CONST, BinaryElementwise, UnaryElementwise, divided_by_local, in_cache_sized_pieces
from .elementwise import horner as _horner

_LS2PI = 0.5 * math.log(2 * math.pi)
_EULER = 0.5772156649015329
_SQRT_PI_2 = math.sqrt(math.pi) / 2
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _sinpi(xp: Any, x: Any) -> Any:
    """``sin(pi x)``, exact at the integers and accurate for large ``|x|``."""
    r = x - xp.round(x)  # in [-1/2, 1/2]; sin(pi x) = (-1)^round(x) sin(pi r)
    sign = 1 - 2 * xp.mod(xp.round(x), 2)
    return sign * xp.sin(math.pi * r)


def _tanpi(xp: Any, x: Any) -> Any:
    """``tan(pi x)`` from ``x`` reduced to [-1/2, 1/2] (period 1)."""
    return xp.tan(math.pi * (x - xp.round(x)))


# ------------------------------------------------------------------ log-gamma
_LGAM_A = (8.11614167470508450300e-4, -5.95061904284301438324e-4, 7.93650340457716943945e-4,
           -2.77777777730099687205e-3, 8.33333333333331927722e-2)
_LGAM_B = (-1.37825152569120859100e3, -3.88016315134637840924e4, -3.31612992738871184744e5,
           -1.16237097492762307383e6, -1.72173700820839662146e6, -8.53555664245765465627e5)
_LGAM_C = (1.0, -3.51815701436523470549e2, -1.70642106651881159223e4, -2.20528590553854454839e5,
           -1.13933444367982507207e6, -2.53252307177582951285e6, -2.01889141433532773231e6)
# zeta(2), zeta(3), ...: ln Gamma(1 + t) = -gamma t + sum_k>=2 (-1)^k zeta(k) t^k / k
_ZETA = (1.6449340668482264, 1.2020569031595942, 1.0823232337111381, 1.03692775514337, 1.0173430619844492,
         1.008349277381923, 1.0040773561979444, 1.0020083928260821, 1.000994575127818, 1.0004941886041194,
         1.000246086553308, 1.0001227133475785, 1.0000612481350588, 1.000030588236307, 1.0000152822594086,
         1.0000076371976379, 1.000003817293265, 1.0000019082127165, 1.0000009539620338, 1.0000004769329869,
         1.0000002384505027, 1.000000119219926, 1.000000059608189)


# the series' coefficients (-1)^k zeta(k) / k, highest power first
_LGAM1P = tuple((-1) ** k * z / k for k, z in reversed(list(zip(range(2, 2 + len(_ZETA)), _ZETA))))


def _lgamma1p_series(t: Any) -> Any:
    """``ln Gamma(1 + t)`` for ``|t| <= 0.2`` (terms fall like 0.2^k: 24 suffice)."""
    return t * (_horner(_LGAM1P, t) * t - _EULER)


def _gammaln_positive(xp: Any, x: Any) -> Any:
    """``ln Gamma(x)`` for ``x > 0`` (Cephes' lgam, plus series near the zeros 1 and 2): below 13
    and from 13 on (Stirling's series), each on its own elements."""
    big = x >= 13
    small = _only_where(xp, xp.logical_not(big), lambda v: _gammaln_below_13(xp, v), x)
    return xp.where(big, _only_where(xp, big, lambda v: _gammaln_stirling(xp, v), x), small)


def _gammaln_below_13(xp: Any, x: Any) -> Any:
    """``ln Gamma(x)`` for ``0 < x < 13``: ``Gamma(x) = Gamma(u) z`` with ``u`` in [2, 3), at most
    10 steps down or 2 up, ``z`` the product of the factors (below ``12! / 2``: no overflow) and one
    log of it (not a log a step); near the zeros 1 and 2 the Taylor series of ``ln Gamma(1 + t)``, where the
    sum below cancels.  (Below ``x = 2^-60``, where ``1 / x`` may overflow, ``gammaln`` answers
    ``-ln x`` itself.)"""
    u = x
    z = x * 0 + 1
    for _ in range(10):
        down = u >= 3
        u = xp.where(down, u - 1, u)  # exact: u - 1 keeps its bits
        z = xp.where(down, z * u, z)
    # up: Gamma(x) = Gamma(x + 1) / x (and / (x + 1) below 1), u = x + 1 + 1 as before; the
    # divisor's log, not its reciprocal's (1 / x would round once more)
    up = x < 2
    z = xp.where(up, xp.where(x < 1, x * (x + 1), x), z)
    u = xp.where(up, xp.where(x < 1, (x + 1) + 1, x + 1), u)
    logz = xp.log(z)
    t = u - 2
    small = xp.where(up, -logz, logz) + t * _horner(_LGAM_B, t) / _horner(_LGAM_C, t)
    near = (xp.abs(x - 1) <= 0.2) | (xp.abs(x - 2) <= 0.2)
    return xp.where(near, _only_where(xp, near, lambda v: _gammaln_near_its_zeros(xp, v), x), small)


def _gammaln_near_its_zeros(xp: Any, x: Any) -> Any:
    """``ln Gamma(x)`` within 0.2 of 1 or 2: ``ln Gamma(1 + t)``'s Taylor series, plus ``ln(1 + t)``
    near 2."""
    two = xp.abs(x - 2) <= 0.2
    t = xp.where(two, x - 2, x - 1)
    return _lgamma1p_series(t) + xp.where(two, xp.log1p(t), 0)


def _gammaln_stirling(xp: Any, x: Any) -> Any:
    """``ln Gamma(x)`` for ``x >= 13``: Stirling's series."""
    p = 1 / (x * x)
    return (x - 0.5) * xp.log(x) - x + _LS2PI + _horner(_LGAM_A, p) / x


@register_kernel
@half_in_float32
def gammaln(xp, x):
    """``ln |Gamma(x)|`` (``xp.gammaln``); +inf at 0, the negative integers and +-inf."""
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pos = x > 0
        xs = xp.where(pos, x, 1 - x)  # reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x)
        lg = _gammaln_positive(xp, xs)
        s = _only_where(xp, xp.logical_not(pos), lambda v: xp.abs(_sinpi(xp, v)), x)
        neg = math.log(math.pi) - xp.log(xp.where(pos, 1, s)) - lg
        r = xp.where(pos, lg, xp.where(s == 0, xp.inf, neg))
        # Near 0, ln|Gamma(x)| = -ln|x| - 0.5772 x + ...: exact to round-off below 2^-60, where
        # sin(pi x) of a subnormal x has lost the digits the reflection needs (4% at 5e-324)
        r = xp.where(xp.abs(x) < 2.0 ** -60, -xp.log(xp.abs(x)), r)
        # +inf at -inf as C's lgamma, Python's math.lgamma and PyTorch (SciPy says -inf: |Gamma|
        # falls towards 0 between the poles, but it has a pole at every integer on the way)
        return xp.where(xp.isnan(x), x, xp.where(xp.isinf(x), xp.abs(x), r))


# -------------------------------------------------------------------- digamma
_X0_HI, _X0_LO = 1.4616321449683622, 9.549995429965697e-17  # the positive zero of digamma
# psi^(k)(x0) / k! = (-1)^(k+1) zeta(k + 1, x0): the Taylor coefficients of psi around x0
_PSI_X0 = (0.9676722454476212, -0.4427631689835921, 0.258499760955651, -0.16394270544240652,
           0.10782405069126237, -0.07219956125645471, 0.04880428816414311, -0.03316112647484736,
           0.022597648232218104, -0.01542476590494896, 0.010538791616612175, -0.007204534386356869,
           0.004926781395729853, -0.003369801655439328, 0.002305126326734928, -0.0015769367714301972,
           0.0010788252019162967, -0.0007380709389960052, 0.000504953265834602, -0.0003454680251063077,
           0.00023635601564027053, -0.00016170622091974803, 0.0001106337276874741)
# psi(x) ~ ln x - 1/(2x) - sum B_2k / (2k x^2k), for x >= 10
_PSI_ASYMP = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def _digamma_positive(xp: Any, x: Any) -> Any:
    """``psi(x)`` for ``x > 0``: the asymptotic series from 10 on, below it at ``x + 10`` less
    ``sum_k<10 1 / (x + k)`` (``psi(x) = psi(x + 1) - 1/x``; ten steps on every such element, not
    a masked step each, and summed smallest first); near the zero ``x0`` the Taylor series around
    it, where the recurrence cancels."""
    low = x < 10
    u = xp.where(low, x + 10, x)
    z = 1 / (u * u)
    r = xp.log(u) - 0.5 / u - z * _horner(_PSI_ASYMP[::-1], z)
    r = r - _only_where(xp, low, lambda v: _reciprocals_to_10(xp, v), x)
    d = (x - _X0_HI) - _X0_LO
    near = xp.abs(d) < 0.25
    return xp.where(near, _only_where(xp, near, lambda v: v * _horner(_PSI_X0[::-1], v), d), r)


def _reciprocals_to_10(xp: Any, x: Any) -> Any:
    """``sum_k<10 1 / (x + k)``, the smallest terms first."""
    total = 1 / (x + 9)
    for k in range(8, -1, -1):
        total = total + 1 / (x + k)
    return total


@register_kernel
@half_in_float32
def digamma(xp, x):
    """``psi(x) = d/dx ln Gamma(x)`` (``xp.digamma``); -inf at +0 and +inf at -0 (the pole's two
    sides, as SciPy and PyTorch), NaN at negative integers."""
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pos = x > 0
        xs = xp.where(pos, x, 1 - x)  # reflection: psi(1 - x) - psi(x) = pi / tan(pi x)
        p = _digamma_positive(xp, xs)
        neg = p - _only_where(xp, xp.logical_not(pos), lambda v: math.pi / _tanpi(xp, v), x)
        at_int = x == xp.round(x)
        pole = -1 / x  # at +-0: -inf at +0, +inf at -0 (in x's dtype)
        r = xp.where(pos, p, xp.where(x == 0, pole, xp.where(at_int, xp.nan, neg)))
        r = xp.where(x == xp.inf, xp.inf, r)
        return xp.where(xp.isnan(x), x, r)


# ------------------------------------------------------------------ polygamma
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798,
              -174611 / 330, 854513 / 138, -236364091 / 2730, 8553103 / 6, -23749461029 / 870)  # B_2 .. B_28


def _hurwitz_zeta(xp: Any, s: int, x: Any) -> Any:
    """``zeta(s, x) = sum_k>=0 (x + k)^-s`` for an integer ``s >= 2`` and ``x > 0``:
    ``N = 16 + s`` terms summed, the rest by Euler-Maclaurin (14 Bernoulli terms)."""
    n = 16 + s
    total = x * 0
    # xp.power, not **: NumPy's ** takes shortcuts for some exponents on arrays but not on
    # scalars, and 0-d results must not depend on the array type by an ulp
    for k in range(n):
        total = total + xp.power(x + k, -s)
    a = x + n
    total = total + xp.power(a, 1 - s) / (s - 1) + 0.5 * xp.power(a, -s)
    rising = float(s)  # s (s + 1) ... (s + 2j - 2)
    fact = 2.0  # (2j)!
    term_pow = xp.power(a, -s - 1)
    inv_a2 = 1 / (a * a)
    for j, b in enumerate(_BERNOULLI, start=1):
        total = total + (b / fact * rising) * term_pow
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
        term_pow = term_pow * inv_a2
    return total


@register_kernel
@half_in_float32
def polygamma(xp, n, x):
    """``psi^(n)(x)``, the n-th derivative of digamma (``xp.polygamma``), for every real ``x``:
    the Hurwitz zeta for ``x > 0``, the reflection formula below 0; poles at 0, -1, -2, ...
    and -inf (their limit): +inf for odd ``n``, -inf for even -- the value from above the pole,
    as SciPy and PyTorch (whose trigamma alone is finite at -1, -2, ...); 0 at +inf, -0 for even
    ``n`` (SciPy's; PyTorch's is NaN beyond n = 1)."""
    if n == 0:
        return digamma(xp, x)
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pos = x > 0
        scale = (-1) ** (n + 1) * math.factorial(n)
        r = scale * _hurwitz_zeta(xp, n + 1, xp.where(pos, x, 1))
        # x < 0: the reflection psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi d^n/dx^n cot(pi x)
        mirrored = (-1) ** n * scale * _hurwitz_zeta(xp, n + 1, xp.where(pos, 1, 1 - x))
        neg = mirrored - math.pi ** (n + 1) * _horner(_cot_derivative(n), _cotpi(xp, xp.where(pos, 0.5, x)))
        # psi^(n)(x) ~ (-1)^(n+1) n! / (x - k)^(n+1) at a pole k <= 0: its value from above
        # (for even n the sign flips across the pole; -inf is SciPy's and PyTorch's, and the engine's at 0)
        at_pole = xp.inf if n % 2 else -xp.inf
        r = xp.where(pos, r, xp.where(x == xp.round(x), at_pole, neg))
        # just below 0 the pole's term (-1)^(n+1) n! / x^(n+1) is all (exact to round-off below
        # 2^-60); the reflection's cot(pi x) overflows there (a subnormal x) and its polynomial is NaN
        r = xp.where((x < 0) & (x > -(2.0 ** -60)), scale * xp.power(xp.where(pos, -1, x), -(n + 1)), r)
        # each where keeps an array of x's dtype as a branch (two Python scalars would make float64)
        r = xp.where(x == 0, at_pole, r)
        return xp.where(x == xp.inf, 0.0 if n % 2 else -0.0, xp.where(x == -xp.inf, at_pole, r))


def _cot_derivative(n: int) -> tuple[float, ...]:
    """``P_n`` with ``d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x))`` (highest power first):
    ``P_0 = c`` and ``P_{k+1} = -(1 + c^2) P_k'``."""
    p = [0.0, 1.0]  # lowest power first while building
    for _ in range(n):
        d = [i * p[i] for i in range(1, len(p))] or [0.0]
        p = [0.0] * (len(d) + 2)
        for i, c in enumerate(d):
            p[i] -= c
            p[i + 2] -= c
    return tuple(reversed(p))


def _cotpi(xp: Any, x: Any) -> Any:
    """``cot(pi x)`` from ``x`` reduced to [-1/2, 1/2] (period 1).  Beyond ``|r| = 1/4`` it is
    ``tan(pi (1/2 - |r|))`` with the sign of ``r``: ``1/2 - |r|`` is exact, so cot keeps its digits
    near its zero at the half-integers, where ``cos(pi r)`` keeps only those of ``pi`` (float32's
    ``cos(pi / 2)`` is 4e-8, which cost ``polygamma(4, -2.5)`` its third digit)."""
    r = x - xp.round(x)
    a = xp.abs(r)
    return xp.where(a > 0.25, xp.sign(r) * xp.tan(math.pi * (0.5 - a)), xp.cos(math.pi * r) / xp.sin(math.pi * r))


def _gamma_positive_f32(xp: Any, x: Any) -> Any:
    """``Gamma(x)`` for ``x > 0`` in float32 arithmetic: ``Gamma(u)`` for ``u`` in [2, 3) times the
    recurrence's factors (up to 33 roundings, ~1e-6), not ``exp(ln Gamma)``, whose ``ln Gamma``
    rounding (7.6e-6 near 68) exp turns into a 1e-5 relative error.  Beyond 35.04 it overflows."""
    u = xp.minimum(x, 36.0)
    factor = u * 0 + 1
    for _ in range(34):
        down = u >= 3
        u = xp.where(down, u - 1, u)
        factor = xp.where(down, factor * u, factor)
    for _ in range(2):
        up = u < 2
        factor = xp.where(up, factor / u, factor)
        u = xp.where(up, u + 1, u)
    return xp.exp(_gammaln_positive(xp, u)) * factor


@register_kernel
@half_in_float32
def gamma(xp, x):
    """``Gamma(x)`` (``xp.gamma``): ``exp(gammaln)`` with the sign of the reflection
    for ``x < 0``; +inf at 0, NaN at the negative integers, +inf beyond 171.6."""
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pos = x > 0
        xs = xp.where(pos, x, 1 - x)
        g = _gamma_positive_f32(xp, xs) if x.dtype == "float32" else xp.exp(_gammaln_positive(xp, xs))
        s = _sinpi(xp, xp.where(pos, 0.5, x))
        neg = math.pi / (s * g)
        r = xp.where(pos, g, xp.where(x == 0, xp.inf, xp.where(s == 0, xp.nan, neg)))
        r = xp.where(x == xp.inf, xp.inf, xp.where(x == -xp.inf, xp.nan, r))
        return xp.where(xp.isnan(x), x, r)


# ------------------------------------------------------------------ erf, erfc
# Cephes ndtr.c (highest power first; Q, U and S have a leading 1): erf(x) = x T(x^2)/U(x^2)
# for |x| < 1; erfc(x) = exp(-x^2) P(x)/Q(x) for 1 <= x < 8 and exp(-x^2) R(x)/S(x) beyond.
_ERF_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
          7.00332514112805075473e3, 5.55923013010394962768e4)
_ERF_U = (1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
          2.26290000613890934246e4, 4.92673942608635921086e4)
_ERFC_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
           4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
           9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2)
_ERFC_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
           9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
           1.65666309194161350182e3, 5.57535340817727675546e2)
_ERFC_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
           6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0)
_ERFC_S = (1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1,
           1.70814450747565897222e1, 9.60896809063285878198e0, 3.36907645100081516050e0)


@register_kernel
@half_in_float32
@in_cache_sized_pieces
def erf(xp, x):
    """The error function (NumPy has none), within 3 ulp in float64 (``xp.erf``).

    ``x T(x^2)/U(x^2)`` for ``|x| < 1``, else ``1 - exp(-x^2) P(|x|)/Q(|x|)``.
    (Cephes switches to ``R/S`` beyond 8, where ``erfc`` is below 1e-28: ``erf`` is 1
    to double precision there, and the P/Q tail underflows to exactly that.)
    Complex ``x``: :func:`_erf_complex`.
    """
    if x.dtype.kind == "c":
        return _erf_complex(xp, x)
    x = xp.clip(x, -6.0, 6.0)  # erf is +-1 to double precision from |x| = 6 on; the tail would overflow
    a = xp.abs(x)
    z = x * x
    small = x * _horner(_ERF_T, z) / _horner(_ERF_U, z)
    with xp.errstate(over="ignore", under="ignore", invalid="ignore"):
        tail = xp.exp(-z) * _horner(_ERFC_P, a) / _horner(_ERFC_Q, a)
    big = xp.where(x < 0, tail - 1, 1 - tail)
    return xp.where(a < 1, small, big).astype(x.dtype, copy=False)


@register_kernel
@half_in_float32
def erfc(xp, x):
    """``1 - erf(x)`` without cancellation (``xp.erfc``): ``exp(-x^2) P/Q`` below 8,
    ``exp(-x^2) R/S`` above, ``1 - erf`` for ``|x| < 1``; relative accuracy up to the underflow.
    Complex ``x``: :func:`_erfc_complex`."""
    if x.dtype.kind == "c":
        return _erfc_complex(xp, x)
    a = xp.minimum(xp.abs(x), 28.0)  # erfc underflows to 0 from 27.3 on; beyond, the tails would overflow
    with xp.errstate(over="ignore", under="ignore", invalid="ignore"):
        e = xp.exp(-(a * a))
        mid = e * _horner(_ERFC_P, a) / _horner(_ERFC_Q, a)
        far = e * _horner(_ERFC_R, a) / _horner(_ERFC_S, a)
        tail = xp.where(a < 8, mid, far)
        tail = xp.where(x < 0, 2 - tail, tail)
        r = xp.where(a < 1, 1 - xp.erf(x), tail)
        r = xp.where(x == xp.inf, 0, xp.where(x == -xp.inf, 2, r))
    return xp.where(xp.isnan(x), x, r)


# ---------------------------------------------- complex erf, erfc: the Faddeeva function
def _weideman_table(n: int) -> tuple[float, tuple[float, ...]]:
    """``L`` and the ``n`` coefficients (highest power first) of Weideman's rational approximation
    of the Faddeeva function ``w(z) = exp(-z^2) erfc(-iz)`` (SIAM J. Numer. Anal. 31, 1994):
    ``w(z) = 2 p(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz))`` with ``Z = (L + iz) / (L - iz)``
    for ``Im z >= 0``, ``p`` fitted by an FFT of ``exp(-t^2) (L^2 + t^2)`` sampled at
    ``t = L tan(theta / 2)``.  Computed once, on the host, in float64."""
    m = 2 * n
    k = host_numpy.arange(-m + 1, m)
    big_l = math.sqrt(n / math.sqrt(2))
    t = big_l * host_numpy.tan(k * math.pi / m / 2)
    f = host_numpy.concatenate([[0.0], host_numpy.exp(-t * t) * (big_l ** 2 + t * t)])
    a = host_numpy.real(host_numpy.fft.fft(host_numpy.fft.fftshift(f))) / (2 * m)
    return big_l, tuple(float(c) for c in a[n:0:-1])


# n = 40: within 1.5e-14 of SciPy's wofz (relative to |w|) over the upper half plane
_W_L, _W_COEFFS = _weideman_table(40)
_INV_SQRT_PI = 1 / math.sqrt(math.pi)
# erf(z) = 2/sqrt(pi) z sum_n (-z^2)^n / (n! (2n + 1)), highest power of z^2 first
_ERF_TAYLOR = tuple(_TWO_OVER_SQRT_PI * (-1) ** k / (math.factorial(k) * (2 * k + 1)) for k in range(15, -1, -1))


def _faddeeva_upper(xp: Any, z: Any) -> Any:
    """``w(z)`` for ``Im z >= 0`` (Weideman's approximation, :func:`_weideman_table`).  Complex
    arithmetic on ``z``'s dtype throughout: complex64 stays complex64."""
    d = _W_L - 1j * z
    p = _horner(_W_COEFFS, (_W_L + 1j * z) / d)
    return (2 * p / d + _INV_SQRT_PI) / d


def _erfc_right(xp: Any, u: Any) -> Any:
    """``erfc(u) = exp(-u^2) w(iu)`` for ``Re u >= 0`` (``iu`` in the upper half plane); ``-u^2``
    as ``(y - x)(y + x) - 2ixy``, which keeps its digits where ``|x| = |y|``, and its ``exp`` in
    two halves, so that where it overflows the product is ``+-inf``, not ``inf * 0``."""
    x, y = xp.real(u), xp.imag(u)
    with xp.errstate(over="ignore", invalid="ignore", under="ignore"):
        half = (y - x) * (y + x) / 2
        tail = xp.exp(half - 2j * (x * y)) * _faddeeva_upper(xp, 1j * u) * xp.exp(half)
        tail = xp.where(xp.logical_and(x == xp.inf, xp.isfinite(y)), 0, tail)  # erfc(inf + iy) = 0
    near, re = _real_part_near_the_imaginary_axis(xp, u)
    return xp.where(near, xp.complex_from_parts(1 - re, xp.imag(tail)), tail)


def _real_part_near_the_imaginary_axis(xp: Any, u: Any) -> tuple[Any, Any]:
    """Where ``u = x + iy`` (``x >= 0``) is near the imaginary axis (``x max(1, |y|) < 0.01``), and
    ``Re erf(u)`` there: tiny beside ``|erf(u)| ~ erfi(y)``, so ``exp(-u^2) w(iu)`` -- a huge
    ``e^(y^2)`` times a ``w`` whose real part ``~e^(-y^2)`` it knows only to its absolute
    accuracy -- would not give its digits.  Taylor's series in ``x`` does:
    ``2/sqrt(pi) e^(y^2) sum_k x^(2k+1) H_2k(iy) / (2k+1)!`` (Hermite polynomials; four terms,
    the next is below ``(2xy)^8 / 9!``); ``x e^(y^2)`` as ``e^(y^2 + ln x)``, finite where
    ``e^(y^2)`` alone overflows."""
    x, y = xp.real(u), xp.imag(u)
    with xp.errstate(over="ignore", invalid="ignore", divide="ignore"):
        t, s = x * x, y * y
        series = 1 - t * ((2 * s + 1) / 3 - t * ((4 * s * s + 12 * s + 3) / 30
                                                 - t * (((8 * s + 60) * s + 90) * s + 15) / 630))
        re = _TWO_OVER_SQRT_PI * xp.exp(s + xp.log(x)) * series
        return x * xp.maximum(xp.abs(y), 1) < 0.01, re


def _on_the_axes(xp: Any, z: Any, values: Any, erf_like: bool) -> Any:
    """``values``, with the real kernel's answer where ``Im z == 0`` (and an imaginary part 0)
    and, where ``Re z == 0``, ``erf(iy) = i erfi(y)`` purely imaginary (``erfc(iy) = 1 - i
    erfi(y)``), infinite at ``+-i inf``."""
    x, y = xp.real(z), xp.imag(z)
    im = xp.where(xp.isinf(y), y if erf_like else -y, xp.imag(values))
    values = xp.where(x == 0, xp.complex_from_parts(x if erf_like else xp.ones_like(x), im), values)
    real = xp.complex_from_parts(xp.erf(x), y) if erf_like else xp.complex_from_parts(xp.erfc(x), -y)
    return xp.where(y == 0, real, values)


def _erf_complex(xp: Any, z: Any) -> Any:
    """``erf(z)`` for complex ``z``: ``1 - erfc(u)`` (:func:`_erfc_right`) on the right half plane
    and ``erf(-z) = -erf(z)``; Taylor's series for ``|z| < 1/2`` (where ``1 - erfc`` cancels).
    Within ~2e-14 of the exact value relative to ``|erf(z)|`` (more near its zeros and, as
    ``erf``'s condition number ``~2|z|^2``, for large ``|z|``), each part to ~1e-13 near the
    axes; exact on the real axis, purely imaginary on the imaginary one."""
    flip = xp.real(z) < 0
    u = xp.where(flip, -z, z)
    small = xp.abs(u) < 0.5
    us = xp.where(small, u, 0)
    near_zero = us * _horner(_ERF_TAYLOR, us * us)
    r = xp.where(small, near_zero, 1 - _erfc_right(xp, xp.where(small, 1, u)))
    near, re = _real_part_near_the_imaginary_axis(xp, u)
    r = xp.where(xp.logical_and(near, xp.logical_not(small)), xp.complex_from_parts(re, xp.imag(r)), r)
    return _on_the_axes(xp, z, xp.where(flip, -r, r), erf_like=True)


def _erfc_complex(xp: Any, z: Any) -> Any:
    """``erfc(z)`` for complex ``z``: ``exp(-z^2) w(iz)`` on the right half plane (no
    cancellation where it is tiny), ``2 - erfc(-z)`` on the left; exact on the real axis."""
    flip = xp.real(z) < 0
    tail = _erfc_right(xp, xp.where(flip, -z, z))
    return _on_the_axes(xp, z, xp.where(flip, 2 - tail, tail), erf_like=False)


def _d_erf(xp: Any, x: Any) -> Any:
    """``erf'(x) = 2/sqrt(pi) exp(-x^2)`` (``erfc' = -erf'``; Halley's step uses it too)."""
    return _TWO_OVER_SQRT_PI * xp.exp(-(x * x))


# ------------------------------------------------------- inverse error functions
def _only_where(xp: Any, mask: Any, fn: Any, *arrays: Any) -> Any:
    """``fn(*arrays)`` (arrays of ``mask``'s shape) computed on the elements where ``mask`` holds
    and nothing else, 0 elsewhere: a branch few elements take costs their share of the work, not a
    full pass of every one of its operations (a ``where`` between two branches computes both on
    every element).  One synchronizing read of the count; all or none skips the gather."""
    count = xp.scalar(xp.count_nonzero(mask))
    if count == mask.size:
        return fn(*arrays)
    if count == 0:
        return xp.zeros_like(arrays[0])
    index = xp.nonzero(xp.reshape(mask, (-1,)))[0]
    values = fn(*(xp.take(xp.reshape(a, (-1,)), index) for a in arrays))
    out = xp.zeros(mask.shape, dtype=values.dtype)
    xp.put_along_axis(xp.reshape(out, (-1,)), index, values, axis=0)
    return out


# Wichura's AS241 (Applied Statistics 37, 1988; PPND16, ~1e-16 relative): the normal quantile
# ndtri(p) = q A(r) / B(r) with r = 0.180625 - q^2 for |q| = |p - 1/2| <= 0.425, and for the
# tails, with s = sqrt(-ln min(p, 1 - p)), C(s - 1.6) / D(s - 1.6) up to s = 5 and
# E(s - 5) / F(s - 5) beyond (highest power first).  erfinv(y) = ndtri((1 + y) / 2) / sqrt(2).
_AS241_A = (2.5090809287301226727e3, 3.3430575583588128105e4, 6.7265770927008700853e4,
            4.5921953931549871457e4, 1.3731693765509461125e4, 1.9715909503065514427e3,
            1.3314166789178437745e2, 3.3871328727963666080e0)
_AS241_B = (5.2264952788528545610e3, 2.8729085735721942674e4, 3.9307895800092710610e4,
            2.1213794301586595867e4, 5.3941960214247511077e3, 6.8718700749205790830e2,
            4.2313330701600911252e1, 1.0)
_AS241_C = (7.74545014278341407640e-4, 2.27238449892691845833e-2, 2.41780725177450611770e-1,
            1.27045825245236838258e0, 3.64784832476320460504e0, 5.76949722146069140550e0,
            4.63033784615654529590e0, 1.42343711074968357734e0)
_AS241_D = (1.05075007164441684324e-9, 5.47593808499534494600e-4, 1.51986665636164571966e-2,
            1.48103976427480074590e-1, 6.89767334985100004550e-1, 1.67638483018380384940e0,
            2.05319162663775882187e0, 1.0)
_AS241_E = (2.01033439929228813265e-7, 2.71155556874348757815e-5, 1.24266094738807843860e-3,
            2.65321895265761230930e-2, 2.96560571828504891230e-1, 1.78482653991729133580e0,
            5.46378491116411436990e0, 6.65790464350110377720e0)
_AS241_F = (2.04426310338993978564e-15, 1.42151175831644588870e-7, 1.84631831751005468180e-5,
            7.86869131145613259100e-4, 1.48753612908506148525e-2, 1.36929880922735805310e-1,
            5.99832206555887937690e-1, 1.0)
_ERFINV_SLOPE = 0.886226925452758  # sqrt(pi) / 2 rounded to nearest (math's sqrt(pi) / 2 is an ulp below)
_CENTRAL = 0.85  # |y| <= 0.85 is AS241's |q| <= 0.425
_INV_SQRT_2 = 1 / math.sqrt(2)


def _as241_central(xp: Any, y: Any) -> Any:
    """AS241's ``ndtri(1/2 + y/2) / sqrt(2)`` for ``|y| <= 0.85`` (~4 ulp), unpolished."""
    r = 0.180625 - 0.25 * (y * y)
    return y * (_horner(_AS241_A, r) / _horner(_AS241_B, r) * (0.5 * _INV_SQRT_2))


def _erfcinv_below_half(xp: Any, z: Any) -> Any:
    """``erfcinv(z)`` for ``0.15 <= z < 1/2``: AS241's central approximation of ``erfinv(1 - z)``,
    whose ``1 - z`` rounds there (float32's by 2^-25), then Halley's step on ``z - erfc(x)``, which
    sees the exact ``z`` (on ``erf(x) - (1 - z)`` it would converge to the rounded argument's value)."""
    x = _as241_central(xp, 1 - z)
    return _halley(xp, x, z - erfc(xp, x))


def _erfinv_central(xp: Any, y: Any) -> Any:
    """``erfinv(y)`` for ``|y| <= 0.85``: ``ndtri(1/2 + y/2) / sqrt(2)``, with ``q = y / 2`` folded
    into the constant (``y / 2`` of a subnormal ``y`` would lose its last bit), then one Halley
    step on ``erf(x) - y``, which brings it from AS241's ~4 ulp to ``erf``'s accuracy.  Below
    ``2^-26`` it is ``sqrt(pi)/2 y`` to the last bit (the next term is ``y^2`` smaller): a Halley
    step there, on subnormal numbers, would round the result off by a unit of the subnormals."""
    x = _as241_central(xp, y)
    x = _halley(xp, x, _erf_to_1_02(xp, x) - y)
    return xp.where(xp.abs(y) < 2.0 ** -26, _ERFINV_SLOPE * y, x)


def _erf_to_1_02(xp: Any, x: Any) -> Any:
    """``erf(x)`` for ``|x| <= erfinv(0.85) = 1.018``: Cephes' ``x T(x^2) / U(x^2)`` below 1, the
    kernel's other branch on the few elements above (the kernel computes both on every element)."""
    z = x * x
    small = x * _horner(_ERF_T, z) / _horner(_ERF_U, z)
    above = xp.abs(x) >= 1
    return xp.where(above, _only_where(xp, above, lambda v: xp.erf(v), x), small)


def _halley(xp: Any, x: Any, f: Any) -> Any:
    """One Halley step for ``erf(x) = target`` with residual ``f``: ``f / (f' + x f)``, ``f' = 2/sqrt(pi) e^-x^2``."""
    return x - f / (_d_erf(xp, x) + x * f)


def _erfcinv_tail(xp: Any, t: Any) -> Any:
    """``erfcinv(t)`` for ``0 < t <= 0.15`` (``|ndtri(t / 2)| / sqrt(2)``; ``s`` from ``ln 2 - ln t``,
    not ``ln(t / 2)``: half a subnormal ``t`` rounds), then one step on ``erfc(x) = t``: Halley's
    where ``erfc`` keeps its digits, Newton's on ``ln erfc(x) = ln erfcx(x) - x^2 = ln t`` from
    ``t < 1e-20`` (far out ``erfc`` and its derivative are subnormal, float32's from ``x ~ 9``)."""
    s = xp.sqrt(math.log(2) - xp.log(t))
    near = s <= 5
    u = xp.where(near, s - 1.6, s - 5)
    x = xp.where(near, _horner(_AS241_C, u) / _horner(_AS241_D, u), _horner(_AS241_E, u) / _horner(_AS241_F, u))
    x = x * _INV_SQRT_2
    deep = t < 1e-20
    halley = _only_where(xp, xp.logical_not(deep), lambda v, w: _halley(xp, v, w - _erfc_beyond_1(xp, v)), x, t)
    return xp.where(deep, _only_where(xp, deep, lambda v, w: _log_erfc_newton(xp, v, w), x, t), halley)


def _erfc_beyond_1(xp: Any, x: Any) -> Any:
    """``erfc(x)`` for ``1 <= x < 9`` (the tail's from ``t = 1e-20`` up): Cephes' ``exp(-x^2) P/Q``
    below 8 and ``R/S`` above, as the kernel, without its ``1 - erf`` branch for ``x < 1``."""
    e = xp.exp(-(x * x))
    return e * xp.where(x < 8, _horner(_ERFC_P, x) / _horner(_ERFC_Q, x), _horner(_ERFC_R, x) / _horner(_ERFC_S, x))


def _log_erfc_newton(xp: Any, x: Any, t: Any) -> Any:
    """One Newton step on ``ln erfc(x) = ln erfcx(x) - x^2 = ln t``, which underflows nowhere."""
    ex = xp.erfcx(x)
    return x + (xp.log(ex) - x * x - xp.log(t)) * ex * _SQRT_PI_2


@register_kernel
@half_in_float32
def erfinv(xp, y):
    """The inverse of ``erf`` on ``[-1, 1]`` (``xp.erfinv``): ``+-inf`` at ``+-1``.  Wichura's
    rational approximations (no iteration); each branch on the elements that take it."""
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        a = xp.abs(y)
        central = _only_where(xp, a <= _CENTRAL, lambda v: _erfinv_central(xp, v), a)
        tail = _only_where(xp, (a > _CENTRAL) & (a < 1), lambda t: _erfcinv_tail(xp, t), 1 - a)  # 1 - a exact
        r = xp.where(a <= _CENTRAL, central, xp.where(a == 1, xp.inf, tail))
        r = xp.where(xp.signbit(y), -r, r)  # odd, also at -0.0
        return xp.where(a > 1, xp.nan, xp.where(xp.isnan(y), y, r))


@register_kernel
@half_in_float32
def erfcinv(xp, z):
    """The inverse of ``erfc`` on ``[0, 2]`` (``xp.erfcinv``): ``+inf`` at 0, ``-inf`` at 2.
    ``erfinv(1 - z)`` near 1; in the tails ``erfcinv(z)``, ``-erfcinv(2 - z)`` (both exact)."""
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        d = 1 - z  # exact from z = 1/2 on
        mid = xp.abs(d) <= _CENTRAL
        low = mid & (z < 0.5)
        central = _only_where(xp, mid & (z >= 0.5), lambda v: _erfinv_central(xp, v), d)
        central = xp.where(low, _only_where(xp, low, lambda v: _erfcinv_below_half(xp, v), z), central)
        upper = z > 1
        q = xp.where(upper, 2 - z, z)
        tail = _only_where(xp, xp.logical_not(mid) & (q > 0), lambda t: _erfcinv_tail(xp, t), q)
        tail = xp.where(q == 0, xp.inf, tail)
        r = xp.where(mid, central, xp.where(upper, -tail, tail))
        return xp.where(xp.logical_or(z < 0, z > 2), xp.nan, xp.where(xp.isnan(z), z, r))


# ---------------------------------------------------------------------- betaln
def _stirling_corr(xp: Any, x: Any) -> Any:
    """``ln Gamma(x) - ((x - 1/2) ln x - x + ln sqrt(2 pi))`` for ``x >= 10``."""
    z = 1 / (x * x)
    c = (1 / 156) * z - 691 / 360360
    c = c * z + 1 / 1188
    c = c * z - 1 / 1680
    c = c * z + 1 / 1260
    c = c * z - 1 / 360
    c = c * z + 1 / 12
    return c / x


def _at_pole(xp: Any, x: Any) -> Any:
    """Where ``Gamma(x)`` has a pole: ``x`` is 0 or a negative integer (not ``-inf``)."""
    return xp.logical_and(xp.logical_and(x <= 0, x == xp.floor(x)), x > -xp.inf)


def _a_count(xp: Any, x: Any) -> Any:
    """Where ``x`` is a positive integer (not ``+inf``)."""
    return xp.logical_and(xp.logical_and(x >= 1, x == xp.floor(x)), x < xp.inf)


def _poles_cancel(xp: Any, x: Any, n: Any) -> Any:
    """Where ``Gamma(x)``'s pole cancels ``Gamma(x + n)``'s: ``x`` is a pole and ``n`` a positive
    integer with ``x + n <= 0``.  For an integer ``n``, ``B(x, n) = (n-1)! / (x (x+1) ... (x+n-1))``
    is a rational function of ``x``, finite there: the limit of ``B(x, n)`` as ``x`` moves, ``n``
    held (SciPy's value too).  ``|B(x, n)| = |B(1 - x - n, n)|`` and ``B(x, n)`` has the sign
    ``(-1)^n`` there."""
    return xp.logical_and(xp.logical_and(_at_pole(xp, x), _a_count(xp, n)), n <= -x)


@register_kernel
@half_in_float32
def betaln(xp, a, b):
    """``ln |B(a, b)|`` (``xp.betaln``).  For large arguments the Stirling terms are
    combined analytically, so ``betaln(1e6, 1)`` keeps its digits (the plain
    ``gammaln(a) + gammaln(b) - gammaln(a + b)`` cancels 1e7-sized terms).

    At the poles: ``+inf`` where ``Gamma(a)`` or ``Gamma(b)`` has one (both, too), unless
    ``Gamma(a + b)``'s cancels it: finite there (``betaln(-3, 2) = ln(1/6)``, :func:`_poles_cancel`),
    ``-inf`` where only ``Gamma(a + b)`` has one.  At infinities, the limits where they exist:
    ``betaln(a, inf)`` is ``-inf`` for ``a > 0`` (``inf`` too) and ``+inf`` for ``a <= 0``; ``betaln(a, -inf)``
    is ``-inf`` for a positive integer ``a``, ``+inf`` at the poles and NaN otherwise (``B``
    takes every value between its poles, which crowd towards ``-inf``)."""
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lo, hi = xp.minimum(a, b), xp.maximum(a, b)
        cancel = _poles_cancel(xp, lo, hi)
        c = (1 - hi) - lo  # >= 1 where the poles cancel: betaln(lo, hi) = betaln(c, hi) there
        lo, hi = xp.where(cancel, xp.minimum(c, hi), lo), xp.where(cancel, xp.maximum(c, hi), hi)
        r = _betaln_finite(xp, lo, hi)
        inf = xp.full_like(r, xp.inf)  # r's dtype: a float32 input stays float32
        # a pole of Gamma(a) or Gamma(b) that nothing cancels (a + b may round onto a pole,
        # as in -1e300 + 0.5, but the exact sum is one only where the poles cancel)
        r = xp.where(xp.logical_or(_at_pole(xp, lo), _at_pole(xp, hi)), inf, r)
        # B(a, b) ~ Gamma(a) b^-a as b -> inf: to 0 for a > 0 (also a -> inf), to infinity for a <= 0
        r = xp.where(xp.logical_and(hi == xp.inf, lo > -xp.inf), xp.where(lo > 0, -inf, inf), r)
        at_minus_inf = xp.where(_at_pole(xp, hi), inf, xp.where(_a_count(xp, hi), -inf, xp.nan))
        return xp.where(lo == -xp.inf, xp.where(xp.isfinite(hi), at_minus_inf, xp.nan), r)


def _betaln_finite(xp: Any, lo: Any, hi: Any) -> Any:
    """``ln |B(lo, hi)|`` for ``lo <= hi`` away from cancelling poles: the sum of log-gammas,
    or Stirling's series where the arguments are large."""
    s = lo + hi
    direct = gammaln(xp, lo) + gammaln(xp, hi) - gammaln(xp, s)
    los = xp.where(lo >= 10, lo, 10)
    his = xp.where(hi >= 10, hi, 10)
    ss = xp.where(hi >= 10, s, 20)
    ratio = xp.where(hi >= 10, lo, 1) / ss
    corr_hs = _stirling_corr(xp, his) - _stirling_corr(xp, ss)
    both = (_LS2PI - 0.5 * xp.log(ss) + (los - 0.5) * xp.log(los / ss) + (his - 0.5) * xp.log1p(-ratio)
            + _stirling_corr(xp, los) + corr_hs)
    lo_o = xp.where(hi >= 10, lo, 1)
    # Stirling for hi and s only: ln|Gamma(lo)| may be any (also negative) lo's, as long as
    # s >= 10 -- beyond float's range the direct sum is inf - inf
    one = gammaln(xp, lo_o) + (his - 0.5) * xp.log1p(-ratio) - lo_o * xp.log(ss) + lo_o + corr_hs
    big = xp.logical_and(hi >= 10, s >= 10)
    return xp.where(big, xp.where(lo >= 10, both, one), direct)


def beta_sign(xp: Any, a: Any, b: Any) -> Any:
    """The sign of ``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)`` as an array of ``a``'s dtype:
    each gamma's sign from the reflection formula (``sign(sin(pi x))`` below 0, so no
    gamma is evaluated: ``Gamma(-200.5)`` underflows), ``(-1)^n`` where two poles cancel
    (:func:`_poles_cancel`), NaN at a pole of ``Gamma(a)`` or ``Gamma(b)`` below 0 (``B``
    changes sign across it) or at ``-inf``; ``+1`` at ``0`` (as ``gamma(0) = +inf``) and where
    ``1/Gamma(a + b)`` is 0."""
    with xp.errstate(invalid="ignore"):
        lo, hi = xp.minimum(a, b), xp.maximum(a, b)
        s = lo + hi
        sign = _gamma_sign(xp, lo) * _gamma_sign(xp, hi)
        sign = sign * xp.where(_at_pole(xp, s), 1, _gamma_sign(xp, s))
        return xp.where(_poles_cancel(xp, lo, hi), 1 - 2 * xp.mod(hi, 2), sign)


def _gamma_sign(xp: Any, x: Any) -> Any:
    """``sign(Gamma(x))``: 1 for ``x >= 0``, ``sign(sin(pi x))`` below (NaN at the poles)."""
    s = xp.sign(_sinpi(xp, xp.where(x < 0, x, 0.5)))
    return xp.where(x >= 0, 1, xp.where(s == 0, xp.nan, s))


# ------------------------------------------------------------------------- ops
class Gammaln(UnaryElementwise):
    """``ln |Gamma(x)|``; derivative ``digamma(x)`` (poles at 0, -1, -2, ...)."""

    fn = "gammaln"

    def derivative(self, xp, out, x):
        return xp.digamma(x)

    def reference(self, np, x):
        return _host(np, _lgamma_ref, x)


class Digamma(UnaryElementwise):
    """``psi(x)``; derivative ``polygamma(1, x)``."""

    fn = "digamma"

    def derivative(self, xp, out, x):
        return xp.polygamma(1, x)

    def reference(self, np, x):
        return _digamma_reference(np, x)


class Polygamma(UnaryElementwise):
    """``psi^(n)(x)`` for ``x > 0``; derivative ``polygamma(n + 1, x)``."""

    n: int

    def forward(self, xp, x):
        return xp.polygamma(self.n, x)

    def derivative(self, xp, out, x):
        return xp.polygamma(self.n + 1, x)

    def reference(self, np, x):
        if self.n == 0:
            return _digamma_reference(np, x)
        # the series definition: 2000 terms, then the tail's integral with two end
        # corrections (the next correction is below 1e-17 here)
        s = self.n + 1
        x64 = x.astype(np.float64)
        k = np.arange(2000.0).reshape((-1,) + (1,) * x.ndim)
        a = x64 + 2000.0
        tail = a ** (1 - s) / (s - 1) + 0.5 * a ** -s + s / 12 * a ** (-s - 1)
        z = np.sum((x64 + k) ** -s, axis=0) + tail
        return ((-1) ** (self.n + 1) * math.factorial(self.n) * z).astype(x.dtype)


class Gamma(UnaryElementwise):
    """``Gamma(x)``; derivative ``Gamma(x) psi(x)``."""

    fn = "gamma"
    save_output = True
    quiet = True  # Gamma overflows beyond 171.6: inf * psi, and inf * 0 at the poles

    def derivative(self, xp, out, x):
        return out * xp.digamma(x)

    def reference(self, np, x):
        return _host(np, _gamma_ref, x)


class Erf(UnaryElementwise):
    """The error function; its derivative is ``2/sqrt(pi) * exp(-x^2)``."""

    def forward(self, xp, x):
        return xp.erf(x)

    def derivative(self, xp, out, x):
        return _d_erf(xp, x)

    def reference(self, np, x):
        if x.dtype.kind == "c":
            return _complex_erf_reference(np, x, complement=False)
        return _host(np, math.erf, x)


class Erfc(UnaryElementwise):
    """``1 - erf(x)``; derivative ``-2/sqrt(pi) exp(-x^2)``."""

    def forward(self, xp, x):
        return xp.erfc(x)

    def derivative(self, xp, out, x):
        return -_d_erf(xp, x)

    def reference(self, np, x):
        if x.dtype.kind == "c":
            return _complex_erf_reference(np, x, complement=True)
        return _host(np, math.erfc, x)


class _InverseErf(UnaryElementwise):
    """``erfinv`` or ``erfcinv`` (``fn``): the derivative ``sign sqrt(pi)/2 exp(out^2)`` is read off
    the output, and is infinite where the output is."""

    abstract = True
    save_inputs = False
    save_output = True
    singular = True
    sign = 1.0

    def derivative(self, xp, out, y):
        return self.sign * _SQRT_PI_2 * xp.exp(out * out)


class Erfinv(_InverseErf):
    """The inverse error function; derivative ``sqrt(pi)/2 exp(erfinv(y)^2)``, infinite at ``+-1``."""

    fn = "erfinv"

    def reference(self, np, y):
        return _host(np, _erfinv_bisect, y)


class Erfcinv(_InverseErf):
    """The inverse of ``erfc``; derivative ``-sqrt(pi)/2 exp(erfcinv(z)^2)``, infinite at 0 and 2."""

    fn = "erfcinv"
    sign = -1.0

    def reference(self, np, z):
        return _host(np, _erfcinv_bisect, z)


class Logit(UnaryElementwise):
    """``log(p / (1 - p))``; derivative ``1 / (p (1 - p))``, infinite at 0 and 1.

    ``2 artanh(2p - 1)`` for ``p >= 1/4`` (``2p - 1`` is exact there, so no
    digits are lost near 1/2), ``log(p) - log1p(-p)`` below."""

    singular = True

    def forward(self, xp, p):
        with xp.errstate(divide="ignore", invalid="ignore"):
            hi = p >= 0.25
            ph = xp.where(hi, p, 0.5)
            pl = xp.where(hi, 0.125, p)
            r = xp.where(hi, 2 * xp.arctanh(2 * ph - 1), xp.log(pl) - xp.log1p(-pl))
            return xp.where(xp.logical_or(p < 0, p > 1), xp.nan, r)

    def derivative(self, xp, out, p):
        # NaN outside [0, 1], where the value is (PyTorch's too): 1 / (p (1 - p)) is finite there;
        # abs: +inf at p = -0.0 as at +0.0 (PyTorch's float32 kernel too), not 1 / -0.0
        return xp.where(xp.logical_or(p < 0, p > 1), xp.nan, 1 / xp.abs(p * (1 - p)))

    def times_derivative(self, xp, v, out, p):
        # PyTorch's logit_backward divides, g / (p (1 - p)): g times the reciprocal was a unit off
        # for half the values
        with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
            quotient = divided_by_local(xp, v, xp.abs(p * (1 - p)))
            return xp.where(xp.logical_or(p < 0, p > 1), xp.nan, quotient)

    def reference(self, np, p):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(p) - np.log1p(-p)


class ClampedLogit(Logit):
    """PyTorch's ``logit(p, eps)`` for ``eps >= 0``: ``logit`` of ``p`` clamped to
    ``[eps, 1 - eps]`` (``p < eps`` first: for ``eps > 1/2`` every ``p`` below ``eps`` takes
    ``eps``, as PyTorch's kernel); derivative 0 where ``p`` is clamped.  One op, not a clamp
    followed by :class:`Logit`: with ``eps = 0`` a clamped ``p`` lands on the pole, and the chain
    rule's ``0 * inf`` would make the gradient NaN there (PyTorch: 0)."""

    eps: float

    def _clamp(self, xp: Any, p: Any) -> Any:
        hi = 1 - self.eps
        return xp.where(p < self.eps, self.eps, xp.where(p > hi, hi, p))

    def forward(self, xp, p):
        return super().forward(xp, self._clamp(xp, p))

    def derivative(self, xp, out, p):
        clamped = xp.logical_or(p < self.eps, p > 1 - self.eps)
        return xp.where(clamped, 0, 1 / xp.abs(p * (1 - p)))

    def times_derivative(self, xp, v, out, p):
        # PyTorch's logit_backward selects, p clamped ? 0 : g / (p (1 - p)): +0.0 where p is clamped
        # whatever the gradient -- g times the derivative 0 was NaN for an infinite or NaN g, -0.0 for
        # a negative one
        inside = xp.logical_not(xp.logical_or(p < self.eps, p > 1 - self.eps))
        with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return xp.gradient_where(inside, divided_by_local(xp, v, xp.abs(p * (1 - p))))

    def reference(self, np, p):
        return super().reference(np, self._clamp(np, p))


class Entr(UnaryElementwise):
    """The entropy term ``-x log x``: 0 at 0, ``-inf`` below 0 and at +inf, NaN at NaN.

    Its derivative ``-(1 + log x)`` is PyTorch's everywhere: +inf at 0, NaN below 0 (the log of
    a negative number), -inf at +inf.  Singular at 0: a zero gradient stays zero there.
    """

    singular = True

    def forward(self, xp, x):
        with xp.errstate(divide="ignore", invalid="ignore"):
            inside = -(x * xp.log(xp.where(x > 0, x, 1)))
            return xp.where(x > 0, inside, xp.where(x == 0, 0, xp.where(x != x, x, -xp.inf)))

    def derivative(self, xp, out, x):
        return -(1 + xp.log(x))

    def reference(self, np, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            below = np.where(x == 0, 0, np.where(np.isnan(x), x, -np.inf))
            return np.where(x > 0, -x * np.log(np.where(x > 0, x, 1)), below)


def _const_log(y: float, log1p: bool) -> float:
    """``log(y)`` / ``log1p(y)`` of a Python scalar as a Python float (weakly typed:
    ``xp.log`` would make a float64 NumPy scalar, which upcasts float32)."""
    v = 1 + y if log1p else y
    if v > 0:
        return math.log1p(y) if log1p else math.log(y)
    return -math.inf if v == 0 else math.nan


def _in_dtype_of(xp: Any, x: Any, y: Any) -> Any:
    """A number ``y`` beside the array ``x`` rounded to ``x``'s dtype first, as PyTorch wraps it:
    ``xlogy(t, 1.3)`` of a float32 ``t`` is ``t * log(float32(1.3))``, where the log of the Python
    number itself was a last bit off in nearly every value (float16: 1e5 is inf).  It stays a Python
    number, whose log is taken in double precision and rounded once, as C's ``logf``."""
    if isinstance(y, _CONST) and not isinstance(x, _CONST):
        with xp.errstate(over="ignore"):
            return float(x.dtype.type(y))
    return y


class _XLog(BinaryElementwise):
    """``x * log(y)`` (``log1p`` for ``Xlog1py``), 0 where ``x == 0`` unless ``y`` is NaN, as SciPy."""

    abstract = True
    singular = True  # d/dx = log(y) is -inf at y = 0
    log1p: ClassVar[bool] = False

    def _log(self, xp: Any, y: Any) -> Any:
        if isinstance(y, _CONST):
            return _const_log(y, self.log1p)
        return xp.log1p(y) if self.log1p else xp.log(y)

    def _dlog(self, xp: Any, x: Any, y: Any) -> Any:
        """The denominator of ``d/dy``: ``y`` (``1 + y``), replaced by 1 where it and ``x`` are
        both 0 -- there the value is 0; ``x / denominator`` keeps ``x`` in the expression, so
        the second derivative ``d/dx (x / y)`` at ``x = 0`` is still ``1 / y``."""
        d = 1 + y if self.log1p else y
        return xp.where(xp.logical_and(x == 0, d == 0), 1, d)

    def forward(self, xp, x, y):
        y = _in_dtype_of(xp, x, y)
        with xp.errstate(divide="ignore", invalid="ignore"):
            r = x * self._log(xp, y)
            zero = xp.logical_and(x == 0, xp.logical_not(xp.isnan(y)))
            return xp.where(zero, 0, r)

    def d_first(self, xp, out, x, y):
        # 0 where x == 0 and the log's argument is <= 0 (its value is held at 0 there), as PyTorch's
        # masked_fill: xlogy(0, 0)'s d/dx is 0, not log 0 = -inf; xlogy(0, -1)'s 0, not NaN
        arg = 1 + y if self.log1p else y  # (the number as given, PyTorch's mask; its log in x's dtype)
        y = _in_dtype_of(xp, x, y)
        if isinstance(y, _CONST):  # a number: its log is a number too, and the 0 takes x's dtype
            return self._log(xp, y) if arg > 0 else xp.where(x == 0, xp.zeros_like(x), self._log(xp, y))
        return xp.where(xp.logical_and(x == 0, arg <= 0), 0, self._log(xp, y))

    def d_second(self, xp, out, x, y):
        return x / self._dlog(xp, x, y)

    def times_d_second(self, xp, v, out, x, y):
        # PyTorch's order, grad * self / other (``/ (other + 1)``): as v * (x / y), a third of the
        # gradients and tangents in y were a unit off its
        with xp.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            return divided_by_local(xp, v * x, self._dlog(xp, x, y))

    def reference(self, np, x, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            if isinstance(y, _CONST):
                ly = _const_log(y, self.log1p)
            else:
                ly = np.log1p(y) if self.log1p else np.log(y)
            return np.where((np.asarray(x) == 0) & ~np.isnan(y), 0, x * ly)


class Xlogy(_XLog):
    """``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is NaN), as SciPy.

    ``d/dx = log(y)``, but 0 where ``x == 0`` and ``y <= 0`` (PyTorch's); ``d/dy = x / y``
    (0 where ``x == 0``).
    """


class Xlog1py(_XLog):
    """``x * log1p(y)``, 0 where ``x == 0`` (unless ``y`` is NaN), as SciPy.

    ``d/dx = log1p(y)``, but 0 where ``x == 0`` and ``y <= -1`` (PyTorch's); ``d/dy = x / (1 + y)``
    (0 where ``x == 0``).
    """

    log1p = True


class Betaln(BinaryElementwise):
    """``ln |B(a, b)|``; ``d/da = psi(a) - psi(a + b)``, NaN at the poles (see :func:`_d_betaln`)."""

    quiet = True  # psi(inf) - psi(inf) at the infinities

    def forward(self, xp, a, b):
        return xp.betaln(a, b)

    def d_first(self, xp, out, a, b):
        return _d_betaln(xp, a, b)

    def d_second(self, xp, out, a, b):
        return _d_betaln(xp, b, a)

    def reference(self, np, a, b):
        a64, b64 = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        dt = next(v.dtype for v in (a, b) if isinstance(v, np.ndarray))
        return np.vectorize(_betaln_ref, otypes=[np.float64])(a64, b64).astype(dt)


def _d_betaln(xp: Any, x: Any, y: Any) -> Any:
    """``d/dx ln |B(x, y)| = psi(x) - psi(x + y)``.  Where the poles of ``Gamma(x)`` and
    ``Gamma(x + y)`` cancel (:func:`_poles_cancel`) ``B(x, y)`` is a rational function of ``x``,
    and its derivative the limit ``psi(1 - x) - psi(1 - x - y)`` (reflection).  NaN at every
    other pole of ``x``, ``y`` or ``x + y`` -- also in ``y`` where ``Gamma(y)``'s pole cancels:
    ``B(x, .)`` is infinite on both sides of that ``y``.  Each ``psi`` sees only arguments off
    its poles, so a second derivative is NaN-free wherever the first is finite."""
    if isinstance(y, _CONST):
        y = xp.full_like(x, y)
    s = x + y
    cancel = _poles_cancel(xp, x, y)
    regular = xp.logical_not(xp.logical_or(xp.logical_or(_at_pole(xp, x), _at_pole(xp, y)), _at_pole(xp, s)))
    xc, yc = xp.where(cancel, x, -1), xp.where(cancel, y, 1)
    xr, yr = xp.where(regular, x, 1), xp.where(regular, y, 1)
    limit = xp.digamma(1 - xc) - xp.digamma(1 - xc - yc)
    return xp.where(cancel, limit, xp.where(regular, xp.digamma(xr) - xp.digamma(xr + yr), xp.nan))


# --------------------------------------------------------- references (host)
def _host(np: Any, fn: Any, x: Any) -> Any:
    """``fn`` (a ``math`` function) elementwise in float64, cast back to ``x``'s dtype."""

    def safe(v: float) -> float:
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return math.nan

    return np.vectorize(safe, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


def _is_pole(v: float) -> bool:
    return math.isfinite(v) and v <= 0 and v == math.floor(v)


def _complex_erf_reference(np: Any, x: Any, complement: bool) -> Any:
    """``erf`` (or ``erfc``) of complex ``x`` by other means than the kernel's, for the battery's
    domains (``|Im x|`` small): ``2/sqrt(pi) e^(-z^2) sum_n 2^n z^(2n+1) / (2n+1)!!`` (no
    cancellation near the real axis) for ``|Re z| < 2``, Laplace's continued fraction
    ``erfc(z) = e^(-z^2) / sqrt(pi) / (z + (1/2)/(z + 1/(z + (3/2)/(z + ...))))`` beyond."""
    z = x.astype(np.complex128)
    with np.errstate(all="ignore"):
        u = np.where(np.abs(z.real) < 2, z, 0)
        term, total = u.copy(), u.copy()
        for n in range(1, 400):
            term = term * (2 * u * u) / (2 * n + 1)
            total = total + term
        erf_series = _TWO_OVER_SQRT_PI * np.exp(-u * u) * total
        v = np.where(np.abs(z.real) < 2, 2, np.where(z.real < 0, -z, z))  # Re v >= 2
        frac = v.copy()
        for k in range(200, 0, -1):
            frac = v + (k / 2) / frac
        erfc_far = np.exp(-v * v) * _INV_SQRT_PI / frac
        erfc_far = np.where(z.real < 0, 2 - erfc_far, erfc_far)
        if complement:
            r = np.where(np.abs(z.real) < 2, 1 - erf_series, erfc_far)
        else:
            r = np.where(np.abs(z.real) < 2, erf_series, 1 - erfc_far)
    return r.astype(x.dtype)


def _betaln_ref(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b):
        return math.nan
    small, big = sorted((a, b))
    if small == -math.inf:  # B(n, x) -> 0 as x -> -inf for an integer n > 0; no limit for others
        if not math.isfinite(big):
            return math.nan
        return math.inf if _is_pole(big) else (-math.inf if big >= 1 and big == math.floor(big) else math.nan)
    if big == math.inf:
        return -math.inf if small > 0 else math.inf
    if _is_pole(small) and big == math.floor(big) and 0 < big <= -small:
        # B(x, n) = (n-1)! / (x (x+1) ... (x+n-1)): at x = -m, (-1)^n (n-1)! (m-n)! / m!
        return _betaln_ref(1 - small - big, big)
    if _is_pole(small) or _is_pole(big):  # an uncancelled pole (a + b may round onto a pole)
        return math.inf
    scale = max(abs(small), 1.0)
    if math.isfinite(small) and big > 1e6 * scale * scale:  # (float ** 2 raises on overflow)
        # lgamma(big) - lgamma(big + small) cancels to nothing there (or is inf - inf): it is
        # -small ln(big) to within small^2 / big (below 1e-6)
        return _lgamma_ref(small) - small * math.log(big) if small else math.inf
    if small > 1e300:  # both huge: Stirling with a + b halved, as a + b overflows
        half = 0.5 * a + 0.5 * b
        return (a - 0.5) * math.log(0.5 * a / half) + (b - 0.5) * math.log(0.5 * b / half) + _LS2PI - 0.5 * (
            math.log(half) + math.log(2))
    try:
        return _lgamma_ref(a) + _lgamma_ref(b) - _lgamma_ref(a + b)
    except (OverflowError, ValueError):
        return math.nan


def _lgamma_ref(v: float) -> float:
    if math.isinf(v):
        return math.inf  # as math.lgamma, C and PyTorch (SciPy says -inf at -inf)
    if v <= 0 and v == math.floor(v):
        return math.inf
    try:
        return math.lgamma(v)
    except OverflowError:  # beyond ~2.6e305: ln Gamma(v) ~ v ln v overflows
        return math.inf


def _gamma_ref(v: float) -> float:
    if v == 0:
        return math.inf
    if v < 0 and v == math.floor(v):
        return math.nan
    try:
        return math.gamma(v)
    except OverflowError:  # beyond 171.6, or 1/v for a tiny v (Gamma(v) ~ 1/v): the sign of v
        return math.copysign(math.inf, v) if abs(v) < 1 else math.inf


def _digamma_reference(np: Any, x: Any) -> Any:
    """``psi`` by a central difference of ``math.lgamma`` refined by Richardson
    extrapolation (the battery's tolerance; tests compare with SciPy)."""

    def psi(v: float) -> float:
        if v <= 0 and v == math.floor(v):
            return -math.copysign(math.inf, v) if v == 0 else math.nan
        acc = 0.0
        while v < 20:  # psi(v) = psi(v + 1) - 1/v
            acc -= 1 / v
            v += 1
        z = 1 / (v * v)
        return acc + math.log(v) - 0.5 / v - z * (1 / 12 - z * (1 / 120 - z * (1 / 252 - z / 240)))

    return np.vectorize(psi, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


def _erfcinv_bisect(z: float) -> float:
    """``erfcinv`` by bisection on ``math.erfc`` (the battery's reference)."""
    if not 0 < z < 2:
        return math.inf if z == 0 else (-math.inf if z == 2 else math.nan)
    if z > 1:
        return -_erfcinv_bisect(2 - z)
    lo, hi = 0.0, 28.0  # erfc(28) is below the smallest subnormal
    log_z = math.log(z)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _log_erfc(mid) > log_z:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _log_erfc(x: float) -> float:
    """``ln erfc(x)`` for ``x >= 0``, with all its digits where ``erfc(x)`` is subnormal: the
    asymptotic series ``-x^2 - ln(x sqrt(pi)) + ln(1 - 1/(2x^2) + 3/(4x^4) - ...)`` from x = 20."""
    if x < 20:
        return math.log(math.erfc(x))
    t = 1 / (2 * x * x)
    series = 1 - t * (1 - 3 * t * (1 - 5 * t * (1 - 7 * t * (1 - 9 * t))))
    return -x * x - math.log(x * math.sqrt(math.pi)) + math.log(series)


def _erfinv_bisect(y: float) -> float:
    """``erfinv`` by bisection on ``math.erf`` (through ``erfcinv`` for ``|y| >= 1/2``)."""
    if not -1 < y < 1:
        return math.copysign(math.inf, y) if abs(y) == 1 else math.nan
    if abs(y) >= 0.5:
        return math.copysign(_erfcinv_bisect(1 - abs(y)), y)
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if math.erf(mid) < abs(y):
            lo = mid
        else:
            hi = mid
    return math.copysign(0.5 * (lo + hi), y)
