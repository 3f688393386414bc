"""Smooth L1 and Huber: a regression loss as one elementwise op of the difference.

Written out, ``smooth_l1_loss`` is seven nodes per call (``|d|``, a
comparison, ``d * d``, a scale, a shift, ``where``, then the reduction); a
small regression program spends more time recording them than computing, so
each loss is one op of ``d = input - target``.  The arithmetic is the
composite's, term for term, so values and gradients are bitwise the same as
the seven nodes' -- except at ``d = ±inf``, where the composite's masked
quadratic branch sent ``0 * inf = NaN`` into the gradient and the op gives
the linear branch's ``±g``, as PyTorch does.
"""

from __future__ import annotations

from .elementwise import UnaryElementwise


class SmoothL1(UnaryElementwise):
    """``0.5 d² / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``beta > 0``).

    Derivative ``d / beta`` inside, ``sign(d)`` outside: continuous at ``|d| = beta``.
    """

    beta: float

    def forward(self, xp, d):
        a = xp.abs(d)
        return xp.where(a < self.beta, d * d * (0.5 / self.beta), a - 0.5 * self.beta)

    def times_derivative(self, xp, v, out, d):
        # (v c) d twice, as the composite's product d * d sends it back to d: bitwise the same
        q = v * (0.5 / self.beta) * d
        return xp.where(xp.abs(d) < self.beta, q + q, v * xp.sign(d))

    def reference(self, np, d):
        a = np.abs(d)
        return np.where(a < self.beta, 0.5 * d * d / self.beta, a - 0.5 * self.beta)


class Huber(UnaryElementwise):
    """``0.5 d²`` where ``|d| <= delta``, else ``delta (|d| - 0.5 delta)`` (``delta > 0``).

    Derivative ``d`` inside, ``delta sign(d)`` outside: continuous at ``|d| = delta``.
    """

    delta: float

    def forward(self, xp, d):
        a = xp.abs(d)
        return xp.where(a <= self.delta, d * d * 0.5, (a - 0.5 * self.delta) * self.delta)

    def times_derivative(self, xp, v, out, d):
        q = v * 0.5 * d  # as in SmoothL1: the composite's d * d, bitwise
        return xp.where(xp.abs(d) <= self.delta, q + q, v * self.delta * xp.sign(d))

    def reference(self, np, d):
        a = np.abs(d)
        return np.where(a <= self.delta, 0.5 * d * d, self.delta * (a - 0.5 * self.delta))
