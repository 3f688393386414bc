"""Normalization: ``layer_norm``, ``batch_norm``, ``group_norm``, ``rms_norm``."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

from ... import functional as mf
from ...backend import HALF, get_default_dtype, host_numpy
from ...func.forward import carries_tangent
from ...functional import _tensor
from ...functional.arguments import in_float32_if_half, number, numbers
from ...functional.errors import ComplexNotImplemented, InputMismatch
from ...grad_mode import forward_mode as _forward
from ...grad_mode import no_grad
from ...ops import norm as _norm
from ...ops.shape import AsType
from ...tape import apply
from ...tensor import Tensor
from .inputs import _check_input_dtype, floating_kernel, no_kernel
from .norm_checks import group_norm_refusal, missing_running_stats, per_channel_refusal, trailing_shape_refusal

__all__ = [
    "layer_norm", "batch_norm", "group_norm", "rms_norm", "instance_norm", "local_response_norm",
]


def _real_input(name: str, x: Any) -> Tensor:
    """``x`` as a tensor; complex input refused, as PyTorch's kernels refuse it: the variance here
    is ``mean((x - mean) ** 2)``, which for complex numbers is not ``mean |x - mean| ** 2``, so the
    result would not be normalized.  PyTorch's error is its ``NotImplementedError`` (a ``RuntimeError``);
    this one is a ``TypeError`` too, as it was."""
    x = _tensor(x)
    if x.dtype.kind == "c":
        raise ComplexNotImplemented(f"{name}: complex input is not supported (as PyTorch's); normalize "
                        f"mg.view_as_real(z) or the parts z.real and z.imag instead")
    return x


_FLOAT32 = host_numpy.dtype("float32")


def _shape(t: Any) -> tuple:
    """A weight's or statistic's shape as the checks compare it (a list given for one: its length)."""
    return t.shape if isinstance(t, Tensor) else _tensor(t).shape


def float32_parameters_of_reduced_input(fn: Callable[..., Any]) -> Callable[..., Any]:
    """PyTorch's mixed-precision norms: a float16 input (NumPy has no bfloat16) beside float32 parameters and
    running statistics -- a model kept in float32 under autocast, ``BatchNorm2d(c).float()`` fed half
    activations -- is normalized in float32 and the result rounded once to the input's dtype, the
    statistics updated in float32.  Only where every tensor beside the input is float32: one of the
    input's dtype beside one of float32 stays the dtype mismatch PyTorch refuses."""

    @functools.wraps(fn)
    def wrapped(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        if isinstance(input, Tensor) and input._data.dtype is HALF:  # (the input first: one identity test a call)
            others = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
            if others and all(a._data.dtype is _FLOAT32 for a in others):
                out = fn(apply(AsType(dtype="float32"), input), *args, **kwargs)
                return apply(AsType(dtype="float16"), out)
        return fn(input, *args, **kwargs)

    return wrapped


@floating_kernel("LayerNormKernelImpl")
@float32_parameters_of_reduced_input
def layer_norm(input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None,
               eps: float = 1e-5) -> Tensor:
    """Normalize over the trailing ``normalized_shape`` axes, then ``* weight + bias``."""
    eps = number("layer_norm", "eps", eps, "float")
    input = _real_input("layer_norm", input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if (k == 0 or input.shape[input.ndim - k:] != shape or (weight is not None and _shape(weight) != shape)
            or (bias is not None and _shape(bias) != shape)):
        raise trailing_shape_refusal("layer_norm", input.shape, shape, (("weight", weight), ("bias", bias)))
    axes = tuple(range(input.ndim - k, input.ndim))
    _check_input_dtype("layer_norm", input, weight if isinstance(weight, Tensor) else None)
    if weight is not None and bias is not None:  # one op: keeps x, not also the normalized x
        affine = _tensor(weight, input), _tensor(bias, input)
        return apply(_norm.AffineNormalize(axes=axes, eps=float(eps)), input, *affine)
    out = apply(_norm.Normalize(axes=axes, eps=float(eps)), input)
    if weight is not None:
        out = out * _tensor(weight, input)
    if bias is not None:
        out = out + _tensor(bias, input)
    return out


@floating_kernel("batch_norm")
@float32_parameters_of_reduced_input
def batch_norm(input: Any, running_mean: Any, running_var: Any, weight: Any = None, bias: Any = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Batch normalization over every axis but the channel axis 1.

    In training, normalize with the batch statistics and update
    ``running_mean`` / ``running_var`` in place (unbiased variance, PyTorch's
    ``momentum`` convention: ``new = (1 - momentum) * old + momentum * batch``).
    In evaluation, normalize with the running statistics.
    """
    momentum, eps = numbers("batch_norm", "float", momentum=momentum, eps=eps)
    input = _real_input("batch_norm", input)
    if input.ndim < 2 and input.size == 0:  # PyTorch answers any empty input, with no channel axis to check
        return _empty_without_channels(input, weight, bias)
    _check_arguments(input, running_mean, running_var, weight, bias, training, eps)
    c = input.shape[1]
    axes = (0,) + tuple(range(2, input.ndim))
    bshape = (1, c) + (1,) * (input.ndim - 2)
    if training and input.size == 0:  # an empty batch (or no channels): empty out, running statistics kept (PyTorch's)
        return _per_channel_affine(input, input, weight, bias, bshape)
    if training:
        n = input.size // c
        if n <= 1:  # PyTorch's words (its tests and the brief's programs match them)
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"torch.Size({list(input.shape)})")
        out = _normalize_affine(input, axes, eps, weight, bias, bshape)
        if running_mean is not None and running_var is not None:
            xp = input.device.xp
            mean = xp.mean(input._data, axis=axes)
            var = xp.var(input._data, axis=axes) * (n / (n - 1))
            moved = lambda: (input.mean(dim=axes), input.var(dim=axes, correction=1))  # noqa: E731
            _update_running(running_mean, running_var, mean, var, momentum, input.device, moved)
        return out
    else:
        out = _normalize_with(input, running_mean, running_var, eps, bshape)
    return _per_channel_affine(out, input, weight, bias, bshape)


@floating_kernel("batch_norm")
def check_batch_norm_arguments(input: Tensor, running_mean: Any, running_var: Any, weight: Any, bias: Any,
                               training: bool, eps: float) -> None:
    """F.batch_norm's refusals of its input's dtype and of its arguments, in PyTorch's order and words
    (``SyncBatchNorm``, which normalizes by its own means when it synchronizes, makes them too)."""
    _real_input("batch_norm", input)
    _check_arguments(input, running_mean, running_var, weight, bias, training, eps)


def _check_arguments(input: Tensor, running_mean: Any, running_var: Any, weight: Any, bias: Any,  # noqa: A002
                     training: bool, eps: float) -> None:
    """F.batch_norm's refusals of its arguments (its input's dtype checked already, by its decorator and
    ``_real_input``: once a call on the batch-norm path)."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2-D input (N, C, ...), got {input.shape}")
    c = input.shape[1]
    for t in (weight, running_mean):
        _check_input_dtype("batch_norm", input, t if isinstance(t, Tensor) else None)
    if eps < 0.0 or (training and eps <= 0.0):  # PyTorch's checks (a constant batch over sqrt(0) was inf or NaN)
        raise ValueError(f"batch_norm eps must be {'positive during training' if training else 'non-negative'}, "
                         f"but got {eps}")
    if training and (running_mean is None) is not (running_var is None):
        raise missing_running_stats("batch_norm", running_mean, running_var, training)
    per_channel = (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias))
    if (not training and (running_mean is None or running_var is None)
            or any(t is not None and _shape(t) != (c,) for _, t in per_channel)):
        required = () if training else ("running_mean", "running_var")
        raise per_channel_refusal("batch_norm", input.shape, per_channel, required)


