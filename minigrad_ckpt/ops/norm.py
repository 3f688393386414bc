"""Normalization: ``(x - mean) / sqrt(var + eps)`` over some axes.

One op serves both layer norm (the trailing axes) and batch norm (every axis
but the channel axis); the affine ``* weight + bias`` is ordinary elementwise
math on top.  The variance is the biased one (divide by N), as in PyTorch.
"""

from __future__ import annotations

from .base import Op, add_tangents


class Normalize(Op):
    axes: tuple[int, ...]
    eps: float

    save_output = True

    def forward(self, xp, x):
        return _normalized(xp, x, self.axes, self.eps)[0]

    def backward(self, xp, g, out, x):
        return _times_jacobian(xp, g, out, _rstd(xp, x, self.axes, self.eps), self.axes)

    def jvp(self, xp, tangents, out, x):
        return _times_jacobian(xp, tangents[0], out, _rstd(xp, x, self.axes, self.eps), self.axes)

    def reference(self, np, x):
        if x.size == 0:
            return x.copy()
        x64 = x.astype(np.float64)
        mu = x64.mean(axis=self.axes, keepdims=True)
        var = ((x64 - mu) ** 2).mean(axis=self.axes, keepdims=True)
        return ((x64 - mu) / np.sqrt(var + self.eps)).astype(x.dtype)


class AffineNormalize(Op):
    """:class:`Normalize`, then ``* weight + bias``: layer, batch and instance norm with their
    learned scale and shift as one op, as PyTorch's native norms are.

    Value for value it is the three ops it replaces (Normalize, Mul, Add: the same operations
    in the same order, in both modes -- but for float16 the whole forward is float32's, rounded
    once, as PyTorch's half layer and group norms; second derivatives to round-off, as ``rstd`` is
    differentiated through ``mean(d * d)`` where Normalize goes through NumPy's ``var``, the
    same numbers by another graph), but it keeps only ``x`` and ``weight``: the normalized
    values are recomputed in backward, where the Mul kept them -- one more array the size of
    ``x`` per norm layer.  ``weight`` and ``bias`` come broadcastable to ``x`` (``(1, C, 1, 1)``
    for batch norm).
    """

    axes: tuple[int, ...]
    eps: float

    save_inputs = (0, 1)

    def forward(self, xp, x, w, b):
        if _is_half(x) and _is_half(w) and _is_half(b):  # in float32, rounded once, as PyTorch's half
            # norms: the normalized value rounded to float16 and then scaled and shifted in float16
            # put a quarter of layer_norm's values a unit off
            wide = xp.float32
            return self.forward(xp, x.astype(wide), w.astype(wide), b.astype(wide)).astype(x.dtype)
        return _normalized(xp, x, self.axes, self.eps)[0] * w + b

    def backward(self, xp, g, out, x, w, b):
        xhat, rstd = _normalized(xp, x, self.axes, self.eps)  # the forward's numbers, bit for bit
        return _times_jacobian(xp, g * w, xhat, rstd, self.axes), g * xhat, g

    def jvp(self, xp, tangents, out, x, w, b):
        tx, tw, tb = tangents
        xhat, rstd = _normalized(xp, x, self.axes, self.eps)
        dxhat = None if tx is None else _times_jacobian(xp, tx, xhat, rstd, self.axes)
        scaled = add_tangents(None if dxhat is None else dxhat * w, None if tw is None else tw * xhat)
        return add_tangents(scaled, tb)

    def reference(self, np, x, w, b):
        xhat = Normalize(axes=self.axes, eps=self.eps).reference(np, x.astype(np.float64))
        return (xhat * np.asarray(w, dtype=np.float64) + np.asarray(b, dtype=np.float64)).astype(x.dtype)


def _normalized(xp, x, axes, eps):
    """``((x - mean) * rstd, rstd)`` over ``axes``, ``rstd = 1 / sqrt(var + eps)`` (the biased
    variance as ``mean(d * d)``: for real ``x`` the same numbers as NumPy's ``var``)."""
    if x.size == 0:  # empty slices: nothing to normalize (and no mean to take)
        return x + 0, None
    if _is_half(x):  # the statistics in float32, as PyTorch's half norms: beyond |x| ~ 256 the
        # squares overflow float16, and every normalized value came out 0
        xhat, rstd = _normalized(xp, x.astype(xp.float32), axes, eps)
        return xhat.astype(x.dtype), rstd.astype(x.dtype)
    # a slice holding +-inf: its mean is inf (or NaN) and x - mean is inf - inf, PyTorch's NaN slice,
    # silently (NumPy would warn 'invalid value encountered in subtract')
    with xp.errstate(invalid="ignore", over="ignore"):
        mu = xp.mean(x, axis=axes, keepdims=True)
        d = x - mu
        rstd = 1 / xp.sqrt(xp.mean(d * d, axis=axes, keepdims=True) + eps)
        return d * rstd, rstd


def _rstd(xp, x, axes, eps):
    """``1 / sqrt(var + eps)`` recomputed from ``x`` (not saved), so that with create_graph the
    backward is differentiable in ``x`` as well as in the incoming gradient -- as the forward
    takes it (``mean(d * d)``: for complex ``x`` that is not NumPy's ``var``, ``mean(|d|^2)``)."""
    if x.size == 0:
        return None
    if _is_half(x):  # in float32, as the forward's (:func:`_normalized`)
        return _rstd(xp, x.astype(xp.float32), axes, eps).astype(x.dtype)
    if x.dtype.kind != "c":  # the same numbers (and, with create_graph, the same second derivatives)
        with xp.errstate(invalid="ignore", over="ignore"):  # (as _normalized: a slice holding +-inf)
            return 1 / xp.sqrt(xp.var(x, axis=axes, keepdims=True) + eps)
    return _normalized(xp, x, axes, eps)[1]


def _is_half(x) -> bool:
    return x.dtype.kind == "f" and x.dtype.itemsize == 2


def _times_jacobian(xp, v, xhat, rstd, axes):
    """``J v`` for ``J = rstd (I - 1/N - xhat xhat^T / N)``: symmetric, so also ``J^T v``:
    ``rstd * (v - mean(v) - xhat * mean(v * xhat))``."""
    if rstd is None:  # empty slices
        return v
    v_mean = xp.mean(v, axis=axes, keepdims=True)
    vx_mean = xp.mean(v * xhat, axis=axes, keepdims=True)
    return rstd * (v - v_mean - xhat * vx_mean)
