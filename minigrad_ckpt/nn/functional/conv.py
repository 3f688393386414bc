"""Convolutions: ``conv1d``, ``conv2d``, ``conv_transpose2d`` (NCHW, PyTorch's arguments).

``conv2d`` is an op of its own (:mod:`minigrad_ckpt.ops.conv`); ``conv1d``
runs it on a height of 1 and ``conv_transpose2d`` is built from registered
ops (zero insertion, padding, the flipped kernel).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ... import functional as mf
from ...backend import host_numpy
from ...functional import _tensor
from ...functional.arguments import number
from ...functional.errors import InputMismatch
from ...ops import conv as _conv
from ...tape import apply
from ...tensor import Tensor
from .inputs import _check_input_dtype

__all__ = [
    "conv2d", "conv1d", "conv_transpose2d", "conv_transpose1d",
]


_COUNT_WORDS = {1: "a 1-tuple", 2: "a pair", 3: "a triple"}


def _ntuple(v: Any, n: int, name: str, fn: str = "", *, one_for_all: bool = False) -> tuple[int, ...]:
    """``v`` as ``n`` ints: an int is repeated, a sequence must have ``n`` entries (``fn`` prefixes the error)
    -- or one, with ``one_for_all``, as PyTorch's convolutions and pools expand ``padding=[1]`` to every
    spatial dim (its ``unfold``, ``fold``, ``max_unpool`` and fractional pools refuse it).
    A tensor, alone or an entry, is read as PyTorch's int list reads one: an integer tensor of one element
    (:func:`~minigrad_ckpt.functional.arguments.number`); a float one, or one that requires grad, is its
    TypeError (``int()`` of it truncated ``1.5`` and dropped a gradient silently)."""
    if isinstance(v, str):  # ("same" for a transposed convolution: int() of its letters said "invalid literal")
        raise TypeError(f"{fn or 'conv'}: argument '{name}' must be tuple of ints, not str")
    if not isinstance(v, (tuple, list)):  # (a float or a bool, alone or an entry, is PyTorch's TypeError)
        v = number(fn or "conv", name, v, "SymInt")
    if isinstance(v, (int, host_numpy.integer)):
        v = (int(v),) * n
    v = tuple(int(number(fn or "conv", name, a, "SymInt")) for a in v)
    if len(v) == 1 and one_for_all:
        v = v * n
    if len(v) != n:
        raise InputMismatch(f"{fn + ': ' if fn else ''}{name} must be an int or {_COUNT_WORDS[n]}, got {v}")
    return v


def _pair(v: Any, name: str, fn: str = "", *, one_for_all: bool = False) -> tuple[int, int]:
    return _ntuple(v, 2, name, fn, one_for_all=one_for_all)  # type: ignore[return-value]


def no_stride(stride: Any) -> bool:
    """Whether a pool's ``stride`` is left out (None, or PyTorch's empty list): the kernel size is its stride
    then.  (Not ``stride == ()``: a tensor given for it compares elementwise.)"""
    return stride is None or (isinstance(stride, (tuple, list)) and not stride)


_AXES = {1: "L", 2: "H, W", 3: "D, H, W"}


def _batched(x: Tensor, name: str, spatial: int = 2) -> tuple[Tensor, bool]:
    """An input with ``spatial`` axes after (N, C): a (C, ...) input gets a batch axis of 1,
    and the flag says so, so that the caller can remove it from the result."""
    if x.ndim == spatial + 1:
        return mf.expand_dims(x, 0), True
    if x.ndim != spatial + 2:
        axes = _AXES[spatial]
        raise InputMismatch(f"{name}: expected a {spatial + 1}-D (C, {axes}) or {spatial + 2}-D (N, C, {axes}) input, "
                            f"got shape {x.shape}")
    return x, False


def refuse_empty_kernel(name: str, kernel: tuple[int, ...]) -> None:
    """A weight with a spatial size of 0 is PyTorch's RuntimeError, in its words: its window covers nothing,
    and the output-size rule would answer one element more than the input has (a 4x4 input and a 0x0
    kernel gave a 5x5 output of the bias)."""
    if min(kernel) < 1:
        got = (f" kernel_height: {kernel[0]} kernel_width: {kernel[1]}" if len(kernel) == 2
               else f": {' x '.join(map(str, kernel))} (TxHxW)")
        raise InputMismatch(f"{name}: kernel size should be greater than zero, but got{got}")


def _string_padding(x: Tensor, padding: str, stride: tuple[int, int], dilation: tuple[int, int],
                    kernel: tuple[int, ...]) -> tuple[Tensor, tuple[int, int]]:
    """``padding="valid"`` (none) or ``"same"`` (the output as large as the input, stride 1):
    ``dilation * (k - 1)`` places per axis, half on each side and, when that is odd, the
    extra one on the right/bottom (PyTorch's rule).  Returns the input, padded here where
    the two sides differ, and the symmetric padding left for the convolution."""
    if padding == "valid":
        return x, (0, 0)
    if padding != "same":
        raise InputMismatch(f"conv2d: padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
    if stride != (1, 1):
        raise InputMismatch(f"conv2d: padding='same' needs stride 1, got stride={stride}")
    total = [d * (k - 1) for d, k in zip(dilation, kernel)]
    left = (total[0] // 2, total[1] // 2)
    if total[0] % 2 or total[1] % 2:
        x = mf.pad(x, [(0, 0), (0, 0), (0, total[0] % 2), (0, total[1] % 2)])
    return x, left


def conv2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D cross-correlation, NCHW: ``input`` (N, C, H, W) or (C, H, W), ``weight`` (O, C/groups, KH, KW).

    ``padding`` is an int, a pair, ``"valid"`` (0) or ``"same"`` (stride 1 only; with an even
    effective kernel the extra row/column of zeros goes on the bottom/right, as in PyTorch).
    """
    groups = number("conv2d", "groups", groups, "SymInt")
    input, unbatched = _batched(_tensor(input), "conv2d")
    w = _tensor(weight, input)
    if w.ndim != 4:
        raise InputMismatch(f"conv2d: expected a 4-D weight (O, C/groups, KH, KW), got shape {w.shape}")
    refuse_empty_kernel("conv2d", tuple(w.shape[2:]))
    _check_input_dtype("conv2d", input, w)
    st, dl = (_pair(v, which, "conv2d", one_for_all=True) for v, which in ((stride, "stride"), (dilation, "dilation")))
    if isinstance(padding, str):
        input, pd = _string_padding(input, padding, st, dl, w.shape[2:])
    else:
        pd = _pair(padding, "padding", "conv2d", one_for_all=True)
    if min(st) < 1 or min(dl) < 1 or min(pd) < 0:
        raise InputMismatch(f"conv2d: stride and dilation must be >= 1 and padding >= 0, got "
                         f"stride={st}, dilation={dl}, padding={pd}")
    if groups < 1 or input.shape[1] % groups or w.shape[0] % groups:
        raise InputMismatch(f"conv2d: groups={groups} must divide the input channels {input.shape[1]} "
                            f"and the output channels {w.shape[0]}")
    if input.shape[1] != w.shape[1] * groups:
        raise InputMismatch(
            f"conv2d: input of shape {input.shape} has {input.shape[1]} channels, but weight of shape "
            f"{w.shape} expects {w.shape[1] * groups} (in_channels / groups = {w.shape[1]})"
        )
    for size, k, p, d in zip(input.shape[2:], w.shape[2:], pd, dl):
        if size + 2 * p < d * (k - 1) + 1:
            raise InputMismatch(f"conv2d: kernel {tuple(w.shape[2:])} (dilation {dl}) is larger than "
                                f"the padded input {tuple(input.shape[2:])} + padding {pd}")
    op = _conv.Conv2d(stride=st, padding=pd, dilation=dl, groups=int(groups))
    if bias is None:
        out = apply(op, input, w)
    else:
        b = _tensor(bias, input)
        _check_input_dtype("conv2d", input, b)  # (PyTorch: "Input type (float) and bias type (double) ...")
        if b.shape != (w.shape[0],):
            raise InputMismatch(f"conv2d: bias must have shape ({w.shape[0]},), got {b.shape}")
        out = apply(op, input, w, b)
    return mf.squeeze(out, 0) if unbatched else out


def _single(v: Any, name: str, fn: str = "conv1d") -> int:
    """``v``, an int or a 1-tuple, as an int (a tensor read as in :func:`_ntuple`)."""
    if isinstance(v, str):  # (PyTorch's TypeError; int() of "same" said "invalid literal")
        raise TypeError(f"argument '{name}' must be tuple of ints, not str")
    if isinstance(v, (tuple, list)):
        if len(v) != 1:
            raise InputMismatch(f"{name} must be an int or a 1-tuple, got {v}")
        v = v[0]
    return int(number(fn, name, v, "SymInt"))


def _as_2d(x: Tensor, name: str) -> tuple[Tensor, bool]:
    """(N, C, L) or (C, L) as (N, C, 1, L): the 1-D layers run the 2-D ops on a height of 1."""
    if x.ndim == 2:
        return mf.expand_dims(mf.expand_dims(x, 0), 2), True
    if x.ndim != 3:
        raise InputMismatch(f"{name}: expected a 2-D (C, L) or 3-D (N, C, L) input, got shape {x.shape}")
    return mf.expand_dims(x, 2), False


@contextmanager
def on_a_height_of_1(name: str, two_d: str) -> Iterator[None]:
    """Run a 1-D layer's 2-D op: a refusal of the 2-D op names the 1-D function the user called, and
    says why its shapes have a height of 1 (``max_pool1d(x, 0)`` said "max_pool2d: ...")."""
    try:
        yield
    except InputMismatch as e:
        message = str(e)
        if not message.startswith(f"{two_d}:"):
            raise
        raise type(e)(f"{name}:{message[len(two_d) + 1:]} ({name} runs {two_d} on a height of 1)") from None


def _from_2d(out: Tensor, unbatched: bool) -> Tensor:
    out = mf.squeeze(out, 2)
    # row-major, as PyTorch's result (conv2d's is laid out channel-major): view() reads the layout
    return (mf.squeeze(out, 0) if unbatched else out).contiguous()


def conv1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0, dilation: Any = 1,
           groups: int = 1) -> Tensor:
    """1-D cross-correlation: ``input`` (N, C, L) or (C, L), ``weight`` (O, C/groups, K).

    Runs ``conv2d`` on a height of 1 (``padding`` is an int, ``"valid"`` or ``"same"``).
    """
    groups = number("conv1d", "groups", groups, "SymInt")
    input = _tensor(input)
    w = _tensor(weight, input)
    if w.ndim != 3:
        raise InputMismatch(f"conv1d: expected a 3-D weight (O, C/groups, K), got shape {w.shape}")
    x2, unbatched = _as_2d(input, "conv1d")
    pad2 = padding if isinstance(padding, str) else (0, _single(padding, "padding"))
    with on_a_height_of_1("conv1d", "conv2d"):
        out = conv2d(x2, mf.expand_dims(w, 2), bias, (1, _single(stride, "stride")), pad2,
                     (1, _single(dilation, "dilation")), groups)
    return _from_2d(out, unbatched)


