"""Shape and layout ops: reshape, transpose, broadcast, concatenate, stack,
flip, pad, and the two twins the engine needs (``SumTo`` undoes broadcasting,
``AsType`` casts).

``expand_dims``, ``squeeze`` and ``swapaxes`` are built on ``Reshape`` and
``Transpose`` by :mod:`minigrad_ckpt.functional`; ``split`` on indexing.
"""

from __future__ import annotations

from ..backend import cast_silently, laid_out
from .base import LinearOp, Op


class Reshape(LinearOp):
    shape: tuple[int, ...]
    in_shape: tuple[int, ...]

    save_inputs = False
    is_view = True

    def forward(self, xp, x):
        return x.reshape(self.shape)

    def backward(self, xp, g, out, x):
        return g.reshape(self.in_shape)

    def reference(self, np, x):
        return np.reshape(x, self.shape)


class Transpose(LinearOp):
    """Permute axes: output axis ``i`` is input axis ``axes[i]``."""

    axes: tuple[int, ...]

    save_inputs = False
    is_view = True

    def forward(self, xp, x):
        return xp.transpose(x, self.axes)

    def backward(self, xp, g, out, x):
        inverse = [0] * len(self.axes)
        for i, a in enumerate(self.axes):
            inverse[a] = i
        return xp.transpose(g, tuple(inverse))

    def reference(self, np, x):
        return np.transpose(x, self.axes)


class Diagonal(LinearOp):
    """``x.diagonal(offset, axis1, axis2)``: the diagonal of those planes as the last axis -- a
    view of ``x`` for any strides, as PyTorch's (a write into it is a write into ``x``)."""

    offset: int
    axis1: int
    axis2: int
    in_shape: tuple[int, ...]

    save_inputs = False
    is_view = True

    def forward(self, xp, x):
        d = xp.diagonal(x, self.offset, self.axis1, self.axis2)
        flags = getattr(d, "flags", None)  # NumPy's is a read-only view of writable memory, PyTorch's a
        if flags is not None and not getattr(flags, "writeable", True) and x.flags.writeable:  # writable one
            flags.writeable = True  # (CuPy's flags have no writeable: its views are writable)
        return d

    def backward(self, xp, g, out, x):
        # g placed on the diagonal of zeros: a strided slice of the planes moved last and flattened
        a1, a2 = self.axis1, self.axis2
        rest = tuple(n for i, n in enumerate(self.in_shape) if i not in (a1, a2))
        n1, n2, k = self.in_shape[a1], self.in_shape[a2], g.shape[-1]
        start = self.offset if self.offset >= 0 else -self.offset * n2
        step = slice(start, start + (k - 1) * (n2 + 1) + 1, n2 + 1) if k else slice(0, 0)
        flat = xp.index_add(rest + (n1 * n2,), (Ellipsis, step), g)
        return xp.moveaxis(flat.reshape(rest + (n1, n2)), (-2, -1), (a1, a2))

    def reference(self, np, x):
        return np.diagonal(x, self.offset, self.axis1, self.axis2).copy()


