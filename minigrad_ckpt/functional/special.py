"""``mg.special``: SciPy's special functions, differentiable, with no SciPy at run time.

The kernels and ops are in :mod:`minigrad_ckpt.ops.special` (its docstring
has the method and accuracy of each); the names and signatures here are
``scipy.special``'s.  Accuracy: <= 1e-12 relative in float64 on the
documented domains (``tests/test_special.py`` checks against SciPy).

These functions are also the differentiable twins of the kernels: backward
code that calls ``xp.digamma`` builds a graph when ``create_graph=True``.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from ..ops import Op
from ..ops import special as _sp
from ..tape import apply
from ..tensor import Tensor
from . import math as mf
from .arguments import as_tensor, binary, in_default_float, in_default_float_pair, number
from .errors import DtypeNotImplemented

_GAMMALN, _DIGAMMA, _GAMMA = _sp.Gammaln(), _sp.Digamma(), _sp.Gamma()
_ERFC, _ERFINV, _ERFCINV, _LOGIT = _sp.Erfc(), _sp.Erfinv(), _sp.Erfcinv(), _sp.Logit()
_XLOGY, _XLOG1PY, _BETALN = _sp.Xlogy(), _sp.Xlog1py(), _sp.Betaln()


def _real_only(name: str, *xs: Any) -> None:
    """Refuse complex arguments: the kernels are series and recurrences for the real line,
    which given a complex number would return wrong values, not an error.  PyTorch's error is a
    ``RuntimeError`` ("lgamma_vml_cpu" not implemented for 'ComplexFloat'); this one is a
    ``TypeError`` too, as it was."""
    for x in xs:
        if isinstance(x, complex) or getattr(getattr(x, "dtype", None), "kind", None) == "c":
            raise DtypeNotImplemented(f"special.{name}: implemented for real arguments only, got a complex one")


def _of_reals(name: str, op: Op, *xs: Any) -> Tensor:
    """``op`` applied to ``xs`` (two arguments broadcast against each other), complex ones refused;
    integer and bool arguments (two of them both integral) are computed in the default float
    dtype, as PyTorch's."""
    _real_only(name, *xs)
    return apply(op, in_default_float(xs[0])) if len(xs) == 1 else binary(op, *in_default_float_pair(*xs))


def gammaln(x: Any) -> Tensor:
    """``ln |Gamma(x)|``; +inf at 0 and the negative integers (its poles)."""
    return _of_reals("gammaln", _GAMMALN, x)


def digamma(x: Any) -> Tensor:
    """``psi(x) = d/dx ln Gamma(x)``; -inf at 0, NaN at the negative integers."""
    return _of_reals("digamma", _DIGAMMA, x)


psi = digamma


def polygamma(n: int, x: Any) -> Tensor:
    """``psi^(n)(x)``, the n-th derivative of digamma (``n = 0``: digamma); for ``n >= 1``
    defined for ``x > 0`` (+-inf at 0, NaN below)."""
    n = number("polygamma", "n", n, "int")
    if not isinstance(n, (int, host_numpy.integer)) or isinstance(n, bool):
        raise TypeError(f"special.polygamma: n must be a non-negative int, got {n!r}")
    if n < 0:  # an int of the wrong value: PyTorch's RuntimeError (a float or bool n is its TypeError)
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return digamma(x)
    return _of_reals("polygamma", _sp.Polygamma(n=int(n)), x)


def gamma(x: Any) -> Tensor:
    """``Gamma(x)``; +inf at 0 and beyond 171.6, NaN at the negative integers."""
    return _of_reals("gamma", _GAMMA, x)


erf = mf.erf


def erfc(x: Any) -> Tensor:
    """``1 - erf(x)`` without cancellation (relative accuracy up to its underflow near 26.5); of
    a complex ``x`` too (``exp(-x^2) w(ix)``, the Faddeeva function)."""
    return apply(_ERFC, in_default_float(x))


def erfinv(y: Any) -> Tensor:
    """The inverse of ``erf`` on ``[-1, 1]`` (``+-inf`` at ``+-1``, NaN outside)."""
    return _of_reals("erfinv", _ERFINV, y)


def erfcinv(z: Any) -> Tensor:
    """The inverse of ``erfc`` on ``[0, 2]`` (``+inf`` at 0, ``-inf`` at 2, NaN outside)."""
    return _of_reals("erfcinv", _ERFCINV, z)


def logit(p: Any, eps: float | None = None) -> Tensor:
    """``log(p / (1 - p))`` on ``[0, 1]`` (``-+inf`` at 0 and 1, NaN outside); PyTorch's ``eps``
    clamps ``p`` to ``[eps, 1 - eps]`` first (the gradient is 0 where it clamps)."""
    eps = number("logit", "eps", eps, "float")
    _real_only("logit", p)
    p = in_default_float(p)
    # a negative eps clamps nothing, as PyTorch's (which then answers as without eps)
    return apply(_LOGIT if eps is None or eps < 0 else _sp.ClampedLogit(eps=float(eps)), p)


