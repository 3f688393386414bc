"""Loss functions: ``cross_entropy``, ``nll_loss``, ``mse_loss``, ``binary_cross_entropy``, ``kl_div``, ...

Each takes PyTorch's ``reduction=`` (``"mean"``, ``"sum"``, ``"none"``); an input and a target of
different shapes are PyTorch's too: the regression losses warn and broadcast, the binary cross
entropies refuse them.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from ... import functional as mf
from ...backend import host_numpy
from ...functional import _tensor
from ...functional.arguments import in_float32_if_half, number, one_device
from ...functional.elementwise import refuse_bool_subtraction
from ...functional.errors import (
    ComplexNotImplemented,
    DtypeNotImplemented,
    InputMismatch,
    NeedsFloatingInput,
    RefusedArgument,
    WrongTensorKind,
)
from ...functional.indexing import getitem_in_range
from ...functional.promotion import promoted, result_type
from ...functional.torch_methods import scalar_type_name
from ...ops import loss as _ce
from ...ops import regression_loss as _regression
from ...tape import apply, device_mismatch
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine
from .activation import log_softmax
from .inputs import MEAN_OF_INTEGERS, NO_COMPLEX, _zeros_like, check_index_dtype, floating_kernel

__all__ = [
    "cross_entropy", "nll_loss", "mse_loss", "binary_cross_entropy_with_logits", "l1_loss", "smooth_l1_loss",
    "huber_loss", "binary_cross_entropy", "kl_div", "cosine_embedding_loss",
]


_REDUCTIONS = ("mean", "sum", "none")
_BCE = _ce.BinaryCrossEntropy()


def _check_reduction(reduction: str, words: str = "is not a valid value for reduction") -> None:
    """PyTorch's ValueError for a reduction it does not know, in its words (``"abc is not a valid value
    for reduction"``; ``gaussian_nll_loss``'s own check says ``"abc is not valid"``), the choices after."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} {words} (one of {_REDUCTIONS})")


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return mf.mean(loss)
    if reduction == "sum":
        return mf.sum(loss)
    return loss


#: The losses of a difference ``input - target``: of two dtypes, they compute in PyTorch's promoted
#: one (float32 beside an int64 target stays float32; NumPy's promotion would give float64).
_DIFFERENCE_LOSSES = frozenset({"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"})


def _kernel_of_the_difference(kernel: str) -> Any:
    """``loss(input, target, ...)`` under PyTorch's dtype rule for a kernel of ``input - target``: it
    runs in the pair's promoted dtype, so an integer input beside a float target is a float loss, and
    the kernel (built for floating types) refuses only an integer or bool *pair*."""
    def decorate(loss: Any) -> Any:
        @functools.wraps(loss)
        def checked(input: Any, target: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
            if isinstance(input, Tensor) and input._data.dtype.kind != "f":
                dt = result_type(input, target)
                if dt.kind in "biu":
                    raise DtypeNotImplemented(f"\"{kernel}\" not implemented for '{scalar_type_name(dt)}'")
            return loss(input, target, *args, **kwargs)
        return checked
    return decorate


def in_dtype_of(like: Tensor, v: Tensor) -> Tensor:
    """``v`` (a target or a weight) cast to the float tensor ``like``'s dtype: where PyTorch's loss
    kernel writes into a tensor made like its input, or applies a weight in place
    (``soft_margin_loss``, ``huber_loss``, the binary cross entropies' ``weight`` and
    ``pos_weight``), a wider target or weight does not widen the loss (float32 stays float32)."""
    return mf.astype(v, like.dtype) if like.dtype.kind == "f" and v.dtype != like.dtype else v


def _input_and_target(name: str, input: Any, target: Any) -> tuple[Tensor, Tensor]:
    """``input`` and ``target`` as tensors (the target on the input's device), of one shape: see
    :func:`_shapes_differ` for what differing shapes do."""
    x, y = one_device(name, _tensor(input), target)  # (a CPU scalar target meets x as a number, as PyTorch's)
    y = _tensor(y, x)
    if x._data.dtype is not y._data.dtype and name in _DIFFERENCE_LOSSES:
        x, y = promoted(x, y)
    if x._data.shape != y._data.shape:  # (the arrays': Tensor.shape is a property call)
        return _shapes_differ(name, x, y)
    return x, y


def _on_device_of(name: str, value: Any, x: Tensor) -> Tensor:
    """A class-index loss's ``target`` or ``weight`` as a tensor on ``x``'s device (host data goes
    there); a tensor on another device is PyTorch's error, before any array of it meets ``x``'s."""
    t = _tensor(value, x)
    if t._device is not x._device:
        raise device_mismatch(name, f"{x.device} (input)", t.device)
    return t


def class_index_weight(name: str, weight: Any, x: Tensor) -> Tensor:
    """The per-class ``weight`` of a class-index loss (``nll_loss``, ``cross_entropy``,
    ``multi_margin_loss``) on ``x``'s device: PyTorch's kernels take it in the input's dtype only
    and refuse another (a float64 weight beside float32 scores would otherwise widen the loss)."""
    w = _on_device_of(name, weight, x)
    if w.dtype != x.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(x.dtype)} but found {scalar_type_name(w.dtype)}")
    return w


