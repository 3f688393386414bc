"""``ctc_loss``: the connectionist temporal classification loss, PyTorch's ``F.ctc_loss``.

The forward-backward recursion is one op (:class:`minigrad_ckpt.ops.ctc.CTCNegLogLikelihood`,
whose module docstring derives it); this module reads PyTorch's argument forms, builds the
op's label states on the host, and reduces the per-sample losses as PyTorch does.

**The gradient is PyTorch's.**  PyTorch's kernel (``aten/src/ATen/native/LossCTC.cpp``,
``ctc_loss_backward_cpu_template``) returns, for frame ``t < input_lengths[n]``::

    grad[t, n, c] = (exp(log_probs[t, n, c]) - exp(lcab[t, n, c] + nll[n] - log_probs[t, n, c])) * g[n]

(``lcab``: the log of the summed ``alpha * beta`` of the states labelled ``c``), and 0 on the
frames after the sample's length.  The second term is the true derivative of ``nll`` with
respect to ``log_probs``; the first, ``exp(log_probs)``, is not -- it is there because
PyTorch expects ``log_probs = log_softmax(logits)``, whose backward ``v - softmax * sum(v)``
removes any multiple of ``exp(log_probs)`` per frame, so ``d loss / d logits`` is right
either way.  With raw (unnormalized) ``log_probs`` the gradient is *not* the derivative of
the loss, in PyTorch or here.  This function reproduces it: the op's gradient is the true
derivative, and ``exp(log_probs)`` on the counted frames is added as a term whose value is
exactly 0 (``s - detach(s)``).  Forward mode (``mg.func.jvp``) sees the same linear map.

A sample whose target has no alignment (longer than its input, counting a blank between
repeated labels) has ``nll = inf``.  Its gradient is NaN on its frames, as PyTorch's (which
computes ``-inf + inf`` there); with ``zero_infinity=True`` its loss and gradient are 0.

**Second derivatives** are supported: the op's backward is written with the array namespace,
so ``create_graph=True`` differentiates it (the recursion again, in the graph; the
unreachable states' ``-inf`` are kept out of the derivative by double ``where``).  They are
the derivatives of the gradient above; through a ``log_softmax`` the ``exp(log_probs)`` term
cancels identically, so the Hessian with respect to the logits is the true one.  (PyTorch
raises here: its ``_ctc_loss_backward`` has no derivative.)
"""

from __future__ import annotations

from typing import Any

from ... import functional as mf
from ...backend import host_numpy as np
from ...functional import _tensor
from ...functional.errors import InputMismatch, WrongTensorKind
from ...ops.ctc import CTCNegLogLikelihood, ctc_states
from ...tape import apply
from ...tensor import Tensor
from .loss import _check_reduction

__all__ = [
    "ctc_loss",
]


def _host_ints(name: str, value: Any) -> Any:
    """``value`` (a Tensor, array, int or sequence of ints) as a host int64 array."""
    if isinstance(value, Tensor):
        if value.dtype.kind not in "iu":
            raise WrongTensorKind(f"ctc_loss: {name} must be integers, got dtype {value.dtype}")
        value = value.device.xp.to_host(value._data)
    a = np.asarray(value)
    if a.size and a.dtype.kind not in "iu":
        raise WrongTensorKind(f"ctc_loss: {name} must be integers, got {a.dtype}")
    return a.astype(np.int64)


def _padded_targets(targets: Any, target_lengths: Any, n: int, batched: bool) -> Any:
    """The targets as (N, max L): padded ones as given, concatenated ones split by length."""
    if targets.ndim == 2 and batched:
        if targets.shape[0] != n or targets.shape[1] < (target_lengths.max() if n else 0):
            raise InputMismatch(f"ctc_loss: padded targets must be (N, >= max target length) = ({n}, >= "
                             f"{target_lengths.max() if n else 0}), got {targets.shape}")
        return targets
    if targets.ndim != 1:
        raise InputMismatch(f"ctc_loss: targets must be (N, S) or concatenated (sum of target lengths,), got "
                         f"shape {targets.shape}")
    if not batched:  # an unbatched target is one padded row
        if targets.shape[0] < target_lengths[0]:
            raise InputMismatch(f"ctc_loss: the target has {targets.shape[0]} labels, fewer than its length "
                             f"{target_lengths[0]}")
        return targets[None]
    if targets.shape[0] != target_lengths.sum():
        raise InputMismatch(f"ctc_loss: concatenated targets must have sum(target_lengths) = "
                         f"{target_lengths.sum()} labels, got {targets.shape[0]}")
    width = int(target_lengths.max()) if n else 0
    padded = np.zeros((n, width), dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]]).astype(np.int64)
    for i in range(n):
        padded[i, :target_lengths[i]] = targets[starts[i]:starts[i] + target_lengths[i]]
    return padded


