"""``mg.backward_steps`` hands out the pass's own gradient arrays (no copies), documented as
read-only views; they were writable, and ``step.grad_output.mul_(0)`` inside the loop changed what
the pass sent on: the leaves' ``.grad`` came out zero, silently.  Each is a read-only view now
where the backend can mark one (NumPy's), so an in-place write raises and the pass stays what
``backward()`` computes.  (CuPy's arrays, and the strict stand-in device that follows its rules,
have no read-only flag: there the docstring says to copy.)"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint


def _loss(dtype: str, checkpointed: bool) -> tuple[mg.Tensor, mg.Tensor]:
    x = mg.tensor(np.array([0.5, -1.0, 2.0], dtype=dtype), requires_grad=True)
    w = mg.tensor(np.array([1.5, 0.25, -0.5], dtype=dtype))

    def block(t):
        return mg.tanh(t * w) * t

    h = checkpoint(block, x) if checkpointed else block(x)
    return (h * h + x).sum(), x


@pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")
@pytest.mark.parametrize("checkpointed", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_writing_into_a_steps_gradient_is_refused_and_changes_nothing(dtype, checkpointed):
    loss, x = _loss(dtype, checkpointed)
    writes = 0
    for step in mg.backward_steps(loss):
        for g in (step.grad_output, *step.grad_inputs, *(g for _, g in step.accumulated)):
            if g is None:
                continue
            with pytest.raises((ValueError, RuntimeError)):
                g.mul_(0.0)
            writes += 1
    assert writes > 5
    ref_loss, ref_x = _loss(dtype, checkpointed)
    ref_loss.backward()
    assert x.grad.numpy().tobytes() == ref_x.grad.numpy().tobytes()


def test_the_gradients_still_read_and_compute():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    steps = list(mg.backward_steps((mg.tanh(x) * x).sum()))
    g = steps[-1].grad_inputs[0]
    assert (g * 2).numpy().tolist() == [v * 2 for v in g.numpy().tolist()]
    assert g.clone().mul_(0.0).numpy().tolist() == [0.0, 0.0]  # a copy can be written
