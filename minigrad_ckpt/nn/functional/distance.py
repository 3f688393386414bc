"""Distances and similarities: ``normalize``, ``cosine_similarity``, ``pairwise_distance``,
``pdist``, ``cdist``.

All are compositions of the engine's ops (the p-norm is ``linalg.norm``'s op, whose
subgradient at a zero vector is 0, as PyTorch's distance gradients at coincident
points), so every derivative, forward and reverse, of every order, comes with them.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import host_numpy, scalar_type_name
from ...functional import _tensor
from ...functional import linalg as _linalg
from ...functional.arguments import broadcast_shapes, number
from ...functional.errors import (
    ComplexNotImplemented,
    InputMismatch,
    NeedsFloatingInput,
    WrongTensorKind,
    dimension_out_of_range,
)
from ...functional.linalg_derived import vector_norm
from ...functional.promotion import promoted
from ...out_arguments import CAST, with_out
from ...tape import watch_versions
from ...tensor import Tensor
from .inputs import _axis

__all__ = [
    "normalize", "cosine_similarity", "pairwise_distance", "pdist", "cdist",
]


def _p_norm(x: Tensor, p: float, axis: int, keepdims: bool = False) -> Tensor:
    return _linalg.norm(x, float(p), axis=axis, keepdims=keepdims)


def _distance(diff: Tensor, p: float) -> Tensor:
    """The ``p``-norm of ``diff`` over its last axis, with the gradient of PyTorch's ``pdist`` and
    ``cdist`` kernels.  They differ from the norm's only at ``p = inf``: every coordinate whose
    ``|diff|`` ties the maximum gets the whole ``sign(diff)``, where the norm (``vector_norm``,
    ``amax``) shares it evenly among the ties -- so a tie's gradient here is the norm's times the
    number tied.  Built as ``max + sum(tied (|diff| - |diff|.detach()))``: the value is the max
    exactly, each tied coordinate moves it one for one.  An infinite or NaN distance keeps the norm
    (``inf - inf`` would be NaN)."""
    if p != host_numpy.inf:
        return _p_norm(diff, p, -1)
    size = mf.abs(diff)
    top = mf.max(size.detach(), axis=-1, keepdims=True)
    finite = mf.isfinite(top)
    tied = mf.where(mf.logical_and(size.detach() == top, finite), size, 0.0)  # (no inf - inf: silent)
    top, finite = mf.squeeze(top, -1), mf.squeeze(finite, -1)
    return mf.where(finite, top + mf.sum(tied - tied.detach(), axis=-1), mf.max(size, axis=-1))


def normalize(input: Any, p: float = 2.0, axis: int | None = None, eps: float = 1e-12, out: Tensor | None = None,
              *, dim: int | None = None) -> Tensor:
    """``x / max(||x||_p, eps)`` along ``axis`` (PyTorch's default ``dim=1``; a tuple of dims, ``()``
    for every dim, and dim 0 of a 0-d tensor too, as PyTorch's vector norm takes them).  ``p`` is
    what ``Tensor.norm`` takes, as in PyTorch, whose ``normalize`` calls it: a number, ``"fro"`` or
    ``"nuc"``.  ``out=`` writes the answer there, as ``mg.div``'s ``out=`` does (so, as PyTorch's, not
    while ``input`` requires grad): residual flows' power iteration normalizes its ``u`` buffer in place
    with ``F.normalize(u, dim=0, out=u)``."""
    p = p if isinstance(p, str) else number("normalize", "p", p)
    input = _tensor(input)
    ax = _axis(axis, dim, default=1)
    norm = input.norm(p, ax, keepdim=True) if isinstance(p, str) else vector_norm(input, float(p), ax, keepdim=True)
    if out is not None:  # PyTorch's normalize is torch.div(input, denominator, out=out)
        return _divided_into(input, mf.maximum(norm, eps), out=out)
    return input / mf.maximum(norm, eps)


#: ``input / other`` written into ``out=`` with ``mg.div``'s checks and dtype rule (its errors name div)
_divided_into = with_out("div", lambda numerator, denominator: numerator / denominator, CAST)


def cosine_similarity(x1: Any, x2: Any, axis: int | None = None, eps: float = 1e-8, *,
                      dim: int | None = None) -> Tensor:
    """The cosine of the angle between ``x1`` and ``x2`` along ``axis`` (default 1), broadcast
    together: ``sum(x1/max(||x1||, eps) * x2/max(||x2||, eps))`` (PyTorch's formula)."""
    eps = number("cosine_similarity", "eps", eps, "float")
    a = _tensor(x1)
    b = _tensor(x2, a)
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        # PyTorch refuses (a RuntimeError); the formula without a conjugate would make cos(z, z) != 1 for
        # complex z.  The error is the TypeError it was too.
        raise ComplexNotImplemented(f"cosine_similarity: expected real input, got {a.dtype} and {b.dtype} (as "
                                    f"PyTorch's); for complex vectors take the real inner product of "
                                    f"mg.view_as_real(z) instead")
    if a.dtype != b.dtype:  # PyTorch's common dtype: float32 beside int64 stays float32 (NumPy: float64)
        a, b = promoted(a, b)
    if a.dtype.kind not in "f":
        raise RuntimeError(f"cosine_similarity: expected common dtype to be floating point, yet common dtype "
                           f"is {a.dtype} (as PyTorch's)")
    if a.shape != b.shape:
        shape = broadcast_shapes("cosine_similarity", a.shape, b.shape)  # (PyTorch's RuntimeError)
        a, b = mf.broadcast_to(a, shape), mf.broadcast_to(b, shape)
    ax = _axis(axis, dim, default=1)
    if a.ndim == 0:  # PyTorch's dims of a 0-d tensor: 0 and -1 name its one element, a 1-vector's
        if ax not in (0, -1):
            raise dimension_out_of_range(ax, 0)
        a, b, ax = mf.reshape(a, (1,)), mf.reshape(b, (1,)), 0
    na, nb = clamped_keeping_gradient(_p_norm(a, 2, ax, keepdims=True), eps), \
        clamped_keeping_gradient(_p_norm(b, 2, ax, keepdims=True), eps)
    return mf.sum((a / na) * (b / nb), axis=ax)


def clamped_keeping_gradient(x: Tensor, eps: float) -> Tensor:
    """``max(x, eps)`` in value, ``x``'s derivative everywhere: PyTorch clamps norms and variances in
    place under ``no_grad``, so a value below ``eps`` still passes its gradient (``max`` would stop it).
    Only the values below ``eps`` are replaced (``(x - x.detach()) + eps``): an infinite ``x`` stays
    itself, where ``max(x, eps).detach() + (x - x.detach())`` is ``inf - inf``, NaN."""
    return mf.where(x < eps, (x - x.detach()) + eps, x)


def pairwise_distance(x1: Any, x2: Any, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last axis (broadcast together; PyTorch's ``eps`` keeps the
    distance of equal points off the norm's kink)."""
    p, eps = number("pairwise_distance", "p", p, "float"), number("pairwise_distance", "eps", eps, "float")
    a = _tensor(x1)
    b = _tensor(x2, a)
    d = a - b + eps
    if d.ndim == 0:
        d = mf.reshape(d, (1,))
    return _p_norm(d, p, -1, keepdims=keepdim)


def pdist(input: Any, p: float = 2.0) -> Tensor:
    """The ``p``-norm distances between the rows of an (N, M) ``input``, upper triangle row by row:
    ``N (N - 1) / 2`` values."""
    p = number("pdist", "p", p, "float")
    input = _tensor(input)
    if input.ndim != 2:
        raise InputMismatch(f"pdist: expected a 2-D (N, M) input, got shape {input.shape}")
    if input.dtype.kind not in "fc":  # PyTorch's refusal (NumPy's norm would answer in float64)
        raise NeedsFloatingInput("pdist only supports floating-point dtypes")
    if p < 0:
        raise InputMismatch(f"pdist: p must be >= 0, got {p}")
    n = input.shape[0]
    i, j = (a.tolist() for a in host_numpy.triu_indices(n, 1))
    # backward reads the differences, a copy: the input's own version is watched (see cdist)
    return watch_versions(_distance(mf.take(input, i, axis=0) - mf.take(input, j, axis=0), p), (input,))


def cdist(x1: Any, x2: Any, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M): (..., P, R), batch axes broadcast.  ``compute_mode`` is accepted; the
    distances are always the direct differences (no matrix-product shortcut, whose
    rounding PyTorch's ``"use_mm..."`` modes trade for speed)."""
    p = number("cdist", "p", p, "float")
    a = _tensor(x1)
    b = _tensor(x2, a)
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-1]:
        raise InputMismatch(f"cdist: expected (..., P, M) and (..., R, M) inputs, got {a.shape} and {b.shape}")
    for name, x in (("X1", a), ("X2", b)):  # PyTorch's refusal (NumPy's norm would answer in float64)
        if x.dtype.kind not in "fc":
            raise NeedsFloatingInput(f"cdist only supports floating-point dtypes, {name} got: "
                                     f"{scalar_type_name(x.dtype)}")
    if a.dtype != b.dtype:  # (PyTorch's RuntimeError "expected scalar type Float but found Double")
        raise WrongTensorKind(f"cdist: X1 and X2 must have one dtype, got {a.dtype} and {b.dtype}")
    if p < 0:
        raise InputMismatch(f"cdist: p must be >= 0, got {p}")
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"cdist: unknown compute_mode {compute_mode!r}")
    # rows of no entries are 0 apart in every norm, as PyTorch's (the inf norm refuses an empty axis)
    d = _distance(mf.expand_dims(a, -2) - mf.expand_dims(b, -3), p if a.shape[-1] else 2.0)
    # backward reads the differences, a copy of both inputs: a write into either after this call (an
    # optimizer's step on learned centroids before the loss's backward) would go unnoticed, where
    # PyTorch's one op saves both and refuses; their versions are watched instead
    return watch_versions(d, (a, b))
