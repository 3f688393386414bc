"""``mg.autograd.gradcheck`` compares the outputs that require grad, as torch 2.13's
(``_differentiable_outputs``): an output marked non-differentiable, detached or made without grad
beside a differentiable one is left out.  Before, the engine compared it against a zero analytic
Jacobian and failed (``gradcheck(F.apply, (x,))`` with ``ctx.mark_non_differentiable(b)`` on
``b = x * 3``: False where torch answers True).  With no output requiring grad every output's
numeric derivative must still be zero, as PyTorch's ("Numerical gradient for function expected to
be zero"); the engine's own ``mg.testing.gradcheck`` keeps comparing every output.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" stand-in device)
from minigrad_ckpt.testing import GradcheckError, gradcheck


class DoubleAndMarkedTriple(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a, b = x * 2, x * 3
        ctx.mark_non_differentiable(b)
        return a, b

    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 2


class WrongDoubleAndMarkedTriple(DoubleAndMarkedTriple):
    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 2.5


def _x(device="cpu"):
    return mg.tensor(np.array([0.5, -1.0, 2.0]), dtype=mg.float64, device=device, requires_grad=True)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_outputs_that_do_not_require_grad_are_left_out_beside_one_that_does(device):
    x = _x(device)
    assert mg.autograd.gradcheck(DoubleAndMarkedTriple.apply, (x,))
    assert mg.autograd.gradcheck(lambda t: (t * 2, (t * 3).detach()), (x,))
    assert mg.autograd.gradcheck(lambda t: (t.sin(), t.detach() * 3), (x,), fast_mode=True)
    assert mg.autograd.gradgradcheck(DoubleAndMarkedTriple.apply, (x,))


def test_the_differentiable_output_is_still_checked_and_named_by_its_place_among_them():
    x = _x()
    with pytest.raises(GradcheckError, match="the Jacobian of output 0 with respect to input 0"):
        mg.autograd.gradcheck(WrongDoubleAndMarkedTriple.apply, (x,))
    # output 1 of the function is output 0 of the differentiable ones, as PyTorch counts them
    with pytest.raises(GradcheckError, match="the Jacobian of output 0 with respect to input 0"):
        mg.autograd.gradcheck(lambda t: ((t * 3).detach(), WrongDoubleAndMarkedTriple.apply(t)[0]), (x,))


def test_with_no_output_requiring_grad_each_must_not_depend_on_the_inputs():
    x = _x()
    assert mg.autograd.gradcheck(lambda t: (mg.ones(2, dtype=mg.float64), t.detach().argmax()), (x,))
    assert mg.autograd.gradcheck(lambda t: (t * 2).detach(), (x,), raise_exception=False) is False
    # the engine's own check compares every output
    with pytest.raises(GradcheckError):
        gradcheck(DoubleAndMarkedTriple.apply, (x,), modes=("rev",))


def _detached_and_wrong(t):
    return (t * 3).detach(), WrongDoubleAndMarkedTriple.apply(t)[0]


def test_a_failures_repro_script_picks_the_same_outputs():
    # the script held the source of the check's own wrapper (referring to names it did not define)
    with pytest.raises(GradcheckError) as info:
        mg.autograd.gradcheck(_detached_and_wrong, (_x(),))
    script = info.value.repro_script()
    assert "def _detached_and_wrong(t):" in script and "return tuple(outs[i] for i in (1,))" in script
    with pytest.raises(GradcheckError) as again:  # run with what the function refers to (not carried)
        exec(compile(script, "repro", "exec"), {"WrongDoubleAndMarkedTriple": WrongDoubleAndMarkedTriple})
    assert (again.value.output, again.value.input_index) == (info.value.output, info.value.input_index)
