"""Indexing: ``x[index]`` and its adjoint, scattering a gradient back.

``index`` is normalized by :mod:`minigrad_ckpt.functional`: a tuple of ints,
slices, ``None``, ``Ellipsis``, integer arrays and boolean arrays, with arrays
on the input's device.  The backward of ``x[index]`` *accumulates*: an element
selected twice by an integer array gets both gradients (``numpy.add.at``),
the case that silently dropped gradients in early PyTorch.
"""

from __future__ import annotations

from .base import Op


class GetItem(Op):
    save_inputs = False
    is_view = True

    def forward(self, xp, x):
        return x[self.index]

    def backward(self, xp, g, out, x):
        return xp.index_add(self.in_shape, self.index, g)

    def reference(self, np, x):
        return x[self.index]


class IndexAdd(Op):
    """A zero array of ``shape`` with ``x`` accumulated at ``index``."""

    save_inputs = False

    def forward(self, xp, x):
        return xp.index_add(self.shape, self.index, x)

    def backward(self, xp, g, out, x):
        return g[self.index]

    def reference(self, np, x):
        out = np.zeros(self.shape, dtype=x.dtype)
        np.add.at(out, self.index, x)
        return out
