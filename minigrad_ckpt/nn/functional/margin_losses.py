"""Margin and ranking losses, PyTorch's formulas: ``margin_ranking_loss``,
``hinge_embedding_loss``, ``soft_margin_loss``, ``multilabel_soft_margin_loss``,
``multi_margin_loss``, ``multilabel_margin_loss``, ``triplet_margin_loss`` and
``triplet_margin_with_distance_loss``.

Each is a composition of the engine's ops, with PyTorch's gradient at the hinge
``max(0, z)``'s kink ``z = 0``: 1 where PyTorch writes ``clamp_min`` (margin ranking, hinge
embedding, triplet), 0 where its kernel tests ``z > 0`` (multi-margin, multi-label margin).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ... import functional as mf
from ...backend import host_numpy
from ...functional import _tensor
from ...functional.arguments import number, numbers
from ...functional.elementwise import refuse_bool_subtraction
from ...functional.errors import InputMismatch, NeedsFloatingInput, WrongTensorKind
from ...functional.indexing import take_along_axis_in_range
from ...functional.promotion import result_type
from ...functional.torch_methods import scalar_type_name
from ...ops.elementwise import BOOL_NEGATION_REFUSED
from ...tensor import Tensor
from .activation import logsigmoid, relu
from .distance import pairwise_distance
from .inputs import MEAN_OF_INTEGERS, _zeros_like, check_index_dtype
from .loss import _check_reduction, _hinge, _reduce, _reduction_of, class_index_weight, in_dtype_of, refuse_widening

__all__ = [
    "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
    "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
]


def margin_ranking_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``: ``target = 1`` asks ``input1`` to rank higher."""
    margin = number("margin_ranking_loss", "margin", margin, "float")
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    a = _tensor(input1)
    b, y = _tensor(input2, a), _tensor(target, a)
    if not a.ndim == b.ndim == y.ndim:  # (PyTorch's check: same number of dims; sizes then broadcast)
        raise InputMismatch(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                            f"input1: {_size(a)}, input2: {_size(b)}, target: {_size(y)} ")
    return _reduce(_hinge(-y * (a - b) + margin), reduction)


def _size(t: Tensor) -> str:
    return f"torch.Size({list(t.shape)})"


def _refusing_bool_input(loss: Any) -> Any:
    """``hinge_embedding_loss``, whose first step is ``margin - input``, under PyTorch's refusal of a
    bool ``input`` there (its words for two bools, whatever the target), before its other checks."""
    @functools.wraps(loss)
    def checked(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        if isinstance(input, Tensor) and input.dtype.kind == "b":
            refuse_bool_subtraction(input, input)
        return loss(input, *args, **kwargs)
    return checked


@_refusing_bool_input
def hinge_embedding_loss(input: Any, target: Any, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1`` (PyTorch adds
    both terms for any other target value).  An integer ``input`` is computed in its dtype, as
    PyTorch's: the margin truncated to it, ``uint8`` wrapping; only its ``mean`` is refused."""
    margin = number("hinge_embedding_loss", "margin", margin, "float")
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    x = _tensor(input)
    if x.dtype.kind in "iu":
        if reduction == "mean":
            raise NeedsFloatingInput(MEAN_OF_INTEGERS.format(type=scalar_type_name(x.dtype)))
        margin = mf.full((), int(margin), dtype=x.dtype, device=x.device)  # PyTorch casts the scalar
    y = _tensor(target, x)
    zero = _zeros_like(x)
    loss = mf.where(y != 1, _hinge(margin - x), zero) + mf.where(y != -1, x, zero)
    return _reduce(loss, reduction)


def soft_margin_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))`` (targets +-1), computed stably."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    x = _tensor(input)
    y = refuse_widening(x, _tensor(target, x))
    _input_holds_the_loss(x, y)
    return _reduce(-logsigmoid(in_dtype_of(x, y) * x), reduction)


def _input_holds_the_loss(x: Tensor, y: Tensor) -> None:
    """PyTorch's errors where ``soft_margin_loss``'s result, made like the input (``-input`` first),
    cannot hold the loss: a bool input (no ``-``), an integer one (no cast of the float loss back)."""
    if x.dtype.kind == "b":
        raise RuntimeError(BOOL_NEGATION_REFUSED)
    if x.dtype.kind in "iu":
        wide = result_type(x, y)
        loss_type = scalar_type_name(wide) if wide.kind == "f" else "Float"  # (the default dtype's)
        raise RuntimeError(f"result type {loss_type} can't be cast to the desired output type "
                           f"{scalar_type_name(x.dtype)}")


