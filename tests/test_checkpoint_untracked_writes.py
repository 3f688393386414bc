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

import warnings

import numpy as np
import pytest
from seam_fixtures import DEVICES, programs, torch_answers

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
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


def _conv_viewed_then_written(how):
    import minigrad_ckpt.nn.functional as F

    def fn(x, w):
        h = F.conv2d(x, w)
        h.view(2, -1)  # lays the channel-major result out row-major: the tensor holds a new array
        if how == "no_grad":
            with mg.no_grad():
                h.mul_(2)
        elif how == ".data":
            h.data.mul_(2)
        else:
            h.detach().mul_(2)
        return (h * h).sum()
    return fn


def _conv_viewed_under_no_grad(x, w):
    import minigrad_ckpt.nn.functional as F

    h = F.conv2d(x, w)
    with mg.no_grad():
        h.view(2, -1)
    return (h ** 2).sum()


_WRAPS = {"checkpoint": lambda f: lambda *a: ck.checkpoint(f, *a),
          "save_everything": lambda f: remat(f, ck.save_everything),
          "save_nothing": lambda f: remat(f, ck.save_nothing),
          "save_matmuls": lambda f: remat(f, ck.save_matmuls)}


def _gradients_plain_and_wrapped(fn, wrap, device):
    found = []
    for run in (lambda f: f, _WRAPS[wrap]):
        mg.manual_seed(0)
        x = mg.randn(2, 3, 5, 5, dtype=mg.float64, device=device, requires_grad=True)
        w = mg.randn(4, 3, 3, 3, dtype=mg.float64, device=device, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run(fn)(x, w).backward()
        found.append([mg.backend.to_host(t.grad._data).copy() for t in (x, w)])
    return found


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("how", ["no_grad", ".data", "detach"])
@pytest.mark.parametrize("wrap", ["checkpoint", "save_everything", "save_nothing"])
def test_a_write_into_a_result_laid_out_anew_is_seen_by_the_replay(wrap, how, device):
    """``conv2d(x, w).view(...)`` gives the result row-major memory of its own; a write into it off
    the tape was not seen by the segment (its write guard knew the old memory), so the replay handed
    ``h * h`` the value from before the write: gradients silently wrong."""
    plain, wrapped = _gradients_plain_and_wrapped(_conv_viewed_then_written(how), wrap, device)
    for got, want in zip(wrapped, plain):
        assert np.array_equal(got, want)


@pytest.mark.parametrize("wrap", ["checkpoint", "save_everything", "save_matmuls"])
def test_a_result_laid_out_anew_under_no_grad_stays_alive(wrap):
    """The same layout change under ``no_grad``, the result returned: its node counted as dead (the
    memory the segment watched had died), and the backward through it failed."""
    plain, wrapped = _gradients_plain_and_wrapped(_conv_viewed_under_no_grad, wrap, "cpu")
    for got, want in zip(wrapped, plain):
        assert np.array_equal(got, want)