def _shapes_differ(name: str, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """PyTorch's rule for an input and a target of different shapes: the binary cross entropies
    refuse them (ValueError); the regression losses warn and broadcast -- ``mse_loss(x (N, 1),
    y (N,))`` is then a mean over N x N differences, likely not what was meant; ``kl_div`` broadcasts
    without a word. Shapes that do not broadcast are broadcasting's error."""
    if name == "binary_cross_entropy":
        raise ValueError(f"Using a target size {y.shape} that is different to the input size {x.shape} is "
                         "deprecated. Please ensure they have the same size.")
    if name == "binary_cross_entropy_with_logits":
        raise ValueError(f"Target size {y.shape} must be the same as input size {x.shape}")
    if name != "kl_div":
        warnings.warn(f"Using a target size {y.shape} that is different to the input size {x.shape}. "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=stacklevel_outside_the_engine())
    try:
        shape = host_numpy.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise RuntimeError(f"{name}: input shape {x.shape} and target shape {y.shape} do not broadcast") from None
    return mf.broadcast_to(x, shape), mf.broadcast_to(y, shape)


def _complex(x: Tensor, y: Tensor) -> bool:
    """A complex difference: ``l1_loss`` keeps its composite of ops that know complex numbers
    (``abs`` of a complex number is not the real rule)."""
    return x.dtype.kind == "c" or y.dtype.kind == "c"


def _real_only(name: str, *tensors: Tensor) -> None:
    """PyTorch's refusal of complex input where the formula needs real numbers: ``d ** 2`` of a
    complex difference is no squared distance (``|d| ** 2`` is), a log-probability is real.
    ``l1_loss`` takes complex input, as PyTorch's (``|d|`` is a distance)."""
    if any(t.dtype.kind == "c" for t in tensors):
        raise ComplexNotImplemented(f"{name}: complex input is not supported (as PyTorch's {name}); take the loss "
                                    f"of mg.view_as_real(z), or of mg.abs(z) (mse of complex numbers: "
                                    f"(mg.abs(x - y) ** 2).mean())")


def _class_last(x: Tensor) -> Tensor:
    """(N, C, d1, ...) -> (N * d1 * ..., C); (C,) -> (1, C); (N, C) unchanged."""
    if x.ndim == 1:
        return mf.reshape(x, (1, x.shape[0]))
    if x.ndim == 2:
        return x
    return mf.reshape(mf.moveaxis(x, 1, -1), (-1, x.shape[1]))


def _target_shape_words(x: Tensor, target: Tensor) -> str:
    """Why class-index targets of the wrong shape are refused, in PyTorch's words (its tests match them):
    its checks by the input's rank -- a batch of another size first, then its 1-D, 2-D, 4-D and other kernels'
    own words.  Built only on a refusal."""
    if x.ndim == 1:
        if target.shape == (1,):  # (PyTorch takes it; the engine asks for the 0-d target)
            return "a 1-D input takes a 0-d target"
        if target.ndim == 1:
            return f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}"
        return "0D or 1D target tensor expected, multi-target not supported"
    if target.ndim == 0 or target.shape[0] != x.shape[0]:  # (a 0-d target is a batch of 0 to PyTorch's check)
        batch = target.shape[0] if target.ndim else 0
        return f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({batch})."
    if x.ndim == 2:
        return "0D or 1D target tensor expected, multi-target not supported"
    if x.ndim == 4 and target.ndim != 3:
        return f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {target.ndim}"
    if x.ndim == 4:
        return f"size mismatch (got input: {list(x.shape)} , target: {list(target.shape)}"
    return f"Expected target size {[x.shape[0], *x.shape[2:]]}, got {list(target.shape)}"


