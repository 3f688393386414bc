"""Regenerate ``tests/data/torch_elu_tails.json``: torch 2.13's ``elu``, ``celu`` and ``selu`` on their
exponential side far from 0 (x = -10 ... -100, where ``exp(x) - 1`` is -1 to within float32's or
float64's rounding), with the gradient of the sum and the forward-mode derivative along a tangent of
ones, in float32 and float64.  PyTorch's derivative there is ``alpha * exp(x)`` itself, not read off
the output (``out + alpha`` cancels to 0).

    python tests/data/make_torch_elu_tails.py     # needs torch; the tests do not

Read by ``tests/test_elu_gradient_tails.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
import torch.func
import torch.nn.functional as F

OUT = Path(__file__).with_name("torch_elu_tails.json")
POINTS = [-1e-3, -0.5, -3.0, -10.0, -17.0, -20.0, -37.0, -40.0, -88.0, -100.0, -700.0, 2.0]
CALLS = {"elu": (F.elu, {}), "elu_alpha0.5": (F.elu, {"alpha": 0.5}), "celu_alpha2": (F.celu, {"alpha": 2.0}),
         "selu": (F.selu, {})}


def main() -> None:
    out = {"points": POINTS}
    for name, (fn, kw) in CALLS.items():
        for dtype in ("float32", "float64"):
            x = torch.tensor(POINTS, dtype=getattr(torch, dtype), requires_grad=True)
            y = fn(x, **kw)
            y.sum().backward()
            _, tangent = torch.func.jvp(lambda t, fn=fn, kw=kw: fn(t, **kw), (x.detach(),), (torch.ones_like(x),))
            out[f"{name}/{dtype}"] = {"value": y.detach().tolist(), "grad": x.grad.tolist(),
                                      "jvp": tangent.tolist()}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
