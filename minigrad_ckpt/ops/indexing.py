"""Indexing: ``x[index]`` and its adjoint, scattering a gradient back.

``index`` is normalized by :mod:`minigrad_ckpt.functional`: a tuple of ints,
slices, ``None``, ``Ellipsis``, integer arrays and boolean arrays, with arrays
on the input's device.  The backward of ``x[index]`` *accumulates*: an element
selected twice by an integer array gets both gradients (``numpy.add.at``),
the case that silently dropped gradients in early PyTorch.
"""

from __future__ import annotations

from ..backend import register_kernel
from .base import Array, Index, LinearOp, Op


class GetItem(LinearOp):
    index: Index
    in_shape: tuple[int, ...]

    save_inputs = False
    is_view = True
    places_gradient_at_index = True

    def forward(self, xp, x):
        out = x[self.index]
        if out.__class__ is not x.__class__ and all(p is not Ellipsis for p in self.index):  # one element:
            out = x[(*self.index, Ellipsis)]  # NumPy gives a scalar (a copy); PyTorch's x[0] is a view, as x[0, ...]
        return out

    def backward(self, xp, g, out, x):
        return xp.index_add(self.in_shape, self.index, g)

    def reference(self, np, x):
        return x[self.index]


class GetItemCopy(GetItem):
    """``x[index]`` for an index holding an integer or boolean array (NumPy's advanced
    indexing): the result is a copy with memory of its own, not a view, so it has its own
    version and an in-place change of it is nobody else's (``h[idx] += 1`` writes the copy,
    then ``h[idx] = copy``: PyTorch's idiom)."""

    is_view = False
    places_gradient_at_index = False  # (an index array may select a place twice)


class FrequencyScaledGetItem(GetItemCopy):
    """``weight[ids]`` of an embedding with ``scale_grad_by_freq``: the gradient each looked-up row
    sends back is divided by how often its id occurs in ``ids`` (``scale``, broadcast over the
    row), PyTorch's heuristic for words of skewed frequencies.  Only reverse mode is scaled: the
    tangent is the lookup's (``weight_t[ids]``, as PyTorch's forward mode), so here backward is
    not forward's adjoint, on purpose."""

    scale: object  # (*ids.shape, 1): 1 / count of each position's id

    def backward(self, xp, g, out, x):
        return xp.index_add(self.in_shape, self.index, g * self.scale)


def advanced(index: tuple) -> bool:
    """Whether a normalized index selects by an array (an integer or boolean one): a copy."""
    return any(hasattr(part, "shape") for part in index)


class IndexAdd(LinearOp):
    """A zero array of ``shape`` with ``x`` accumulated at ``index``."""

    shape: tuple[int, ...]
    index: Index

    save_inputs = False

    def forward(self, xp, x):
        return xp.index_add(self.shape, self.index, x)

    def backward(self, xp, g, out, x):
        return g[self.index]

    def reference(self, np, x):
        out = np.zeros(self.shape, dtype=x.dtype)
        np.add.at(out, self.index, x)
        return out


class IndexPut(Op):
    """``old`` with ``values`` (the region's shape) written at ``index``: ``old[index] = values``, out
    of place.  ``written`` marks the places written, ``source`` the flat position in ``values`` each
    of them takes -- for a repeated index, the last write, as NumPy's and PyTorch's CPU kernels
    keep it -- or is None where nothing is written.

    The gradient is PyTorch's ``index_put``'s: ``old`` gets ``g`` where nothing was written, and
    ``values`` gets ``g[index]``: each write the gradient of the place it went to, also a write that
    a repeated index overwrote (not the derivative of the last write alone), and zeros for a write
    into an empty region (not None)."""

    index: Index
    written: Array
    source: Array | None

    save_inputs = False

    def forward(self, xp, old, values):
        if self.source is None:
            return xp.where(self.written, old, old)  # (a copy: the output is not its input)
        return xp.where(self.written, values.reshape(-1)[self.source], old)

    def backward(self, xp, g, out, old, values):
        return xp.where(self.written, 0, g), g[self.index]

    def jvp(self, xp, tangents, out, old, values):
        t_old, t_values = tangents
        if t_values is None or self.source is None:
            return None if t_old is None else xp.where(self.written, 0, t_old)
        return xp.where(self.written, t_values.reshape(-1)[self.source], 0 if t_old is None else t_old)

    def reference(self, np, old, values):
        out = old.copy()
        out[self.index] = values
        return out


