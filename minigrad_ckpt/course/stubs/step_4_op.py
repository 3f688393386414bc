"""Step 4: an op class with forward and backward.

In minigrad_ckpt every operation is one small class: ``forward`` computes the
output from arrays, ``backward`` turns the gradient of the output into one
gradient per input, side by side (``docs/ops.md``; ``Mul`` in
``minigrad_ckpt/ops/elementwise.py`` is ten lines).  The tape records which
op ran on which inputs; backward calls each op's ``backward`` in reverse
order (step 2).  Write the op ``MulExp``: ``out = x * exp(y)``, elementwise.

* ``forward(self, xp, x, y)`` gets arrays and returns the output array.  Use
  ``xp.exp``, not ``np.exp``: ``xp`` is the array namespace of the inputs'
  device (NumPy on the CPU, CuPy on a GPU) -- and, when a second derivative is
  wanted, the engine's own differentiable namespace (see below).
* ``backward(self, xp, g, out, x, y)`` gets the gradient ``g`` of the output
  and returns ``(gradient for x, gradient for y)``:
  ``d out / d x = exp(y)`` and ``d out / d y = x * exp(y) = out``.  Multiply
  each by ``g`` (the chain rule).  The inputs may have been broadcast (step 3):
  return the full-shape gradient; the engine sums it down to each input's shape.
* What backward reads is declared: ``save_inputs = True`` keeps ``x`` and
  ``y`` on the tape; ``save_output = True`` keeps ``out`` (otherwise it
  arrives as ``None``).  Declare what you read, so the engine keeps nothing
  else alive.
* Write ``backward`` with ``xp.<function>`` and operators only, and never write
  into ``g``, ``x``, ``y`` or ``out``: then the engine can run the same
  ``backward`` on Tensors and differentiate it again (second derivatives come
  for free).

Try it: ``apply(MulExp(), x, y)`` with ``x = mg.tensor([...], requires_grad=True)``.
Check with ``minigrad-ckpt course check 4``: forward against the formula,
backward against central differences (``gradcheck``), then the battery every
built-in op passes (``check_op``: second derivatives, float32, strided inputs,
no mutation, no aliasing) on inputs drawn by Hypothesis, and finally on a
GPU-like device (the strict stand-in device, whose arrays refuse ``np.``
functions as CuPy's do: there ``np.exp`` fails where ``xp.exp`` works).
"""

from __future__ import annotations

import minigrad_ckpt as mg
from minigrad_ckpt.ops import Op
from minigrad_ckpt.tape import apply


class MulExp(Op):
    """``x * exp(y)``, elementwise."""

    save_inputs = True
    save_output = False  # set True if backward reads out

    def forward(self, xp, x, y):
        raise NotImplementedError("step 4: the output x * exp(y)")

    def backward(self, xp, g, out, x, y):
        raise NotImplementedError("step 4: one gradient per input, each times g")


if __name__ == "__main__":
    x = mg.tensor([0.5, -1.0], requires_grad=True)
    y = mg.tensor([0.1, 2.0], requires_grad=True)
    apply(MulExp(), x, y).sum().backward()
    print(x.grad, y.grad)  # exp(y) and x * exp(y)
