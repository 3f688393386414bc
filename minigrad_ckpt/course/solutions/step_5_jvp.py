"""Step 5, a reference solution: the jvp of SinMul, out = sin(x) * y."""

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
        return add_tangents(None if tx is None else xp.cos(x) * y * tx, None if ty is None else xp.sin(x) * ty)


if __name__ == "__main__":
    x, y = mg.tensor([0.3, -1.2]), mg.tensor([1.5, -0.5])
    out, t_out = mg.func.jvp(lambda a, b: apply(SinMul(), a, b), (x, y), (mg.ones(2), mg.zeros(2)))
    print(out, t_out)  # t_out = cos(x) * y
    print(add_tangents(None, None))