def multilabel_soft_margin_loss(input: Any, target: Any, weight: Any = None, size_average: Any = None,
                                reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Binary cross entropy of logits per class (targets 0/1), optionally weighted, averaged over
    the classes (the last axis), then reduced over the batch."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    x = _tensor(input)
    y = _tensor(target, x)
    loss = -(y * logsigmoid(x) + (1 - y) * logsigmoid(-x))
    if weight is not None:
        loss = loss * _tensor(weight, x)
    loss = mf.sum(loss, axis=-1) * (1.0 / x.shape[-1])
    return _reduce(loss, reduction)


def _host_indices(t: Tensor, x: Tensor) -> Any:
    """Integer class targets as a host array (one device-to-host read).  Judged after the shapes, as
    PyTorch's kernel judges the dtype (its RuntimeError; a TypeError too, which the engine raised before).
    A copy: backward picks the classes read now, not whatever a write into the target leaves there later."""
    if t.dtype.kind not in "iu":
        raise WrongTensorKind(f"expected scalar type Long but found {scalar_type_name(t.dtype)}")
    check_index_dtype("target", t, ("int64",), "expected scalar type Long (int64)")
    return host_numpy.array(x.device.xp.to_host(t._data), dtype=host_numpy.int64)


def _class_rows(name: str, x: Tensor) -> Tensor:
    """The input as (N, C) rows: a (C,) input is one row, and a 0-d one a row of one class, as
    PyTorch's (its loss is 0: no other class to be beaten by)."""
    if x.ndim > 2 or (x.ndim and x.shape[-1] == 0):
        raise InputMismatch(f"{name}: expected a (C,) or (N, C) input with C > 0, got shape {x.shape}")
    return mf.reshape(x, (1, -1)) if x.ndim < 2 else x


def multi_margin_loss(input: Any, target: Any, p: int = 1, margin: float = 1.0, weight: Any = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """The multi-class hinge: ``sum_{i != y} max(0, margin - x[y] + x[i])^p / C`` per sample
    (``p`` 1 or 2), times ``weight[y]`` when given."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: p must be 1 or 2, got {p}")
    if weight is not None and _tensor(weight).ndim != 1:
        raise ValueError("weight must be one-dimensional")  # (PyTorch's words)
    x = _tensor(input)
    rows = _class_rows("multi_margin_loss", x)
    n, c = rows.shape
    t = _tensor(target, x)
    if t.ndim > 1 or t.size != n:  # PyTorch's: 0-d, or 1-D of the batch's size
        raise InputMismatch(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
                            f"input samples (batch size). Expected target size [{n}], but got {list(t.shape)}. "
                            f"Input has shape {list(x.shape)}. (The target holds {n} class indices in "
                            f"[0, {c}).)")  # (PyTorch's words, a RuntimeError)
    w = None if weight is None else class_index_weight("multi_margin_loss", weight, x)
    if w is not None and w.shape[0] != c:  # (one its targets can index, too short or too long, is no per-class weight)
        raise InputMismatch(f"inconsistent weight size, expected {c} but got {list(w.shape)}")
    target_shape, t = t.shape, _host_indices(t, x).reshape(-1)
    if (t < 0).any() or (t >= c).any():
        raise InputMismatch("target out of range")  # (torch 2.13's RuntimeError)
    xp = x.device.xp
    picked = take_along_axis_in_range(rows, Tensor.constant(xp.asarray(t[:, None]), x.device), axis=1)
    others = Tensor.constant(xp.asarray(host_numpy.arange(c)[None, :] != t[:, None]), x.device)
    # the target's own term selected away before the hinge, not multiplied by 0 after it: x[y] - x[y] is NaN
    # at an infinite x[y], and an infinite weight times its hinge NaN (PyTorch's kernel skips the term)
    hinge = relu(mf.where(others, margin - picked + rows, 0.0))
    if p == 2:
        hinge = hinge * hinge
    if w is not None:  # only where a term counts (PyTorch adds weight * z for z > 0): 0 * inf is NaN
        w = mf.take(w, t.tolist())[:, None]
        hinge = hinge * mf.where(hinge > 0, w, 0.0)
    loss = mf.sum(hinge, axis=1) * (1.0 / c)
    return _reduce_rows(mf.reshape(loss, target_shape), reduction)  # unreduced, the target's shape, as PyTorch's


def multilabel_margin_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None,
                           reduction: str = "mean") -> Tensor:
    """The multi-label hinge: for each sample, ``sum_{j in targets, i not in targets}
    max(0, 1 - (x[j] - x[i])) / C``; a row of ``target`` lists the class indices, ended by the
    first -1 (PyTorch's layout). A class listed twice counts twice, as in PyTorch."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    x = _tensor(input)
    rows = _class_rows("multilabel_margin_loss", x)
    n, c = rows.shape
    t = _tensor(target, x)
    if t.size != n * c:  # (compared before the reshape: an empty batch has no -1 for it to infer)
        raise InputMismatch(f"inconsistent target size: {list(t.shape)} for input of size: {list(x.shape)} "
                            f"(multilabel_margin_loss: the target holds the input's shape of class indices or -1)")
    t = _host_indices(t, x).reshape(n, c)
    if (t < -1).any() or (t >= c).any():
        raise InputMismatch("argument #2 'target' is out of range")  # (torch 2.13's RuntimeError)
    # how often each class is listed: PyTorch's kernel loops over the list, so a class listed
    # twice counts its hinges twice (the non-targets are those never listed)
    listed = host_numpy.zeros((n, c), dtype=host_numpy.int64)
    for row, labels in enumerate(t):
        stop = int(host_numpy.argmax(labels < 0)) if (labels < 0).any() else c
        host_numpy.add.at(listed[row], labels[:stop], 1)
    xp = x.device.xp
    pair = Tensor.constant(xp.asarray(listed[:, :, None] * (listed[:, None, :] == 0), dtype=x.dtype), x.device)
    # hinge[n, j, i] = max(0, 1 - x[n, j] + x[n, i]) for target j, non-target i
    hinge = relu(1 - mf.expand_dims(rows, 2) + mf.expand_dims(rows, 1))
    loss = mf.sum(hinge * pair, axis=(1, 2)) * (1.0 / c)
    return _reduce_rows(loss if x.ndim == 2 else mf.reshape(loss, ()), reduction)


def _reduce_rows(loss: Tensor, reduction: str) -> Tensor:
    """The multi-class hinges' reduction: PyTorch's kernels sum an empty batch's mean to 0, not NaN."""
    return _reduce(loss, "sum" if reduction == "mean" and loss.size == 0 else reduction)


def triplet_margin_loss(anchor: Any, positive: Any, negative: Any, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(margin + d(a, p) - d(a, n), 0)`` with ``d`` the ``pairwise_distance`` (``p``, ``eps``);
    ``swap=True`` uses ``min(d(a, n), d(p, n))`` as the negative distance."""
    margin, p, eps = numbers("triplet_margin_loss", "float", margin=margin, p=p, eps=eps)

    def dist(u: Any, v: Any) -> Tensor:
        return pairwise_distance(u, v, p, eps)
    return triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=dist, margin=margin,
                                             swap=swap, reduction=_reduction_of(size_average, reduce, reduction))


def triplet_margin_with_distance_loss(anchor: Any, positive: Any, negative: Any, *,
                                      distance_function: Callable[[Any, Any], Tensor] | None = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """``max(margin + d(a, p) - d(a, n), 0)`` for any ``distance_function`` (default
    ``pairwise_distance``); ``swap=True`` takes the smaller of ``d(a, n)`` and ``d(p, n)``."""
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")  # (PyTorch's words)
    a = _tensor(anchor)
    pos, neg = _tensor(positive, a), _tensor(negative, a)
    if not a.ndim == pos.ndim == neg.ndim:  # (broadcasting them would compare the wrong rows)
        raise InputMismatch(f"The anchor, positive, and negative tensors are expected to have the same number of "
                            f"dimensions, but got: anchor {a.ndim}D, positive {pos.ndim}D, and negative "
                            f"{neg.ndim}D inputs")
    d = pairwise_distance if distance_function is None else distance_function
    d_pos, d_neg = d(a, pos), d(a, neg)
    if swap:
        d_neg = mf.minimum(d_neg, d(pos, neg))
    return _reduce(_hinge(margin + d_pos - d_neg), reduction)  # PyTorch's order: it rounds so
