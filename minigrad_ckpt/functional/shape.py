"""Shape and layout: ``mg.reshape``, ``mg.transpose``, ``mg.concatenate``, ``mg.pad``, ``mg.tile``,
``mg.roll``, ``mg.meshgrid``, ...

Views and rearrangements of the same elements, each validated here and run
as one op of :mod:`minigrad_ckpt.ops.shape` (or composed of them).
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

from ..backend import expand_mismatch, host_numpy
from ..ops import shape as _sh
from ..tape import apply
from ..tensor import Tensor, fresh_result, untie_copy
from .arguments import (
    as_index,
    as_tensor,
    broadcast_shapes,
    int_tuple,
    normalize_axis,
    one_axis,
    operand,
    paired_axes,
    same_dtype,
    shape_arg,
    tensor_list,
    torch_dim,
)
from .conversion import clone
from .errors import ArgumentTypeRefused, DimensionOutOfRange, InvalidShape, JoinShapeMismatch, RefusedArgument

__all__ = [
    "reshape", "transpose", "permute", "swapaxes", "moveaxis", "expand_dims", "squeeze", "broadcast_to",
    "sum_to", "concatenate", "stack", "split", "flip", "pad", "ravel", "flatten", "tile", "repeat", "roll",
    "meshgrid",
]


def reshape(x: Any, shape: Any) -> Tensor:
    """Same values, new shape (one entry may be -1)."""
    x = as_tensor(x)
    shape = shape_arg(shape)
    if shape.count(-1) > 1:
        raise InvalidShape(f"only one dimension can be inferred: reshape: only one dimension can be -1, got {shape}")
    for i, s in enumerate(shape):
        if s < -1:
            raise InvalidShape(f"invalid shape dimension {s} at index {i} of shape {_torch_shape(shape)}: "
                               f"reshape: negative dimension in {shape}")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if known == 0 and x.size:
            raise _cannot_reshape(x, shape)  # (PyTorch's "is invalid" where there are elements to place)
        if known == 0:
            raise InvalidShape(f"cannot reshape tensor of {x.size} elements into shape {_torch_shape(shape)} "
                               f"because the unspecified dimension size -1 can be any value and is ambiguous: "
                               f"reshape: cannot infer -1 in {shape} from {x.size} elements")
        if x.size % known:
            raise _cannot_reshape(x, shape)
        shape = tuple(x.size // known if s == -1 else s for s in shape)
    n = 1
    for s in shape:
        n *= s
    if n != x.size:
        raise _cannot_reshape(x, shape)
    out = apply(_sh.Reshape.shared(shape, x._data.shape), x)
    base = out._data.base  # (a view's is x's array or, NumPy collapsing the chain, that array's own)
    if base is not x._data and base is not x._data.base and _copied(out, x):
        return untie_copy(out, x)  # a copy, as PyTorch's reshape of a tensor it cannot view
    return out


def _copied(out: Tensor, x: Tensor) -> bool:
    """Whether ``out``'s array holds memory of its own, not ``x``'s."""
    xp = x._device.xp
    return xp.memory_owner(out._data) is not xp.memory_owner(x._data)


def _torch_shape(shape: tuple) -> str:
    return f"[{', '.join(map(str, shape))}]"


def _cannot_reshape(x: Tensor, shape: tuple) -> InvalidShape:
    """PyTorch's words first, then the engine's (made only when raised: reshape is on hot paths)."""
    return InvalidShape(f"shape '{_torch_shape(shape)}' is invalid for input of size {x.size}: reshape: cannot "
                        f"reshape a tensor of shape {x.shape} ({x.size} elements) into {shape}")


def transpose(x: Any, axes: Any = None) -> Tensor:
    """Permute axes (reverse them for None)."""
    x = as_tensor(x)
    if axes is None:
        perm = tuple(reversed(range(x.ndim)))
    else:
        perm = tuple(int(a) % x.ndim if x.ndim else int(a) for a in axes)
        if sorted(perm) != list(range(x.ndim)):
            raise RefusedArgument(f"transpose: axes {tuple(axes)} are not a permutation of {x.ndim} axes")
    return apply(_sh.Transpose.shared(perm), x)


def permute(x: Any, *axes: Any) -> Tensor:
    """PyTorch's name for :func:`transpose` with explicit axes."""
    if len(axes) == 1 and not isinstance(axes[0], int):
        axes = tuple(axes[0])
    return transpose(x, axes)


