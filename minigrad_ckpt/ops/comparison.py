"""Ops without a derivative: comparisons, logical ops, argmax/argmin.

They are registered (so the battery checks them against NumPy) but never
recorded on the tape: their results are bool or integer tensors that do not
require grad.
"""

from __future__ import annotations

from .base import Op


class _NoDerivative(Op):
    """What every op here is: not differentiable (never recorded), and so saves nothing."""

    abstract = True
    differentiable = False
    save_inputs = False


class _Compare(_NoDerivative):
    """A binary comparison or logical op: the array function named ``fn``."""

    abstract = True
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


class _Test(_NoDerivative):
    """A unary test or piecewise-constant map: the array function named ``fn``."""

    abstract = True
    fn = ""

    def forward(self, xp, x):
        return getattr(xp, self.fn)(x)

    def reference(self, np, x):
        return getattr(np, self.fn)(x)


class LogicalNot(_Test):
    fn = "logical_not"


class Sign(_Test):
    """``sign(x)``: piecewise constant, so not differentiable (gradient 0 a.e.)."""

    fn = "sign"


class IsNan(_Test):
    fn = "isnan"


class IsFinite(_Test):
    fn = "isfinite"


class _ArgExtreme(_NoDerivative):
    """The index of the extreme value along ``axis`` (all of the input for None): ``fn`` is
    ``"argmax"`` or ``"argmin"``."""

    abstract = True
    fn = ""
    axis: int | None
    keepdims: bool

    def forward(self, xp, x):
        return getattr(xp, self.fn)(x, axis=self.axis, keepdims=self.keepdims)

    def reference(self, np, x):
        return getattr(np, self.fn)(x, axis=self.axis, keepdims=self.keepdims)


class ArgMax(_ArgExtreme):
    fn = "argmax"


class ArgMin(_ArgExtreme):
    fn = "argmin"


class ArgSort(_NoDerivative):
    """Indices that sort along ``axis`` (stable: ties in order of appearance)."""

    axis: int

    def forward(self, xp, x):
        return xp.argsort(x, axis=self.axis, kind="stable")

    def reference(self, np, x):
        return np.argsort(x, axis=self.axis, kind="stable")
