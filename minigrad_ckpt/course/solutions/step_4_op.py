"""Step 4, a reference solution: the op MulExp, out = x * exp(y), with forward and backward."""

from __future__ import annotations

import minigrad_ckpt as mg
from minigrad_ckpt.ops import Op
from minigrad_ckpt.tape import apply


class MulExp(Op):
    """``x * exp(y)``, elementwise."""

    save_inputs = True
    save_output = True  # backward reads out: d out / d y is out itself

    def forward(self, xp, x, y):
        return x * xp.exp(y)

    def backward(self, xp, g, out, x, y):
        return g * xp.exp(y), g * out


if __name__ == "__main__":
    x = mg.tensor([0.5, -1.0], requires_grad=True)
    y = mg.tensor([0.1, 2.0], requires_grad=True)
    apply(MulExp(), x, y).sum().backward()
    print(x.grad, y.grad)  # exp(y) and x * exp(y)
