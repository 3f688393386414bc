"""``mg.special``'s orthogonal polynomials, ``torch.special``'s names: ``chebyshev_polynomial_t``,
``_u``, ``_v``, ``_w``, their ``shifted_`` twins, ``hermite_polynomial_h``, ``hermite_polynomial_he``,
``laguerre_polynomial_l`` and ``legendre_polynomial_p`` -- each ``f(input, n)``, the ops of
:mod:`minigrad_ckpt.ops.orthogonal_polynomials` (PyTorch's cases at the edges, its degree
``n`` truncated toward zero).

The operands broadcast and promote as PyTorch's (``float32`` input and ``int64`` degrees:
float32; two integral operands: the default float dtype; a Python number takes the tensor's
dtype); one of them must be a tensor (PyTorch's ``TypeError`` for two numbers).  No gradient:
the result never requires grad, so ``backward`` through it is the engine's error for a tensor
that does not require grad -- PyTorch's too.
"""

from __future__ import annotations

from typing import Any

from ..ops import orthogonal_polynomials as _op
from ..tape import apply
from ..tensor import Tensor
from .special import _real_only
from .special_extended import _one_float_dtype


def _polynomial(name: str, op: Any, x: Any, n: Any) -> Tensor:
    """``op(x, n)``: complex operands refused, both in PyTorch's common float dtype."""
    if not isinstance(x, Tensor) and not isinstance(n, Tensor):
        raise TypeError(f"special.{name}: one of input and n must be a Tensor (got {type(x).__name__} "
                        f"and {type(n).__name__}), as PyTorch's")
    _real_only(name, x, n)
    return apply(op, *_one_float_dtype(x, n))



def _public(name: str, op: Any, doc: str) -> Any:
    """The public ``mg.special.<name>(input, n)`` of ``op``, with PyTorch's keyword names."""

    def function(input: Any, n: Any) -> Tensor:  # noqa: A002 (PyTorch's keyword)
        return _polynomial(name, op, input, n)

    return named(function, name, doc)


def named(function: Any, name: str, doc: str) -> Any:
    """``function`` under the public ``name`` and docstring ``doc`` (as ``help`` and docs/api.md show it)."""
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


chebyshev_polynomial_t = _public(
    "chebyshev_polynomial_t", _op.ChebyshevPolynomialT(),
    "Chebyshev's first kind ``T_n(input)``: ``cos(n t)`` at ``input = cos t``.")
chebyshev_polynomial_u = _public(
    "chebyshev_polynomial_u", _op.ChebyshevPolynomialU(),
    "Chebyshev's second kind ``U_n(input)``: ``sin((n + 1) t) / sin t`` at ``cos t``.")
chebyshev_polynomial_v = _public(
    "chebyshev_polynomial_v", _op.ChebyshevPolynomialV(),
    "Chebyshev's third kind ``V_n(input)``: ``cos((n + 1/2) t) / cos(t/2)`` at ``cos t``.")
chebyshev_polynomial_w = _public(
    "chebyshev_polynomial_w", _op.ChebyshevPolynomialW(),
    "Chebyshev's fourth kind ``W_n(input)``: ``sin((n + 1/2) t) / sin(t/2)`` at ``cos t``.")
shifted_chebyshev_polynomial_t = _public(
    "shifted_chebyshev_polynomial_t", _op.ShiftedChebyshevPolynomialT(),
    "``T_n(2 input - 1)``, Chebyshev's first kind on ``[0, 1]``.")
shifted_chebyshev_polynomial_u = _public(
    "shifted_chebyshev_polynomial_u", _op.ShiftedChebyshevPolynomialU(),
    "``U_n(2 input - 1)``, Chebyshev's second kind on ``[0, 1]``.")
shifted_chebyshev_polynomial_v = _public(
    "shifted_chebyshev_polynomial_v", _op.ShiftedChebyshevPolynomialV(),
    "``V_n(2 input - 1)``, Chebyshev's third kind on ``[0, 1]``.")
shifted_chebyshev_polynomial_w = _public(
    "shifted_chebyshev_polynomial_w", _op.ShiftedChebyshevPolynomialW(),
    "``W_n(2 input - 1)``, Chebyshev's fourth kind on ``[0, 1]``.")
hermite_polynomial_h = _public(
    "hermite_polynomial_h", _op.HermitePolynomialH(),
    "The physicists' Hermite ``H_n(input)`` (``H_2 = 4x^2 - 2``); NaN beyond degree 128 (float32) / 512.")
hermite_polynomial_he = _public(
    "hermite_polynomial_he", _op.HermitePolynomialHe(),
    "The probabilists' Hermite ``He_n(input)`` (``He_2 = x^2 - 1``); NaN beyond degree 128 / 512.")
laguerre_polynomial_l = _public(
    "laguerre_polynomial_l", _op.LaguerrePolynomialL(),
    "Laguerre's polynomial ``L_n(input)`` (``L_1 = 1 - x``).")
legendre_polynomial_p = _public(
    "legendre_polynomial_p", _op.LegendrePolynomialP(),
    "Legendre's polynomial ``P_n(input)`` (``P_2 = (3x^2 - 1) / 2``).")
