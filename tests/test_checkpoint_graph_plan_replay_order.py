"""``plan_graph``'s prediction follows the order in which backward replays the segments.

The backward pass takes nodes newest first, and a segment replays when the pass reaches one of its
own nodes.  A checkpoint nested in a ``remat`` region that reads only what the region keeps (its
inputs, constants) replays on its own; where the function returns its result beside another value
(``return h.abs(), checkpoint(inner, t)``), its nodes are the newest, so its replay and backward come
-- and are over -- before the region replays.  The model had every region replay before the
checkpoints nested in it, holding the region's saved values under each nested replay: it predicted
more than the ledger measured (384 bytes against 256 for a 4x4 float64 region), and
``InfeasibleBudgetError`` named that larger figure as the smallest feasible budget, refusing budgets
the step fits.  Found by random programs (Hypothesis) comparing the ledger's peak with the plan's.
"""

from __future__ import annotations

import importlib
import itertools
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

remat_module = importlib.import_module("minigrad_ckpt.checkpoint.remat")  # ck.remat is the function
SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def functions(w, nest):
    """Functions returning a nested checkpoint's result beside the region's own values (``nest`` = a
    plain call gives the same functions without checkpoints)."""
    def inner(a):
        return (a @ w).sin()

    def beside(t):  # the nested checkpoint reads only the region's input
        h = nest(inner, t)
        return h.abs(), nest(inner, t)

    def beside_the_region(t):
        return mg.tanh(t @ w).exp(), nest(inner, t)

    def two_deep(t):  # inside a nested checkpoint, one that reads only its input, returned beside it
        return (t @ w).tanh(), *nest(lambda a: ((a @ w).exp(), nest(inner, a)), t)

    def after_one_that_reads_the_region(t):
        h = mg.tanh(t @ w)
        return nest(inner, h) * h, nest(inner, t)

    return {"beside": beside, "beside_the_region": beside_the_region, "two_deep": two_deep,
            "after_one_that_reads_the_region": after_one_that_reads_the_region}


NESTS = {"checkpoint": ck.checkpoint, "save_matmuls": lambda f, *a: ck.remat(f, ck.save_matmuls)(*a)}


def inputs(device, dtype):
    rng = np.random.RandomState(0)
    x = mg.tensor(rng.randn(4, 4), dtype=dtype, device=device, requires_grad=True)
    return x, mg.tensor(rng.randn(4, 4), dtype=dtype, device=device, requires_grad=True)


def step(fn, x, w):
    """Backward from the sum of ``fn(x)``'s results: ``(peak saved bytes, [x.grad, w.grad] on the host)``."""
    x.grad = w.grad = None
    with warnings.catch_warnings(), mg.memory.track() as ledger:
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        sum(y.sum() for y in fn(x)).backward()
    assert ledger.live("saved") == 0
    return ledger.peak("saved"), [mg.backend.to_host(t.grad._data).copy() for t in (x, w)]


@pytest.mark.parametrize("nest", list(NESTS))
@pytest.mark.parametrize("name", ["beside", "beside_the_region", "two_deep", "after_one_that_reads_the_region"])
def test_the_prediction_of_every_kept_set_is_measured(name, nest):
    x, w = inputs("cpu", mg.float64)
    fn = functions(w, NESTS[nest])[name]
    _, expected = step(functions(w, lambda f, *a: f(*a))[name], x, w)
    model = remat_module._profile(fn, (x,), {})
    positions = [i for i in range(model.n) if model.position[i] is not None]
    peaks = set()
    for r in range(len(positions) + 1):
        for kept in itertools.combinations(positions, r):
            policy = remat_module.GraphPlan(frozenset(model.position[i] for i in kept), model.ops, 0, 0.0)
            peak, grads = step(ck.remat(fn, policy), x, w)
            assert peak == model.peak(set(kept)), kept
            assert all(np.array_equal(g, e) for g, e in zip(grads, expected))
            peaks.add(peak)
    with pytest.raises(ck.InfeasibleBudgetError) as info:
        ck.plan_graph(fn, x, budget_bytes=min(peaks) - 1)
    assert info.value.smallest_feasible_bytes == min(peaks)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_the_smallest_budget_is_what_the_step_holds_on_every_device(device, dtype):
    x, w = inputs(device, dtype)
    fn = functions(w, ck.checkpoint)["beside"]
    _, expected = step(functions(w, lambda f, *a: f(*a))["beside"], x, w)
    with pytest.raises(ck.InfeasibleBudgetError) as info:
        ck.plan_graph(fn, x, budget_bytes=0)
    smallest = info.value.smallest_feasible_bytes
    # x requires grad (a leaf: not counted); the nested replay holds sin's input, a @ w, and is over
    # before the region's replay holds abs's input: one 4x4 array at a time (two were predicted)
    assert smallest == 16 * np.dtype(dtype.name).itemsize
    plan = ck.plan_graph(fn, x, budget_bytes=smallest)
    peak, grads = step(ck.remat(fn, plan), x, w)
    assert peak == plan.predicted_peak_bytes == smallest
    assert all(np.array_equal(g, e) for g, e in zip(grads, expected))
