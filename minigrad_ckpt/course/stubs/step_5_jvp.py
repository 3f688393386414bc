"""Step 5: forward mode -- an op's jvp.

Backward (reverse mode) answers "how does the loss change with each input?"
for one output: one pass gives a whole gradient.  Forward mode answers the
other question: "if the inputs move in the direction ``(tx, ty)``, how does the
output move?"  It carries a *tangent* beside each value, from the inputs to
the output, in the same pass as forward -- no tape, nothing to play back.
It is the better mode for few inputs and many outputs (``mg.func.jvp``,
``mg.func.jacfwd``; ``docs/forward-mode.md``).

Each op says how a tangent goes through it: ``jvp(self, xp, tangents, out,
*inputs)`` gets one tangent per input and returns the output's tangent,
``J @ tangents``.  For ``out = sin(x) * y``::

    t_out = cos(x) * y * tx  +  sin(x) * ty

A tangent may be ``None``: that input does not move (a constant, or an input
the direction leaves alone), so its term is left out.  ``add_tangents(a, b)``
(from ``minigrad_ckpt.ops``) adds the terms that are not ``None`` (and returns
``None`` when both are).  The same namespace rules as backward apply:
``xp.<function>`` and operators only.

``SinMul`` below has its forward and backward; write its ``jvp``.  Check with
``minigrad-ckpt course check 5``: against central differences, then against
backward through the dot-product test ``<u, J v> == <J^T u, v>`` (gradcheck
with ``modes=("rev", "fwd")``), then the op battery in both modes.
"""

from __future__ import annotations

import minigrad_ckpt as mg
from minigrad_ckpt.ops import Op, add_tangents
from minigrad_ckpt.tape import apply


class SinMul(Op):
    """``sin(x) * y``, elementwise."""

    save_inputs = True

    def forward(self, xp, x, y):
        return xp.sin(x) * y

    def backward(self, xp, g, out, x, y):
        return g * xp.cos(x) * y, g * xp.sin(x)

    def jvp(self, xp, tangents, out, x, y):
        tx, ty = tangents
        raise NotImplementedError("step 5: the output's tangent; a None tangent contributes nothing")


if __name__ == "__main__":
    x, y = mg.tensor([0.3, -1.2]), mg.tensor([1.5, -0.5])
    out, t_out = mg.func.jvp(lambda a, b: apply(SinMul(), a, b), (x, y), (mg.ones(2), mg.zeros(2)))
    print(out, t_out)  # t_out = cos(x) * y
    print(add_tangents(None, None))