def _spread(x: Tensor, stride: tuple[int, ...]) -> Tensor:
    """``stride - 1`` zeros between neighbouring elements along each spatial axis: a new axis after
    the spatial one, padded with the zeros and folded in, the trailing zeros trimmed.  Padding, not
    a concatenated array of zeros, which a checkpoint would keep."""
    for i, s in enumerate(stride):
        if s == 1:
            continue
        axis, size = 2 + i, x.shape[2 + i]
        widths = [(0, 0)] * (x.ndim + 1)
        widths[axis + 1] = (0, s - 1)
        x = mf.pad(mf.expand_dims(x, axis + 1), widths)
        x = mf.reshape(x, x.shape[:axis] + (size * s,) + x.shape[axis + 2:])
        x = x[(slice(None),) * axis + (slice(0, (size - 1) * s + 1),)]
    return x


def _pad_or_crop(x: Tensor, widths: list[tuple[int, int]]) -> Tensor:
    """Each spatial axis padded by its (before, after) widths, or cropped where a width is negative
    (padding that exceeds the kernel's reach)."""
    x = mf.pad(x, [(0, 0), (0, 0)] + [(max(0, a), max(0, b)) for a, b in widths])
    if any(a < 0 or b < 0 for a, b in widths):
        x = x[(slice(None),) * 2 + tuple(slice(max(0, -a), n - max(0, -b))
                                         for (a, b), n in zip(widths, x.shape[2:]))]
    return x


