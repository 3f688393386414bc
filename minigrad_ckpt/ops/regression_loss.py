"""Regression losses of the difference ``d = input - target``: each one op, its reduction included.

Written out, ``mse_loss`` is three nodes per call (the difference, its square,
the mean) and ``smooth_l1_loss`` seven (``|d|``, a comparison, ``d * d``, a
scale, a shift, ``where``, the mean).  A small regression program spends more
time recording and reversing them than computing, so each loss is one op of
``(input, target)`` -- as PyTorch's ``MseLossBackward`` is one node -- that
saves the two operands and makes ``d`` again in backward (one subtraction).

Each loss states its pointwise value of ``d`` and ``v`` times its derivative
once; the reduction's value and spread are written once here, and backward and
forward mode both follow.  Values are PyTorch's forward kernels' arithmetic,
term for term.  Gradients of ``mse``, smooth L1 and Huber are its backward
kernels' (``gradient``: ``(norm * slope) * g``, ``norm = 1 / numel`` for
``mean``), bitwise PyTorch's -- but for the last few elements of a large
tensor, which PyTorch's vectorized loop leaves to its scalar formula, rounded in
another order; ``l1``'s, as PyTorch's, is the composite's.  Tangents are bitwise the composite's for ``mse`` and ``l1``;
smooth L1's and Huber's quadratic branch rounds ``(v c) d`` twice where the
composite's rounds ``(v d + d v) c``: the same up to the last bit.
"""

from __future__ import annotations

import math

from .base import Op
from .elementwise import abs_slope
from .reduction import mean_share, mean_tangent, mean_value


def _reduce(xp, v, reduction, mean=mean_value):
    """``v`` summed, averaged or kept: the loss (``mean_value``, as :class:`~.reduction.Mean`
    averages) or, with ``mean=mean_tangent``, its tangent (the reduction is linear)."""
    if reduction == "none":
        return v
    axes = tuple(range(v.ndim))
    if reduction == "sum":
        return v.sum(axis=axes)
    return mean(xp, v, axes, False, math.prod(v.shape))  # not v.size: tangents may be Tensors


def _spread(g, d, reduction):
    """The reduction's backward: what each element of the loss receives of ``g`` (a scalar
    for ``mean`` and ``sum``: it broadcasts in the product with the derivative at ``d``)."""
    if reduction != "mean":
        return g
    return mean_share(g, math.prod(d.shape))  # not d.size: with create_graph these are Tensors


class _DifferenceLoss(Op):
    """``reduction(f(input - target))``; a subclass states ``pointwise`` (``f(d)``) and
    ``times_derivative`` (``v f'(d)``)."""

    abstract = True
    reduction: str

    def pointwise(self, xp, d):
        raise NotImplementedError

    def times_derivative(self, xp, v, d):
        raise NotImplementedError

    # Each pass runs under errstate(invalid, over): an input and a target both inf (a diverged
    # critic against a diverged target) differ by inf - inf, and a huge difference's square
    # overflows; PyTorch answers NaN and inf there without a word, where NumPy would warn.
    def forward(self, xp, x, y):
        with xp.errstate(invalid="ignore", over="ignore"):
            return _reduce(xp, self.pointwise(xp, x - y), self.reduction)

    def backward(self, xp, g, out, x, y):
        with xp.errstate(invalid="ignore", over="ignore"):
            d = x - y
            gd = self.gradient(xp, g, d)
            return gd, -gd

    def gradient(self, xp, g, d):
        """The gradient at ``d`` of the reduced loss: ``g`` spread by the reduction, times the
        derivative -- the composite's order; a loss that PyTorch computes with its own backward
        kernel writes that kernel's order instead."""
        return self.times_derivative(xp, _spread(g, d, self.reduction), d)

    def norm(self, d, scale=1.0):
        """PyTorch's ``norm`` of its loss backward kernels: ``scale / numel`` for ``mean``, else
        ``scale`` (a Python number: NumPy rounds it to ``d``'s dtype, as the kernel's cast)."""
        n = math.prod(d.shape)
        return scale / n if self.reduction == "mean" and n else scale

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        if tx is None and ty is None:
            return None
        td = -ty if tx is None else tx if ty is None else tx - ty
        with xp.errstate(invalid="ignore", over="ignore"):  # (as forward)
            return _reduce(xp, self.times_derivative(xp, td, x - y), self.reduction, mean_tangent)

    def reference(self, np, x, y):
        loss = self.pointwise(np, np.subtract(x, y))
        if self.reduction == "none":
            return loss
        with np.errstate(invalid="ignore", divide="ignore"):  # the mean of nothing is NaN, as NumPy's
            return np.sum(loss) if self.reduction == "sum" else np.sum(loss) / loss.size


