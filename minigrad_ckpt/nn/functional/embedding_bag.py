"""``embedding_bag``: the sum, mean or max of bags of embedding rows, without materializing
the bags (PyTorch's ``F.embedding_bag``).

The rows are looked up with ``embedding`` and reduced per bag: ``sum``/``mean`` as one
``index_add`` of the (weighted) rows into their bags, ``max`` bag by bag.  Bags are the
rows of a 2-D ``input``, or the runs of a 1-D ``input`` that ``offsets`` start.
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import host_numpy as np
from ...functional import _tensor
from ...functional.errors import IndexOutOfBounds, InputMismatch, ModeNotImplemented, WrongTensorKind
from ...tape import watch_versions
from ...tensor import Tensor
from .embedding import embedding

__all__ = [
    "embedding_bag",
]

# Refused, not PyTorch's: its CPU backward divides the k-th distinct id's gradient (ascending) by the
# count of the k-th id of the sorted input, not by that id's own count -- against its docs and
# Embedding's (ids [1, 2, 2, 2, 3]: row 3 gets 1/3 of its gradient); docs/from-pytorch.md
SCALE_GRAD_BY_FREQ_REFUSED = (
    "scale_grad_by_freq is not supported: PyTorch's CPU backward scales a row by another id's count "
    "(docs/from-pytorch.md); use F.embedding(..., scale_grad_by_freq=True) and reduce the bags")


def _bags(name: str, ids: Tensor, offsets: Any, include_last_offset: bool) -> tuple[Tensor, Any, int]:
    """The flat ids, per id its bag number (host), and the number of bags."""
    if ids.ndim == 2:  # (the refusals in torch 2.13's words)
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        b, n = ids.shape
        return mf.reshape(ids, (-1,)), np.repeat(np.arange(b), n), b
    if ids.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {ids.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    offsets = _tensor(offsets, ids)
    if offsets.ndim != 1:  # (PyTorch's ValueError; reshape(-1) read any shape as a list)
        raise ValueError(f"{name}: offsets has to be a 1D Tensor, got shape {offsets.shape}")
    if offsets.dtype.kind not in "iu":  # (PyTorch's RuntimeError; float offsets were cast)
        raise WrongTensorKind(f"{name}: offsets must be integers (int64 or int32), got {offsets.dtype}")
    off = np.asarray(ids.device.xp.to_host(offsets._data), dtype=np.int64)
    if off.size and off.max() > ids.shape[0]:  # (torch 2.13's words)
        raise InputMismatch(f"offsets[-1] can not be greater than input's length {ids.shape[0]} but got "
                            f"offsets[-1] of {off.max()}")
    ends = off[1:] if include_last_offset else np.append(off[1:], ids.shape[0])
    starts = off[:-1] if include_last_offset else off
    if starts.size and (starts[0] != 0 or (np.diff(off) < 0).any() or ends[-1] > ids.shape[0]):
        raise InputMismatch(f"{name}: offsets must start at 0 and not decrease past the input's length, "
                         f"got {off.tolist()}")
    if include_last_offset and off.size and off[-1] != ids.shape[0]:
        # PyTorch documents this; it does not check it, and its float32 and float64 kernels then disagree
        raise ValueError(f"{name}: with include_last_offset=True the last offset must be the input's length "
                         f"{ids.shape[0]}, got offsets {off.tolist()}")
    return ids, np.repeat(np.arange(starts.size), ends - starts), int(starts.size)


def embedding_bag(input: Any, weight: Any, offsets: Any = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean",
                  sparse: bool = False, per_sample_weights: Any = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Per bag, the ``mode`` (``"sum"``, ``"mean"`` or ``"max"``) of ``weight``'s rows at its ids:
    (bags, dim).  ``per_sample_weights`` scales each row (``"sum"`` only); ids equal to
    ``padding_idx`` are left out of their bag (and of its mean's count); an empty bag is zeros.
    ``sparse`` is accepted for sum and mean (the gradient is dense here); max refuses it, as PyTorch."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"embedding_bag: mode must be 'sum', 'mean' or 'max', got {mode!r}")
    if scale_grad_by_freq:
        raise ValueError(f"embedding_bag: {SCALE_GRAD_BY_FREQ_REFUSED}")
    if mode == "max" and sparse:  # (torch 2.13's words: its max bags have no sparse backward)
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise ModeNotImplemented("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                 f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                 "GitHub.")  # (torch 2.13's words)
    w = _tensor(weight)
    if w.ndim != 2:  # (PyTorch's ValueError, before the ids are read)
        raise InputMismatch(f"embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension {w.ndim}")
    if padding_idx is not None and not -w.shape[0] <= padding_idx < w.shape[0]:  # (torch 2.13's words)
        raise InputMismatch(f"padding_idx must be within the number of embeddings, {-w.shape[0]} through "
                            f"{w.shape[0] - 1}, but got {padding_idx}")
    ids, bag_of, n_bags = _bags("embedding_bag", _tensor(input, w), offsets, include_last_offset)
    try:
        rows = embedding(ids, w, None, max_norm, norm_type)
    except IndexError:  # an id out of range: PyTorch's RuntimeError, naming it (the error's path reads them)
        flat = np.asarray(ids.device.xp.to_host(ids._data)).reshape(-1)
        at = int(np.flatnonzero((flat < 0) | (flat >= w.shape[0]))[0])
        raise IndexOutOfBounds(f"Index {at} of input takes value {flat[at]} which is not in the valid range "
                               f"[0, {w.shape[0]})") from None
    keep = np.ones(bag_of.shape, dtype=bool)
    if padding_idx is not None:
        keep = np.asarray(ids.device.xp.to_host(ids._data)) != padding_idx % w.shape[0]
    xp = w.device.xp
    if per_sample_weights is not None:
        psw = _tensor(per_sample_weights, w)
        if psw.shape != tuple(_tensor(input, w).shape):  # (torch 2.13's words, and its order of checks)
            raise ValueError(f"embedding_bag: If per_sample_weights ({psw.shape}) is not None, then it must have "
                             f"the same shape as the input ({tuple(_tensor(input, w).shape)})")
        if psw.dtype != w.dtype:  # NumPy would promote the bags to the wider dtype
            raise WrongTensorKind(f"Expected tensor for argument #1 'weight' to have the same type as tensor for "
                                  f"argument #1 'per_sample_weights'; but type {w.dtype} does not equal "
                                  f"{psw.dtype} (while checking arguments for embedding_bag)")
        psw = mf.reshape(psw, (-1, 1))
    if mode == "max":
        return _bag_maxima(rows, bag_of, keep, n_bags)
    # the padding ids' rows are left out, not scaled by 0: 0 * inf would be NaN in their bag
    kept = np.flatnonzero(keep)
    rows, bag_of = mf.take(rows, kept.tolist(), axis=0), bag_of[kept]
    if per_sample_weights is not None:  # (after the padding is out: its weight's gradient is 0, not 0 * inf)
        rows = rows * mf.take(psw, kept.tolist(), axis=0)
    if mode == "mean":
        counts = np.bincount(bag_of, minlength=n_bags)
        scale = 1.0 / np.maximum(counts, 1)[bag_of]
        rows = rows * Tensor.constant(xp.asarray(scale.astype(w.dtype).reshape(-1, 1)), w.device)
    where = Tensor.constant(xp.asarray(bag_of), w.device)
    bags = mf.index_add((n_bags, w.shape[1]), (where,), rows)
    if per_sample_weights is None:
        return bags
    # the weights' gradient reads the rows taken from the table, the table's reads the weights: copies
    # both, so each one's version is watched where the other's gradient is needed (an optimizer's step on
    # the table before the loss's backward), as PyTorch's one op saves both
    scaled = _tensor(per_sample_weights, w)
    return watch_versions(bags, [t for t, other in ((scaled, w), (w, scaled)) if other.requires_grad])


def _bag_maxima(rows: Tensor, bag_of: Any, keep: Any, n_bags: int) -> Tensor:
    """Per bag and column, the row at the bag's first maximum (its first NaN where it has one),
    picked on the host and gathered: the gradient goes to that row alone, as PyTorch's
    ``max_indices`` send it -- a bag holding an id twice, or two rows that tie, does not share it
    (as the max pools' first maximum); an empty bag is zeros."""
    values = np.asarray(rows.device.xp.to_host(rows.detach()._data))
    bags = []
    for b in range(n_bags):
        members = np.flatnonzero((bag_of == b) & keep)
        if not members.size:
            bags.append(mf.sum(rows[:0], axis=0))
            continue
        first = members[np.argmax(values[members], axis=0)]  # (NumPy's argmax: the first NaN, else first max)
        at = Tensor.constant(rows.device.xp.asarray(first.reshape(1, -1)), rows.device)
        bags.append(mf.take_along_axis(rows, at, axis=0)[0])
    return mf.stack(bags) if bags else mf.reshape(rows[:0], (0, rows.shape[1]))
