"""``mg.linalg``: NumPy's ``linalg`` (and SciPy's ``solve_triangular``), differentiable
and batched over leading axes.  The functions live in
:mod:`minigrad_ckpt.functional.linalg`, which is also ``xp.linalg`` of the
differentiable namespace; this module is their public address (the table of
public names, :mod:`minigrad_ckpt.functional.public_names`, says which they are).

    import minigrad_ckpt as mg

    a = mg.tensor([[4.0, 1.0], [1.0, 3.0]], dtype="float64", requires_grad=True)
    mg.linalg.slogdet(a).logabsdet.backward()
    a.grad            # inv(a).T
"""

from __future__ import annotations

from .functional import public_names as _public_names
from .functional.linalg import (  # noqa: F401  (the result types, as torch.linalg's)
    EighResult,
    EigResult,
    LstsqResult,
    QRResult,
    SlogdetResult,
    SVDResult,
)
from .functional.linalg_ex import (  # noqa: F401  (the result types, and the error mg.linalg raises)
    CholeskyExResult,
    InvExResult,
    LUFactorExResult,
    SolveExResult,
)
from .functional.linalg_ldl import LDLFactorExResult, LDLFactorResult  # noqa: F401
from .ops.linalg_failure import LinAlgError  # noqa: F401  (the error mg.linalg raises)

globals().update(_public_names.exports(__name__))
__all__ = list(_public_names.exports(__name__))