class Unfold(Op):
    """``x.unfold(dim, size, step)``: the windows of ``size`` every ``step`` along ``dim``, that dim
    becoming the window count and a new last dim the window -- a view of ``x``, as PyTorch's
    (windows that overlap share elements; a write into one is a write into ``x``).  Linear, but
    not a ``LinearOp``: the view is made with strides, the tangent (maybe a Tensor) by a gather."""

    dim: int
    size: int
    step: int
    in_shape: tuple[int, ...]

    save_inputs = False
    is_view = True

    def _index(self) -> tuple:
        # the window elements as an index of x: (count, size) positions along dim
        n = self.in_shape[self.dim]
        starts = range(0, n - self.size + 1, self.step)
        return (slice(None),) * self.dim + ([[s + i for i in range(self.size)] for s in starts],)

    def forward(self, xp, x):
        d, n = self.dim, x.shape[self.dim]
        shape = x.shape[:d] + ((n - self.size) // self.step + 1,) + x.shape[d + 1:] + (self.size,)
        strides = x.strides[:d] + (x.strides[d] * self.step,) + x.strides[d + 1:] + (x.strides[d],)
        return xp.as_strided(x, shape, strides, writeable=getattr(x.flags, "writeable", True))  # (CuPy: no flag)

    def backward(self, xp, g, out, x):  # each window's gradient summed back where it came from
        return xp.index_add(self.in_shape, self._index(), xp.moveaxis(g, -1, self.dim + 1))

    def jvp(self, xp, tangents, out, x):
        (t,) = tangents
        return None if t is None else xp.moveaxis(t[self._index()], self.dim + 1, -1)

    def reference(self, np, x):
        return np.moveaxis(x[self._index()], self.dim + 1, -1)


def expanded_strides(strides: tuple[int, ...], shape: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...]:
    """The strides PyTorch's expand gives (its ``inferExpandGeometry``), in the units of ``strides``.

    A dim that grows from 1 repeats its element: stride 0.  A dim that keeps its size keeps its
    stride.  A new leading dim of size 1 takes the stride a contiguous tensor would have there (the
    size times the stride of the dim after it), so ``arange(5).expand(1, 1, 5)`` has the strides
    ``(5, 5, 1)`` of ``arange(5)[None, None]``, as ``unsqueeze`` gives; a size-1 dim's stride moves
    no element, but ``x.stride()`` shows it.  (The shapes were checked: a dim grows from 1 or stays.)
    """
    lead = len(target) - len(shape)
    result: list[int] = []
    after = 0  # the size times the stride of the dim after (a 0-d tensor has none: 0)
    for i in reversed(range(len(target))):
        size, stride = (shape[i - lead], strides[i - lead]) if i >= lead else (1, after)
        stride = stride if size == target[i] else 0
        result.append(stride)
        after = target[i] * stride
    return tuple(reversed(result))


class BroadcastTo(LinearOp):
    shape: tuple[int, ...]
    in_shape: tuple[int, ...]

    save_inputs = False
    is_view = True

    def forward(self, xp, x):
        # PyTorch's expand is a writable view: a write into a part of it that repeats nothing
        # (``x.expand(3, 4)[:, 0] += 1``, a fill_ of it all) reaches ``x``.  NumPy's broadcast_to is
        # read-only, so the same strides are taken as a writable view; the writes that repeat an
        # element are refused by the tensor's own checks, as PyTorch refuses them.  (The namespace of
        # tensors a differentiable backward computes in has no as_strided: its broadcast_to is this op.)
        strided = getattr(xp, "as_strided", None)
        if strided is None:
            return xp.broadcast_to(x, self.shape)
        return strided(x, self.shape, expanded_strides(x.strides, x.shape, self.shape), writeable=True)

    def backward(self, xp, g, out, x):
        return xp.sum_to(g, self.in_shape)

    def reference(self, np, x):
        return np.broadcast_to(x, self.shape)


class SumTo(LinearOp):
    """Sum a broadcast value back down to ``shape`` (broadcasting's adjoint)."""

    shape: tuple[int, ...]
    in_shape: tuple[int, ...]

    save_inputs = False

    def forward(self, xp, x):
        return xp.sum_to(x, self.shape)

    def backward(self, xp, g, out, x):
        return xp.broadcast_to(g, self.in_shape)

    def reference(self, np, x):
        lead = x.ndim - len(self.shape)
        r = np.sum(x, axis=tuple(range(lead))) if lead else x
        axes = tuple(i for i, n in enumerate(self.shape) if n == 1 and r.shape[i] != 1)
        return np.sum(r, axis=axes, keepdims=True) if axes else r


class Concatenate(Op):
    """Join along ``axis``; ``sizes`` are the inputs' lengths along it."""

    axis: int
    sizes: tuple[int, ...]

    save_inputs = False

    def forward(self, xp, *xs):
        return xp.concatenate(xs, axis=self.axis)

    def backward(self, xp, g, out, *xs):
        grads = []
        start = 0
        lead = (slice(None),) * self.axis
        for n in self.sizes:
            grads.append(g[lead + (slice(start, start + n),)])
            start += n
        return tuple(grads)

    def jvp(self, xp, tangents, out, *xs):
        ts = [xp.zeros_like(x) if t is None else t for t, x in zip(tangents, xs)]
        return xp.concatenate(ts, axis=self.axis)

    def reference(self, np, *xs):
        return np.concatenate(xs, axis=self.axis)


class Stack(Op):
    """Join along a new ``axis``."""

    axis: int

    save_inputs = False

    def forward(self, xp, *xs):
        return xp.stack(xs, axis=self.axis)

    def backward(self, xp, g, out, *xs):
        lead = (slice(None),) * self.axis
        return tuple(g[lead + (i,)] for i in range(len(xs)))

    def jvp(self, xp, tangents, out, *xs):
        ts = [xp.zeros_like(x) if t is None else t for t, x in zip(tangents, xs)]
        return xp.stack(ts, axis=self.axis)

    def reference(self, np, *xs):
        return np.stack(xs, axis=self.axis)


class Flip(LinearOp):
    """Reverse the order of elements along ``axes``: a copy, as PyTorch's ``flip`` (NumPy's is a
    view, and a write into it would change the input)."""

    axes: tuple[int, ...]

    save_inputs = False

    def forward(self, xp, x):
        return xp.flip(x, self.axes).copy()

    def backward(self, xp, g, out, x):
        return xp.flip(g, self.axes)

    def jvp(self, xp, tangents, out, x):  # (a tangent may be a Tensor, which has no .copy: the flip suffices)
        (t,) = tangents
        return None if t is None else xp.flip(t, self.axes)

    def reference(self, np, x):
        return np.flip(x, self.axes)


class Pad(Op):
    """Constant padding; ``pad_width`` is one ``(before, after)`` pair per axis."""

    pad_width: tuple[tuple[int, int], ...]
    value: float | bool
    in_shape: tuple[int, ...]

    save_inputs = False

    def forward(self, xp, x):
        return xp.pad(x, self.pad_width or 0, mode="constant", constant_values=self.value)

    def backward(self, xp, g, out, x):
        return g[tuple(slice(b, b + n) for (b, _), n in zip(self.pad_width, self.in_shape))]

    def jvp(self, xp, tangents, out, x):
        return xp.pad(tangents[0], self.pad_width or 0, mode="constant", constant_values=0)

    def reference(self, np, x):
        return np.pad(x, self.pad_width or 0, mode="constant", constant_values=self.value)


class AsType(LinearOp):
    """Cast to another dtype, silently as PyTorch's (``cast_silently``); the gradient is cast back by the engine."""

    dtype: str

    save_inputs = False

    def forward(self, xp, x):
        return cast_silently(xp, x, self.dtype)

    def backward(self, xp, g, out, x):
        return g

    def reference(self, np, x):
        return x.astype(self.dtype)


class Clone(Op):
    """A copy that owns its memory, laid out as ``memory_format`` (a ``MemoryFormat``'s name) asks:
    the values are the input's, the strides PyTorch's (``backend.laid_out``)."""

    save_inputs = False
    memory_format: str = "preserve_format"

    def forward(self, xp, x):
        return laid_out(x, self.memory_format)

    def backward(self, xp, g, out, x):
        return g

    def jvp(self, xp, tangents, out, x):
        return tangents[0]

    def reference(self, np, x):
        return x.copy()


# ------------------------------------------- tiling, repeating, rolling, triangles
class Tile(LinearOp):
    """``tile(x, reps)`` with ``len(reps) == x.ndim`` (``functional.tile`` pads either side).

    The gradient sums the copies: ``g`` seen as ``(r0, n0, r1, n1, ...)`` is
    summed over the ``r`` axes.
    """

    save_inputs = False
    reps: tuple
    in_shape: tuple

    def forward(self, xp, x):
        return xp.tile(x, self.reps)

    def backward(self, xp, g, out, x):
        split = []
        for r, n in zip(self.reps, self.in_shape):
            split += [r, n]
        return g.reshape(tuple(split)).sum(axis=tuple(range(0, 2 * len(self.reps), 2)))

    def reference(self, np, x):
        return np.tile(x, self.reps)


class Repeat(LinearOp):
    """Each element repeated ``repeats`` times along ``axis`` (an int count;
    per-element counts are a gather, built by ``functional.repeat``).

    The gradient sums each run of copies: ``g`` seen with the axis split
    as ``(n, repeats)`` is summed over the ``repeats`` axis.
    """

    save_inputs = False
    repeats: int
    axis: int
    in_shape: tuple

    def forward(self, xp, x):
        return xp.repeat(x, self.repeats, axis=self.axis)

    def backward(self, xp, g, out, x):
        ax = self.axis
        split = self.in_shape[:ax] + (self.in_shape[ax], self.repeats) + self.in_shape[ax + 1:]
        return g.reshape(split).sum(axis=ax + 1)

    def reference(self, np, x):
        return np.repeat(x, self.repeats, axis=self.axis)


class Roll(LinearOp):
    """Shift elements cyclically by ``shifts[i]`` along ``axes[i]``; the gradient rolls back."""

    save_inputs = False
    shifts: tuple
    axes: tuple

    def forward(self, xp, x):
        return xp.roll(x, self.shifts, axis=self.axes)

    def backward(self, xp, g, out, x):
        return xp.roll(g, tuple(-s for s in self.shifts), axis=self.axes)

    def reference(self, np, x):
        return np.roll(x, self.shifts, axis=self.axes)


class Tril(LinearOp):
    """The lower triangle (``j <= i + k``) of the last two axes; the gradient is masked alike."""

    save_inputs = False
    k: int

    def forward(self, xp, x):
        return xp.tril(x, self.k)

    def backward(self, xp, g, out, x):
        return xp.tril(g, self.k)

    def reference(self, np, x):
        return np.tril(x, self.k)


def fill_above_diagonal(xp, a, k: int, value: float):
    """Write ``value`` above the ``k``-th diagonal of ``a``'s last two axes (``j > i + k``), in
    place, and return ``a``: an array the caller owns (a forward's fresh array).  A masked copy
    into it takes a quarter of the time of ``where``'s new array on attention's scores."""
    drop = xp.triu(xp.ones(a.shape[-2:], dtype=bool), k + 1)
    xp.copyto(a, a.dtype.type(value), where=drop)
    return a


class TrilFill(Op):
    """The lower triangle (``j <= i + k``) of the last two axes, ``value`` above it.

    A causal attention mask applied by the op itself (``value = -inf``): no mask
    array is built, saved -- or kept by a checkpoint to replay from, which would
    cost a checkpointed attention ``L x S`` numbers a plain run never holds.
    The gradient is masked like :class:`Tril`'s.
    """

    save_inputs = False
    k: int
    value: float

    def forward(self, xp, x):
        return fill_above_diagonal(xp, x.copy(), self.k, self.value)

    def backward(self, xp, g, out, x):
        return xp.tril(g, self.k)

    def jvp(self, xp, tangents, out, x):
        (t,) = tangents
        return None if t is None else xp.tril(t, self.k)

    def reference(self, np, x):
        return np.where(np.tril(np.ones(x.shape[-2:], dtype=bool), self.k), x, x.dtype.type(self.value))


class Triu(LinearOp):
    """The upper triangle (``j >= i + k``) of the last two axes; the gradient is masked alike."""

    save_inputs = False
    k: int

    def forward(self, xp, x):
        return xp.triu(x, self.k)

    def backward(self, xp, g, out, x):
        return xp.triu(g, self.k)

    def reference(self, np, x):
        return np.triu(x, self.k)
