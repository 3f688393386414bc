"""Ops without a derivative: comparisons, logical ops, argmax/argmin.

They are registered (so the battery checks them against NumPy) but never
recorded on the tape: their results are bool or integer tensors that do not
require grad.
"""

from __future__ import annotations

from .base import FunctionOp


class _NoDerivative(FunctionOp):
    """What every op here is: not differentiable (never recorded), and so saves nothing; most
    are the array function named ``fn`` (a comparison, a logical op, a test)."""

    abstract = True
    differentiable = False
    save_inputs = False


class Equal(_NoDerivative):
    fn = "equal"


class NotEqual(_NoDerivative):
    fn = "not_equal"


class Less(_NoDerivative):
    fn = "less"


class LessEqual(_NoDerivative):
    fn = "less_equal"


class Greater(_NoDerivative):
    fn = "greater"


class GreaterEqual(_NoDerivative):
    fn = "greater_equal"


class LogicalAnd(_NoDerivative):
    fn = "logical_and"


class LogicalOr(_NoDerivative):
    fn = "logical_or"


class LogicalNot(_NoDerivative):
    fn = "logical_not"


class IsNan(_NoDerivative):
    fn = "isnan"


class IsFinite(_NoDerivative):
    fn = "isfinite"


class _ArgExtreme(_NoDerivative):
    """The index of the extreme value along ``axis`` (all of the input for None): ``fn`` is
    ``"argmax"`` or ``"argmin"``."""

    abstract = True
    keywords = ("axis", "keepdims")
    axis: int | None
    keepdims: bool


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