def swapaxes(x: Any, axis1: int, axis2: int) -> Tensor:
    """Exchange two axes; a 0-d tensor's dims 0 and -1 are its one element, as PyTorch's
    ``transpose``, ``swapaxes`` and ``swapdims`` read them (and ``x.swapaxes`` has no NumPy meaning
    to keep: NumPy only refuses), so exchanging them gives the tensor, a view."""
    x = as_tensor(x)
    a, b = torch_dim(axis1, x.ndim), torch_dim(axis2, x.ndim)
    if x.ndim == 0:
        return apply(_sh.Transpose.shared(()), x)
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return apply(_sh.Transpose.shared(tuple(perm)), x)


def moveaxis(x: Any, source: Any, destination: Any) -> Tensor:
    """Move axes ``source`` to positions ``destination`` (ints or equal-length sequences; a view,
    NumPy's ``moveaxis``)."""
    x = as_tensor(x)
    if len(int_tuple(source)) != len(int_tuple(destination)):  # PyTorch's RuntimeError, NumPy's ValueError
        raise RefusedArgument(f"movedim: Invalid source or destination dims: source ({list(int_tuple(source))} dims) "
                              f"should contain the same number of dims as destination "
                              f"({list(int_tuple(destination))} dims)")
    src, dst = paired_axes(source, destination, x.ndim, x.ndim, "")
    for which, given, axes in (("source", source, src), ("destination", destination, dst)):
        if len(set(axes)) != len(axes):  # PyTorch's words
            raise RefusedArgument(f"movedim: repeated dim in `{which}` ({list(int_tuple(given))})")
    perm = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return apply(_sh.Transpose(axes=tuple(perm)), x)


def expand_dims(x: Any, axis: Any) -> Tensor:
    """Insert size-1 axes at ``axis`` (an int or a tuple, positions in the result)."""
    x = as_tensor(x)
    in_shape = x._data.shape
    if type(axis) is int:  # unsqueeze(x, 1): one axis, the common case, without the general walk
        a = one_axis(axis, len(in_shape) + 1)
        shape = in_shape[:a] + (1,) + in_shape[a:]
    else:
        axes = int_tuple(axis)
        nd = len(in_shape) + len(axes)
        pos = normalize_axis(axes, nd)
        it = iter(in_shape)
        shape = tuple(1 if i in pos else next(it) for i in range(nd))
    return apply(_sh.Reshape.shared(shape, in_shape), x)


def squeeze(x: Any, axis: Any = None) -> Tensor:
    """Remove size-1 axes (all of them for None)."""
    x = as_tensor(x)
    if axis is None:
        axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
    else:
        axes = normalize_axis(axis, x.ndim)
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1")
    shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    return apply(_sh.Reshape.shared(shape, x._data.shape), x)


def broadcast_to(x: Any, shape: Any) -> Tensor:
    """A view of ``x`` broadcast to ``shape``; ``-1`` keeps the size of a dim of ``x``
    (PyTorch's ``torch.broadcast_to``, which is ``expand``; NumPy has no ``-1`` here).  As
    PyTorch's, a write into a part that repeats no element reaches ``x`` (``v[:, 0] = 1``,
    ``v.fill_(0)``); one that would write an element twice (``v[0] = 1``, ``v.add_(1)``) is a
    RuntimeError (NumPy's broadcast is read-only)."""
    x = as_tensor(x)
    shape = shape_arg(shape)
    if -1 in shape:
        lead = len(shape) - x.ndim
        if lead < 0 or -1 in shape[:lead]:
            raise InvalidShape(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                               f"dimension {shape.index(-1)}: broadcast_to: -1 keeps a size of {x.shape}; "
                               f"{shape} has it where {x.shape} has no dim")
        shape = tuple(x.shape[i - lead] if n == -1 else n for i, n in enumerate(shape))
    lead = len(shape) - x.ndim
    if lead < 0 or builtins.any(n not in (s, 1) for n, s in zip(x.shape, shape[lead:])):
        raise expand_mismatch(x.shape, shape)
    return apply(_sh.BroadcastTo(shape=shape, in_shape=x.shape), x)


