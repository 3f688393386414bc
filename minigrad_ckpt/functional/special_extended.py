"""``mg.special``'s functions beyond the gamma and error families' core: the normal
distribution (``ndtr``, ``ndtri``, ``log_ndtr``), the scaled complementary error function
``erfcx``, the modified Bessel functions ``i0``, ``i0e``, ``i1``, ``i1e``, ``entr``,
``multigammaln`` and ``sinc`` -- ``scipy.special``'s (and ``torch.special``'s) names.

``erfcx``, ``i0e`` and ``i1e`` are ops (:mod:`minigrad_ckpt.ops.scaled_special`); the
rest are compositions of them and of :mod:`.special`'s ops, written so that neither
branch of a ``where`` ever sees an input it would turn into an inf or a NaN (which
would reach the gradient as ``0 * inf``).  They are also the differentiable twins of
the kernels ``xp.erfcx``, ``xp.i0e``, ``xp.i1e``.
"""

from __future__ import annotations

import math
from typing import Any

from ..backend import host_numpy, scalar_type_name
from ..ops import incomplete_gamma as _ig
from ..ops import scaled_special as _ss
from ..ops import special as _sp
from ..ops import zeta as _zeta
from ..tensor import Tensor
from . import math as mf
from .arguments import as_tensor, binary, in_default_float, in_default_float_pair
from .elementwise import refuse_complex_kernel
from .errors import DtypeNotImplemented
from .promotion import result_type
from .special import _of_reals, _real_only, erfc, erfcinv, gammaln

_ERFCX, _I0E, _I1E, _I0, _I1 = _ss.Erfcx(), _ss.I0e(), _ss.I1e(), _ss.I0(), _ss.I1()
_ENTR = _sp.Entr()
_SQRT_2 = math.sqrt(2.0)
sinc = mf.sinc


def erfcx(x: Any) -> Tensor:
    """``exp(x^2) erfc(x)``, finite where ``erfc`` underflows (``~ 1/(x sqrt(pi))`` for large x);
    +inf from about -26.6 down."""
    return _of_reals("erfcx", _ERFCX, x)


def i0e(x: Any) -> Tensor:
    """``exp(-|x|) I0(x)``, the exponentially scaled modified Bessel function of order 0."""
    return _of_reals("i0e", _I0E, x)


def i1e(x: Any) -> Tensor:
    """``exp(-|x|) I1(x)``, the exponentially scaled modified Bessel function of order 1."""
    return _of_reals("i1e", _I1E, x)


def i0(x: Any) -> Tensor:
    """``I0(x)``, the modified Bessel function of the first kind of order 0 (``i0e(x) exp(|x|)``);
    its derivative is ``i1``."""
    return _of_reals("i0", _I0, x)


def i1(x: Any) -> Tensor:
    """``I1(x)``, the modified Bessel function of the first kind of order 1 (``i1e(x) exp(|x|)``)."""
    return _of_reals("i1", _I1, x)


def ndtr(x: Any) -> Tensor:
    """The standard normal distribution function ``Phi(x) = erfc(-x / sqrt(2)) / 2`` (accurate in
    the lower tail, where ``Phi`` is tiny)."""
    x = in_default_float(x)
    return erfc(x * (-1 / _SQRT_2)) * 0.5


def ndtri(p: Any) -> Tensor:
    """The inverse of ``ndtr``: ``-sqrt(2) erfcinv(2p)`` (``2p`` is exact, and ``erfcinv`` takes
    ``2 - 2p``, exact too, for its upper tail: accurate for tiny ``p`` and ``1 - p``); ``-inf`` at 0,
    ``+inf`` at 1, NaN outside [0, 1].  One ``erfcinv`` of every element, not two selected by a
    ``where`` (which cost both on every element)."""
    p = in_default_float(p)
    return erfcinv(p * 2) * -_SQRT_2 + 0.0  # + 0.0: ndtri(1/2) is +0.0, not -(0.0)


def log_ndtr(x: Any) -> Tensor:
    """``log(Phi(x))`` without underflow: ``log(erfcx(-x/sqrt(2)) / 2) - x^2/2`` below -1,
    ``log1p(-erfc(x/sqrt(2)) / 2)`` above (PyTorch's and SciPy's split)."""
    x = in_default_float(x)
    low = x < -1
    x_low = mf.where(low, x, -1.0)
    x_high = mf.where(low, -1.0, x)
    tail = mf.log(erfcx(x_low * (-1 / _SQRT_2)) * 0.5) - x_low * x_low * 0.5
    body = mf.log1p(erfc(x_high * (1 / _SQRT_2)) * -0.5)
    return mf.where(low, tail, body)


def entr(x: Any) -> Tensor:
    """The entropy term ``-x log(x)``: 0 at 0, ``-inf`` below 0 (derivative ``-(1 + log x)``,
    PyTorch's: +inf at 0, NaN below 0; :class:`~minigrad_ckpt.ops.special.Entr`)."""
    return _of_reals("entr", _ENTR, x)


