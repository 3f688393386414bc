"""Ops without a derivative: comparisons, logical ops, argmax/argmin.

They are registered (so the battery checks them against NumPy) but never
recorded on the tape: their results are bool or integer tensors that do not
require grad.
"""

from __future__ import annotations

from .base import Op


class _Compare(Op):
    abstract = True
    differentiable = False
    save_inputs = False
    fn = ""

    def forward(self, xp, x, y):
        return getattr(xp, self.fn)(x, y)

    def reference(self, np, x, y):
        return getattr(np, self.fn)(x, y)


class Equal(_Compare):
    fn = "equal"


class NotEqual(_Compare):
    fn = "not_equal"


class Less(_Compare):
    fn = "less"


class LessEqual(_Compare):
    fn = "less_equal"


class Greater(_Compare):
    fn = "greater"


class GreaterEqual(_Compare):
    fn = "greater_equal"


class LogicalAnd(_Compare):
    fn = "logical_and"


class LogicalOr(_Compare):
    fn = "logical_or"


class LogicalNot(Op):
    differentiable = False
    save_inputs = False

    def forward(self, xp, x):
        return xp.logical_not(x)

    def reference(self, np, x):
        return np.logical_not(x)


class Sign(Op):
    """``sign(x)``: piecewise constant, so not differentiable (gradient 0 a.e.)."""

    differentiable = False
    save_inputs = False

    def forward(self, xp, x):
        return xp.sign(x)

    def reference(self, np, x):
        return np.sign(x)


class ArgMax(Op):
    axis: int | None
    keepdims: bool

    differentiable = False
    save_inputs = False

    def forward(self, xp, x):
        return xp.argmax(x, axis=self.axis, keepdims=self.keepdims)

    def reference(self, np, x):
        return np.argmax(x, axis=self.axis, keepdims=self.keepdims)


class ArgMin(Op):
    axis: int | None
    keepdims: bool

    differentiable = False
    save_inputs = False

    def forward(self, xp, x):
        return xp.argmin(x, axis=self.axis, keepdims=self.keepdims)

    def reference(self, np, x):
        return np.argmin(x, axis=self.axis, keepdims=self.keepdims)


class IsNan(Op):
    differentiable = False
    save_inputs = False

    def forward(self, xp, x):
        return xp.isnan(x)

    def reference(self, np, x):
        return np.isnan(x)


class IsFinite(Op):
    differentiable = False
    save_inputs = False

    def forward(self, xp, x):
        return xp.isfinite(x)

    def reference(self, np, x):
        return np.isfinite(x)


class ArgSort(Op):
    """Indices that sort along ``axis`` (stable: ties in order of appearance)."""

    differentiable = False
    save_inputs = False
    axis: int

    def forward(self, xp, x):
        return xp.argsort(x, axis=self.axis, kind="stable")

    def reference(self, np, x):
        return np.argsort(x, axis=self.axis, kind="stable")
