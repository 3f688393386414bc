"""Checks of PyTorch's ``gradcheck`` that ``mg.autograd.gradcheck`` took as arguments, or skipped in a
mode, without making them (verdicts are torch 2.13's, from running the same functions under torch):

- outputs whose shape or dtype change when an input is perturbed by ``eps`` have no difference
  quotient: PyTorch's AssertionError, where the shapes broadcast into a silent pass here before;
- fast mode ran backward once, so a backward that is not reentrant (differs between two runs by
  more than ``nondet_tol``) passed there while the full check caught it;
- ``check_undefined_grad`` was accepted and did nothing: a custom Function after
  ``set_materialize_grads(False)`` whose backward cannot take None passed.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.autograd.gradcheck import GradcheckError, gradcheck


def _wider_at_one(x):
    return mg.cat([x, x]) if bool((x >= 1).all()) else x


def _lower_precision_at_one(x):
    return x.to(mg.float32) if bool((x >= 1).all()) else x


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("fn, what", [(_wider_at_one, "shape"), (_lower_precision_at_one, "dtype")])
def test_outputs_that_change_shape_or_dtype_under_perturbation_are_refused(fn, what, fast_mode):
    x = mg.tensor([1.0], dtype=mg.float64, requires_grad=True)
    with pytest.raises(AssertionError, match=f"return outputs with the same {what} when inputs are perturbed"):
        gradcheck(fn, (x,), fast_mode=fast_mode)


class _Jittery(mg.autograd.Function):
    """Identity whose backward scales by 1 + (a fresh random number) * jitter: not reentrant."""

    @staticmethod
    def forward(ctx, x, jitter):
        ctx.jitter = jitter
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g * (1 + mg.rand_like(g) * ctx.jitter), None


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("nondet_tol, passes", [(0.0, False), (1e-5, True)])
def test_a_backward_that_is_not_reentrant_fails_in_either_mode_unless_within_nondet_tol(fast_mode, nondet_tol,
                                                                                       passes):
    x = mg.tensor(np.linspace(0.5, 1.5, 6).reshape(2, 3), requires_grad=True)
    check = lambda: gradcheck(lambda v: _Jittery.apply(v, 1e-6), (x,), nondet_tol=nondet_tol,  # noqa: E731
                              fast_mode=fast_mode)
    if passes:
        assert check()
    else:
        with pytest.raises(GradcheckError, match="Backward is not reentrant"):
            check()


def _unmaterialized(backward):
    class Twice(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2

    Twice.backward = staticmethod(backward)
    return Twice


def _raises_on_none(ctx, g):
    if g is None:
        raise RuntimeError("g is None")
    return g * 2


def _none_to_none(ctx, g):
    return None if g is None else g * 2


def _none_to_ones(ctx, g):
    return mg.ones(1, dtype=mg.float64) if g is None else g * 2


@pytest.mark.parametrize("backward, error", [
    (_raises_on_none, "Expected backward function to handle undefined output grads"),
    (_none_to_none, None),
    (_none_to_ones, "Expected all input grads to be undefined or zero when all output grads are undefined"),
])
def test_check_undefined_grad_runs_backward_with_no_output_gradient(backward, error):
    fn = _unmaterialized(backward).apply
    x = mg.tensor([1.5], dtype=mg.float64, requires_grad=True)
    assert gradcheck(fn, (x,), check_undefined_grad=False)  # the Jacobian alone is right
    if error is None:
        assert gradcheck(fn, (x,))
        return
    with pytest.warns(UserWarning, match="New undefined gradient support checking feature"):
        with pytest.raises(GradcheckError, match=error):
            gradcheck(fn, (x,))
    with pytest.warns(UserWarning, match="New undefined gradient support checking feature"):
        assert gradcheck(fn, (x,), raise_exception=False) is False