def multigammaln(a: Any, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p``:
    ``p (p - 1) / 4 log(pi) + sum_{j < p} gammaln(a - j / 2)``; every ``a`` must exceed
    ``(p - 1) / 2`` (SciPy's ``multigammaln`` raises otherwise; PyTorch's returns the sum there,
    as ``mg.mvlgamma`` does)."""
    if not isinstance(p, (int, host_numpy.integer)) or isinstance(p, bool) or p < 1:
        raise ValueError(f"special.multigammaln: p must be a positive int, got {p!r}")
    a = as_tensor(a)
    xp = a.device.xp
    if a.size and not bool(xp.scalar(xp.all(a._data > (p - 1) / 2))):
        raise ValueError(f"special.multigammaln: all elements must be greater than (p - 1) / 2 = {(p - 1) / 2}")
    return multigammaln_sum(a, int(p))


def multigammaln_sum(a: Any, p: int) -> Tensor:
    """``p (p - 1) / 4 log(pi) + sum_{j < p} gammaln(a - j / 2)`` for every ``a`` (no domain check:
    PyTorch's ``mvlgamma`` has none, its value where ``a <= (p - 1) / 2`` is this sum's)."""
    # a + 0.0: PyTorch adds the offsets 0, -1/2, ... to a, so at a = -0.0 its first term is
    # lgamma(+0.0) and the gradient digamma(+0.0) = -inf (lgamma's own at -0.0 is +inf)
    total = gammaln(a + 0.0)
    for j in range(1, p):
        total = total + gammaln(a - j / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)


_ZETA = _zeta.Zeta()


def zeta(x: Any, q: Any = None) -> Tensor:
    """The Hurwitz zeta function ``sum_{k >= 0} (q + k)^-x`` (the Riemann zeta for ``q=None``) for
    ``x > 1``, ``q > 0``, and ``q < 0`` off the poles for an integer ``x`` (a real sum there, as
    SciPy's and PyTorch's); differentiable in ``q`` (``-x zeta(x + 1, q)``).  The derivative in ``x``
    is not offered: a gradient that must reach ``x`` raises ``NotImplementedError`` when asked
    for, as PyTorch's backward does (the value and the gradient in ``q`` are had all the same)."""
    _real_only("zeta", x, q)
    if q is None:  # the Riemann zeta: q = 1 of x's dtype
        x = as_tensor(x)
        q = x * 0 + 1 if x.dtype.kind == "f" else 1.0
    return binary(_ZETA, *_one_float_dtype(x, q))


_GAMMAINC, _GAMMAINCC = _ig.Gammainc(), _ig.Gammaincc()


def _one_float_dtype(x: Any, y: Any) -> tuple[Tensor, Tensor]:
    """Both operands of ``zeta``/``gammainc`` as tensors in PyTorch's dtype: promoted, integers in
    the default float dtype, and a Python number in the tensor's dtype (the kernels' float64
    constants would otherwise turn ``zeta(float32_tensor, 2)`` into float64; PyTorch: float32)."""
    x, y = in_default_float_pair(x, y)
    if not isinstance(x, Tensor):
        x = Tensor.constant(y.device.xp.asarray(x, dtype=y._data.dtype), y.device)
    if not isinstance(y, Tensor):
        y = Tensor.constant(x.device.xp.asarray(y, dtype=x._data.dtype), x.device)
    return x, y


def gammainc(a: Any, x: Any) -> Tensor:
    """The regularized lower incomplete gamma function ``P(a, x) = gamma(a, x) / Gamma(a)`` for
    ``a > 0``, ``x >= 0``; differentiable in ``x`` (``x^(a-1) e^-x / Gamma(a)``), not in ``a`` (a
    gradient that must reach ``a`` raises ``NotImplementedError`` when asked for, as PyTorch's).
    Two integral operands are PyTorch's ``NotImplementedError`` (its ``igamma`` kernel is floating only)."""
    _refuse_dtype_without_kernel("igamma_cpu", a, x)
    return binary(_GAMMAINC, *_one_float_dtype(a, x))


def gammaincc(a: Any, x: Any) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``; differentiable in
    ``x``, not in ``a``; two integral operands refused, as :func:`gammainc`'s."""
    _refuse_dtype_without_kernel("igammac_cpu", a, x)
    return binary(_GAMMAINCC, *_one_float_dtype(a, x))


def _refuse_dtype_without_kernel(kernel: str, a: Any, x: Any) -> None:
    """PyTorch's refusal where two integral (or bool) operands, or a complex one, meet a kernel for
    real floating types: it picks the kernel by the promoted dtype (an int64 ``a`` beside a float32
    ``x`` is a float32 igamma).  A complex operand reached NumPy's ``remainder`` inside the series,
    whose error named neither the function nor the reason."""
    refuse_complex_kernel(kernel, a, x, why="the incomplete gamma function is computed for real arguments")
    dtype = result_type(a, x)
    if dtype.kind in "biu":
        raise DtypeNotImplemented(f"\"{kernel}\" not implemented for '{scalar_type_name(dtype)}' (convert an "
                                  f"operand with .float() for a float answer)")
