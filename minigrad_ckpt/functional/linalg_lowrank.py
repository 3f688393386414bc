"""PyTorch's ``torch.svd_lowrank`` and ``torch.pca_lowrank``: a randomized singular value
decomposition of a matrix (or a batch of them) that is close to rank ``q``.

The method is Halko, Martinsson and Tropp's (2009): multiply ``A`` by a random ``n x q``
Gaussian matrix, so that the ``q`` columns of the product span, with high probability, nearly
the same space as ``A``'s top ``q`` left singular vectors; make them orthonormal (``Q`` from a
QR); sharpen that space by ``niter`` power (subspace) iterations, ``A^H Q`` and ``A Q`` in turn,
each re-orthonormalized (their Algorithm 4.4); then the small ``q x n`` matrix ``B = Q^H A``
has an exact SVD ``B = U' S V^H``, and ``A ~ (Q U') S V^H`` (their Algorithm 5.1).

Every step is a differentiable function of the engine (``matmul``, ``linalg.qr``,
``linalg.svd``), so the results' derivatives, forward and reverse, are theirs.  The random
matrix is drawn from the engine's generator: ``mg.manual_seed`` makes the results repeat, and a
checkpointed segment replays them bit for bit (the draw is a constant the segment keeps).
"""

from __future__ import annotations

from typing import Any

from .. import creation
from ..tensor import Tensor
from . import linalg as _la
from . import math as mf
from .arguments import as_tensor
from .products import one_product_dtype

#: PyTorch's default number of subspace iterations, also what ``niter=None`` means
_NITER = 2


def _product(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` under PyTorch's rule for a matrix product: one dtype, or its ``RuntimeError``
    in its words (an integer ``A`` against the float sketch, a float32 ``M`` beside a float64
    ``A``) -- where NumPy's ``matmul`` would promote."""
    one_product_dtype(a, b)
    return mf.matmul(a, b)


def _sketch_dtype(a: Tensor) -> Any:
    """The dtype PyTorch draws the random sketch in: ``A``'s own when it is complex or one of
    the float dtypes, float32 otherwise (so an integer ``A`` meets the one-dtype refusal)."""
    if a.dtype.kind == "c" or str(a.dtype) in ("float16", "float32", "float64"):
        return a.dtype
    return "float32"


def _less_mean(a: Tensor, m: Tensor | None, product: Tensor, by: Tensor, left: bool) -> Tensor:
    """``product`` (``a @ by`` or ``by @ a``) with the same product of the mean ``m`` taken away:
    the product of ``a - m`` without forming ``a - m``."""
    if m is None:
        return product
    return product - (_product(m, by) if left else _product(by, m))


def _approximate_basis(a: Tensor, q: int, niter: int, m: Tensor | None) -> Tensor:
    """``Q`` with at most ``q`` orthonormal columns such that ``Q Q^H (A - M)`` is close to
    ``A - M`` (Halko et al., Algorithm 4.4).  The one random ``n x q`` matrix is shared by the
    batch, as PyTorch's."""
    sketch = creation.randn(a.shape[-1], q, dtype=_sketch_dtype(a), device=a.device)
    q_ = _la.qr(_less_mean(a, m, _product(a, sketch), sketch, True)).Q
    a_h, m_h = a.mH, (None if m is None else m.mH)
    for _ in range(niter):  # (a float niter is range's TypeError, a negative one no iteration: PyTorch's)
        q_ = _la.qr(_less_mean(a_h, m_h, _product(a_h, q_), q_, True)).Q
        q_ = _la.qr(_less_mean(a, m, _product(a, q_), q_, True)).Q
    return q_


def svd_lowrank(A: Any, q: int | None = 6, niter: int | None = 2,  # noqa: N803 -- PyTorch's names
                M: Any = None) -> tuple[Tensor, Tensor, Tensor]:  # noqa: N803
    """PyTorch's ``torch.svd_lowrank``: ``(U, S, V)`` of a randomized SVD with ``A ~ U diag(S) V^H``
    (of ``A - M`` where the mean ``M`` is given, broadcast to ``A``'s shape), ``A`` of shape
    ``(*, m, n)``; ``q`` (6 when None) a slightly overestimated rank: ``U`` is ``(*, m, k)``, ``S``
    ``(*, k)`` and ``V`` ``(*, n, k)`` with ``k = min(q, m, n)``; ``niter`` (2 when None) subspace
    iterations.  Random: the sketch comes from the engine's generator.  No sparse input (the
    engine has no sparse layout)."""
    a = as_tensor(A)
    q = 6 if q is None else q
    niter = _NITER if niter is None else niter
    m, n = a.shape[-2:]  # (a vector: Python's ValueError, as PyTorch's)
    mean = None if M is None else mf.broadcast_to(as_tensor(M, a), a.shape)
    wide = m < n
    if wide:  # the method wants a tall matrix: work on A^H and swap U and V back at the end
        a, mean = a.mH, (None if mean is None else mean.mH)
    basis = _approximate_basis(a, q, niter, mean)
    basis_h = basis.mH
    small = _less_mean(a, mean, _product(basis_h, a), basis_h, False)
    u, s, vh = _la.svd(small, full_matrices=False)
    u, v = _product(basis, u), vh.mH
    return (v, s, u) if wide else (u, s, v)


def pca_lowrank(A: Any, q: int | None = None, center: bool = True,  # noqa: N803 -- PyTorch's name
                niter: int = 2) -> tuple[Tensor, Tensor, Tensor]:
    """PyTorch's ``torch.pca_lowrank``: principal component analysis of the data ``A`` (``m``
    samples of ``n`` features, ``(*, m, n)``) as :func:`svd_lowrank` of ``A`` less its column means
    (``center=False``: ``A`` as it is).  ``V``'s columns are the principal directions, ``S**2 /
    (m - 1)`` the variances along them; ``q`` defaults to ``min(6, m, n)`` and must lie in
    ``[0, min(m, n)]``; ``niter`` must be non-negative (each a ``ValueError`` in PyTorch's words).  No sparse
    input (the engine has no sparse layout)."""
    a = as_tensor(A)
    m, n = a.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        a = a - a.mean(dim=-2, keepdim=True)
    return svd_lowrank(a, q, niter=niter)