# ------------------------------------------------------ gathers along one axis
@register_kernel
def scatter_along_axis(xp, values, indices, axis, shape):
    """Zeros of ``shape`` with ``values`` added at ``indices`` along ``axis``
    (``take_along_axis``'s adjoint; repeated indices accumulate).

    ``indices`` and ``values`` have the same shape, equal to ``shape`` on
    every axis but ``axis`` (``functional.take_along_axis`` broadcasts first).
    """
    out = xp.zeros(shape, dtype=values.dtype)
    nd = len(shape)
    index = []
    for d, n in enumerate(indices.shape):
        if d == axis:
            index.append(indices)
        else:
            index.append(xp.arange(n).reshape((1,) * d + (n,) + (1,) * (nd - d - 1)))
    xp.scatter_add(out, tuple(index), values)
    return out


class TakeAlongAxis(Op):
    """``take_along_axis(x, indices, axis)``: ``x`` and ``indices`` agree on every
    other axis (``functional.take_along_axis`` broadcasts them); indices are
    non-negative and in range (checked there).  The gradient scatters back,
    accumulating where an index repeats."""

    save_inputs = (1,)
    axis: int
    in_shape: tuple

    def forward(self, xp, x, indices):
        return xp.take_along_axis(x, indices, axis=self.axis)

    def backward(self, xp, g, out, x, indices):
        return xp.scatter_along_axis(g, indices, self.axis, self.in_shape), None

    def jvp(self, xp, tangents, out, x, indices):
        t = tangents[0]
        return None if t is None else xp.take_along_axis(t, indices, axis=self.axis)

    def reference(self, np, x, indices):
        return np.take_along_axis(x, indices, axis=self.axis)


class TakeAlongAxisOnGraph(TakeAlongAxis):
    """:class:`TakeAlongAxis` with a third input ``like`` of derivative 0 that the gradient stays on: a max
    pooling's gather at each window's maximum (``like`` the pooled input).  PyTorch's max-pool backwards
    take their input, so a gradient made with ``create_graph`` is on the input's graph and a second
    derivative through it is zeros, not an unused input; on arrays ``like`` gets no gradient at all
    (``xp.zero_gradient_on_graph``)."""

    save_inputs = (1, 2)

    def forward(self, xp, x, indices, like):
        return xp.take_along_axis(x, indices, axis=self.axis)

    def backward(self, xp, g, out, x, indices, like):
        return (xp.scatter_along_axis(g, indices, self.axis, self.in_shape), None,
                xp.zero_gradient_on_graph(like))

    def jvp(self, xp, tangents, out, x, indices, like):
        return super().jvp(xp, tangents[:2], out, x, indices)

    def reference(self, np, x, indices, like):
        return np.take_along_axis(x, indices, axis=self.axis)


class ScatterAlongAxis(Op):
    """``scatter_along_axis(values, indices, axis, shape)`` as an op: the
    backward of ``TakeAlongAxis``, so second derivatives work; its own
    backward is the gather again."""

    save_inputs = (1,)
    axis: int
    shape: tuple

    def forward(self, xp, values, indices):
        return xp.scatter_along_axis(values, indices, self.axis, self.shape)

    def backward(self, xp, g, out, values, indices):
        return xp.take_along_axis(g, indices, axis=self.axis), None

    def jvp(self, xp, tangents, out, values, indices):
        t = tangents[0]
        return None if t is None else xp.scatter_along_axis(t, indices, self.axis, self.shape)

    def reference(self, np, values, indices):
        out = np.zeros(self.shape, dtype=values.dtype)
        for pos in np.ndindex(*indices.shape):
            target = list(pos)
            target[self.axis] = indices[pos]
            out[tuple(target)] += values[pos]
        return out


class Sort(Op):
    """Sorted along ``axis`` (stable: ties keep their order, NaNs last, as NumPy).

    Sorting is a permutation, so the gradient is the upstream gradient
    permuted back: ``g`` gathered at the inverse permutation.  Tied values
    each get the gradient of the slot they were sorted into (a valid
    subgradient: at a tie the sort is not differentiable).
    """

    axis: int

    def forward(self, xp, x):
        return xp.sort(x, axis=self.axis, kind="stable")

    def backward(self, xp, g, out, x):
        order = xp.argsort(x, axis=self.axis, kind="stable")
        inverse = xp.argsort(order, axis=self.axis, kind="stable")
        return xp.take_along_axis(g, inverse, axis=self.axis)

    def jvp(self, xp, tangents, out, x):
        (t,) = tangents
        if t is None:
            return None
        return xp.take_along_axis(t, xp.argsort(x, axis=self.axis, kind="stable"), axis=self.axis)

    def reference(self, np, x):
        return np.sort(x, axis=self.axis, kind="stable")