class MSELoss(_DifferenceLoss):
    """``d²``; ``v`` times the derivative is ``v d + v d``, as the composite's ``d * d``
    sends ``v d`` back along each of its two edges."""

    def pointwise(self, xp, d):
        return d * d

    def times_derivative(self, xp, v, d):
        q = v * d
        return q + q

    def gradient(self, xp, g, d):
        # PyTorch's mse_backward kernel: (norm (x - t)) g with norm = 2 / numel for mean -- not
        # 2 ((g / numel) d), which is a last bit off for a quarter of float32 values
        return (self.norm(d, 2.0) * d) * g


class L1Loss(_DifferenceLoss):
    """``|d|``; subgradient 0 at 0 and 0 at NaN (:func:`~.elementwise.abs_slope`), as ``abs``'s."""

    def pointwise(self, xp, d):
        return xp.abs(d)

    def times_derivative(self, xp, v, d):
        return v * abs_slope(xp, d)


class SmoothL1Loss(_DifferenceLoss):
    """``0.5 d² / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``beta > 0``).

    Derivative ``d / beta`` inside, ``sign(d)`` outside: continuous at ``|d| = beta``.
    """

    beta: float

    def pointwise(self, xp, d):
        # PyTorch's smooth_l1 kernel: 0.5 a a / beta, divided last (d d (0.5 / beta) was a last
        # bit off for a few percent of the values where beta is not a power of 2)
        a = xp.abs(d)
        return xp.where(a < self.beta, 0.5 * a * a / self.beta, a - 0.5 * self.beta)

    def times_derivative(self, xp, v, d):
        # (v c) d twice, as the composite's product d * d sends it back to d: bitwise the same
        q = v * (0.5 / self.beta) * d
        return xp.where(xp.abs(d) < self.beta, q + q, v * xp.sign(d))

    def gradient(self, xp, g, d):
        # PyTorch's vectorized smooth_l1_backward: (norm * (d / beta inside, sign outside)) g
        slope = xp.where(xp.abs(d) >= self.beta, xp.sign(d), d / self.beta)  # (sign: d's dtype)
        return (self.norm(d) * slope) * g


class HuberLoss(_DifferenceLoss):
    """``0.5 d²`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)`` (``delta > 0``).

    Derivative ``d`` inside, ``delta sign(d)`` outside: continuous at ``|d| = delta``, so either
    branch gives the same value and first derivative there (bitwise).  The strict ``<`` (PyTorch's,
    as :class:`SmoothL1Loss`'s) decides the second derivative at ``|d| = delta``: the linear
    branch's 0, as PyTorch's ``huber_loss_double_backward`` -- ``<=`` gave the quadratic one's 1,
    so a gradient penalty or Hessian there (integer data with ``delta=1``) differed from PyTorch's.
    """

    delta: float

    def pointwise(self, xp, d):
        a = xp.abs(d)
        return xp.where(a < self.delta, 0.5 * a * a, self.delta * (a - 0.5 * self.delta))

    def gradient(self, xp, g, d):
        # PyTorch's vectorized huber_backward: (norm * (d inside, delta sign(d) outside)) g
        slope = xp.where(xp.abs(d) >= self.delta, xp.sign(d) * self.delta, d)
        return (self.norm(d) * slope) * g

    def times_derivative(self, xp, v, d):
        q = v * 0.5 * d  # as in SmoothL1Loss: the composite's d * d, bitwise
        return xp.where(xp.abs(d) < self.delta, q + q, v * self.delta * xp.sign(d))
