"""Regenerate ``tests/data/torch_vector_norm_mixed.json``: torch 2.13's ``linalg.vector_norm`` of vectors that
mix huge and tiny entries (1e200 beside 1e-200: each tiny entry's ratio to the norm underflows), for
orders p = 0.25, 0.5, 0.9, 1.5, with the gradient of the norm, in float64 and float32.

    python tests/data/make_torch_vector_norm_mixed.py     # needs torch; the tests do not

Read by ``tests/test_vector_norm_mixed_magnitudes.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch

OUT = Path(__file__).with_name("torch_vector_norm_mixed.json")
VECTORS = {"float64": [[1e200, 1e-200, -1e-200, 1e200], [1e150, -3e-160, 2.0, 0.0]],
           "float32": [[1e30, 1e-30, -3.0, 1e-37], [1e20, -1e-20, 0.0, 5.0]]}
ORDERS = [0.25, 0.5, 0.9, 1.5]


def _json(values: list) -> list:
    return [str(v) if math.isinf(v) else v for v in values]


def main() -> None:
    out = {"vectors": VECTORS, "orders": ORDERS}
    for dtype, vectors in VECTORS.items():
        for i, v in enumerate(vectors):
            for p in ORDERS:
                x = torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True)
                n = torch.linalg.vector_norm(x, p)
                n.backward()
                out[f"{dtype}/{i}/{p}"] = {"norm": _json([n.item()])[0], "grad": _json(x.grad.tolist())}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
