"""A nested checkpoint that replays from a view of a parameter (``w.t()``, or a chain's first
layer transposing an input that requires grad) is handed that view by the replay around it, and
the ledger does not count it: a parameter's memory exists whatever the tape does, as the ledger
counts it nowhere else (nor in the forward pass, where the nested segment keeps the same view).

The hand-over counted it, so the measured peak was a parameter's bytes above ``simulate_peak``
and ``plan_graph``'s prediction (and above the run without checkpointing).
"""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest
from seam_fixtures import DEVICES

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the "strict" devices
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.checkpoint import Block, Plan

NESTED_PLANS = [
    Plan((Block(0, 2, True, blocks=(Block(0, 1, False), Block(1, 2, True))), Block(2, 3, False))),
    Plan((Block(0, 3, True, blocks=(Block(0, 1, False), Block(1, 3, True))),)),
    Plan((Block(0, 3, True, blocks=(Block(0, 1, False), Block(1, 2, True), Block(2, 3, False))),)),
]


def measured(run):
    gc.collect()
    gc.disable()  # (what is let go dies now, not when the collector runs)
    try:
        with warnings.catch_warnings(), mg.memory.track() as ledger:
            warnings.simplefilter("ignore", ck.CheckpointCostWarning)
            run().sum().backward()
    finally:
        gc.enable()
    return ledger.peak("saved")


@pytest.mark.parametrize("device,dtype", DEVICES)
@pytest.mark.parametrize("plan", NESTED_PLANS, ids=str)
def test_a_chain_whose_nested_block_starts_at_a_view_of_its_input_is_measured_at_its_prediction(plan, device,
                                                                                                 dtype):
    rng = np.random.RandomState(0)
    w = mg.tensor(rng.randn(4, 4), dtype=dtype, device=device, requires_grad=True)
    layers = [lambda t: t.t(), lambda t: (t @ w).sin(), lambda t: t.t()]
    x = mg.tensor(rng.randn(4, 4), dtype=dtype, device=device, requires_grad=True)  # a leaf: not counted
    profile = ck.profile_chain(layers, x)
    plain = measured(lambda: ck.run_plan(layers, Plan(tuple(Block(i, i + 1, False) for i in range(3))), x))
    grads = [x.grad.cpu().numpy(), w.grad.cpu().numpy()]
    x.grad = w.grad = None
    peak = measured(lambda: ck.run_plan(layers, plan, x))
    assert peak == ck.simulate_peak(profile, plan) <= plain
    for a, b in zip([x.grad.cpu().numpy(), w.grad.cpu().numpy()], grads):
        assert a.tobytes() == b.tobytes()


def checkpoint_of_a_parameter_view(x, w):
    return ck.checkpoint(lambda v: (v * x).sin(), w.t())


def checkpoints_nested_on_a_parameter_view(x, w):
    return ck.checkpoint(lambda v: ck.checkpoint(lambda u: (u * x).sin(), v.t()), w)


@pytest.mark.parametrize("device,dtype", DEVICES)
@pytest.mark.parametrize("fn", [checkpoint_of_a_parameter_view, checkpoints_nested_on_a_parameter_view],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("policy", ["save_nothing", "save_matmuls", "plan"])
def test_a_remat_region_around_a_checkpoint_of_a_parameter_view_is_measured_at_its_prediction(fn, policy, device,
                                                                                              dtype):
    rng = np.random.RandomState(0)
    w = mg.tensor(rng.randn(4, 4), dtype=dtype, device=device, requires_grad=True)
    x = mg.tensor(rng.randn(4, 4), dtype=dtype, device=device)
    plan = ck.plan_graph(fn, x, w, budget_bytes=10**6)
    plain = measured(lambda: fn(x, w))
    grad = w.grad.cpu().numpy()
    w.grad = None
    peak = measured(lambda: ck.remat(fn, plan if policy == "plan" else getattr(ck, policy))(x, w))
    # the product keeps x, the sine its input: a parameter's view counts nowhere
    assert peak == plan.predicted_peak_bytes == plain == 2 * 16 * np.dtype(dtype.name).itemsize
    assert w.grad.cpu().numpy().tobytes() == grad.tobytes()
