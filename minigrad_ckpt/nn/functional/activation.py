"""Activation functions: ``relu``, ``gelu``, ``softmax``, ``softplus``, ``elu``, ``prelu``, ...

ReLU, GELU, SiLU and the softmaxes are ops of their own
(:mod:`minigrad_ckpt.ops.activation`); the others are compositions of the
engine's ops, written so that large inputs neither overflow nor leak a NaN
into the gradient.
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Callable
from typing import Any

from ... import functional as mf
from ... import random as _random
from ...backend import HALF, checked_int, fill_scalar
from ...functional import _tensor, normalize_axis
from ...functional.arguments import in_default_float, in_float32_if_half, numbers, real_numbers, refuse_complex
from ...functional.errors import ComplexNotImplemented, InputMismatch
from ...functional.torch_methods import refuse_complex_input, refuse_integer_softmax
from ...ops import activation as _act
from ...ops import dropout as _drop
from ...tape import apply
from ...tensor import Tensor
from ...user_frame import stacklevel_outside_the_engine
from .inputs import NO_COMPLEX, _axis, _check_input_dtype, floating_kernel, no_kernel, written_in_place

__all__ = [
    "relu", "leaky_relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "softplus", "logsigmoid",
    "mish", "elu", "hardtanh", "prelu", "softmin", "selu", "celu", "glu", "hardswish", "hardsigmoid", "softsign",
    "tanhshrink", "threshold", "softshrink", "hardshrink", "rrelu", "relu6", "gumbel_softmax",
]


_RELU = _act.Relu()
_SILU = _act.Silu()


def _half_in_float32(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """An activation of a float16 tensor evaluated in float32 and rounded to float16 once, as
    PyTorch's half kernels do (their "opmath" type is float): step by step in float16 each op
    rounds, and ``sigmoid``, ``silu``, ``elu``, ``hardswish``, ... came out a unit in the last
    place off for a third of the inputs, their gradients up to 20% (``silu(6)``'s 1.015 for
    PyTorch's 1.013).  The gradient flows back through the recorded casts, in float16.  An
    in-place call is left to ``fn``: ``written_in_place`` computes the value through this
    wrapper and writes it into the float16 input."""
    wide = in_float32_if_half(fn)
    names = list(inspect.signature(fn).parameters)
    at = names.index("inplace") - 1 if "inplace" in names else None  # its place after ``input``

    @functools.wraps(fn)
    def wrapped(input: Any, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
        if not (isinstance(input, Tensor) and input._data.dtype is HALF):  # (identity: cheap on the hot path)
            return fn(input, *args, **kwargs)
        inplace = kwargs.get("inplace", at is not None and len(args) > at and args[at])
        return fn(input, *args, **kwargs) if inplace else wide(input, *args, **kwargs)

    return wrapped


def relu(input: Any, inplace: bool = False) -> Tensor:
    """``max(x, 0)``; the gradient at 0 is 0.  Complex input is refused (no order), as PyTorch."""
    if inplace:  # a test, not a call: relu is on every small model's hot path
        return written_in_place("relu", input, relu)
    if not isinstance(input, Tensor):
        input = _tensor(input)
    if input._data.dtype.kind in "cb":  # inline: relu is on every small model's hot path
        refuse_complex("relu", input)
        raise RuntimeError("Boolean inputs not supported for relu")  # (PyTorch's; integers stay integers)
    return apply(_RELU, input)


@floating_kernel("leaky_relu_cpu")
@_half_in_float32
def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` for positive inputs, ``negative_slope * x`` otherwise (real input only, as PyTorch)."""
    negative_slope = real_numbers("leaky_relu", negative_slope=negative_slope)
    if inplace:
        return written_in_place("leaky_relu", input, leaky_relu, negative_slope)
    input = _tensor(input)
    refuse_complex("leaky_relu", input)
    return apply(_act.LeakyRelu(negative_slope=float(negative_slope)), input)


@floating_kernel("GeluKernelImpl", NO_COMPLEX)
def gelu(input: Any, approximate: str = "none") -> Tensor:
    """GELU, exact (``approximate="none"``, with ``erf``) or the ``"tanh"`` approximation
    (real input only, as PyTorch: its ``erf`` is the real one; complex input is its
    ``NotImplementedError`` naming the kernel, a ``TypeError`` too)."""
    input = _tensor(input)
    if approximate not in ("none", "tanh"):
        raise InputMismatch(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return apply(_act.Gelu(approximate=approximate), input)


@floating_kernel("silu_cpu")
@_half_in_float32
def silu(input: Any, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)``."""
    if inplace:
        return written_in_place("silu", input, silu)
    return apply(_SILU, _tensor(input))


def sigmoid(input: Any) -> Tensor:
    """``1 / (1 + exp(-input))``: :func:`minigrad_ckpt.sigmoid` under PyTorch's argument name."""
    return mf.sigmoid(input)


def tanh(input: Any) -> Tensor:
    """The hyperbolic tangent: :func:`minigrad_ckpt.tanh` under PyTorch's argument name."""
    return mf.tanh(input)


def _softmax_axis(name: str, x: Tensor, axis: Any, dim: Any) -> tuple[int, ...]:
    """The axis of ``softmax``/``log_softmax``/``softmin``: ``axis`` or PyTorch's ``dim``; given
    neither, PyTorch's implicit choice -- dim 0 for a 0-, 1- or 3-D input, else dim 1 (the
    channels of ``(N, C, ...)``) -- with PyTorch's deprecation warning, at the user's line (also
    when an ``nn.Softmax()`` layer's forward called it).  Not the last axis: for a 3-D input that would be another
    answer under PyTorch's spelling."""
    if axis is None and dim is None:
        warnings.warn(f"Implicit dimension choice for {name} has been deprecated. "
                      "Change the call to include dim=X as an argument.", UserWarning,
                      stacklevel=stacklevel_outside_the_engine())
        return (0 if x.ndim in (0, 1, 3) else 1,)
    return normalize_axis(_axis(axis, dim), x.ndim)


def _softmax_input(x: Any, dtype: Any, name: str, axis: Any, dim: Any) -> Tensor:
    """The input, cast to ``dtype`` first when one is given (PyTorch's ``dtype=``); complex input
    refused, as PyTorch's (and ``mg.softmax``); integer and bool input without a ``dtype`` refused
    too, PyTorch's ``NotImplementedError`` of its kernel for the last dim or another (NumPy's
    promotion would answer float64)."""
    x = _tensor(x)
    if dtype is None:
        implicit = 0 if x.ndim in (0, 1, 3) else 1
        chosen = implicit if axis is None and dim is None else _axis(axis, dim)
        refuse_integer_softmax("softmax" if name == "softmin" else name, x, chosen)  # (softmin: softmax of -x)
    return refuse_complex_input(name, x if dtype is None else mf.astype(x, dtype))


def softmax(input: Any, axis: int | None = None, _stacklevel: int = 3, dtype: Any = None, *,
            dim: int | None = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis`` (PyTorch: ``dim``; without either, PyTorch's
    implicit choice, see :func:`_softmax_axis`, whose warning points at the user's line:
    ``_stacklevel``, PyTorch's frame count, is taken and not needed);
    ``dtype`` casts the input first. PyTorch's positions: ``softmax(x, 1, 3, "float64")``."""
    input = _softmax_input(input, dtype, "softmax", axis, dim)
    if input.ndim == 0:  # PyTorch: a 0-d tensor is its own (one-element) slice; no dim still warns
        if axis is None and dim is None:
            _softmax_axis("softmax", input, axis, dim)
        return mf.reshape(softmax(mf.reshape(input, (1,)), 0), ())
    return apply(_act.Softmax(axis=_softmax_axis("softmax", input, axis, dim)), input)


def log_softmax(input: Any, axis: int | None = None, _stacklevel: int = 3, dtype: Any = None, *,
                dim: int | None = None) -> Tensor:
    """``x - logsumexp(x)`` along ``axis`` (as :func:`softmax`), stable for huge logits."""
    input = _softmax_input(input, dtype, "log_softmax", axis, dim)
    if input.ndim == 0:  # PyTorch: a 0-d tensor is its own (one-element) slice; no dim still warns
        if axis is None and dim is None:
            _softmax_axis("log_softmax", input, axis, dim)
        return mf.reshape(log_softmax(mf.reshape(input, (1,)), 0), ())
    return apply(_act.LogSoftmax(axis=_softmax_axis("log_softmax", input, axis, dim)), input)


@floating_kernel("softplus_cpu", NO_COMPLEX)
@_half_in_float32
def softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, and ``input`` itself where ``beta * x > threshold``.

    Computed as ``logaddexp(0, beta * x)``: stable for any ``input``, exact
    gradient ``sigmoid(beta * x)`` (1/2 at 0).  The 0 is a Python number, not
    an array: a checkpoint keeps nothing for it.
    """
    beta, threshold = real_numbers("softplus", beta=beta, threshold=threshold)
    input = _tensor(input)
    z = input * beta if beta != 1.0 else input
    soft = mf.logaddexp(0.0, z)
    if beta != 1.0:
        soft = soft * (1.0 / beta)
    return mf.where(z > threshold, input, soft)


@floating_kernel("log_sigmoid_cpu")
@_half_in_float32
def logsigmoid(input: Any) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``; real input only, as PyTorch's
    (``mg.logaddexp`` takes complex numbers, this log-probability does not)."""
    input = _tensor(input)
    if input.dtype.kind == "c":
        raise ComplexNotImplemented(f"logsigmoid: complex input is not supported (as PyTorch's), got {input.dtype}")
    return 0.0 - mf.logaddexp(0.0, -input)  # (not -logaddexp: +0.0 where the softplus is 0, as PyTorch's)


_MISH, _HARDSWISH = _act.Mish(), _act.Hardswish()


@floating_kernel("mish_cpu", NO_COMPLEX)
def mish(input: Any, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``: one op, PyTorch's kernel and ``mish_backward``
    (:class:`~minigrad_ckpt.ops.activation.Mish`); float16 in float32, rounded once."""
    if inplace:
        return written_in_place("mish", input, mish)
    return apply(_MISH, _tensor(input))


@floating_kernel("elu_cpu", NO_COMPLEX)
@_half_in_float32
def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` for ``x > 0``, else ``alpha * (exp(x) - 1)``; the derivative at 0 is ``alpha`` (PyTorch)."""
    alpha = real_numbers("elu", alpha=alpha)
    if inplace:
        return written_in_place("elu", input, elu, alpha)
    input = _tensor(input)
    pos = _not_at_most_zero(input)
    neg = mf.where(pos, 0.0, input)  # the exp only ever sees x <= 0: no overflow, no inf * 0
    return mf.where(pos, input, mf.expm1(neg) * alpha)


def _not_at_most_zero(x: Tensor) -> Tensor:
    """Where ELU's linear branch applies: ``x > 0``, and NaN too, as PyTorch's (its derivative there
    is 1, so the exponential branch never sees a NaN, whose ``0 * NaN`` would reach ``x.grad``)."""
    return mf.logical_not(x <= 0)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` clamped to ``[min_val, max_val]``; the gradient is 0 at and beyond the bounds (PyTorch)."""
    if inplace:
        return written_in_place("hardtanh", input, hardtanh, min_val, max_val)
    min_val, max_val = numbers("hardtanh", min_val=min_val, max_val=max_val)
    if min_val > max_val:
        raise ValueError(f"min_val cannot be greater than max_val (hardtanh: min_val={min_val}, max_val={max_val})")
    input = _tensor(input)
    refuse_complex("hardtanh", input)  # (NumPy's lexicographic clip would answer, as PyTorch's clamp refuses)
    if input.dtype.kind == "b":  # PyTorch's refusals (NumPy would clip a bool as a number)
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input.dtype.kind in "iu":  # the result stays integer
        min_val, max_val = _integer_bounds(input.dtype, min_val, max_val)
    return apply(_act.HardTanh(min_val=min_val, max_val=max_val), input)


def _integer_bounds(dtype: Any, min_val: float, max_val: float) -> tuple[int, int]:
    """``hardtanh``'s bounds for an integer input, as PyTorch's: truncated toward zero first (so
    ``-0.5`` is a bound of 0 even for uint8), refused for uint8 if either is then negative, and
    converted into the dtype by the checked conversion (``-1000`` does not fit int8)."""
    low, high = int(min_val), int(max_val)
    if dtype.kind == "u" and (low < 0 or high < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return checked_int("hardtanh", low, dtype), checked_int("hardtanh", high, dtype)


def relu6(input: Any, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``: PyTorch's ``hardtanh(x, 0, 6)``, gradient 0 at and beyond the bounds."""
    if inplace:
        return written_in_place("relu6", input, relu6)
    input = _tensor(input)
    refuse_complex("relu6", input)
    return hardtanh(input, 0.0, 6.0)


@floating_kernel("prelu_cpu", NO_COMPLEX)
def prelu(input: Any, weight: Any) -> Tensor:
    """``input`` for ``x > 0``, else ``weight * x``; ``weight`` has one value or one per channel (axis 1)."""
    input = _tensor(input)
    w = _tensor(weight, input)
    _check_input_dtype("prelu", input, w)
    if w.size == 1 and w.ndim <= 1:  # one slope, 0-d or (1,): the output keeps the input's shape
        w = mf.reshape(w, ())
    elif w.ndim != 1 or input.ndim < 2 or input.shape[1] != w.shape[0]:
        raise InputMismatch(f"prelu: weight of shape {w.shape} needs one value (a 0-d or 1-element weight) or one "
                         f"per channel (dim 1) of input {input.shape}")
    else:
        w = mf.reshape(w, (1, -1) + (1,) * (input.ndim - 2))
    return apply(_act.PRelu(), input, w)


def softmin(input: Any, axis: int | None = None, _stacklevel: int = 3, dtype: Any = None, *,
            dim: int | None = None) -> Tensor:
    """``softmax(-x)`` along ``axis`` (as :func:`softmax`), negated in the input's dtype before
    ``dtype`` casts, as PyTorch's (a bool input is its negation error, a uint8 one wraps)."""
    input = refuse_complex_input("softmin", _tensor(input))
    if axis is None and dim is None:  # (a 0-d input too: PyTorch warns for it, naming softmin)
        axis = _softmax_axis("softmin", input, None, None)[0]
    return softmax(-input, axis, dtype=dtype, dim=dim)


# SELU's constants (Klambauer et al. 2017), as PyTorch spells them
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@floating_kernel("elu_cpu", NO_COMPLEX)
@_half_in_float32
def selu(input: Any, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalizing constants ``alpha = 1.6733``, ``scale = 1.0507``."""
    if inplace:
        return written_in_place("selu", input, selu)
    return elu(input, _SELU_ALPHA) * _SELU_SCALE


@floating_kernel("elu_cpu", NO_COMPLEX)
@_half_in_float32
def celu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``: an ELU with a derivative of 1 at 0."""
    alpha = real_numbers("celu", alpha=alpha)
    if inplace:
        return written_in_place("celu", input, celu, alpha)
    if alpha == 0:
        raise InputMismatch("celu: alpha must not be 0")
    input = _tensor(input)
    pos = _not_at_most_zero(input)
    neg = mf.where(pos, 0.0, input)  # the exp only sees x <= 0
    return mf.where(pos, input, mf.expm1(neg * (1.0 / alpha)) * alpha)


@floating_kernel("glu_cpu", NO_COMPLEX)
def glu(input: Any, axis: int | None = None, *, dim: int | None = None) -> Tensor:
    """The gated linear unit: ``a * sigmoid(b)`` for the two halves ``a``, ``b`` of ``input`` along ``axis``."""
    input = _tensor(input)
    if input.ndim == 0:
        raise InputMismatch("glu: a 0-d input has no axis to halve")
    (ax,) = normalize_axis(_axis(axis, dim), input.ndim)
    if input.shape[ax] % 2:
        raise InputMismatch(f"glu: the halved axis {ax} of shape {input.shape} must have an even length")
    a, b = mf.split(input, 2, axis=ax)
    return a * mf.sigmoid(b)


@floating_kernel("hardswish_cpu", NO_COMPLEX)
def hardswish(input: Any, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``, one op as PyTorch's kernel computes it (-0.0 up to -3, NaN at -inf,
    ``x * 6 / 6`` from 3 on) with its ``hardswish_backward`` -- 0 up to -3, 1 from 3 on
    (:class:`~minigrad_ckpt.ops.activation.Hardswish`); float16 in float32, rounded once."""
    if inplace:
        return written_in_place("hardswish", input, hardswish)
    return apply(_HARDSWISH, _tensor(input))


@floating_kernel("hardsigmoid_cpu", NO_COMPLEX)
@_half_in_float32
def hardsigmoid(input: Any, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, the derivative 0 at and beyond +-3 (PyTorch);
    NaN stays NaN, with gradient 0 (PyTorch's)."""
    if inplace:
        return written_in_place("hardsigmoid", input, hardsigmoid)
    input = _tensor(input)
    if input.dtype.kind != "f":  # (an integer or complex input: PyTorch's refusals, as before)
        inside = mf.where(input < 3, input * (1.0 / 6) + 0.5, math.nan)
        return mf.where(input >= 3, 1.0, mf.where(input <= -3, 0.0, inside))
    return apply(_act.Hardsigmoid(), input)


def softsign(input: Any) -> Tensor:
    """``x / (1 + |x|)``; of integers, in the default float dtype (PyTorch's)."""
    input = _tensor(input)
    if input._data.dtype.kind == "b":  # PyTorch's abs has no bool kernel (integers: the default float)
        raise no_kernel("abs_cpu", input)
    input = in_default_float(input)
    return input / (mf.abs(input) + 1)


def tanhshrink(input: Any) -> Tensor:
    """``x - tanh(x)``; of integers, in the default float dtype (PyTorch's: ``tanh`` of integers is)."""
    input = _tensor(input)
    return input - mf.tanh(input)  # (a bool input: the subtraction's refusal, as PyTorch's)


def threshold(input: Any, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``input`` where ``x > threshold``, else ``value`` (PyTorch's argument order); NaN stays NaN.
    Integer input stays integer: ``threshold`` and ``value`` are converted into its dtype first, as
    PyTorch's kernel does -- truncated (``-1.5`` is ``-1``: ``x <= -1``), refused where the dtype
    cannot hold them (``-0.5`` or ``300`` for uint8, NaN), and compared as integers (an int64 beyond
    2**24 is not rounded to a float32 first)."""
    threshold, value = real_numbers("threshold", threshold=threshold, value=value)
    input = _tensor(input)
    if input._data.dtype.kind in "bc":  # PyTorch's kernel takes real numbers only (integers stay integer)
        raise no_kernel("threshold_cpu", input)
    if input.dtype.kind in "iu":
        threshold, fill = (int(fill_scalar("threshold", v, input.dtype)) for v in (threshold, value))
    else:
        fill = float(value)

    def thresholded(x: Tensor) -> Tensor:
        if x.dtype.kind == "f":  # one op, as PyTorch's: its backward stays on the input's graph
            return apply(_act.Threshold(threshold=float(threshold), value=fill), x)
        return mf.where(x <= threshold, fill, x)  # (NaN fails the test: it stays, as in PyTorch)

    return written_in_place("threshold", input, thresholded) if inplace else thresholded(input)


@floating_kernel("softshrink_check", NO_COMPLEX)
def softshrink(input: Any, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between; NaN stays NaN."""
    lambd = real_numbers("softshrink", lambd=lambd)
    if lambd < 0:
        raise InputMismatch(f"softshrink: lambd must be >= 0, got {lambd}")
    input = _tensor(input)
    if input.dtype.kind == "f":  # one op, as PyTorch's: its backward stays on the input's graph
        return apply(_act.Softshrink(lambd=float(lambd)), input)
    # NaN fails both tests: it takes the branch x - lambd and stays NaN (PyTorch's)
    return mf.where(input < -lambd, input + lambd, mf.where(input <= lambd, 0.0, input - lambd))


@floating_kernel("hardshrink_cpu", NO_COMPLEX)
def hardshrink(input: Any, lambd: float = 0.5) -> Tensor:
    """``input`` where ``|x| > lambd``, else 0; NaN stays NaN (PyTorch's)."""
    lambd = real_numbers("hardshrink", lambd=lambd)
    input = _tensor(input)
    if input.dtype.kind == "f":  # one op, as PyTorch's: its backward stays on the input's graph
        return apply(_act.Hardshrink(lambd=float(lambd)), input)
    return mf.where((input >= -lambd) & (input <= lambd), 0.0, input)  # NaN fails the test: it stays


@floating_kernel("leaky_relu_cpu")
def rrelu(input: Any, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """The randomized leaky ReLU: ``input`` for ``x > 0``, else ``a * x`` with ``a`` drawn uniformly from
    ``[lower, upper]`` per element in training (from the engine generator) and ``(lower + upper) / 2``
    in evaluation."""
    lower, upper = real_numbers("rrelu", lower=lower, upper=upper)
    if inplace:
        return written_in_place("rrelu", input, rrelu, lower, upper, training)
    if not lower <= upper:  # (PyTorch takes a negative lower bound: negative slopes are drawn)
        raise InputMismatch(f"rrelu: Lower bound should be less than or equal to the upper bound, got "
                            f"lower={lower}, upper={upper}")
    input = _tensor(input)
    refuse_complex("rrelu", input)  # (a slope for x < 0: the noisy slopes would answer by the real part)
    if not training:  # PyTorch's leaky_relu with the mean slope (its backward on the input's graph: leaky_relu's)
        return leaky_relu(input, (lower + upper) / 2)
    u = _random.uniform(input.device.xp, _random.next_key(), input.shape, input.dtype)
    slopes = Tensor.constant(u * (upper - lower) + lower, input.device)
    # prelu's op with a slope per element: its backward on the input's graph, as rrelu_with_noise_backward
    return apply(_act.PRelu(), input, slopes)


def gumbel_softmax(logits: Any, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax (concrete) distribution: ``softmax((logits + g) / tau)`` along ``dim``
    with ``g = -log(E)``, ``E`` exponential (from the engine generator), as PyTorch's; ``hard`` gives the
    one-hot of the largest in the forward pass and the soft sample's gradient (straight through).
    ``eps`` is PyTorch's deprecated, ignored argument."""
    x = _tensor(logits)
    # the noise is made from a key the tape keeps (a checkpoint replays it, keeping no noise array)
    y_soft = softmax(apply(_drop.AddGumbel(key=_random.next_key()), x) / tau, dim)
    if not hard:
        return y_soft
    xp, (d,) = x.device.xp, normalize_axis(dim, x.ndim)
    winner = xp.argmax(y_soft._data, axis=d)  # the first of tied maxima, as PyTorch's max(dim)[1]
    position = xp.arange(x.shape[d]).reshape([-1 if i == d else 1 for i in range(x.ndim)])
    y_hard = Tensor.constant((position == xp.expand_dims(winner, d)).astype(x.dtype), x.device)
    return y_hard - y_soft.detach() + y_soft
