"""PyTorch's deprecated ``torch.nuclear_norm`` and ``torch.frobenius_norm``, over ``mg.linalg``.

ATen keeps both "for JIT compatibility" and warns, once a process (every call after
``mg.set_warn_always(True)``), naming the ``linalg`` call to write instead -- the call each one
is here: ``nuclear_norm(A, dim, keepdim)`` is ``linalg.matrix_norm(A, "nuc", dim, keepdim)``
(without ``dim``, the last two dims: a batch of matrices), ``frobenius_norm(A, dim, keepdim)`` is
``linalg.vector_norm(A, 2, dim, keepdim)`` over at most two dims (``dim=()``: every element).
"""

from __future__ import annotations

import warnings
from typing import Any

from ..settings import warn_once
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from . import linalg_derived as la
from .arguments import as_tensor

__all__ = ["nuclear_norm", "frobenius_norm"]


def _deprecated(name: str, instead: str) -> None:
    if warn_once(name):
        warnings.warn(f"at::{name} is deprecated and it is just left for JIT compatibility. It will be removed in "
                      f"a future PyTorch release. Please use `{instead}` instead", UserWarning,
                      stacklevel=stacklevel_outside_the_engine())


def nuclear_norm(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A002
    """``torch.nuclear_norm``: the sum of the singular values of the matrices over ``dim`` (a
    pair; without it, the last two dims, as ``linalg.matrix_norm``'s), as
    ``mg.linalg.matrix_norm(input, "nuc", dim)``."""
    _deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    x = as_tensor(input)
    if isinstance(dim, bool):  # torch.nuclear_norm(x, True): the overload without dim, keepdim second
        dim, keepdim = None, dim
    if dim is None:  # torch 2.13: the last two dims, a batch of matrices before them
        if x.ndim < 2:
            raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
        dim = (-2, -1)
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {_listed(dim)}")
    return la.matrix_norm(x, "nuc", dim=tuple(dim), keepdim=keepdim)


def frobenius_norm(input: Any, dim: Any, keepdim: bool = False) -> Tensor:  # noqa: A002
    """``torch.frobenius_norm``: the 2-norm of the elements over ``dim`` (one or two dims; ``()``:
    all of them), as ``mg.linalg.vector_norm(input, 2, dim, keepdim)``."""
    _deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    return la.vector_norm(as_tensor(input), 2, dim=dims, keepdim=keepdim)


def _listed(dim: Any) -> str:
    return " ".join(str(d) for d in dim) if isinstance(dim, (tuple, list)) else str(dim)
