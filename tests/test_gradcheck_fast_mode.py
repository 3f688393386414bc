"""``gradcheck(..., fast_mode=True)``: random projections ``u^T J v`` instead of whole
Jacobians; a failure re-runs the whole check and reports the worst element."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.ops import Op, registry
from minigrad_ckpt.tape import apply
from minigrad_ckpt.testing import GradcheckError, gradcheck


@pytest.fixture
def scratch_ops():
    before = dict(registry)
    yield
    registry.clear()
    registry.update(before)


def _x(n=12, seed=0):
    return mg.tensor(np.random.default_rng(seed).standard_normal(n), requires_grad=True)


def test_fast_mode_passes_right_gradients_with_fewer_evaluations():
    calls = {"fast": 0, "full": 0}

    def counted(kind):
        def f(t, w):
            calls[kind] += 1
            return mg.tanh(t * w).sum(axis=0) * t[:3].sum()
        return f

    w = mg.tensor(np.random.default_rng(1).standard_normal((5, 12)), requires_grad=True)
    assert gradcheck(counted("fast"), [_x(), w], fast_mode=True)
    assert gradcheck(counted("full"), [_x(), w])
    assert calls["fast"] < calls["full"] / 3


def test_one_wrong_element_is_found_and_reported_as_in_full_mode(scratch_ops):
    class OneWrong(Op):
        """``sin``, whose gradient is wrong at element 7 only."""

        def forward(self, xp, x):
            return xp.sin(x)

        def backward(self, xp, g, out, x):
            wrong = xp.where(xp.arange(x.shape[0]) == 7, 2.0, 1.0)
            return g * xp.cos(x) * wrong

        def jvp(self, xp, tangents, out, x):
            return tangents[0] * xp.cos(x)

    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda t: apply(OneWrong(), t), [_x()], fast_mode=True)
    assert info.value.mode == "rev" and info.value.input_index == (7,) and info.value.output_index == (7,)


def test_a_wrong_jvp_fails_fast_mode(scratch_ops):
    class WrongJvp(Op):
        def forward(self, xp, x):
            return x * 2

        def backward(self, xp, g, out, x):
            return g * 2

        def jvp(self, xp, tangents, out, x):
            return tangents[0] * 2.5

    with pytest.raises(GradcheckError, match="forward-mode"):
        gradcheck(lambda t: apply(WrongJvp(), t), [_x()], fast_mode=True)


def test_complex_inputs_run_the_full_check():
    z = mg.tensor(np.array([1 + 2j, -0.5 + 0.25j]), requires_grad=True)
    assert gradcheck(lambda t: (t * t).real, [z], fast_mode=True)


def _hooked_clone(scale_gradient_by):
    """``x.clone()`` with a tensor hook on the clone: the function needs its input to require grad."""
    def fn(x):
        y = x.clone()
        y.register_hook(lambda g: g * scale_gradient_by)
        return y
    return fn


@pytest.mark.parametrize("scale, verdict", [(1.0, True), (1.5, False)])
def test_fast_mode_calls_the_function_with_inputs_that_require_grad(scale, verdict):
    """PyTorch's gradcheck tests register hooks inside the checked function; fast mode's finite
    difference passed it inputs that did not require grad ("cannot register a hook on a tensor that
    doesn't require gradient"), where the full check and PyTorch's pass ones that do."""
    x = mg.tensor([0.5, -1.0], dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(_hooked_clone(scale), (x,), fast_mode=True, raise_exception=False) is verdict