def expit(x: Any) -> Tensor:
    """``1 / (1 + exp(-x))``, the logistic sigmoid (``mg.sigmoid``)."""
    return mf.sigmoid(x)


def xlogy(x: Any, y: Any) -> Tensor:
    """``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is NaN)."""
    return _of_reals("xlogy", _XLOGY, x, y)


def xlog1py(x: Any, y: Any) -> Tensor:
    """``x * log1p(y)``, 0 where ``x == 0`` (unless ``y`` is NaN)."""
    return _of_reals("xlog1py", _XLOG1PY, x, y)


def betaln(a: Any, b: Any) -> Tensor:
    """``ln |B(a, b)|``; accurate for large arguments too (``betaln(1e6, 1)``)."""
    return _of_reals("betaln", _BETALN, a, b)


def beta(a: Any, b: Any) -> Tensor:
    """``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``, as ``sign * exp(betaln(a, b))``
    (the sign is piecewise constant: no gradient).  At the poles: finite where two cancel
    (``beta(-3, 2) = 1/6``), ``+inf`` at 0, NaN at the other poles below 0 (the sign flips
    across them, as ``gamma``'s); 0 where ``betaln`` is ``-inf``."""
    lb = betaln(a, b)
    ta = as_tensor(a, lb)
    tb = as_tensor(b, lb)
    xp = lb.device.xp
    sign = _sp.beta_sign(xp, ta._data, tb._data)
    sign = xp.where(lb._data == -xp.inf, 1, sign).astype(lb.dtype)  # |B| = 0: its sign does not matter
    return mf.exp(lb) * Tensor._wrap(sign, None, lb.device)


def _complex_logsumexp(s: Tensor, shift: Tensor, axis: Any, keepdims: bool, return_sign: bool) -> Any:
    """:func:`logsumexp`'s end for a complex sum ``s`` of the shifted terms: ``log(s) + shift``,
    or with ``return_sign`` the real ``log|s| + shift`` and the phase ``s / |s|``."""
    axes = tuple(range(s.ndim)) if axis is None else axis
    squeeze = (lambda t: t) if keepdims else (lambda t: mf.squeeze(t, axes))
    if not return_sign:
        return squeeze(mf.log(s) + shift)
    magnitude = mf.abs(s)
    return squeeze(mf.log(magnitude) + shift), squeeze(s / magnitude).detach()


def logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: bool = False,
              return_sign: bool = False) -> Any:
    """``log(sum(b * exp(a)))`` over ``axis``, without overflow (SciPy's ``logsumexp``).

    ``b`` scales the terms (and broadcasts against ``a``); a negative sum is
    NaN unless ``return_sign=True``, which returns ``(log|sum|, sign)``.  An
    all ``-inf`` slice gives ``-inf`` (and a zero gradient).
    """
    if isinstance(b, bool):  # PyTorch's third argument: torch.special.logsumexp(x, dim, keepdim)
        b, keepdims = None, b
    a = as_tensor(a)
    if b is None and return_sign and a.dtype.kind == "c":
        b = 1.0  # the sign of a complex sum is its phase: the general path below
    if b is None:
        if a.size == 0:
            r = mf.log(mf.sum(mf.exp(a), axis=axis, keepdims=keepdims))
        else:
            r = mf.logsumexp(a, axis=axis, keepdims=keepdims)
        if not return_sign:
            return r
        xp = r.device.xp
        return r, Tensor._wrap(xp.where(xp.isnan(r._data), xp.nan, 1).astype(r.dtype), None, r.device)
    bt = as_tensor(b, a)
    xp = a.device.xp
    parts = xp.real(a._data) if a.dtype.kind == "c" else a._data  # a real shift keeps the phase
    m = xp.max(parts, axis=axis, keepdims=True) if a.size else xp.zeros((1,) * a.ndim, dtype=parts.dtype)
    m = xp.where(xp.isfinite(m), m, 0)  # a constant shift: exact, and no inf - inf
    shift = Tensor._wrap(m, None, a.device)
    s = mf.sum(bt * mf.exp(a - shift), axis=axis, keepdims=True)
    if s.dtype.kind == "c":  # SciPy's: the principal complex log; the sign is the phase s / |s|
        return _complex_logsumexp(s, shift, axis, keepdims, return_sign)
    with xp.errstate(divide="ignore", invalid="ignore"):
        sign = xp.sign(s._data)
    r = mf.log(mf.abs(s)) + shift
    if not keepdims:
        axes = tuple(range(r.ndim)) if axis is None else axis
        r = mf.squeeze(r, axes)
        sign = xp.squeeze(sign, axes)
    sign_t = Tensor._wrap(xp.asarray(sign), None, a.device)
    if return_sign:
        return r, sign_t
    return mf.where(sign_t < 0, host_numpy.nan, r)
