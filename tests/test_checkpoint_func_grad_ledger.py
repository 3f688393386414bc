"""``mg.func.grad`` of a function that runs a checkpointed plan holds what the planner predicts.

Before: the one backward pass of ``grad`` kept the tape (``retain_graph=True``, as ``vjp_fn``
must, which may be called again), so the plain layers after a checkpointed block still held
their saved values while the block replayed: ``grad(f)(x)`` measured 192 bytes where the
same step's ``.backward()`` measured 144, the prediction -- and 96 bytes stayed held after
``grad`` returned, until the garbage collector found the segments.  Binding the argument
another way (``x`` closed over, a keyword, ``functools.partial``) moved the peak, since a
function whose output does not depend on the differentiated argument runs no backward at all.
torch 2.13's ``torch.func.grad`` keeps no tape after it returns either.

A function that closes over a tensor that requires grad (a parameter) is another matter:
its gradient must stay differentiable with respect to that tensor (``torch.func.grad``'s
result has a ``grad_fn`` there too), so the backward is recorded -- exactly what
``mg.grad(loss, [x], create_graph=True)`` holds, pinned below.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import Block, Plan

PLAN = Plan((Block(0, 2, True), Block(2, 3, True), Block(3, 4, False)))


def _parameter_free(device):
    mg.manual_seed(0)
    return [nn.Tanh(), nn.Sigmoid(), nn.Tanh(), nn.Sigmoid()], mg.randn(3, 4, device=device)


def _peak(call):
    with mg.memory.track() as ledger:
        result = call()
    return ledger.peak("saved"), ledger.live("saved"), result


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_grad_of_a_checkpointed_plan_holds_the_prediction_however_the_argument_is_bound(device):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    layers, x = _parameter_free(device)
    predicted = ck.simulate_peak(ck.profile_chain(layers, x.detach().requires_grad_(True)), PLAN)
    xg = x.detach().requires_grad_(True)
    backward_peak, _, _ = _peak(lambda: ck.run_plan(layers, PLAN, xg).sum().backward())
    assert backward_peak == predicted == (144 if x.dtype == mg.float32 else 288)

    def f(t):
        return ck.run_plan(layers, PLAN, t).sum()

    def f_with(t, other, *, scale=1.0):
        return f(t) * scale

    calls = {
        "positional": lambda: mg.func.grad(f)(x),
        "a second argument": lambda: mg.func.grad(f_with)(x, x),
        "a keyword": lambda: mg.func.grad(f_with)(x, x, scale=1.0),
        "functools.partial": lambda: mg.func.grad(functools.partial(f_with, other=x))(x),
        "value_and_grad": lambda: mg.func.value_and_grad(f)(x)[1],
        "grad_and_value": lambda: mg.func.grad_and_value(f)(x)[0],
    }
    for name, call in calls.items():
        peak, held_after, g = _peak(call)
        assert (peak, held_after) == (predicted, 0), name
        np.testing.assert_array_equal(g.numpy(), xg.grad.numpy(), err_msg=name)


def test_grad_with_an_auxiliary_output_that_keeps_history_keeps_the_tape_for_it():
    # aux reaches a parameter through a node inside the function: a backward through it after
    # grad returned must find the nodes it passes through (freed, it raised)
    mg.manual_seed(0)
    w = nn.Parameter(mg.randn(4))
    x = mg.randn(4)

    def f(t):
        h = mg.tanh(t * 2.0)
        return (h * h).sum(), (h * w).sum()

    g, aux = mg.func.grad(f, has_aux=True)(x)
    aux.backward()
    np.testing.assert_allclose(w.grad.numpy(), np.tanh(x.numpy() * 2.0), rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), 4 * np.tanh(2 * x.numpy()) * (1 - np.tanh(2 * x.numpy()) ** 2),
                               rtol=1e-6)


def test_grad_of_a_function_over_parameters_holds_a_recorded_backward():
    # The parameters are closed over and require grad: the gradient must stay differentiable with
    # respect to them, so the backward is recorded (create_graph) and its result holds it -- as
    # mg.grad(..., create_graph=True) does, byte for byte.
    mg.manual_seed(0)
    layers = [nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(4)]
    x = mg.randn(3, 4)

    def f(t):
        return ck.run_plan(layers, PLAN, t).sum()

    predicted = ck.simulate_peak(ck.profile_chain(layers, x.detach().requires_grad_(True)), PLAN)
    peak, held, g = _peak(lambda: mg.func.grad(f)(x))
    assert g.requires_grad  # (torch.func.grad's result has a grad_fn too)
    xx = x.detach().requires_grad_(True)
    recorded_peak, recorded_held, (g2,) = _peak(lambda: mg.grad(f(xx), [xx], create_graph=True))
    assert (predicted, peak, held) == (144, 676, 676) == (predicted, recorded_peak, recorded_held)
    np.testing.assert_array_equal(g.detach().numpy(), g2.detach().numpy())
    del g, g2
    plain_peak, plain_held, _ = _peak(lambda: mg.grad(f(xx), [xx]))
    assert (plain_peak, plain_held) == (predicted, 0)
