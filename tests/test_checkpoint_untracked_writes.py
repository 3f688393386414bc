"""A write off the tape into memory that a recorded in-place write went into, inside a checkpoint.

``y = a * 1; d = y.detach(); y.mul_(2.0); d.mul_(2.0); return y.sin().sum()`` in
``mg.checkpoint.checkpoint`` (or ``remat``): the recorded write into shared memory made ``y`` take the
history of ``2 y`` (a node whose output was made elsewhere) while its values stayed in the shared
memory, which the detached alias then doubled off the tape.  The segment watched only the memory
the nodes' outputs were *made* in, so the replay recomputed ``2 a`` for ``sin``'s input where the
forward pass had read ``4 a``: a silently wrong gradient (the engine without checkpoint, and torch
2.13 with or without, give ``2 cos(4 a)``).  Now the segment also learns where a recorded write
into shared memory puts a node's value (``Segment.now_shows``).

Expected answers: ``tests/data/make_torch_seams.py`` (torch 2.13 on the same programs).
"""

from __future__ import annotations

import numpy as np
import pytest
from seam_fixtures import DEVICES, programs, torch_answers

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import remat

UNTRACKED = programs("untracked_write_programs")
PROGRAMS, function, run = UNTRACKED.PROGRAMS, UNTRACKED.function, UNTRACKED.run
TORCH = torch_answers("untracked_writes")
WRAPS = {
    "checkpoint": lambda f, x: mg.checkpoint.checkpoint(f, x),
    "remat": lambda f, x: remat(f)(x),
    "nested checkpoints": lambda f, x: mg.checkpoint.checkpoint(lambda a: mg.checkpoint.checkpoint(f, a * 1), x),
}


@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("wrap", sorted(WRAPS))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_replay_sees_writes_off_the_tape(name, wrap, device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    tol = 1e-5 if dtype == mg.float32 else 1e-12
    np.testing.assert_allclose(run(mg, name, WRAPS[wrap], device, dtype), TORCH[name], rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_under_grad_and_hessian_transforms(name):
    """The same segments under ``mg.func.grad`` and ``hessian`` (forward mode over the replayed
    backward): the gradient is torch's, and the Hessian the one the function has without the
    checkpoint.  (Not central differences of the gradient: a write off the tape changes values that
    neither mode differentiates, so those two need not agree.)"""
    x = mg.tensor([0.3, -0.7, 1.2, 2.0], dtype=mg.float64)
    f = function(mg, name)

    def checkpointed(a):
        return mg.checkpoint.checkpoint(f, a)

    np.testing.assert_allclose(mg.func.grad(checkpointed)(x).numpy(), TORCH[name], rtol=1e-12, atol=1e-12)
    if name == "no_grad write after":
        return  # (forward mode carries this write's tangent; in a segment, which holds the memory's
        # version box, it is refused: "cannot carry its forward-mode tangent" -- a refusal, not a number)
    np.testing.assert_allclose(mg.func.hessian(checkpointed)(x).numpy(), mg.func.hessian(f)(x).numpy(),
                               rtol=1e-12, atol=1e-12)
