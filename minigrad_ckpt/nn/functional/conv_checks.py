"""A convolution's arguments checked against each other: PyTorch's refusals, in its order and its words.

PyTorch's tests match these messages (``assertRaisesRegex(RuntimeError, "non-positive stride is not
supported")``), so each message starts with PyTorch's phrase; what the engine adds (the values it
got) comes after.  Where two refusals apply at once, the one PyTorch raises is raised: its
``check_shape_forward`` first (groups, padding, output padding, stride, a negative dilation, the
weight against ``groups``, the input's channels, a kernel past the padded input), then its kernels'
own checks (an empty kernel, a dilation of 0, a transposed convolution's output padding and output
size).

These run on every convolution of a training step: each is one comparison, and a message is only
built for a refusal.
"""

from __future__ import annotations

from ...functional.errors import InputMismatch

__all__: list[str] = []


def refuse_rank(who: object, fn: str, shape: tuple[int, ...], spatial: int, axes: str) -> None:
    """An input neither batched nor unbatched for a convolution of ``spatial`` axes named ``axes``
    (``"H, W"``): PyTorch's words for its ``fn``, then the layout.  ``who`` opens the message (a name,
    or a layer, formatted only when refusing)."""
    if len(shape) != spatial + 1 and len(shape) != spatial + 2:
        raise InputMismatch(f"{who}: Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to "
                            f"{fn}, but got input of size: {list(shape)}: (N, C, {axes}) or (C, {axes})")


def refuse_groups(name: str, groups: int) -> None:
    if groups < 1:
        raise InputMismatch(f"{name}: non-positive groups is not supported, got groups={groups}")


def refuse_empty_kernel(name: str, kernel: tuple[int, ...]) -> None:
    """A weight with a spatial size of 0 is PyTorch's RuntimeError, in its words: its window covers nothing,
    and the output-size rule would answer one element more than the input has (a 4x4 input and a 0x0
    kernel gave a 5x5 output of the bias).  A 1-D kernel is reported as PyTorch reports it, as the
    2-D kernel of a height of 1 it runs."""
    if min(kernel) < 1:
        if len(kernel) == 1:
            kernel = (1, *kernel)
        got = (f" kernel_height: {kernel[0]} kernel_width: {kernel[1]}" if len(kernel) == 2
               else f": {' x '.join(map(str, kernel))} (TxHxW)")
        raise InputMismatch(f"{name}: kernel size should be greater than zero, but got{got}")


def channels_words(given: str, weight: tuple[int, ...], x: tuple[int, ...], want: int) -> str:
    """PyTorch's words for an input whose channels are not the weight's; ``given`` is ``groups=G`` or
    ``transposed=1``, ``x`` the input's shape with its batch (PyTorch shows the batch of 1 it adds to
    an unbatched input)."""
    return (f"Given {given}, weight of size {list(weight)}, expected input{list(x)} to have {want} channels, "
            f"but got {x[1]} channels instead")


def _refuse_geometry(name: str, stride: tuple[int, ...], padding: tuple[int, ...], dilation: tuple[int, ...],
                     output_padding: tuple[int, ...] | None) -> None:
    """Stride, padding, output padding and dilation below their least values (a dilation of 0 is
    refused later, as PyTorch's kernels refuse it)."""
    if min(padding) < 0:
        raise InputMismatch(f"{name}: negative padding is not supported, got padding={list(padding)}")
    if output_padding is not None and min(output_padding) < 0:
        raise InputMismatch(f"{name}: negative output_padding is not supported, got "
                            f"output_padding={list(output_padding)}")
    if min(stride) < 1:
        raise InputMismatch(f"{name}: non-positive stride is not supported, got stride={list(stride)}")
    if min(dilation) < 0:
        raise InputMismatch(f"{name}: dilation should be greater than zero, but got {list(dilation)}")


