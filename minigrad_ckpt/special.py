"""``mg.special``: SciPy's special functions (gammaln, digamma, polygamma, gamma, erfc,
erfinv, erfcinv, logit, expit, xlogy, xlog1py, beta, betaln, logsumexp, ndtr, ndtri,
log_ndtr, erfcx, i0, i0e, i1, i1e, entr, multigammaln, sinc),
differentiable and without SciPy at run time.  The functions live in
:mod:`minigrad_ckpt.functional.special`; this module is their public address.

    import minigrad_ckpt as mg

    x = mg.tensor([0.5, 3.0], dtype="float64", requires_grad=True)
    mg.special.gammaln(x).sum().backward()
    x.grad            # digamma(x)
"""

from __future__ import annotations

from .functional.special import (  # noqa: F401
    __all__,
    beta,
    betaln,
    digamma,
    erf,
    erfc,
    erfcinv,
    erfinv,
    expit,
    gamma,
    gammaln,
    logit,
    logsumexp,
    polygamma,
    psi,
    xlog1py,
    xlogy,
)
from .functional.special_extended import __all__ as _extended
from .functional.special_extended import (  # noqa: F401
    entr,
    erfcx,
    gammainc,
    gammaincc,
    i0,
    i0e,
    i1,
    i1e,
    log_ndtr,
    multigammaln,
    ndtr,
    ndtri,
    sinc,
    zeta,
)
from .functional.torch_idioms import with_dim  # noqa: E402

__all__ = __all__ + _extended  # noqa: PLE0605
logsumexp = with_dim(logsumexp)  # PyTorch's dim=/keepdim= beside axis=/keepdims=
