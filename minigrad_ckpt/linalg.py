"""``mg.linalg``: NumPy's ``linalg`` (and SciPy's ``solve_triangular``), differentiable
and batched over leading axes.  The functions live in
:mod:`minigrad_ckpt.functional.linalg`, which is also ``xp.linalg`` of the
differentiable namespace; this module is their public address.

    import minigrad_ckpt as mg

    a = mg.tensor([[4.0, 1.0], [1.0, 3.0]], dtype="float64", requires_grad=True)
    mg.linalg.slogdet(a).logabsdet.backward()
    a.grad            # inv(a).T
"""

from __future__ import annotations

from .functional.linalg import (  # noqa: F401
    EighResult,
    EigResult,
    LstsqResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    __all__,
    cholesky,
    det,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    inv,
    lstsq,
    matrix_power,
    norm,
    pinv,
    qr,
    slogdet,
    solve,
    solve_triangular,
    svd,
    svdvals,
)
from .functional.linalg_derived import __all__ as _derived
from .functional.linalg_derived import (  # noqa: F401
    cholesky_inverse,
    cholesky_solve,
    cond,
    householder_product,
    lu,
    lu_factor,
    lu_solve,
    matrix_exp,
    matrix_norm,
    matrix_rank,
    multi_dot,
    tensorinv,
    tensorsolve,
    vecdot,
    vector_norm,
)
from .functional.linalg_ldl import (  # noqa: F401
    LDLFactorExResult,
    LDLFactorResult,
    ldl_factor,
    ldl_factor_ex,
    ldl_solve,
)
from .functional.linalg_ldl import __all__ as _ldl
from .functional.torch_idioms import with_dim  # noqa: E402

__all__ = __all__ + _derived + _ldl  # noqa: PLE0605
norm = with_dim(norm)  # PyTorch's dim=/keepdim= beside axis=/keepdims=
