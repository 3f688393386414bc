"""Regenerate ``tests/data/torch_float16_accumulation.json``: torch 2.13's float16 ``cumsum`` and vector
norms, which accumulate in float32 (PyTorch's accumulate type for half) and round the result to float16:
a long running sum of ones, a prefix beyond 65504 that comes back in range, the 2-, 3-, 1- and
inf-norms and the Frobenius norm of entries whose squares overflow float16, with gradients.

    python tests/data/make_torch_float16_accumulation.py     # needs torch; the tests do not

Read by ``tests/test_float16_accumulation.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch

OUT = Path(__file__).with_name("torch_float16_accumulation.json")
H = torch.float16


def _list(t: torch.Tensor) -> list:
    return [str(v) if math.isinf(v) else v for v in t.detach().double().reshape(-1).tolist()]


def main() -> None:
    out = {}
    ones = torch.ones(5000, dtype=H, requires_grad=True)
    c = ones.cumsum(0)
    c.sum().backward()
    out["cumsum ones"] = {"last": _list(c[-3:]), "grad_first": _list(ones.grad[:3])}
    swing = torch.tensor([60000.0, 10000.0, -20000.0, 1.0], dtype=H)
    out["cumsum swing"] = {"values": _list(swing.cumsum(0))}
    rows = torch.full((2, 3000), 0.5, dtype=H)
    out["cumsum rows dim 1"] = {"last": _list(rows.cumsum(1)[:, -1])}
    big = torch.tensor([300.0, -300.0, 300.0, 300.0], dtype=H, requires_grad=True)
    for name, fn in {"norm": lambda t: t.norm(), "vector_norm 3": lambda t: torch.linalg.vector_norm(t, 3),
                     "vector_norm 0.5": lambda t: torch.linalg.vector_norm(t, 0.5),
                     "vector_norm 1": lambda t: torch.linalg.vector_norm(t, 1),
                     "vector_norm inf": lambda t: torch.linalg.vector_norm(t, float("inf")),
                     "matrix_norm fro": lambda t: torch.linalg.matrix_norm(t.reshape(2, 2))}.items():
        big.grad = None
        n = fn(big)
        n.backward()
        out[name] = {"value": _list(n), "grad": _list(big.grad)}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
