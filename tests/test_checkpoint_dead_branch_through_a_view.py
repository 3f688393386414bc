"""A branch a checkpointed function computes and drops goes when the function returns -- also
where its first op is a view of an input (``x.t()``, ``x[0]``, ``x.reshape(...)``).

The segment told a node's output dead by its memory; a view's memory is what it views -- here the
caller's input, alive -- so the view node counted as alive, and with it the input the segment kept
for it: held by the ledger until backward, on top of what the run without checkpointing holds
(which lets the branch go with its tensors).  A view's tensor now tells whether it is alive.
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

VIEWS = {
    "t": lambda t: t.t(),
    "row": lambda t: t[1:],
    "reshape": lambda t: t.reshape(2, 8).reshape(4, 4),
    "unsqueeze": lambda t: t.unsqueeze(0)[0],
    "expand": lambda t: t[:1].expand(4, 4),
}

# what each keeps after the forward pass, in arrays of the inputs' size: a segment keeps ``y`` (the
# matmul reads it), a policy that keeps the matmul's output that too (it keeps the tanh's output,
# which the tanh saves anyway: ``save_everything``, the matmul's too) -- never the dead branch's ``x``
KEPT = {"checkpoint": 1, "save_matmuls": 2, "save_everything": 2, "checkpoint_in_remat": 1}

WRAPS = {
    "plain": lambda fn: fn,
    "checkpoint": lambda fn: (lambda *a: ck.checkpoint(fn, *a)),
    "save_matmuls": lambda fn: ck.remat(fn, ck.save_matmuls),
    "save_everything": lambda fn: ck.remat(fn, ck.save_everything),
    "checkpoint_in_remat": lambda fn: ck.remat(lambda *a: ck.checkpoint(fn, *a), ck.save_matmuls),
}


def step(view, wrap, device, dtype):
    """``(bytes held after the forward pass, peak, gradients)`` of a function with a dead branch
    reading its input ``x`` through ``view``."""
    def fn(x, y, w):
        _ = mg.maximum(view(x), y[: view(x).shape[0]] @ w)  # nothing returned depends on it
        return (y @ w).tanh()

    rng = np.random.RandomState(0)
    leaves = [mg.tensor(rng.randn(4, 4), dtype=dtype, device=device, requires_grad=True) for _ in range(3)]
    x, y = leaves[0] * 1.0, leaves[1] * 1.0  # (not leaves: the ledger counts what the tape keeps of them)
    gc.collect()
    gc.disable()  # (what is let go dies now, not when the collector runs)
    try:
        with warnings.catch_warnings(), mg.memory.track() as ledger:
            warnings.simplefilter("ignore", ck.CheckpointCostWarning)
            out = WRAPS[wrap](fn)(x, y, leaves[2])
            held = ledger.live("saved")
            out.sum().backward()
    finally:
        gc.enable()
    return held, ledger.peak("saved"), [None if t.grad is None else t.grad.cpu().numpy() for t in leaves]


@pytest.mark.parametrize("device,dtype", DEVICES)
@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("wrap", sorted(set(WRAPS) - {"plain"}))
def test_a_dead_branch_through_a_view_of_an_input_is_let_go_when_the_function_returns(wrap, view, device, dtype):
    plain_held, plain_peak, plain_grads = step(VIEWS[view], "plain", device, dtype)
    held, peak, grads = step(VIEWS[view], wrap, device, dtype)
    nbytes = 16 * np.dtype(dtype.name).itemsize
    assert plain_held == 2 * nbytes  # the matmul's input and the tanh's output
    assert held == KEPT[wrap] * nbytes, (held, nbytes)
    assert peak <= plain_peak, (peak, plain_peak)
    assert grads[0] is None is plain_grads[0]  # (x: only the dead branch read it)
    for a, b in zip(grads[1:], plain_grads[1:]):
        assert a.tobytes() == b.tobytes()