def _check_targets(name: str, x: Tensor, target: Tensor, ignore_index: int,
                   *, all_valid_as_none: bool = False) -> Any:
    """Check class-index targets; return ``(flat targets, valid mask, n_classes)``.

    With ``all_valid_as_none`` the mask is ``None`` when every target is a
    class and none is ``ignore_index`` -- the usual case, found from the
    targets' min and max alone (two reductions instead of five elementwise
    passes), which lets the fused loss skip its masking.  A target out of
    range (and not ``ignore_index``) is PyTorch's ``IndexError``: NumPy would
    read a negative one from the end, CuPy wrap any, silently.
    """
    expected = x.shape[:1] + x.shape[2:] if x.ndim >= 2 else ()
    if target.shape != expected:
        raise InputMismatch(f"{name}: {_target_shape_words(x, target)} (input of shape {x.shape} needs targets of "
                            f"shape {expected}, got {target.shape})")
    if target.dtype.kind not in "iu":
        hint = (f"; a float target of the input's shape {x.shape} holds class probabilities"
                if name == "cross_entropy" else "")
        raise WrongTensorKind(f"{name}: expected target dtype to be Long or Byte, but got "
                              f"{scalar_type_name(target.dtype)} (class indices must be integers: convert with "
                              f"target.astype('int64'){hint})")
    check_index_dtype(name, target, ("int64", "uint8"), "expected target dtype to be Long or Byte (int64 or uint8)")
    t = target._data.reshape(-1)
    n_classes = x.shape[1] if x.ndim >= 2 else x.shape[0]
    xp = x.device.xp
    if t.size == 0:
        return t, None if all_valid_as_none else t != ignore_index, n_classes
    (lo, hi), (counted_lo, counted_hi) = _target_extrema(xp, t, ignore_index)
    if counted_lo < 0 or counted_hi >= n_classes:  # (the error's path reads them again, for the first bad one)
        flat = xp.to_host(t)
        bad = flat[(flat != ignore_index) & ((flat < 0) | (flat >= n_classes))][0]
        raise IndexError(f"Target {bad} is out of bounds.")  # (torch 2.13's words)
    if all_valid_as_none and not lo <= ignore_index <= hi:
        return t, None, n_classes
    return t, t != ignore_index, n_classes


def _target_extrema(xp: Any, t: Any, ignore_index: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The (min, max) of the targets, and of those that count (``ignore_index`` read as class 0).

    The second pair is computed only where ``ignore_index`` lies between the first two: on a GPU
    that is a second transfer, but the usual batch (no target ignored) then costs two reductions
    and one transfer, not four passes more (an H100 took ~800 us for this loss, torch ~80)."""
    ((lo, hi),) = bounds = xp.extrema([t])
    if lo <= ignore_index <= hi:
        bounds.append(xp.extrema([xp.where(t == ignore_index, 0, t)])[0])
    return bounds[0], bounds[-1]


def _reduction_of(size_average: Any, reduce: Any, reduction: str) -> str:
    """PyTorch's legacy ``size_average``/``reduce`` arguments, still accepted by its losses: either one
    given decides the reduction (``size_average=False`` sums, ``reduce=False`` keeps every element)
    over ``reduction``, with PyTorch's deprecation warning."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    legacy = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{legacy}' instead.",
                  stacklevel=stacklevel_outside_the_engine())
    return legacy


