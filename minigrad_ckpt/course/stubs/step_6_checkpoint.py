"""Step 6: checkpoint a segment by replay.

Backward needs values from forward (``tanh``'s output, a matmul's inputs),
so the tape keeps them alive until backward has used them: for a deep model
that *activation memory* is most of the memory.  Checkpointing trades time
for memory: run a segment of the model without recording it, keep only its
inputs, and in backward run the segment again -- this time recording -- and
backpropagate through the replay.  Same ops, same inputs: the same gradients,
bit for bit.  (minigrad_ckpt does this inside its tape, with a planner that
chooses the segments: ``docs/checkpointing.md``.)

Write it as one op whose attribute is the segment's function:

* ``Replay(fn=...)`` is an op.  ``forward(self, xp, *xs)`` runs
  ``self.fn`` on the input arrays wrapped as tensors (``mg.tensor(x)``) under
  ``mg.no_grad()`` -- nothing recorded, nothing kept -- and returns the output
  as an array (``.numpy()``).  It keeps only its inputs (``save_inputs =
  True``, ``save_output = False``).
* ``backward(self, xp, g, out, *xs)`` replays: under ``mg.enable_grad()``, wrap
  each saved input as a fresh tensor with ``requires_grad=True``, run
  ``self.fn`` again, and return ``mg.grad(output, inputs, g)`` as a tuple of
  arrays (one per input).
* ``checkpoint(fn, *inputs)`` returns ``apply(Replay(fn=fn), *inputs)``.
  Every tensor the segment differentiates must be one of ``inputs`` (pass a
  weight as an input, do not close over it): the op sends gradients only to
  its inputs.

(Not with the engine's own ``mg.checkpoint``: that is what you are writing.)

Check with ``minigrad-ckpt course check 6``: outputs and gradients are compared
bit for bit with the segment run plainly, and the engine's memory ledger
(``mg.memory.track()``) must see fewer bytes held after forward.
"""

from __future__ import annotations

from typing import Any

import minigrad_ckpt as mg
from minigrad_ckpt.ops import Op
from minigrad_ckpt.tape import apply  # noqa: F401  (checkpoint() will use it)


class Replay(Op):
    """Run ``fn`` without recording in forward; replay it, recording, in backward."""

    fn: Any
    save_inputs = True
    save_output = False

    def forward(self, xp, *xs):
        raise NotImplementedError("step 6: fn on the inputs, under mg.no_grad(), as an array")

    def backward(self, xp, g, out, *xs):
        raise NotImplementedError("step 6: replay fn with recording on, return one gradient per input")


def checkpoint(fn, *inputs):
    """``fn(*inputs)``, with the activations inside ``fn`` recomputed in backward instead of kept."""
    raise NotImplementedError("step 6: apply the Replay op")


if __name__ == "__main__":
    w = mg.tensor([[0.5, -0.2], [0.1, 0.3]], requires_grad=True)
    x = mg.tensor([[1.0, 2.0]], requires_grad=True)
    y = checkpoint(lambda h, w: mg.tanh(h @ w) @ w, x, w)
    y.sum().backward()
    print(w.grad, x.grad)
