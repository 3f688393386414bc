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
from ...tape import apply, watch_versions
from ...tensor import Tensor
from .conv_checks import check_convolution, refuse_groups, refuse_rank, refuse_transposed_output
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


def conv_batched(x: Tensor, name: str, spatial: int) -> tuple[Tensor, bool]:
    """:func:`_batched`, refusing an input of another rank in PyTorch's words for a convolution."""
    refuse_rank(name, name, x.shape, spatial, _AXES[spatial])
    return _batched(x, name, spatial)


def string_padding(name: str, x: Tensor, padding: str, stride: tuple[int, ...], dilation: tuple[int, ...],
                   kernel: tuple[int, ...], groups: int) -> tuple[Tensor, tuple[int, ...]]:
    """``padding="valid"`` (none) or ``"same"`` (the output as large as the input, stride 1):
    ``dilation * (k - 1)`` places per axis, half on each side and, when that is odd, the
    extra one on the far side (PyTorch's rule).  Returns the input, padded here where
    the two sides differ, and the symmetric padding left for the convolution (whose checks
    then refuse a dilation below 1: its padding is taken as none here)."""
    if padding != "valid" and padding != "same":
        raise InputMismatch(f"{name}: Invalid padding string: {padding!r} (an int, a tuple of ints, 'valid' or "
                            f"'same')")
    refuse_groups(name, groups)  # (PyTorch refuses them before a strided 'same')
    if padding == "valid":
        return x, (0,) * len(kernel)
    if max(stride) != 1 or min(stride) != 1:
        raise InputMismatch(f"{name}: padding='same' is not supported for strided convolutions, got "
                            f"stride={list(stride)}")
    total = [max(0, d * (k - 1)) for d, k in zip(dilation, kernel)]
    if any(t % 2 for t in total):
        x = mf.pad(x, [(0, 0), (0, 0)] + [(0, t % 2) for t in total])
    return x, tuple(t // 2 for t in total)


def conv2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D cross-correlation, NCHW: ``input`` (N, C, H, W) or (C, H, W), ``weight`` (O, C/groups, KH, KW).

    ``padding`` is an int, a pair, ``"valid"`` (0) or ``"same"`` (stride 1 only; with an even
    effective kernel the extra row/column of zeros goes on the bottom/right, as in PyTorch).
    """
    groups = number("conv2d", "groups", groups, "SymInt")
    input, unbatched = conv_batched(_tensor(input), "conv2d", 2)
    w = _tensor(weight, input)
    if w.ndim != 4:
        raise InputMismatch(f"conv2d: expected a 4-D weight (O, C/groups, KH, KW), got shape {w.shape}")
    st, dl = (_pair(v, which, "conv2d", one_for_all=True) for v, which in ((stride, "stride"), (dilation, "dilation")))
    if isinstance(padding, str):
        input, pd = string_padding("conv2d", input, padding, st, dl, w.shape[2:], groups)
    else:
        pd = _pair(padding, "padding", "conv2d", one_for_all=True)
    check_convolution("conv2d", input.shape, w.shape, groups, st, pd, dl)
    _check_input_dtype("conv2d", input, w, "weight")
    op = _conv.Conv2d(stride=st, padding=pd, dilation=dl, groups=int(groups))
    if bias is None:
        out = apply(op, input, w)
    else:
        b = _tensor(bias, input)
        _check_input_dtype("conv2d", input, b, "bias")
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
        if f"({two_d}:" in message:  # PyTorch's words first (they name no function), then ours, naming it
            message = message.replace(f"({two_d}:", f"({name}:", 1)
            raise type(e)(f"{message} ({name} runs {two_d} on a height of 1)") from None
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
    x, unbatched = conv_batched(input, "conv1d", 1)
    st, dl = (_single(stride, "stride"),), (_single(dilation, "dilation"),)
    if isinstance(padding, str):
        x, pd = string_padding("conv1d", x, padding, st, dl, w.shape[2:], groups)
    else:
        pd = (_single(padding, "padding"),)
    check_convolution("conv1d", x.shape, w.shape, groups, st, pd, dl)  # (the shapes the user made)
    with on_a_height_of_1("conv1d", "conv2d"):
        out = conv2d(mf.expand_dims(x, 2), mf.expand_dims(w, 2), bias, (1, st[0]), (0, pd[0]), (1, dl[0]), groups)
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
    x, unbatched = conv_batched(_tensor(x), name, spatial)
    w = _tensor(weight, x)
    if w.ndim != spatial + 2:
        raise InputMismatch(f"{name}: expected a {spatial + 2}-D weight (C_in, C_out/groups, kernel...), got {w.shape}")
    st, pd, op, dl = (_ntuple(v, spatial, which, name, one_for_all=True) for v, which in (
        (stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation")))
    check_convolution(name, x.shape, w.shape, groups, st, pd, dl, op)
    _check_input_dtype(name, x, w, "weight")
    cin, kernel = x.shape[1], tuple(w.shape[2:])
    refuse_transposed_output(name, x.shape[2:], st, pd, dl, op, kernel)
    reach = [d * (k - 1) - p for k, d, p in zip(kernel, dl, pd)]
    x_given, x = x, _pad_or_crop(_spread(x, st), [(r, r + o) for r, o in zip(reach, op)])
    cog = w.shape[1]
    wg = mf.swapaxes(mf.reshape(w, (groups, cin // groups, cog) + kernel), 1, 2)
    wf = mf.flip(mf.reshape(wg, (groups * cog, cin // groups) + kernel), axis=tuple(range(2, 2 + spatial)))
    # The convolution saves copies (the spread input, the flipped kernel): a write into the input or
    # the weight after this call would go unnoticed, where PyTorch's one op saves both and refuses
    # (an optimizer's step before a generator's backward); their versions are watched instead.
    out = watch_versions(conv(x, wf, bias, 1, 0, dl, groups), (x_given, w))
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
    groups = number("conv_transpose1d", "groups", groups, "SymInt")
    input = _tensor(input)
    w = _tensor(weight, input)
    if w.ndim != 3:
        raise InputMismatch(f"conv_transpose1d: expected a 3-D weight (C_in, C_out/groups, K), got shape {w.shape}")
    x, unbatched = conv_batched(input, "conv_transpose1d", 1)
    st, pd, op, dl = ((_single(v, which, "conv_transpose1d"),) for v, which in (
        (stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation")))
    check_convolution("conv_transpose1d", x.shape, w.shape, groups, st, pd, dl, op)  # (the shapes the user made)
    with on_a_height_of_1("conv_transpose1d", "conv_transpose2d"):
        out = conv_transpose2d(mf.expand_dims(x, 2), mf.expand_dims(w, 2), bias, (1, st[0]), (0, pd[0]), (0, op[0]),
                               groups, (1, dl[0]))
    return _from_2d(out, unbatched)