def _conv_transpose(name: str, conv: Any, x: Any, weight: Any, bias: Any, stride: Any, padding: Any,
                    output_padding: Any, groups: int, dilation: Any, spatial: int) -> Tensor:
    """The transpose (gradient) of ``conv`` over ``spatial`` axes, built from registered ops: zeros are
    inserted between input elements (``stride - 1`` of them), the result is padded by
    ``dilation * (k - 1) - padding`` (plus ``output_padding`` at the end), and ``conv`` (stride 1)
    correlates it with the flipped kernel, in and out channels swapped within each group."""
    groups = number(name, "groups", groups, "SymInt")
    x, unbatched = _batched(_tensor(x), name, spatial)
    w = _tensor(weight, x)
    _check_input_dtype(name, x, w)
    if w.ndim != spatial + 2:
        raise InputMismatch(f"{name}: expected a {spatial + 2}-D weight (C_in, C_out/groups, kernel...), got {w.shape}")
    refuse_empty_kernel(name, tuple(w.shape[2:]))
    st, pd, op, dl = (_ntuple(v, spatial, which, name, one_for_all=True) for v, which in (
        (stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation")))
    if min(st) < 1 or min(dl) < 1 or min(pd) < 0 or min(op) < 0:
        raise InputMismatch(f"{name}: invalid stride={st}, padding={pd}, dilation={dl}, output_padding={op}")
    if any(o >= max(s, d) for o, s, d in zip(op, st, dl)):
        raise InputMismatch(f"{name}: output_padding {op} must be smaller than stride {st} or dilation {dl}")
    cin, kernel = x.shape[1], tuple(w.shape[2:])
    if groups < 1 or cin % groups or w.shape[0] != cin:
        raise InputMismatch(f"{name}: input of shape {x.shape} needs a weight with {cin} input channels "
                            f"divisible by groups={groups}, got weight {w.shape}")
    reach = [d * (k - 1) - p for k, d, p in zip(kernel, dl, pd)]
    sizes = tuple((n - 1) * s + r - p + o + 1 for n, s, r, p, o in zip(x.shape[2:], st, reach, pd, op))
    if min(sizes) < 1:  # PyTorch's message (it answers an empty tensor for some batch sizes, not for others)
        raise InputMismatch(f"{name}: input of spatial size {x.shape[2:]} gives the output size {sizes}: too small")
    x = _pad_or_crop(_spread(x, st), [(r, r + o) for r, o in zip(reach, op)])
    cog = w.shape[1]
    wg = mf.swapaxes(mf.reshape(w, (groups, cin // groups, cog) + kernel), 1, 2)
    wf = mf.flip(mf.reshape(wg, (groups * cog, cin // groups) + kernel), axis=tuple(range(2, 2 + spatial)))
    out = conv(x, wf, bias, 1, 0, dl, groups)
    return mf.squeeze(out, 0) if unbatched else out


def conv_transpose2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transpose (gradient) of ``conv2d``: ``input`` (N, C_in, H, W), ``weight`` (C_in, C_out/groups, KH, KW).

    Built from registered ops: zeros are inserted between input pixels
    (``stride - 1`` of them), the result is padded by ``dilation * (k - 1) - padding``
    (plus ``output_padding`` at the end), and convolved with the flipped kernel.
    """
    return _conv_transpose("conv_transpose2d", conv2d, input, weight, bias, stride, padding, output_padding,
                           groups, dilation, 2)


def conv_transpose1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
                     output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    """The transpose of ``conv1d``: ``input`` (N, C_in, L) or (C_in, L), ``weight`` (C_in, C_out/groups, K);
    ``conv_transpose2d`` on a height of 1."""
    input = _tensor(input)
    w = _tensor(weight, input)
    if w.ndim != 3:
        raise InputMismatch(f"conv_transpose1d: expected a 3-D weight (C_in, C_out/groups, K), got shape {w.shape}")
    x2, unbatched = _as_2d(input, "conv_transpose1d")
    with on_a_height_of_1("conv_transpose1d", "conv_transpose2d"):
        out = conv_transpose2d(x2, mf.expand_dims(w, 2), bias, (1, _single(stride, "stride")),
                               (0, _single(padding, "padding")), (0, _single(output_padding, "output_padding")),
                               groups, (1, _single(dilation, "dilation")))
    return _from_2d(out, unbatched)