@floating_kernel("nll_loss_out_frame")
def nll_loss(input: Any, target: Any, weight: Any = None, size_average: Any = None, ignore_index: int = -100,
             reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of class ``target`` under log-probabilities ``input``.

    ``input`` is (N, C) or (N, C, d1, ...) (or (C,) for one sample); ``target``
    holds class indices, (N,) or (N, d1, ...).  Targets equal to
    ``ignore_index`` contribute nothing; ``"mean"`` divides by the total weight
    of the targets that count, as in PyTorch.
    """
    ignore_index = number("nll_loss", "ignore_index", ignore_index, "SymInt")
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    x = _tensor(input)
    tgt = _on_device_of("nll_loss", target, x)
    _real_only("nll_loss", x)
    return _nll(x, tgt, _check_targets("nll_loss", x, tgt, ignore_index), weight, reduction)


def _nll(x: Tensor, tgt: Tensor, checked: Any, weight: Any, reduction: str) -> Tensor:
    """``nll_loss`` of log-probabilities ``x`` at the targets ``checked`` (:func:`_check_targets`'s)."""
    t, valid, n_classes = checked
    xp = x.device.xp
    safe_t = xp.where(valid, t, 0)
    rows = xp.arange(safe_t.shape[0])
    picked = getitem_in_range(_class_last(x), (rows, safe_t))  # (the targets are checked)
    if weight is not None:
        w = class_index_weight("nll_loss", weight, x)
        if w.shape != (n_classes,):
            raise _one_weight_per_class("nll_loss", n_classes, w)
        wt = getitem_in_range(w, (safe_t,)) * Tensor.constant(valid, x.device)
    else:
        wt = Tensor.constant(valid.astype(x.dtype), x.device)
    # the ignored targets' losses are 0 by selection, not by a product with 0: with every target
    # ignored the mean is 0/0, and its infinite gradient must not meet them (inf * 0 = NaN);
    # PyTorch's gradient there is 0
    losses = mf.where(Tensor.constant(valid, x.device), -(picked * wt), 0)
    if reduction == "none":
        return mf.reshape(losses, tgt.shape)
    if reduction == "sum":
        return mf.sum(losses)
    return mf.sum(losses) / mf.sum(wt)


def cross_entropy(input: Any, target: Any, weight: Any = None, size_average: Any = None, ignore_index: int = -100,
                  reduce: Any = None, reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy between ``softmax(input)`` and class indices (or class probabilities).

    ``label_smoothing`` mixes the one-hot target with the uniform distribution
    (``(1 - e) * nll + e * mean_c(-log p_c)``), as PyTorch does.  With float
    ``target`` of ``input``'s shape, targets are probabilities.
    """
    ignore_index = number("cross_entropy", "ignore_index", ignore_index, "SymInt")
    label_smoothing = number("cross_entropy", "label_smoothing", label_smoothing, "float")
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise InputMismatch(f"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    x = _tensor(input)
    if x.ndim == 0:
        raise ValueError("cross_entropy: input must have a class axis, got a 0-d tensor")
    axis = 1 if x.ndim >= 2 else 0
    tgt = _on_device_of("cross_entropy", target, x)
    if x.dtype.kind != "f":
        hint = " (did you swap input and target?)" if tgt.dtype.kind == "f" else ""
        # PyTorch's NotImplementedError ("log_softmax_lastdim_kernel_impl" not implemented for 'Long'), a
        # RuntimeError; the TypeError it was too
        raise DtypeNotImplemented(f"cross_entropy: input must be float logits of shape (N, C, ...), got dtype "
                                  f"{x.dtype}{hint}")
    if tgt.shape == x.shape and tgt.dtype.kind != "f":  # PyTorch: a target of the input's shape holds probabilities
        raise WrongTensorKind(f"cross_entropy: Expected floating point type for target with class probabilities, "
                              f"got {scalar_type_name(tgt.dtype)} (class indices have the input's shape without "
                              f"its class axis)")
    if tgt.dtype.kind == "f" and tgt.shape == x.shape:  # (another float target is refused as class indices)
        if ignore_index >= 0:  # PyTorch's refusal: a class index would be ignored, probabilities have none
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_with_probabilities(x, tgt, axis, weight, reduction, label_smoothing)
    if weight is None and not label_smoothing:
        return _fused_cross_entropy(x, tgt, ignore_index, reduction)
    logp = log_softmax(x, axis=axis)
    checked = _check_targets("cross_entropy", x, tgt, ignore_index)  # once, for both terms
    nll = _nll(logp, tgt, checked, weight, reduction)
    if not label_smoothing:
        return nll
    smooth = _uniform_target_loss(x, logp, tgt, axis, weight, checked, reduction)
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / x.shape[axis])


def _one_weight_per_class(name: str, n_classes: int, w: Tensor) -> InputMismatch:
    """PyTorch's refusal of a class weight that is not one number per class (both target kinds)."""
    return InputMismatch(f"{name}: weight tensor should be defined either for all {n_classes} classes or no "
                         f"classes but got weight tensor of shape: {list(w.shape)}")


def _class_weights(weight: Any, x: Tensor, axis: int) -> Tensor:
    """``weight`` (one per class) shaped to broadcast along ``x``'s class axis."""
    n_classes = x.shape[axis]
    w = _on_device_of("cross_entropy", weight, x)
    if w.shape != (n_classes,):  # (a (1, C) weight would reshape as well, and mean something else)
        raise _one_weight_per_class("cross_entropy", n_classes, w)
    w_shape = (1, n_classes) + (1,) * (x.ndim - 2) if x.ndim >= 2 else (n_classes,)
    return mf.reshape(w, w_shape)


def _cross_entropy_with_probabilities(x: Tensor, tgt: Tensor, axis: int, weight: Any, reduction: str,
                                      label_smoothing: float) -> Tensor:
    """Cross entropy against class probabilities ``tgt`` (a float target of ``x``'s shape)."""
    logp = log_softmax(x, axis=axis)
    probs = tgt
    if label_smoothing:
        probs = probs * (1 - label_smoothing) + label_smoothing / x.shape[axis]
    terms = logp * probs
    if weight is not None:
        terms = terms * _class_weights(weight, x, axis)
    return _reduce(-mf.sum(terms, axis=axis), reduction)


def _fused_cross_entropy(x: Tensor, tgt: Tensor, ignore_index: int, reduction: str) -> Tensor:
    """The common case (class indices, no weights, no smoothing) as one fused op:
    ``softmax(x) - onehot`` in backward."""
    t, valid, _ = _check_targets("cross_entropy", x, tgt, ignore_index, all_valid_as_none=True)
    xp = x.device.xp
    flat = _class_last(x)
    if valid is not None:
        t, valid = xp.where(valid, t, 0), valid.astype(x.dtype)
    else:
        t = t.copy()  # the op keeps its own targets: the caller may refill theirs before backward
    op = _ce.SoftmaxCrossEntropy(rows=xp.arange(t.shape[0]), target=t, valid=valid, reduction=reduction)
    out = apply(op, flat)
    return mf.reshape(out, tgt.shape) if reduction == "none" else out


def _uniform_target_loss(x: Tensor, logp: Tensor, tgt: Tensor, axis: int, weight: Any, checked: Any,
                         reduction: str) -> Tensor:
    """The label-smoothing term: ``-sum_c log p_c`` (class-weighted) per counted target, reduced as
    ``nll_loss`` reduces (``"mean"`` divides by the total weight of the targets that count)."""
    t, valid, _ = checked
    xp = x.device.xp
    terms = logp
    if weight is not None:
        terms = terms * _class_weights(weight, x, axis)
    smooth = mf.where(Tensor.constant(valid, x.device), -mf.reshape(mf.sum(terms, axis=axis), (-1,)), 0)  # as nll_loss
    if reduction == "none":
        return mf.reshape(smooth, tgt.shape)
    if reduction == "sum":
        return mf.sum(smooth)
    if weight is not None:
        wt = getitem_in_range(_on_device_of("cross_entropy", weight, x), (xp.where(valid, t, 0),)) * \
            Tensor.constant(valid, x.device)
        denom = mf.sum(wt)
    else:
        denom = mf.sum(Tensor.constant(valid.astype(x.dtype), x.device))
    return mf.sum(smooth) / denom


def _weighted(name: str, losses: Tensor, weight: Any, reduction: str, mean_by_weight: bool) -> Tensor:
    """PyTorch's ``weight=`` of the regression losses: each element's loss times its weight, then
    ``"mean"`` divides by the weights' sum (``mean_by_weight``: mse, l1) or by the count (huber)."""
    w = _tensor(weight, losses)
    if w.shape != losses.shape:
        raise ValueError(f"{name}: weights and input must have the same size, got {w.shape} and {losses.shape}")
    weighted = losses * w
    if reduction == "none":
        return weighted
    if reduction == "sum" or not mean_by_weight:
        return _reduce(weighted, reduction)
    return mf.sum(weighted) / mf.sum(w)


@_kernel_of_the_difference("mse_cpu")
def mse_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
             weight: Any = None) -> Tensor:
    """Mean squared error ``(input - target) ** 2``.

    Shapes that differ are PyTorch's warning ("Using a target size ... different to the input
    size") and then broadcast: ``mse_loss(ones(3, 1), zeros(3))`` averages a 3 x 3 grid of
    differences, which is rarely meant. ``weight`` (the input's shape) weighs each element; the mean
    is then over the weights' sum, as PyTorch's.
    """
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    x, y = _input_and_target("mse_loss", input, target)
    _real_only("mse_loss", x, y)
    if weight is not None:
        d = x - y
        return _weighted("mse_loss", d * d, weight, reduction, mean_by_weight=True)
    return apply(_regression.MSELoss(reduction=reduction), x, y)


@floating_kernel("log_sigmoid_cpu")
@in_float32_if_half  # (1 - y) - sigmoid(-x) cancels in float16: its gradient was 2% off at x = -1
def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None, size_average: Any = None,
                                     reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Any = None) -> Tensor:
    """``-[y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))]``, computed stably from logits.

    Uses ``log sigmoid(x) = -softplus(-x)`` with ``softplus(z) = logsumexp(0, z)``,
    so logits of ±1e4 are fine and the gradient at ``x = 0`` is exact (``-1/2``;
    ``max(z, 0) + log1p(exp(-|z|))`` would give 0 there).
    """
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    x, y = _input_and_target("binary_cross_entropy_with_logits", input, target)
    _real_only("binary_cross_entropy_with_logits", x, y)
    _target_holds_the_loss(x, y)
    softplus_neg = mf.logaddexp(0.0, -x)  # -log sigmoid(x); 0 a number: nothing for a checkpoint to keep
    if pos_weight is not None:
        pw = in_dtype_of(softplus_neg, refuse_widening(x, _tensor(pos_weight, x)))
        loss = (1 - y) * x + (1 + (pw - 1) * y) * softplus_neg
    else:
        loss = (1 - y) * x + softplus_neg
    if weight is not None:
        loss = loss * in_dtype_of(loss, refuse_widening(x, _tensor(weight, x)))
    # PyTorch's kernel writes the loss into ``1 - target`` in place: the target's dtype, a float32
    # target beside a float64 input gives a float32 loss (and a float16 one a float16 loss)
    return _reduce(mf.astype(loss, y.dtype) if loss.dtype != y.dtype else loss, reduction)


def refuse_widening(x: Tensor, operand: Any) -> Any:
    """``operand`` unchanged, or PyTorch's RuntimeError where it would broadcast ``x`` to a wider shape.

    The losses whose PyTorch kernels write into a buffer of the input's shape (the binary cross
    entropies' ``weight`` and ``pos_weight``, ``soft_margin_loss``'s target) refuse such an operand;
    broadcasting it would repeat each element's loss, silently, in a sum or a mean."""
    if operand is not None:
        x._refuse_wider_operand(operand)
    return operand


def _target_holds_the_loss(x: Tensor, y: Tensor) -> None:
    """PyTorch's errors where ``binary_cross_entropy_with_logits``'s target, whose ``1 - target``
    the loss is written into, cannot hold it: a bool one (no ``-``), an integer one (no cast back)."""
    if y.dtype.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if y.dtype.kind in "iu":
        raise RuntimeError(f"result type {scalar_type_name(x.dtype)} can't be cast to the desired output type "
                           f"{scalar_type_name(y.dtype)}")


def _refusing_bool_operands(loss: Any) -> Any:
    """``loss(input, target, ...)``, whose first step is ``input - target``, under PyTorch's refusal of
    a bool operand there -- before any other dtype check, as PyTorch's (NumPy's TypeError otherwise)."""
    @functools.wraps(loss)
    def checked(input: Any, target: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        refuse_bool_subtraction(input, target)
        return loss(input, target, *args, **kwargs)
    return checked


@_refusing_bool_operands
def l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
            weight: Any = None) -> Tensor:
    """Mean absolute error ``|input - target|`` (shapes that differ: :func:`mse_loss`'s warning and
    broadcast); ``weight`` as :func:`mse_loss`'s.  As PyTorch's ``(input - target).abs()``, it is
    computed in the pair's promoted dtype: integers give an integer loss, whose ``"mean"`` is refused."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    x, y = _input_and_target("l1_loss", input, target)
    if weight is not None:
        return _weighted("l1_loss", mf.abs(x - y), weight, reduction, mean_by_weight=True)
    if x.dtype.kind in "iu":  # (the pair promoted: an integer x here means an integer target too)
        if reduction == "mean":
            raise NeedsFloatingInput(MEAN_OF_INTEGERS.format(type=scalar_type_name(x.dtype)))
        return _reduce(mf.abs(x - y), reduction)
    if _complex(x, y):
        return _reduce(mf.abs(x - y), reduction)
    return apply(_regression.L1Loss(reduction=reduction), x, y)


@_kernel_of_the_difference("smooth_l1_cpu")
def smooth_l1_loss(input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input - target``)."""
    beta = number("smooth_l1_loss", "beta", beta, "float")
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise RefusedArgument(f"smooth_l1_loss: beta must be >= 0, got {beta}")  # (PyTorch's RuntimeError)
    x, y = _input_and_target("smooth_l1_loss", input, target)
    _real_only("smooth_l1_loss", x, y)
    if beta == 0:
        return l1_loss(x, y, reduction=reduction)
    return apply(_regression.SmoothL1Loss(beta=float(beta), reduction=reduction), x, y)


@floating_kernel("huber_cpu")
def huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0, weight: Any = None) -> Tensor:
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``; ``weight`` (the input's
    shape) weighs each element, and the mean stays over the count (PyTorch's, unlike mse's)."""
    delta = number("huber_loss", "delta", delta, "float")
    _check_reduction(reduction)
    if delta <= 0:
        raise RefusedArgument(f"huber_loss does not support non-positive values for delta. (got {delta})")
    x, y = _input_and_target("huber_loss", _tensor(input), in_dtype_of(_tensor(input), _tensor(target)))
    _real_only("huber_loss", x, y)
    if weight is not None:
        losses = apply(_regression.HuberLoss(delta=float(delta), reduction="none"), x, y)
        return _weighted("huber_loss", losses, weight, reduction, mean_by_weight=False)
    return apply(_regression.HuberLoss(delta=float(delta), reduction=reduction), x, y)


@floating_kernel("binary_cross_entropy", NO_COMPLEX)
def binary_cross_entropy(input: Any, target: Any, weight: Any = None, size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """``-[y log p + (1 - y) log(1 - p)]`` on probabilities ``p`` in [0, 1]; each log is clamped
    at -100, as in PyTorch (prefer ``binary_cross_entropy_with_logits`` on logits)."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    p, y = _input_and_target("binary_cross_entropy", input, target)
    if y.dtype != p.dtype:  # PyTorch's kernel takes the target as it is, in the input's dtype only
        raise RuntimeError(f"Found dtype {scalar_type_name(y.dtype)} but expected {scalar_type_name(p.dtype)}")
    for name, t in (("input", p), ("target", y)) if p.size else ():  # PyTorch's kernel checks both
        xp = t.device.xp
        lo, hi = xp.scalar(xp.min(t._data)), xp.scalar(xp.max(t._data))
        if not (0.0 <= lo and hi <= 1.0):
            raise InputMismatch(f"binary_cross_entropy: {name} values must be in [0, 1], got [{lo}, {hi}]")
    loss = apply(_BCE, p, y)  # one op: PyTorch's gradients, not the clamped logs' (see the op)
    if weight is not None:
        loss = loss * in_dtype_of(p, refuse_widening(p, _tensor(weight, p)))
    return _reduce(loss, reduction)


