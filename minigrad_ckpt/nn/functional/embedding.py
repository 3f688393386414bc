"""Lookups by class index: ``embedding`` (rows of a table) and ``one_hot``."""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import host_numpy as np
from ...creation import int_argument
from ...functional import _tensor
from ...functional.arguments import number
from ...functional.errors import ClassValueOutOfRange, InputMismatch, PaddingIdxOutOfRange, WrongTensorKind
from ...functional.indexing import getitem_in_range
from ...functional.linalg_derived import vector_norm
from ...grad_mode import no_grad
from ...ops import indexing as _ix
from ...tape import apply, device_mismatch, watch_versions
from ...tensor import Tensor
from .inputs import check_index_dtype

__all__ = [
    "embedding", "one_hot",
]

# PyTorch's words (its tests match them), the engine's dtypes named after them; the dtype got follows
_INDEX_DTYPES = ("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int "
                 "(int64 or int32)")


def embedding(input: Any, weight: Any, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` (num_embeddings, dim) selected by integer ``input``.

    Repeated ids accumulate their gradients into the same row.  The row
    ``padding_idx`` gets no gradient (its value is looked up as usual).  With
    ``max_norm``, the looked-up rows whose ``norm_type``-norm exceeds it are
    first rescaled **in place** (outside the tape) to norm ``max_norm``, as in
    PyTorch. ``scale_grad_by_freq`` divides the gradient each looked-up row sends back by how
    often its id occurs in ``input`` (PyTorch's; forward mode is not scaled, as PyTorch's is not).
    ``sparse`` is accepted and the gradient is dense (there is no sparse layout): the rows not looked
    up get zeros, so SGD (momentum included) and Adagrad -- the optimizers PyTorch steps with a sparse
    gradient -- reach the same parameters.
    """
    padding_idx = number("embedding", "padding_idx", padding_idx, "SymInt")
    w = _tensor(weight)
    if w.ndim != 2:  # a 1-D table would hand back scalars, a 3-D one matrices, where PyTorch refuses both
        raise WrongTensorKind(f"embedding: 'weight' must be 2-D (num_embeddings, dim), got shape {tuple(w.shape)}")
    ids = _tensor(input, w)
    if ids._device is not w._device:  # PyTorch's error (index_select's), before a host index meets device rows
        raise device_mismatch("embedding", f"{w.device} (weight)", f"{ids.device} (indices)")
    if ids.dtype.kind not in "iu":
        raise WrongTensorKind(f"embedding: {_INDEX_DTYPES}, got {ids.dtype}")
    check_index_dtype("embedding", ids, ("int64", "int32"), _INDEX_DTYPES)
    n = w.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise PaddingIdxOutOfRange(f"embedding: padding_idx={padding_idx} is out of range for {n} embeddings "
                                       "(Padding_idx must be within num_embeddings)")
        padding_idx %= n
    if ids.size:  # one explicit read: NumPy would read a negative id from the end, CuPy wrap any
        ((lo, hi),) = ids.device.xp.extrema([ids._data])
        if lo < 0 or hi >= n:
            raise IndexError("index out of range in self")  # (torch 2.13's words)
    if max_norm is not None and ids.size:
        _embedding_renorm_(w, ids, float(max_norm), float(norm_type))
    out = _frequency_scaled_lookup(w, ids) if scale_grad_by_freq and w.requires_grad else _lookup(w, ids)
    if padding_idx is not None and w.requires_grad:
        # the padding rows' values pass through detached: no gradient reaches weight[padding_idx]
        pad = Tensor.constant((ids._data == padding_idx)[..., None], ids.device)
        out = mf.where(pad, out.detach(), out)
    return out


def _lookup(w: Tensor, ids: Tensor) -> Tensor:
    """``w[ids]``, the ids checked already (not again by indexing: a second read on a device)."""
    out = getitem_in_range(w, (ids._data,))
    if out._node is not None:  # the op holds ids' array: a later in-place change of ids is refused
        watch_versions(out, [ids])
    return out


def _frequency_scaled_lookup(w: Tensor, ids: Tensor) -> Tensor:
    """``w[ids]`` whose backward divides each row's gradient by its id's count in ``ids``
    (PyTorch's ``scale_grad_by_freq``: a row looked up k times gets the mean, not the sum, of its k
    gradients)."""
    xp = w.device.xp
    host_ids = xp.to_host(ids._data)
    counts = np.bincount(host_ids.reshape(-1), minlength=w.shape[0])[host_ids]
    scale = xp.asarray((1.0 / counts[..., None]).astype(w.dtype))
    out = apply(_ix.FrequencyScaledGetItem(index=(ids._data,), in_shape=w.shape, scale=scale), w)
    if out._node is not None:  # the op holds ids' array: a later in-place change of ids is refused
        watch_versions(out, [ids])
    return out


def _embedding_renorm_(w: Tensor, ids: Tensor, max_norm: float, norm_type: float) -> None:
    """Rescale the rows ``ids`` of ``w`` in place to norm ``max_norm`` where larger (PyTorch's
    ``embedding_renorm_``: ``scale = max_norm / (norm + 1e-7)``)."""
    xp = w.device.xp
    with no_grad():
        rows = ids._data.reshape(-1)  # a repeated id rescales its row once: every copy writes the same value
        sel = w._data[rows]
        # the rows' vector norms (inf: the largest |x|, 0: the count of non-zeros), as PyTorch's at::norm;
        # sum(|x| ** p) ** (1 / p) was 1 for p = inf (nothing rescaled) and a ZeroDivisionError for p = 0
        norms = np.asarray(xp.to_host(vector_norm(Tensor.constant(sel, w.device), norm_type, dim=1)._data), np.float64)
        # the scale in double on the host (a float32-only device holds no float64), as PyTorch's, then w's dtype
        scale = xp.asarray(np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(w.dtype))
        # into the array, not through w[rows] = ...: the rescale has no derivative in PyTorch, so
        # a forward-mode tangent of w stays as it was (a recorded write would zero its rows); the
        # protocol of a write behind the engine's back: prepare_write, the write, increment_version
        w.prepare_write()
        xp.put_along_axis(w._data, rows[:, None], sel * scale[:, None], axis=0)
        w.increment_version()


def one_hot(input: Any, num_classes: int = -1) -> Tensor:
    """Integer class indices to a one-hot int64 tensor with a new last axis."""
    input = _tensor(input)
    num_classes = int_argument("one_hot", "num_classes", 2, num_classes)
    if input.dtype != "int64":  # (PyTorch's rule and words: int32 and uint8 ids are refused too)
        raise WrongTensorKind(f"one_hot is only applicable to index tensor of type LongTensor (int64), "
                              f"got {input.dtype}")
    if num_classes <= 0 and not input.size:  # PyTorch's rule: no value to read the count from
        raise InputMismatch("one_hot: can not infer the number of classes from an empty tensor; give num_classes")
    xp = input.device.xp
    ((lo, hi),) = xp.extrema([input._data]) if input.size else ((0, -1),)  # one explicit read
    # only -1 means "infer"; any other count below 1 is a count every class is out of, as PyTorch's
    n = hi + 1 if num_classes == -1 else num_classes
    if lo < 0:  # (torch 2.13's words)
        raise ClassValueOutOfRange("Class values must be non-negative.")
    if hi >= n:
        raise ClassValueOutOfRange("Class values must be smaller than num_classes.")
    out = (input._data[..., None] == xp.arange(n)).astype(xp.int64)
    return Tensor.constant(out, input.device)