def _refuse_weight_groups(name: str, weight: tuple[int, ...], groups: int) -> None:
    """A weight whose first axis (the output channels, or a transposed convolution's input ones) does
    not split into ``groups`` (PyTorch shows the size in double brackets, as here)."""
    if weight[0] < groups:
        raise InputMismatch(f"{name}: Given groups={groups}, expected weight to be at least {groups} at "
                            f"dimension 0, but got weight of size {list(weight)} instead")
    if weight[0] % groups:
        raise InputMismatch(f"{name}: Given groups={groups}, expected weight to be divisible by {groups} at "
                            f"dimension 0, but got weight of size [{list(weight)}] instead")


def _refuse_kernel_past_input(name: str, sizes: tuple[int, ...], kernel: tuple[int, ...],
                              padding: tuple[int, ...], dilation: tuple[int, ...]) -> None:
    """A dilated kernel longer than the padded input on some axis."""
    for n, k, p, d in zip(sizes, kernel, padding, dilation):
        if n + 2 * p < d * (k - 1) + 1:
            padded = " x ".join(str(n + 2 * p) for n, p in zip(sizes, padding))
            reach = " x ".join(str(d * (k - 1) + 1) for k, d in zip(kernel, dilation))
            raise InputMismatch(f"{name}: Calculated padded input size per channel: ({padded}). Kernel size: "
                                f"({reach}). Kernel size can't be greater than actual input size")


def check_convolution(name: str, x: tuple[int, ...], weight: tuple[int, ...], groups: int,
                      stride: tuple[int, ...], padding: tuple[int, ...], dilation: tuple[int, ...],
                      output_padding: tuple[int, ...] | None = None) -> None:
    """Refuse a convolution of an input of shape ``x`` (batched) with a weight of shape ``weight``
    whose arguments do not fit each other; ``output_padding`` given makes it a transposed one."""
    transposed = output_padding is not None
    refuse_groups(name, groups)
    _refuse_geometry(name, stride, padding, dilation, output_padding)
    _refuse_weight_groups(name, weight, groups)
    want = weight[0] if transposed else weight[1] * groups
    if x[1] != want:
        given = "transposed=1" if transposed else f"groups={groups}"
        raise InputMismatch(f"{name}: {channels_words(given, weight, x, want)}")
    if not transposed:
        _refuse_kernel_past_input(name, x[2:], weight[2:], padding, dilation)
    refuse_empty_kernel(name, weight[2:])
    if min(dilation) < 1:  # (PyTorch's CPU kernels word a 0 two ways, by batch size and rank: both here)
        raise InputMismatch(f"{name}: dilation should be greater than zero, but got {list(dilation)} "
                            f"(non-positive dilation is not supported)")


def refuse_transposed_output(name: str, sizes: tuple[int, ...], stride: tuple[int, ...],
                             padding: tuple[int, ...], dilation: tuple[int, ...],
                             output_padding: tuple[int, ...], kernel: tuple[int, ...]) -> tuple[int, ...]:
    """A transposed convolution's output sizes per axis, ``(n - 1) * stride - 2 * padding + dilation *
    (k - 1) + output_padding + 1``; refused where the output padding reaches past both the stride and
    the dilation, or an output would be empty (PyTorch answers an empty tensor for some batch sizes,
    not for others)."""
    if any(o >= max(s, d) for o, s, d in zip(output_padding, stride, dilation)):
        raise InputMismatch(f"{name}: output padding must be smaller than either stride or dilation, but got "
                            f"output_padding={list(output_padding)}, stride={list(stride)}, "
                            f"dilation={list(dilation)}")
    out = tuple((n - 1) * s - 2 * p + d * (k - 1) + o + 1
                for n, s, p, d, o, k in zip(sizes, stride, padding, dilation, output_padding, kernel))
    if min(out) < 1:
        raise InputMismatch(f"{name}: Given input size per channel: ({' x '.join(map(str, sizes))}). Calculated "
                            f"output size per channel: ({' x '.join(map(str, out))}). Output size is too small")
    return out