@floating_kernel(message="kl_div: Integral inputs not supported.")
def kl_div(input: Any, target: Any, size_average: Any = None, reduce: Any = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """``target * (log target - input)`` with ``input`` log-probabilities (``log_target``: the
    target is log-probabilities too). ``reduction="batchmean"`` divides the sum by the batch size
    (the mathematically right KL divergence); ``"mean"`` averages over every element, as in PyTorch,
    with PyTorch's warning that it will mean ``"batchmean"`` (not for the legacy arguments' mean)."""
    if reduction == "mean" and size_average is None and reduce is None:
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=stacklevel_outside_the_engine())
    reduction = _reduction_of(size_average, reduce, reduction)
    if reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"{reduction} is not a valid value for reduction (one of {_REDUCTIONS + ('batchmean',)})")
    x, t = _input_and_target("kl_div", input, target)
    _real_only("kl_div", x, t)
    if x.dtype.kind in "biu" or t.dtype.kind in "biu":  # (PyTorch's RuntimeError; NumPy would promote)
        raise NeedsFloatingInput("kl_div: Integral inputs not supported.")
    if log_target:
        loss = mf.exp(t) * (t - x)
    else:
        # 0 * log 0 = 0: xlogy; where t == 0 neither the value nor the gradient may see log(0);
        # a negative target keeps log's NaN, as PyTorch's xlogy (it is no probability)
        zero = t == 0
        safe = mf.where(zero, Tensor.constant(t.device.xp.ones_like(t._data), t.device), t)
        loss = mf.where(zero, -(t * x), t * (mf.log(safe) - x))
    if reduction == "batchmean":
        # divided by the batch size as a tensor division (PyTorch's ``sum / size(0)``): an empty
        # batch is 0 / 0, NaN, where the Python number 1.0 / 0 raised ZeroDivisionError
        return mf.sum(loss) / x.shape[0] if x.ndim else mf.sum(loss)
    return _reduce(loss, reduction)


