"""A checkpoint segment freed inside a ``mg.memory.track()`` it was not counted in.

A segment is a reference cycle with its nodes; one dropped without a backward -- the
profile ``plan_graph`` runs (with the ledger off), a forward pass made before tracking
began -- goes when the garbage collector finds it, and released its kept values then.
When a value it kept is one the tracked step holds too (a weight the function closes
over, the same input), the ledger's count of it dropped to zero in the middle of that
step: a measured peak below ``plan_graph``'s prediction, about one run in twenty-five of
a random-program search, depending on when the collector ran.  A segment releases only
in the tracking that counted its values now.
"""

from __future__ import annotations

import gc

import pytest
from checkpoint_steps import collector_off  # noqa: F401 -- a fixture (tests/checkpoint_steps.py)

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck


def setup():
    mg.manual_seed(0)
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
    z = mg.randn(4, 4, dtype=mg.float64)  # closed over, no parameter: a value the segment keeps
    return x, lambda t: ((t @ z).tanh() @ z).sin().sum()


def earlier_plan_graph(fn, x):
    ck.plan_graph(fn, x, budget_bytes=2**30)  # its profile's segment is garbage now


def earlier_forward_untracked(fn, x):
    ck.checkpoint(fn, x)  # dropped without a backward


def earlier_forward_in_another_tracking(fn, x):
    with mg.memory.track():
        ck.remat(fn, ck.save_matmuls)(x)


@pytest.mark.usefixtures("collector_off")
@pytest.mark.parametrize("earlier", [earlier_plan_graph, earlier_forward_untracked,
                                     earlier_forward_in_another_tracking])
@pytest.mark.parametrize("wrap", ["checkpoint", "plan_graph"])
def test_a_segment_from_before_freed_during_a_tracked_step(earlier, wrap):
    x, fn = setup()
    plan = ck.plan_graph(fn, x, budget_bytes=2**30)
    run = ck.remat(fn, plan) if wrap == "plan_graph" else lambda t: ck.checkpoint(fn, t)
    with mg.memory.track() as untouched:
        run(x).backward()
    expected, first = untouched.peak("saved"), x.grad.numpy().copy()
    earlier(fn, x)
    with mg.memory.track() as ledger:
        y = run(x)
        held = ledger.live("saved")
        gc.collect()  # the earlier segment goes now, in the middle of this step
        assert ledger.live("saved") == held
        y.backward()
    assert ledger.peak("saved") == expected
    assert ledger.live("saved") == 0
    assert (x.grad.numpy() == 2 * first).all()  # the same gradient again, accumulated
    if wrap == "plan_graph":
        assert expected == plan.predicted_peak_bytes
