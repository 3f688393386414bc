"""What a checkpointed function computed and dropped is not made again in backward.

``def f(t): (t @ w).exp(); return (t @ w).tanh()`` -- the exp and its matmul die with their tensor
in a run without checkpointing, and no backward can reach them.  The replay ran them anyway (four
ops where two are needed) and held their values beside the others': a peak twice the run without
checkpointing, where the docs promise never worse.  A value the function keeps somewhere (a list it
appends to) may still be backwarded through, and is replayed for it.  Gradients are bitwise those of
the run without checkpointing.  (A policy's kept output of such a value is let go as well, where
an op read it: its array, which the segment holds, is no sign of a tensor that may be backwarded.)
"""

from __future__ import annotations

import numpy as np
import pytest
from checkpoint_steps import collector_off, step  # noqa: F401 -- collector_off: a fixture (tests/checkpoint_steps.py)

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]

RUNS = {
    "checkpoint": lambda fn: lambda x: ck.checkpoint(fn, x),
    "nested": lambda fn: lambda x: ck.checkpoint(lambda t: ck.checkpoint(fn, t).sin(), x),
    "save_matmuls": lambda fn: ck.remat(fn, ck.save_matmuls),
}
PLAIN = {"checkpoint": lambda fn: fn, "nested": lambda fn: lambda x: fn(x).sin(), "save_matmuls": lambda fn: fn}


pytestmark = pytest.mark.usefixtures("collector_off")  # (tests/checkpoint_steps.py)


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_value_computed_and_dropped_is_not_replayed(run, device, dtype):
    mg.manual_seed(0)
    w = mg.randn(16, 16, dtype=dtype, device=device, requires_grad=True)
    x = mg.randn(8, 16, dtype=dtype, device=device, requires_grad=True)

    def f(t):
        (t @ w).exp().sum()  # computed and dropped
        return (t @ w).tanh()

    def without_the_dropped_value(t):
        return (t @ w).tanh()

    plain_peak, expected, _ = step(PLAIN[run](f), x, w)
    peak, grads, replayed = step(RUNS[run](f), x, w)
    # as if the function had not computed it: the same replay (the tanh, and the matmul before it
    # unless kept), the same peak -- no more than without checkpointing, but where a policy keeps
    # an output a run without does not save (save_matmuls: the matmul's)
    assert (peak, replayed) == step(RUNS[run](without_the_dropped_value), x, w)[::2]
    assert peak <= plain_peak or run == "save_matmuls"
    for got, want in zip(grads, expected):
        assert np.array_equal(got, want)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_value_the_function_keeps_is_replayed_for_its_backward(device, dtype):
    mg.manual_seed(0)
    w = mg.randn(16, 16, dtype=dtype, device=device, requires_grad=True)
    kept = []

    def f(t):
        kept.append((t @ w).exp())  # not returned, but alive: a backward may come through it
        return (t @ w).tanh()

    x = mg.randn(8, 16, dtype=dtype, device=device, requires_grad=True)
    found = []
    for run in (f, RUNS["checkpoint"](f)):
        kept.clear()
        x.grad = None
        y = run(x)
        (y.sum() + kept[0].sum()).backward()
        found.append(mg.backend.to_host(x.grad._data).copy())
    assert np.array_equal(found[0], found[1])


class _Output:
    """A result the engine cannot look into (not a tuple, list or dict)."""

    def __init__(self, y):
        self.y = y


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_plan_graph_of_a_function_returning_an_object_predicts_its_peak(device, dtype):
    mg.manual_seed(0)
    w = mg.randn(6, 6, dtype=dtype, device=device, requires_grad=True)
    x = mg.randn(4, 6, dtype=dtype, device=device, requires_grad=True)

    def f(t):
        (t @ w).exp()  # computed and dropped
        return _Output((t @ w).tanh())

    plan = ck.plan_graph(f, x, budget_bytes=10**6)
    peak, _, _ = step(lambda t: ck.remat(f, plan)(t).y, x, w)
    assert peak == plan.predicted_peak_bytes > 0


KEEPING = {  # policies that keep the dropped value's output: its last op reads nothing after it
    "save_everything": ck.save_everything,
    "save_names": ck.save_names("dropped", "h"),
    "callable": lambda node: node.op.name in ("Exp", "Tanh"),
}


@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("policy", sorted(KEEPING))
def test_a_kept_output_the_function_dropped_is_let_go(policy, device, dtype):
    """A policy keeps outputs from the forward pass, so their arrays outlive the tensors the
    function made: an output no op read and no one holds when the function returns (the last op
    of a dropped branch) had stayed kept until backward -- above the run without checkpointing."""
    mg.manual_seed(0)
    w = mg.randn(16, 16, dtype=dtype, device=device, requires_grad=True)
    x = mg.randn(8, 16, dtype=dtype, device=device, requires_grad=True)

    def f(t):
        ck.name((t @ w).exp(), "dropped")  # computed and dropped
        return ck.name((t @ w).tanh(), "h")

    def without_the_dropped_value(t):
        return ck.name((t @ w).tanh(), "h")

    run = ck.remat(f, KEEPING[policy])
    peak, grads, replayed = step(run, x, w)
    assert (peak, replayed) == step(ck.remat(without_the_dropped_value, KEEPING[policy]), x, w)[::2]
    with mg.memory.track() as ledger:
        y = run(x)
        held = ledger.live("saved")
        del y
    with mg.memory.track() as ledger:
        y = f(x)
        assert held <= ledger.live("saved")  # the tanh's output, as the run without checkpointing saves it
        del y
    _, expected, _ = step(f, x, w)
    for got, want in zip(grads, expected):
        assert np.array_equal(got, want)


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_kept_output_that_lives_on_stays_kept(device, dtype):
    """What a kept output's array says no more, who holds it does: the result written in place
    (the tensor took the add's history), a value stashed in a list, a view of a kept value that
    is itself dropped -- each is alive, kept, and backwarded through bitwise as without checkpointing."""
    mg.manual_seed(0)
    w = mg.randn(16, 16, dtype=dtype, device=device, requires_grad=True)
    x = mg.randn(8, 16, dtype=dtype, device=device, requires_grad=True)
    stash = []

    def f(t):
        h = (t @ w).tanh()
        stash.append((t @ w).exp())
        (h * 3).T  # a view of a value no one holds: both dropped
        h.add_(1)
        return h

    found = []
    for run in (f, ck.remat(f, ck.save_everything)):
        stash.clear()
        x.grad = w.grad = None
        with mg.memory.track() as ledger:
            y = run(x)
            (y.sum() + stash[0].sum()).backward()
            assert ledger.live("saved") == 0
        found.append([mg.backend.to_host(t.grad._data).copy() for t in (x, w)])
        assert ck.statistics().recomputed_ops == 0 or run is f
    for got, want in zip(*found):
        assert np.array_equal(got, want)
