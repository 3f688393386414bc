"""A ``GraphPlan`` works under the ``mg.func`` transforms when the function closes over parameters.

``plan_graph`` names the nodes whose outputs a region keeps by their recording position.  A
transform records more than the planned step: forward mode (``jvp``, ``jacfwd``, ``hessian``)
records the ops that push a tangent through an op reading a parameter that requires grad, and
``grad``, ``vjp`` and ``jacrev`` make the arguments require grad, so the ops that read only them
are recorded too.  Each shifted the positions, and ``remat(fn, plan)`` raised ``CheckpointError:
this GraphPlan was made for a function that records 5 ops; node #80 (Transpose) at position 1
does not match`` -- under ``jvp``, ``jacfwd`` and ``hessian`` always, under ``grad`` where the plan
was made with an argument that did not require grad.  A plan now names its nodes by what they read
(the arguments alone, or not) and their place among those so classed; the nodes it does not name
are recomputed.  The results are bitwise those of ``fn`` without ``remat``, and under ``grad`` the
ledger measures the predicted peak.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn

TRANSFORMS = {
    "grad": lambda f, x: mg.func.grad(f)(x),
    "vjp": lambda f, x: mg.func.vjp(f, x)[1](mg.ones((), device=x.device, dtype=x.dtype))[0],
    "jacrev": lambda f, x: mg.func.jacrev(f)(x),
    "jvp": lambda f, x: mg.func.jvp(f, (x,), (mg.ones_like(x),))[1],
    "jacfwd": lambda f, x: mg.func.jacfwd(f)(x),
    "hessian": lambda f, x: mg.func.hessian(f)(x),
}


def _layers(device):
    mg.manual_seed(0)
    lin1, lin2 = nn.Linear(4, 6).to(device), nn.Linear(6, 4).to(device)

    def fn(t):
        h = mg.tanh(lin1(t * 2.0))
        return (mg.sin(lin2(h)) * h.sum(-1, keepdim=True)).sum()

    return fn


def _host(t):
    return mg.backend.to_host(t._data)


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("planned_with", ["an input that requires grad", "a plain input"])
def test_a_graph_plan_runs_under_every_transform_bitwise(transform, device, planned_with):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    fn = _layers(device)
    x = mg.randn(3, 4, device=device)
    planned = x.detach().requires_grad_() if planned_with.startswith("an input") else x
    plan = ck.plan_graph(fn, planned, budget_bytes=10**6)
    assert plan.keep_positions and len(plan.keep_positions) < len(plan.ops)  # some kept, some recomputed
    want = TRANSFORMS[transform](fn, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        got = TRANSFORMS[transform](ck.remat(fn, plan), x)
    np.testing.assert_array_equal(_host(got), _host(want))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("weights", ["parameters", "constants"])
def test_under_grad_the_ledger_measures_the_predicted_peak(dtype, weights):
    """A function of its argument alone: ``grad``'s ledger is the plan's prediction.  One closing
    over parameters: ``grad`` records its backward (its result keeps a history that reaches them),
    whose saved values the ledger counts too -- as it does without ``remat``."""
    mg.manual_seed(0)
    w1 = mg.randn(8, 16, dtype=dtype, requires_grad=weights == "parameters")
    w2 = mg.randn(16, 8, dtype=dtype, requires_grad=weights == "parameters")

    def fn(t):
        h = mg.sin((t * 2.0) @ w1)
        return mg.sin(h @ w2).sum()

    x = mg.randn(4, 8, dtype=dtype)
    plan = ck.plan_graph(fn, x.detach().requires_grad_(), budget_bytes=10**6)
    with mg.memory.track() as plain:
        want = mg.func.grad(fn)(x)
    with mg.memory.track() as ledger:
        got = mg.func.grad(ck.remat(fn, plan))(x)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert ledger.peak("saved") == plain.peak("saved")
    if weights == "constants":
        assert ledger.peak("saved") == plan.predicted_peak_bytes
    step = x.detach().requires_grad_()
    with mg.memory.track() as ledger:
        ck.remat(fn, plan)(step).backward()
    assert ledger.peak("saved") == plan.predicted_peak_bytes


def test_inside_a_checkpoint_and_nested_transforms():
    fn = _layers("cpu")
    x = mg.randn(3, 4)
    plan = ck.plan_graph(fn, x, budget_bytes=10**6)
    want = mg.func.grad(lambda t: mg.func.grad(fn)(t).sum())(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        got = mg.func.grad(lambda t: mg.func.grad(lambda u: ck.checkpoint(ck.remat(fn, plan), u))(t).sum())(x)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_plan_for_another_function_is_still_refused_under_a_transform():
    fn = _layers("cpu")
    x = mg.randn(3, 4)
    plan = ck.plan_graph(fn, x, budget_bytes=10**6)
    lin = nn.Linear(4, 4)
    with pytest.raises(ck.CheckpointError, match="plan again"):
        mg.func.jvp(ck.remat(lambda t: mg.exp(lin(t)).sum(), plan), (x,), (mg.ones_like(x),))
