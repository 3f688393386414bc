"""Regenerate ``tests/data/torch_hardswish_extremes.json``: torch 2.13's ``F.hardswish`` at and
below -3 -- ``x * relu6(x + 3) / 6`` is ``x * 0`` there: -0.0, and NaN at -inf -- with the
gradient and forward-mode tangent (0 there), in float16, float32 and float64.

    python tests/data/make_torch_hardswish_extremes.py     # needs torch; the tests do not

Read by ``tests/test_hardswish_infinite_input.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

OUT = Path(__file__).with_name("torch_hardswish_extremes.json")
X = [-float("inf"), -1e30, -5.0, -3.0, -2.5, 0.0, 2.0, 3.0, float("inf")]


def _plain(t: torch.Tensor) -> list:
    return [repr(v) for v in t.double().tolist()]  # repr keeps -0.0, nan and inf


def main() -> None:
    out = {"x": X}
    for name in ("float16", "float32", "float64"):
        x = torch.tensor(X, dtype=getattr(torch, name), requires_grad=True)
        y = torch.nn.functional.hardswish(x)
        y.backward(torch.ones_like(y))
        _, tangent = torch.func.jvp(torch.nn.functional.hardswish, (x.detach(),), (torch.ones_like(x),))
        out[name] = {"value": _plain(y.detach()), "grad": _plain(x.grad), "tangent": _plain(tangent)}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