@floating_kernel("GroupNormKernelImpl")
@float32_parameters_of_reduced_input
def group_norm(input: Any, num_groups: int, weight: Any = None, bias: Any = None, eps: float = 1e-5) -> Tensor:
    """Normalize over groups of channels (axis 1) and all spatial axes, then ``* weight + bias`` per channel."""
    num_groups, eps = number("group_norm", "num_groups", num_groups, "int"), number("group_norm", "eps", eps, "float")
    input = _real_input("group_norm", input)
    if (input.ndim < 2 or input.shape[1] % num_groups or (weight is not None and _shape(weight) != input.shape[1:2])
            or (bias is not None and _shape(bias) != input.shape[1:2])):
        raise group_norm_refusal(input.shape, num_groups, weight, bias)
    _check_input_dtype("group_norm", input, weight if isinstance(weight, Tensor) else None)
    n, c = input.shape[0], input.shape[1]
    if n * (c // num_groups) * math.prod(input.shape[2:]) == 1:  # PyTorch's check (of a batch of groups)
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{list(input.shape)}")  # PyTorch's words (its group_norm's check is batch_norm's)
    if weight is not None and bias is not None:  # one op on (N, G, C/G, *spatial): it keeps x only
        grouped = (n, num_groups, c // num_groups) + input.shape[2:]  # (the statistics are the same numbers)
        w, b = (mf.reshape(_tensor(t, input), (1, num_groups, c // num_groups) + (1,) * (input.ndim - 2))
                for t in (weight, bias))
        op = _norm.AffineNormalize(axes=tuple(range(2, input.ndim + 1)), eps=float(eps))
        return mf.reshape(apply(op, mf.reshape(input, grouped), w, b), input.shape)
    per_group = (c // num_groups) * math.prod(input.shape[2:])  # explicit: -1 cannot be inferred for an empty batch
    g = mf.reshape(input, (n, num_groups, per_group))
    out = mf.reshape(apply(_norm.Normalize(axes=(2,), eps=float(eps)), g), input.shape)
    return _per_channel_affine(out, input, weight, bias, (1, c) + (1,) * (input.ndim - 2))


@floating_kernel("rms_norm")
@float32_parameters_of_reduced_input
@in_float32_if_half
def rms_norm(input: Any, normalized_shape: Any, weight: Any = None, eps: float | None = None) -> Tensor:
    """``x / sqrt(mean(x^2 over the trailing normalized_shape axes) + eps) * weight``.

    ``eps=None`` is the machine epsilon of the dtype it computes in, as in PyTorch.  float16
    computes in float32 and rounds once (PyTorch's half kernel), so ``eps=None`` is float32's
    there: float16's (1e-3) made ``rms_norm([0.01] * 4)`` 0.305 for PyTorch's 0.9995, and
    ``x^2`` overflowed float16 from 256 on (a row holding 60000 came out all 0).
    """
    input = _tensor(input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or input.shape[input.ndim - k:] != shape or (weight is not None and _shape(weight) != shape):
        raise trailing_shape_refusal("rms_norm", input.shape, shape, (("weight", weight),), star="")
    _check_input_dtype("rms_norm", input, weight if isinstance(weight, Tensor) else None)
    e = float(host_numpy.finfo(input.dtype).eps) if eps is None else number("rms_norm", "eps", eps, "float")
    axes = tuple(range(input.ndim - k, input.ndim))
    out = input * (1 / mf.sqrt(mf.mean(input * input, axis=axes, keepdims=True) + e))
    if weight is not None:
        out = out * _tensor(weight, input)
    return out


@floating_kernel("batch_norm")
@float32_parameters_of_reduced_input
def instance_norm(input: Any, running_mean: Any = None, running_var: Any = None, weight: Any = None, bias: Any = None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalize each channel of each sample over its spatial axes, then ``* weight + bias`` per channel.

    With ``use_input_stats`` (training) the statistics are the sample's own, and given running
    statistics are updated in place with their mean over the batch (unbiased variances, PyTorch's
    ``momentum``); without, the running statistics normalize (evaluation).
    """
    momentum, eps = numbers("instance_norm", "float", momentum=momentum, eps=eps)
    input = _real_input("instance_norm", input)
    if input.ndim < 3:
        theirs = (f"Expected more than 1 spatial element when training, got input size torch.Size({list(input.shape)})"
                  " (" if use_input_stats else "")  # (PyTorch's words, where it refuses this input)
        raise ValueError(f"instance_norm: {theirs}expected (N, C, *spatial) input with a spatial axis, got "
                         f"{input.shape}{')' if theirs else ''}")
    _check_input_dtype("instance_norm", input, weight if isinstance(weight, Tensor) else None)
    c = input.shape[1]
    if (running_mean is None) is not (running_var is None) or (running_mean is None and not use_input_stats):
        raise missing_running_stats("instance_norm", running_mean, running_var, use_input_stats)
    # PyTorch's order and words; its counts are multiplied by the batch (it normalizes the batch as
    # one sample of N * C channels), these are the channels and the given count
    per_channel = (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias))
    if any(t is not None and _shape(t) != (c,) for _, t in per_channel):
        raise per_channel_refusal("instance_norm", input.shape, per_channel)
    spatial = tuple(range(2, input.ndim))
    bshape = (1, c) + (1,) * (input.ndim - 2)
    if use_input_stats and input.size == 0:  # nothing to normalize: empty out, running statistics kept (PyTorch's)
        return _per_channel_affine(input, input, weight, bias, bshape)
    if use_input_stats:
        m = math.prod(input.shape[2:])
        if m <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"torch.Size({list(input.shape)})")  # PyTorch's words
        out = _normalize_affine(input, spatial, eps, weight, bias, bshape)
        if running_mean is not None and running_var is not None:
            xp = input.device.xp
            mean = xp.mean(xp.mean(input._data, axis=spatial), axis=0)
            var = xp.mean(xp.var(input._data, axis=spatial), axis=0) * (m / (m - 1))
            moved = lambda: (input.mean(dim=spatial).mean(0), input.var(dim=spatial, correction=1).mean(0))  # noqa: E731
            _update_running(running_mean, running_var, mean, var, momentum, input.device, moved)
        return out
    else:
        out = _normalize_with(input, running_mean, running_var, eps, bshape)
    return _per_channel_affine(out, input, weight, bias, bshape)


def local_response_norm(input: Any, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """``x / (k + alpha * mean(x^2 over the `size` neighbouring channels))^beta`` (AlexNet's
    normalization; the window is zero-padded, ``size // 2`` channels before and ``(size - 1) // 2`` after).
    PyTorch's order and dtypes: the mean is its average pool's, so an int64 ``x`` is pooled in
    integers (the mean truncated) and the rest is in the default float dtype; the other integer
    dtypes, bool, and float16 beyond 3-D have no pool kernel there (its ``NotImplementedError``).
    An empty ``x`` is returned itself, as PyTorch's."""
    size = number("local_response_norm", "size", size, "SymInt")  # (PyTorch's Python: one element reads)
    # (PyTorch's Python function: a complex alpha, beta or k makes a complex result, as there)
    alpha, beta, k = numbers("local_response_norm", "Number", alpha=alpha, beta=beta, k=k)
    input = _real_input("local_response_norm", input)
    if input.ndim < 3:  # PyTorch's words (its source's line break leaves a run of spaces inside them there)
        raise ValueError(f"local_response_norm: Expected 3D or higher dimensionality input (got {input.ndim} "
                         f"dimensions) (an (N, C, *spatial) input; got shape {input.shape})")
    if input.size == 0:  # PyTorch's: the input itself, before its pool could refuse the dtype
        return input
    if int(size) < 1:  # its pool's words: the window over the channels is the pool's first kernel dim
        kernel = f"kH: {size} kW: 1" if input.ndim == 3 else f"kT: {size} kH: 1 kW: 1"
        raise InputMismatch(f"local_response_norm: kernel size should be greater than zero, but got {kernel} "
                            f"(size must be >= 1, got {size})")
    _refuse_unpooled_dtype(input)
    size = int(size)
    c = input.shape[1]
    sq = mf.pad(input * input, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (input.ndim - 2))
    window = sq[:, 0:c]
    for i in range(1, size):
        window = window + sq[:, i:i + c]
    if input.dtype.kind == "i":  # int64: the pool's integer mean, then floats (int64 * alpha)
        floats = get_default_dtype()
        return mf.astype(input, floats) / (mf.astype(window // size, floats) * alpha + k) ** beta
    return input / (window / size * alpha + k) ** beta


def _refuse_unpooled_dtype(x: Tensor) -> None:
    """PyTorch's refusal by ``local_response_norm``'s average pool (``avg_pool2d`` for 3-D input,
    ``avg_pool3d`` beyond) of a dtype it has no kernel for: integers but int64, bool, and float16
    beyond 3-D."""
    kind, name = x.dtype.kind, x.dtype.name
    if kind in "biu" and name != "int64" or (name == "float16" and x.ndim > 3):
        raise no_kernel("avg_pool2d" if x.ndim == 3 else "avg_pool3d_out_frame", x)


def _update_running(running_mean: Tensor, running_var: Tensor, mean: Any, var: Any, momentum: float,
                    device: Any, moved: Callable[[], tuple[Tensor, Tensor]] | None = None) -> None:
    """``running = (1 - momentum) * running + momentum * batch``, in place, for the mean and
    the (unbiased) variance arrays of a batch (PyTorch's ``momentum`` convention).

    A statistic that carries a forward-mode tangent (a dual passed in, an argument of ``mg.func.jvp``;
    differentiated like any input, as in evaluation) takes the tangent of the whole update:
    ``moved()`` gives the batch's mean and variance as tensors, whose tangents the input's move.
    With the arrays alone the tangent came out ``(1 - momentum) * old``, half an update's.  A plain
    buffer takes the arrays: it gets no tangent, so a module's buffers stay writable under the
    transforms (see docs/from-pytorch.md, "captured")."""
    with no_grad():
        stats = None  # (moved()'s pair, computed once for both statistics)
        for running, batch, k in ((running_mean, mean, 0), (running_var, var, 1)):
            if moved is not None and _forward.active and carries_tangent(running):
                stats = moved() if stats is None else stats
                step = stats[k].to(running.dtype) * momentum
            else:
                step = Tensor.constant(batch.astype(running.dtype), device) * momentum
            running.mul_(1 - momentum).add_(step)


def _normalize_with(x: Tensor, running_mean: Any, running_var: Any, eps: float, bshape: tuple) -> Tensor:
    """``x`` normalized per channel (axis 1) with the running statistics (evaluation; the caller
    has refused them missing)."""
    # Not detached: a module's buffers have no history anyway, and statistics passed in that
    # do -- or that carry a forward-mode tangent -- are differentiated like any input.
    rm = mf.reshape(_tensor(running_mean, x), bshape)
    rv = mf.reshape(_tensor(running_var, x), bshape)
    return (x - rm) * (1 / mf.sqrt(rv + eps))


def _normalize_affine(x: Tensor, axes: tuple, eps: float, weight: Any, bias: Any, bshape: tuple) -> Tensor:
    """``x`` normalized over ``axes`` with its own statistics, then the per-channel affine: one op
    when both weight and bias are given (it keeps x, not also the normalized x)."""
    if weight is not None and bias is not None:
        w, b = (mf.reshape(_tensor(t, x), bshape) for t in (weight, bias))
        return apply(_norm.AffineNormalize(axes=axes, eps=float(eps)), x, w, b)
    return _per_channel_affine(apply(_norm.Normalize(axes=axes, eps=float(eps)), x), x, weight, bias, bshape)


def _empty_without_channels(x: Tensor, weight: Any, bias: Any) -> Tensor:
    """PyTorch's answer to an empty input of fewer than 2 dims: a copy, times ``weight[0]`` plus
    ``bias[0]`` (so the parameters stay in the graph, with zero gradients)."""
    out = mf.clone(x)
    if weight is not None:
        out = out * _tensor(weight, x)[0]
    if bias is not None:
        out = out + _tensor(bias, x)[0]
    return out


def _per_channel_affine(out: Tensor, x: Tensor, weight: Any, bias: Any, bshape: tuple) -> Tensor:
    """``out * weight + bias`` with one weight and one bias per channel (axis 1), either optional."""
    if weight is not None:
        out = out * mf.reshape(_tensor(weight, x), bshape)
    if bias is not None:
        out = out + mf.reshape(_tensor(bias, x), bshape)
    return out