def sum_to(x: Any, shape: Any) -> Tensor:
    """Sum ``x`` down to ``shape`` (the adjoint of :func:`broadcast_to`)."""
    x = as_tensor(x)
    shape = shape_arg(shape)
    if x.shape == shape:
        return x
    try:
        fits = broadcast_shapes("sum_to", x.shape, shape) == x.shape
    except ValueError:
        fits = False
    if not fits:
        raise InvalidShape(f"size {{{_torch_shape(shape)}}} is not expandable to size {{{_torch_shape(x.shape)}}}. "
                           f"(sum_to: {x.shape} is not a broadcast of {shape})")
    return apply(_sh.SumTo(shape=shape, in_shape=x.shape), x)


def concatenate(tensors: Sequence[Any], axis: int = 0) -> Tensor:
    """Join tensors along an existing axis.  A 1-D empty tensor (shape ``(0,)``) among tensors that do
    not fit it joins as no rows of their shape, PyTorch's legacy rule for ``cat`` (``out = torch.tensor([])``
    then ``out = torch.cat([out, rows])`` gathers rows from nothing; NumPy refuses it); its dtype still
    counts, and it gets its (empty) gradient.  Tensors that are all 1-D empty join into one, along any
    ``axis`` (PyTorch skips each, so it judges no dim: ``cat([empty, empty], dim=1)`` is ``empty``)."""
    ts = same_dtype(tensor_list("concatenate", tensors))
    try:
        ax, sizes = _join_sizes(ts, axis)
    except (JoinShapeMismatch, DimensionOutOfRange):
        kept = [t for t in ts if t._data.shape != (0,)]
        if not kept:
            return apply(_sh.Concatenate.shared(*_join_sizes(ts, 0)), *ts)
        if len(kept) == len(ts):
            raise
        ax, _ = _join_sizes(kept, axis, [i for i, t in enumerate(ts) if t._data.shape != (0,)])  # (raises, naming them)
        # each empty one joins as a view of no rows shaped as the others, not left out: it stays on the
        # graph and gets its empty gradient, as PyTorch's (left out, autograd.grad said it was not used)
        shape = kept[0]._data.shape
        empty = shape[:ax] + (0,) + shape[ax + 1:]
        ts = [t if t._data.shape != (0,) else reshape(t, empty) for t in ts]
        ax, sizes = _join_sizes(ts, axis)
    return apply(_sh.Concatenate.shared(ax, sizes), *ts)


def _join_sizes(ts: list[Tensor], axis: Any, numbers: Sequence[int] | None = None) -> tuple[int, tuple[int, ...]]:
    """The axis ``ts`` join along and their lengths on it; JoinShapeMismatch where they do not fit
    (``numbers``: the places of ``ts`` in the caller's list, where some were left out)."""
    first = ts[0]._data.shape  # (the arrays' shapes: Tensor.shape is a property call each)
    if not first:
        raise _join_mismatch(first, first, 0, 0, numbers)
    ax = one_axis(axis, len(first))
    others = first[:ax] + first[ax + 1:]
    sizes = []
    for i, t in enumerate(ts):
        s = t._data.shape
        if s[:ax] + s[ax + 1:] != others or len(s) != len(first):
            raise _join_mismatch(first, s, ax, i, numbers)
        sizes.append(s[ax])
    return ax, tuple(sizes)


def _join_mismatch(first: tuple, s: tuple, ax: int, i: int, numbers: Sequence[int] | None) -> JoinShapeMismatch:
    """PyTorch's words for the ``i``-th tensor (shape ``s``) that does not join the first, then the
    engine's (made only when raised: cat is on hot paths)."""
    at = numbers[i] if numbers is not None else i
    if not s:
        return JoinShapeMismatch(f"zero-dimensional tensor (at position {at}) cannot be concatenated: "
                                 f"concatenate: zero-dimensional tensors cannot be concatenated")
    if len(s) != len(first):
        words = f"Tensors must have same number of dimensions: got {len(first)} and {len(s)}"
    else:
        d = next(d for d in range(len(s)) if d != ax and s[d] != first[d])
        words = (f"Sizes of tensors must match except in dimension {ax}. Expected size {first[d]} but got size "
                 f"{s[d]} for tensor number {at} in the list.")
    return JoinShapeMismatch(f"{words} (concatenate: shapes {first} and {s} differ outside axis {ax})")


