"""A checkpointed function that raises: the ledger, the statistics and the tape are left clean.

The function returned nothing, so no backward can come: what its segments kept for a replay goes
when the exception leaves ``checkpoint`` -- not when the garbage collector finds the reference cycle
of nodes and segments -- and ``statistics().active_checkpoints`` still counts the segments that are
alive (a segment that raised was never counted, so freeing it must not count one less).  A backward
through a value the function stashed before raising is a ``CheckpointError`` (PyTorch's replay would
run the function again, and raise again).  A nested checkpoint that raises inside a function that
catches it leaves the outer segment's gradients bitwise those of a run without checkpointing.
"""

from __future__ import annotations

import numpy as np
import pytest
from checkpoint_steps import collector_off  # noqa: F401 -- a fixture (tests/checkpoint_steps.py)

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the "strict" stand-in devices

SEAMS = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


class Boom(Exception):
    pass


def _raising(w, stash):
    def fn(t):
        h = (t @ w).tanh()
        stash.append(h)
        h = h.exp() * 3.0
        raise Boom("in the forward pass")
    return fn


RUNS = {
    "checkpoint": lambda fn, x: ck.checkpoint(fn, x),
    "save_matmuls": lambda fn, x: ck.remat(fn, ck.save_matmuls)(x),
    "offload_to_host": lambda fn, x: ck.remat(fn, ck.offload_to_host(ck.save_matmuls))(x),
    "nested": lambda fn, x: ck.checkpoint(lambda t: ck.checkpoint(fn, t) * 2.0, x),
}


@pytest.mark.usefixtures("collector_off")  # what is released must be released by the exception, not the collector
@pytest.mark.parametrize("device, dtype", SEAMS)
@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_raising_function_leaves_the_ledger_and_the_statistics_clean(run, device, dtype):
    w = mg.randn(8, 8, dtype=dtype, device=device, requires_grad=True)
    x = mg.randn(8, 8, dtype=dtype, device=device, requires_grad=True) * 2.0  # a value the tape holds
    alive = ck.checkpoint(lambda t: (t @ w).sin(), x)  # a segment still waiting for its backward
    active = ck.statistics().active_checkpoints  # (counting ``alive``)
    stash = []
    with mg.memory.track() as ledger:
        with pytest.raises(Boom):
            RUNS[run](_raising(w, stash), x)
        assert (ledger.live("saved"), ledger.live("host")) == (0, 0)
    assert ck.statistics().active_checkpoints == active
    with pytest.raises(ck.CheckpointError, match="raised Boom in its forward pass"):
        stash[0].sum().backward()
    alive.sum().backward()  # the other segment is untouched
    assert ck.statistics().active_checkpoints == active - 1


@pytest.mark.parametrize("device, dtype", SEAMS)
def test_a_nested_checkpoint_raising_inside_a_function_that_catches_it(device, dtype):
    def run(use_checkpoint):
        mg.manual_seed(0)
        w = mg.randn(6, 6, dtype=dtype, device=device, requires_grad=True)
        x = mg.randn(5, 6, dtype=dtype, device=device, requires_grad=True)

        def outer(t):
            try:
                (ck.checkpoint if use_checkpoint else (lambda f, a: f(a)))(_raising(w, []), t)
            except Boom:
                pass
            return mg.nn.functional.dropout((t @ w).tanh(), 0.3) @ w

        y = ck.checkpoint(outer, x) if use_checkpoint else outer(x)
        y.pow(2).sum().backward()
        return [mg.backend.to_host(t.grad._data) for t in (w, x)]

    for got, expected in zip(run(True), run(False)):
        assert np.array_equal(got, expected)