def _hinge(z: Tensor) -> Tensor:
    """``max(z, 0)`` as PyTorch's losses write it, ``clamp_min(z, 0)``: its gradient at the hinge
    ``z == 0`` is 1 (``relu``'s is 0, ``maximum``'s 1/2), so a pair exactly at the margin is
    still pushed."""
    return mf.clip(z, 0, None)


def cosine_embedding_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where ``target == -1``.

    The cosine is over the last axis, with PyTorch's ``eps = 1e-12`` guard on each squared norm.
    """
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_reduction(reduction)
    a = _tensor(input1)
    b = _tensor(input2, a)
    y = _tensor(target, a)
    if a.shape != b.shape or a.ndim not in (1, 2):
        raise InputMismatch(f"cosine_embedding_loss: inputs must be 1-D or 2-D of one shape, got {a.shape} and "
                            f"{b.shape}")  # (PyTorch's RuntimeError)
    if y.shape != a.shape[:-1]:
        raise InputMismatch(f"cosine_embedding_loss: target of shape {y.shape} must have shape {a.shape[:-1]}")
    eps = 1e-12
    dot = mf.sum(a * b, axis=-1)
    m1 = mf.sum(a * a, axis=-1) + eps
    m2 = mf.sum(b * b, axis=-1) + eps
    cos = dot / mf.sqrt(m1 * m2)
    zero = _zeros_like(cos)
    loss = mf.where(y == 1, 1 - cos, mf.where(y == -1, _hinge(cos - margin), zero))
    return _reduce(loss, reduction)
