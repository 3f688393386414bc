"""gradcheck, gradgradcheck and check_op on a function with an op that has no ``jvp``:
everything else is checked, and forward mode is reported as not checked (a warning
naming the op) -- unless forward mode was asked for explicitly."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.ops import Op, registry
from minigrad_ckpt.ops.base import MissingJvpError
from minigrad_ckpt.tape import apply
from minigrad_ckpt.testing import ForwardModeNotCheckedWarning, GradcheckError, check_op, gradcheck, gradgradcheck
from minigrad_ckpt.testing.check_op import CHECKS

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


@pytest.fixture
def cube_ops():
    """``x**3`` without a jvp: right, and with a second derivative lost (the gradient's
    graph is cut under create_graph)."""
    before = dict(registry)

    class NoJvpCube(Op):
        def forward(self, xp, x):
            return x * x * x

        def backward(self, xp, g, out, x):
            return g * 3 * x * x

        def reference(self, np_, x):
            return x ** 3

    class NoJvpDetachedCube(NoJvpCube):
        def backward(self, xp, g, out, x):
            x2 = x * x
            if hasattr(x2, "detach"):  # under create_graph: a constant, so d/dx of the gradient is lost
                x2 = x2.detach()
            return g * 3 * x2

    yield NoJvpCube, NoJvpDetachedCube
    registry.clear()
    registry.update(before)


def _leaf():
    return mg.tensor(X.copy(), requires_grad=True)


def test_gradcheck_checks_reverse_mode_and_warns_that_forward_mode_was_not(cube_ops):
    cube, _ = cube_ops
    with pytest.warns(ForwardModeNotCheckedWarning, match="op NoJvpCube has no jvp"):
        assert gradcheck(lambda t: mg.tanh(apply(cube(), t)), [_leaf()])
    with pytest.warns(ForwardModeNotCheckedWarning, match="op NoJvpCube has no jvp"):
        assert gradgradcheck(lambda t: apply(cube(), t), [_leaf()])


def test_a_wrong_gradient_in_an_op_without_jvp_still_fails(cube_ops):
    cube, _ = cube_ops

    class NoJvpWrongCube(cube):
        def backward(self, xp, g, out, x):
            return g * 2 * x * x

    with pytest.raises(GradcheckError, match=r"gradcheck \(first derivatives\) failed"):
        gradcheck(lambda t: apply(NoJvpWrongCube(), t), [_leaf()])


def test_a_second_order_bug_in_an_op_without_jvp_is_reported_as_second_order(cube_ops):
    _, detached = cube_ops
    with pytest.warns(ForwardModeNotCheckedWarning), \
            pytest.raises(GradcheckError, match=r"gradgradcheck \(second derivatives\) failed") as info:
        check_op(lambda t: apply(detached(), t) + t, X)
    assert info.value.order == 2


def test_check_op_on_an_op_without_jvp_runs_every_other_check_and_says_so(cube_ops):
    cube, _ = cube_ops
    with pytest.warns(ForwardModeNotCheckedWarning, match="NoJvpCube"):
        assert check_op(cube, X) == list(CHECKS)
    with pytest.warns(ForwardModeNotCheckedWarning, match="NoJvpCube"):
        assert check_op(lambda t: mg.exp(apply(cube(), t) * 0.1), X) == [c for c in CHECKS if c != "forward"]


def test_explicit_forward_mode_makes_a_missing_jvp_an_error(cube_ops):
    cube, _ = cube_ops
    for run in (lambda: gradcheck(lambda t: apply(cube(), t), [_leaf()], modes=("rev", "fwd")),
                lambda: gradgradcheck(lambda t: apply(cube(), t), [_leaf()], modes=("fwd",)),
                lambda: check_op(cube, X, modes=("rev", "fwd"))):
        with pytest.raises(MissingJvpError, match="NoJvpCube has no jvp rule") as info:
            run()
        assert info.value.op == "NoJvpCube" and isinstance(info.value, NotImplementedError)


def test_ops_with_a_jvp_give_no_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ForwardModeNotCheckedWarning)
        assert gradcheck(lambda t: mg.tanh(t) * t, [_leaf()])
        assert check_op(lambda t: mg.sin(t) * t, X)
