"""Normalization: ``(x - mean) / sqrt(var + eps)`` over some axes.

One op serves both layer norm (the trailing axes) and batch norm (every axis
but the channel axis); the affine ``* weight + bias`` is ordinary elementwise
math on top.  The variance is the biased one (divide by N), as in PyTorch.
"""

from __future__ import annotations

from .base import Op


class Normalize(Op):
    axes: tuple[int, ...]
    eps: float

    save_output = True

    def forward(self, xp, x):
        if x.size == 0:  # empty slices: nothing to normalize (and no mean to take)
            return x + 0
        mu = xp.mean(x, axis=self.axes, keepdims=True)
        d = x - mu
        var = xp.mean(d * d, axis=self.axes, keepdims=True)
        return d * (1 / xp.sqrt(var + self.eps))

    def backward(self, xp, g, out, x):
        return self._times_jacobian(xp, g, out, x)

    def jvp(self, xp, tangents, out, x):
        return self._times_jacobian(xp, tangents[0], out, x)

    def _times_jacobian(self, xp, v, out, x):
        """``J v`` for ``J = rstd (I - 1/N - xhat xhat^T / N)``: symmetric, so also ``J^T v``.

        With ``xhat = out`` and ``rstd = 1/sqrt(var + eps)`` that is
        ``rstd * (v - mean(v) - xhat * mean(v * xhat))``.  ``rstd`` is recomputed
        from ``x`` (not saved), so with create_graph the expression is
        differentiable in ``x`` as well as in ``v``.
        """
        if x.size == 0:
            return v
        rstd = 1 / xp.sqrt(xp.var(x, axis=self.axes, keepdims=True) + self.eps)
        v_mean = xp.mean(v, axis=self.axes, keepdims=True)
        vx_mean = xp.mean(v * out, axis=self.axes, keepdims=True)
        return rstd * (v - v_mean - out * vx_mean)

    def reference(self, np, x):
        if x.size == 0:
            return x.copy()
        x64 = x.astype(np.float64)
        mu = x64.mean(axis=self.axes, keepdims=True)
        var = ((x64 - mu) ** 2).mean(axis=self.axes, keepdims=True)
        return ((x64 - mu) / np.sqrt(var + self.eps)).astype(x.dtype)