def stack(tensors: Sequence[Any], axis: int = 0) -> Tensor:
    """Join same-shaped tensors along a new axis."""
    ts = same_dtype(tensor_list("stack", tensors))
    for i, t in enumerate(ts[1:], 1):
        if t.shape != ts[0].shape:
            raise JoinShapeMismatch(f"stack expects each tensor to be equal size, but got {_torch_shape(ts[0].shape)} "
                                    f"at entry 0 and {_torch_shape(t.shape)} at entry {i} (stack: all tensors need "
                                    f"the same shape, got {ts[0].shape} and {t.shape})")
    ax = one_axis(axis, ts[0].ndim + 1)
    return apply(_sh.Stack(axis=ax), *ts)


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> list[Tensor]:
    """Split into pieces along ``axis`` (NumPy's ``split``: a count or split points; a 0-d integer
    tensor is its count, as NumPy reads a 0-d array)."""
    indices_or_sections = as_index(indices_or_sections)
    x = as_tensor(x)
    ax = one_axis(axis, x.ndim)
    n = x.shape[ax]
    if isinstance(indices_or_sections, (int, host_numpy.integer)):
        k = int(indices_or_sections)
        if k <= 0 or n % k:
            raise ValueError(f"split: axis {ax} of length {n} cannot be split into {k} equal parts")
        points = [n // k * i for i in range(1, k)]
    else:
        points = [_split_point(p) for p in indices_or_sections]
    bounds = [0] + points + [n]
    lead = (slice(None),) * ax
    return [x[lead + (slice(a, b),)] for a, b in zip(bounds[:-1], bounds[1:])]


def _split_point(p: Any) -> int:
    """A split point as the integer it must be (a 0-d integer tensor too): NumPy's slices and PyTorch's
    int list refuse another kind with a TypeError, where ``int()`` truncated ``1.5`` to a split at 1
    and misread ``"abc"`` as a ValueError."""
    p = as_index(p)
    if not isinstance(p, (int, host_numpy.integer)):
        raise ArgumentTypeRefused(f"split: the split points must be integers, got {type(p).__name__} {p!r}")
    return int(p)


def flip(x: Any, axis: Any = None) -> Tensor:
    """Reverse the order of elements along ``axis`` (all axes for None)."""
    x = as_tensor(x)
    return apply(_sh.Flip(axes=normalize_axis(axis, x.ndim)), x)


def pad(x: Any, pad_width: Any, mode: str = "constant", constant_values: float = 0) -> Tensor:
    """Pad with a constant (NumPy's ``pad_width`` forms: int, pair, or a pair per axis)."""
    x = as_tensor(x)
    if mode != "constant":
        raise NotImplementedError(f"pad: only mode='constant' is supported, got {mode!r}")
    pw = host_numpy.broadcast_to(host_numpy.asarray(pad_width, dtype=host_numpy.int64), (x.ndim, 2))
    if (pw < 0).any():
        raise ValueError(f"pad: negative pad width in {pad_width!r}")
    widths = tuple((int(a), int(b)) for a, b in pw)
    value = operand(constant_values, x)
    if isinstance(value, Tensor) and value.ndim == 0:  # PyTorch's value: a number, a 0-d tensor read as one
        value = value.item()
    if isinstance(value, Tensor):
        raise TypeError("pad: constant_values must be a number")
    return apply(_sh.Pad(pad_width=widths, value=value, in_shape=x.shape), x)


def ravel(x: Any) -> Tensor:
    """The elements as a contiguous 1-D tensor: a view where the layout allows, else a copy -- a
    strided 1-D view (of ``x[:, ::2]``) is copied, as NumPy's and PyTorch's ``ravel`` do, so a write
    into the result never reaches ``x`` through a gap-strided view."""
    x = as_tensor(x)
    out = reshape(x, (x.size,))
    return out if out._data.flags.c_contiguous else clone(out)


def flatten(x: Any) -> Tensor:
    """The elements as a new 1-D tensor (a copy, like ``ndarray.flatten``)."""
    return clone(ravel(x))


def tile(x: Any, reps: Any) -> Tensor:
    """``x`` repeated ``reps`` times along each axis (NumPy's ``tile``)."""
    x = as_tensor(x)
    reps = shape_arg(reps)
    if builtins.any(r < 0 for r in reps):
        raise InvalidShape(f"Trying to create tensor with negative dimension {builtins.min(reps)}: tile: negative "
                           f"repetitions in {reps}")
    nd = builtins.max(x.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    if x.ndim < nd:
        x = reshape(x, (1,) * (nd - x.ndim) + x.shape)
    return apply(_sh.Tile(reps=reps, in_shape=x.shape), x)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Tensor:
    """Each element repeated ``repeats`` times along ``axis`` (flattened for None).

    ``repeats`` is a count or one count per element along ``axis``.
    """
    x = as_tensor(x)
    if axis is None:
        x, ax = ravel(x), 0
    else:
        ax = one_axis(axis, x.ndim)
    n = x.shape[ax]
    if isinstance(repeats, (int, host_numpy.integer)) and not isinstance(repeats, bool):
        if repeats < 0:
            raise RefusedArgument(f"repeat: negative count {repeats}")
        return apply(_sh.Repeat(repeats=int(repeats), axis=ax, in_shape=x.shape), x)
    counts = host_numpy.asarray(repeats)
    if counts.dtype.kind not in "iu" or counts.ndim > 1:
        raise TypeError(f"repeat: repeats must be an int or a sequence of ints, got {repeats!r}")
    if counts.size not in (1, n):  # PyTorch's RuntimeError, NumPy's ValueError: both
        raise RefusedArgument(f"repeats must have the same size as input along dim, but got {counts.size} "
                              f"repeats for a dim of {n}")
    counts = host_numpy.broadcast_to(counts, (n,))
    if (counts < 0).any():
        raise RefusedArgument("repeat: negative counts")
    # per-element counts: a gather (its gradient accumulates each run of copies)
    index = host_numpy.repeat(host_numpy.arange(n), counts)
    return x[(slice(None),) * ax + (index,)]


def roll(x: Any, shift: Any, axis: Any = None) -> Tensor:
    """Shift elements cyclically along ``axis`` (over the flattened tensor for None)."""
    x, shift = as_tensor(x), as_index(shift)
    if not isinstance(shift, (int, host_numpy.integer)) and not hasattr(shift, "__iter__"):
        raise TypeError(f"roll: shifts must be an int or a sequence of ints, got {shift!r}")
    if axis is None:  # a sequence of shifts rolls the flattened tensor by each in turn, as NumPy's
        return fresh_result(reshape(roll(ravel(x), shift, 0), x.shape), x)  # (of the rolled copy: new)
    axes = int_tuple(axis)
    shifts = int_tuple(shift)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) != 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: {len(shifts)} shifts for {len(axes)} axes")
    axes = tuple(one_axis(a, x.ndim) for a in axes)
    return apply(_sh.Roll(shifts=tuple(int(s) for s in shifts), axes=axes), x)


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple[Tensor, ...]:
    """Coordinate tensors from 1-D coordinate vectors (NumPy's ``meshgrid``).

    ``indexing="xy"`` (Cartesian) swaps the first two output axes, ``"ij"``
    (matrix) does not; ``sparse=True`` returns broadcastable shapes.
    """
    if indexing not in ("xy", "ij"):
        raise RefusedArgument(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    like = next((v for v in xi if isinstance(v, Tensor)), None)
    vs = [ravel(as_tensor(v, like)) for v in xi]
    nd = len(vs)
    shapes = [(1,) * i + (v.size,) + (1,) * (nd - i - 1) for i, v in enumerate(vs)]
    if indexing == "xy" and nd > 1:
        shapes = [(s[1], s[0]) + s[2:] for s in shapes]
    outs = [reshape(v, s) for v, s in zip(vs, shapes)]
    if not sparse:
        # one vector's length on each axis and 1s beside it: their product is that length (0 included)
        full = tuple(math.prod(s[i] for s in shapes) for i in range(nd))
        outs = [broadcast_to(o, full) for o in outs]
    if copy:
        outs = [clone(o) for o in outs]
    return tuple(outs)