def _check_lengths(lengths: Any, name: str, n: int, batched: bool, most: int | None = None) -> Any:
    lengths = lengths.reshape(-1) if not batched else lengths
    if lengths.shape != (n,):
        raise InputMismatch(f"ctc_loss: {name} must have one entry per sample ({n}), got shape {lengths.shape}")
    if n and (lengths.min() < 0 or (most is not None and lengths.max() > most)):
        bound = "" if most is None else f" and at most {most} (the number of frames)"
        raise InputMismatch(f"ctc_loss: {name} must be at least 0{bound}, got {lengths.tolist()}")
    return lengths


def ctc_loss(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The CTC loss of ``log_probs`` (T, N, C) -- or unbatched (T, C) -- against ``targets``.

    ``targets``: padded (N, S) class indices, or all targets concatenated (sum of
    ``target_lengths``,); unbatched, (S,).  ``input_lengths``, ``target_lengths``: one per
    sample (tensors, arrays or sequences of ints; unbatched, a single int).  ``blank``: the
    blank class.  ``reduction``: ``"mean"`` (each loss divided by its target length, at
    least 1, then averaged over the batch), ``"sum"`` or ``"none"`` (N,) -- () unbatched.
    ``zero_infinity``: an impossible target costs 0, with a zero gradient, instead of ``inf``.

    The gradient with respect to ``log_probs`` is PyTorch's, which adds ``exp(log_probs)`` to
    the derivative of the loss (right for ``log_probs`` from ``log_softmax``): see the module
    docstring.  Differentiable to second order.
    """
    _check_reduction(reduction)
    x = _tensor(log_probs)
    if x.ndim not in (2, 3) or x.dtype.kind != "f":
        raise InputMismatch(f"ctc_loss: log_probs must be float (T, N, C) or (T, C), got {x.dtype} {x.shape}")
    if x.size == 0:  # (PyTorch's words: no frames, no samples or no classes -- an empty batch too)
        raise InputMismatch(f"ctc_loss: log_probs tensor must not be empty, got shape {x.shape}")
    batched = x.ndim == 3
    if not batched:
        x = mf.expand_dims(x, 1)
    t_frames, n, c = x.shape
    if not 0 <= blank < c:
        raise InputMismatch(f"ctc_loss: blank must be a class index in [0, {c}), got {blank}")
    tl = _check_lengths(_host_ints("target_lengths", target_lengths), "target_lengths", n, batched)
    il = _check_lengths(_host_ints("input_lengths", input_lengths), "input_lengths", n, batched, t_frames)
    padded = _padded_targets(_host_ints("targets", targets), tl, n, batched)
    used = np.arange(padded.shape[1])[None, :] < tl[:, None]
    if np.any(used & ((padded < 0) | (padded >= c))):
        raise InputMismatch(f"ctc_loss: targets must be class indices in [0, {c})")
    xp = x.device.xp
    states = {k: xp.asarray(v) for k, v in ctc_states(padded, tl, blank).items()}
    op = CTCNegLogLikelihood(**states, input_lengths=xp.asarray(il), zero_infinity=bool(zero_infinity))
    nll = _with_pytorch_gradient(apply(op, x), x, il, zero_infinity)
    if reduction == "mean":
        return mf.mean(nll / Tensor.constant(xp.asarray(np.maximum(tl, 1).astype(x.dtype)), x.device))
    if reduction == "sum":
        return mf.sum(nll)
    return nll if batched else mf.reshape(nll, ())


def _with_pytorch_gradient(nll: Tensor, x: Tensor, input_lengths: Any, zero_infinity: bool) -> Tensor:
    """``nll`` with the same value and PyTorch's gradient: ``exp(x)`` added on each sample's frames
    (none for an impossible sample under ``zero_infinity``, whose loss becomes 0)."""
    xp = x.device.xp
    frames = xp.asarray(np.arange(x.shape[0])[:, None] < input_lengths[None, :])  # (T, N)
    infinite = nll._data == xp.inf
    if zero_infinity:
        frames = frames & ~infinite
        nll = mf.where(Tensor.constant(infinite, x.device), 0.0, nll)
    mass = mf.sum(mf.exp(x) * Tensor.constant(frames[:, :, None].astype(x.dtype), x.device), axis=(0, 2))
    finite = Tensor.constant(xp.isfinite(mass._data), x.device)
    return nll + mf.where(finite, mass - mass.detach(), 0.0)
