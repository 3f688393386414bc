"""A custom ``mg.autograd.Function`` that saves an intermediate, in a ``remat`` region whose policy
keeps the function's output.

Its backward reads a tensor its ``forward`` made that is neither an input nor an output, which
only running ``forward`` again rebuilds.  A policy that kept the node's output made the replay
take that output and skip the node, and its backward failed ("the saved intermediates were
dropped by mg.checkpoint and not rebuilt (internal error)"); ``plan_graph`` chose to keep it too.
Now the replay runs such a node whatever the policy says, and ``plan_graph`` never keeps it, so
its prediction is what the ledger measures.
"""

from __future__ import annotations

import numpy as np
import pytest
from checkpoint_custom_functions import NoisyScale, SinSavingCos  # tests/checkpoint_custom_functions.py

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.nn import functional as F


def make(function):
    mg.manual_seed(0)
    w1 = mg.randn(6, 6, dtype=mg.float64, requires_grad=True)
    w2 = mg.randn(6, 6, dtype=mg.float64, requires_grad=True)
    x = mg.randn(4, 6, dtype=mg.float64, requires_grad=True)

    def fn(t):
        h = F.dropout((t @ w1).tanh(), 0.25)
        return (function.apply(h) @ w2).sin()

    return fn, x, [x, w1, w2]


def step(function, wrap):
    fn, x, leaves = make(function)
    mg.manual_seed(1)
    with mg.memory.track() as ledger:
        wrap(fn)(x).sum().backward()
    return [t.grad.numpy() for t in leaves] + [mg.rand(2).numpy()], ledger.peak("saved")


POLICIES = {
    "save_everything": ck.save_everything,
    "keep_every_output": lambda node: True,
    "offload_everything": ck.offload_to_host(ck.save_everything),
}


@pytest.mark.parametrize("function", [SinSavingCos, NoisyScale])
@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_a_policy_keeping_the_output_still_replays_the_function(function, policy):
    expected, _ = step(function, lambda f: f)
    got, _ = step(function, lambda f: ck.remat(f, POLICIES[policy]))
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("function", [SinSavingCos, NoisyScale])
def test_plan_graph_does_not_keep_the_function_and_predicts_the_peak(function):
    expected, _ = step(function, lambda f: f)
    fn, x, _ = make(function)
    mg.manual_seed(1)
    plan = ck.plan_graph(fn, x, budget_bytes=10**9)
    assert "SinSavingCosBackward" not in [plan.ops[p] for p in plan.keep_positions]
    assert "NoisyScaleBackward" not in [plan.ops[p] for p in plan.keep_positions]
    got, peak = step(function, lambda f: ck.remat(f, plan))
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
    assert peak == plan.predicted_peak_bytes
