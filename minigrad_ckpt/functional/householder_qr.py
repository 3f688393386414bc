"""PyTorch's LAPACK-style QR: ``geqrf``, ``orgqr`` and ``ormqr``.

``geqrf(A)`` is LAPACK's ``geqrf`` itself -- NumPy's ``qr(mode="raw")`` calls it and hands back
its output transposed (Fortran's order) -- so ``a`` holds ``R`` on and above the diagonal and
the Householder vectors below it (each with an implicit 1 on the diagonal), and ``tau`` their
scales: ``Q = H_1 ... H_k`` with ``H_i = I - tau_i v_i v_i^H``.  It has no gradient, as
PyTorch's (whose derivative is "not implemented").  ``orgqr(a, tau)`` is
``mg.linalg.householder_product``; ``ormqr(a, tau, C, left, transpose)`` multiplies ``C`` by the
whole ``m x m`` ``Q`` (or ``Q^H``), formed as the product of the same reflectors, so both are
differentiable.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..backend import DtypeNotImplemented, host_numpy, scalar_type_name
from ..tensor import Tensor
from . import linalg_derived as lad
from . import math as mf
from .arguments import as_tensor
from .errors import InputMismatch
from .return_types import return_type
from .scatter import constant, host

__all__ = ["geqrf", "orgqr", "ormqr"]


class Geqrf(NamedTuple):
    """What ``geqrf`` returns, as ``torch.return_types.geqrf``."""

    a: Tensor
    tau: Tensor


_geqrf = return_type(Geqrf, "geqrf")


def geqrf(input: Any) -> Geqrf:  # noqa: A002
    """LAPACK's QR of the (batched) matrices ``input``: ``(a, tau)`` as ``torch.geqrf``.

    >>> a, tau = mg.geqrf(A); Q = mg.orgqr(a, tau); R = a.triu()[..., :A.shape[-1], :]
    """
    x = as_tensor(input)
    if x.ndim < 2:
        raise InputMismatch("torch.geqrf: input must have at least 2 dimensions.")
    if x.dtype.kind not in "fc" or x.dtype.itemsize < 4:
        raise DtypeNotImplemented(f'"geqrf_cpu" not implemented for \'{scalar_type_name(x.dtype)}\'')
    h, tau = host_numpy.linalg.qr(host(x), mode="raw")
    return _geqrf(constant(host_numpy.ascontiguousarray(h.swapaxes(-1, -2)).astype(x.dtype), x),
                  constant(tau.astype(x.dtype), x))


def orgqr(input: Any, tau: Any) -> Tensor:  # noqa: A002
    """``torch.orgqr``: the first ``n`` columns of ``Q`` from ``geqrf``'s ``(a, tau)``, which is
    ``mg.linalg.householder_product``."""
    return lad.householder_product(input, tau)


def ormqr(input: Any, tau: Any, other: Any, left: bool = True, transpose: bool = False) -> Tensor:  # noqa: A002
    """``torch.ormqr``: ``Q @ other`` (``left=False``: ``other @ Q``; ``transpose=True``: ``Q^H``)
    with ``Q`` the ``m x m`` product of ``geqrf``'s reflectors in ``(input, tau)``."""
    a, c = as_tensor(input), as_tensor(other)
    t = as_tensor(tau, a)
    m = a.shape[-2]
    side = -2 if left else -1
    if c.shape[side] != m:
        raise InputMismatch(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2]")
    square = a[..., :m] if a.shape[-1] >= m else mf.concatenate(
        [a, a.new_zeros((*a.shape[:-1], m - a.shape[-1]))], axis=-1)
    taus = mf.concatenate([t, t.new_zeros((*t.shape[:-1], m - t.shape[-1]))], axis=-1) if t.shape[-1] < m else t
    q = lad.householder_product(square, taus)
    if transpose:
        q = q.mH
    return q @ c if left else c @ q
