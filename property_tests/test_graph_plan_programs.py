"""Random programs returning several values, with checkpoints nested in them, planned by ``plan_graph``.

A program is a drawn sequence of ops on a list of values that starts with the input: unary ops,
a matmul with a closed-over weight, products of two earlier values, views, and checkpoints and
``remat`` regions nested in the function -- reading the input (a value the region keeps) or a value
it computed.  The function returns its last one to three values; the step backpropagates from the
sum of their sums.  At a drawn budget between the smallest feasible one and the loosest plan's
peak, the plan's ``predicted_peak_bytes`` is what the ledger measures, within the budget, and the
gradients are bitwise those of the function run without ``remat``.  (Several results were where the
model went wrong: a nested checkpoint returned beside the region's values replays, and is over,
before the region replays -- the model had it the other way round and predicted too much.)
"""

from __future__ import annotations

import gc
import warnings

import numpy as np
from hypothesis import assume, example, given
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck

mg.manual_seed(0)
W = mg.randn(4, 4, dtype=mg.float64, requires_grad=True)
OPS = {
    "tanh": lambda u, v: u.tanh(),
    "abs": lambda u, v: u.abs(),
    "matmul": lambda u, v: u @ W,
    "mul": lambda u, v: u * v,
    "add": lambda u, v: u + v,
    "transpose": lambda u, v: u.T,
    "reshape": lambda u, v: u.T.reshape(16).reshape(4, 4),  # (a copy: the transpose is not contiguous)
    "checkpoint": lambda u, v: ck.checkpoint(lambda a: (a @ W).sin(), u),
    "remat_matmuls": lambda u, v: ck.remat(lambda a: (a @ W).exp().tanh(), ck.save_matmuls)(u),
}
step = st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 20), st.integers(0, 20))
programs = st.lists(step, min_size=1, max_size=7)


def build(program, n_results):
    def fn(x):
        values = [x]
        for op, i, j in program:
            values.append(OPS[op](values[i % len(values)], values[j % len(values)]))
        return tuple(values[1:][-n_results:])
    return fn


def run(fn):
    """Backward from the sum of ``fn(x)``'s results: the ledger's peak and the weight's gradient."""
    x = mg.tensor(np.linspace(-2.0, 2.0, 16).reshape(4, 4))
    W.grad = None
    gc.collect()
    gc.disable()  # (what is let go dies now, not when the collector runs)
    try:
        with warnings.catch_warnings(), mg.memory.track() as ledger:
            warnings.simplefilter("ignore", ck.CheckpointCostWarning)
            loss = sum(y.sum() for y in fn(x))
            if not loss.requires_grad:  # (no result reads the weight)
                return None, None
            loss.backward()
    finally:
        gc.enable()
    return ledger.peak("saved"), W.grad.numpy().copy()


@given(program=programs, n_results=st.integers(1, 3), fraction=st.floats(0, 1))
@example(program=[("checkpoint", 0, 0), ("abs", 1, 0), ("checkpoint", 0, 0)], n_results=2, fraction=0.0)
def test_a_graph_plan_of_several_results_is_measured_at_its_prediction(program, n_results, fraction):
    fn = build(program, n_results)
    x = mg.tensor(np.linspace(-2.0, 2.0, 16).reshape(4, 4))
    _, expected = run(fn)  # (the function as it is, without a region around it)
    assume(expected is not None)
    try:
        smallest = ck.plan_graph(fn, x, budget_bytes=0).predicted_peak_bytes
    except ck.InfeasibleBudgetError as e:
        smallest = e.smallest_feasible_bytes
    largest = ck.plan_graph(fn, x, budget_bytes=2**40).predicted_peak_bytes
    plan = ck.plan_graph(fn, x, budget_bytes=smallest + int(fraction * (largest - smallest)))
    peak, grads = run(ck.remat(fn, plan))
    assert peak == plan.predicted_peak_bytes <= plan.budget_bytes, plan.describe()
    assert grads.tobytes() == expected.tobytes()
