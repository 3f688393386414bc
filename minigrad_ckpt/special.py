"""``mg.special``: SciPy's special functions (gammaln, digamma, polygamma, gamma, erfc,
erfinv, erfcinv, logit, expit, xlogy, xlog1py, beta, betaln, logsumexp, ndtr, ndtri,
log_ndtr, erfcx, i0, i0e, i1, i1e, entr, multigammaln, sinc, zeta, gammainc, gammaincc),
differentiable and without SciPy at run time, ``torch.special``'s orthogonal polynomials
(``chebyshev_polynomial_t`` ... ``legendre_polynomial_p``: ``functional.special_polynomials``),
and ``torch.special``'s names for functions offered under mg's own (softmax, log_softmax,
expm1, exp2, log1p, round).  The functions live in :mod:`minigrad_ckpt.functional.special`;
this module is their public address (the table of public names,
:mod:`minigrad_ckpt.functional.public_names`, says which they are).

    import minigrad_ckpt as mg

    x = mg.tensor([0.5, 3.0], dtype="float64", requires_grad=True)
    mg.special.gammaln(x).sum().backward()
    x.grad            # digamma(x)
"""

from __future__ import annotations

from .functional import public_names as _public_names

globals().update(_public_names.exports(__name__))
__all__ = list(_public_names.exports(__name__))
