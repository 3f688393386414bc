"""Regenerate ``tests/data/torch_nan_matrix_inverse.json``: torch 2.13's ``linalg.inv`` and ``linalg.solve``
of a batch of 3x3 matrices, some holding a NaN (at a pivot, below one, in a triangular matrix), one
finite, with the gradients of ``sum(output * W)`` for a fixed ``W``: PyTorch's inverse and solution are
NaN throughout a matrix that holds a NaN (each entry depends on ``det(A)``), and so are its gradients,
while the finite matrix beside it keeps its finite answers.

    python tests/data/make_torch_nan_matrix_inverse.py     # needs torch; the tests do not

Read by ``tests/test_nan_matrix_inverse.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).with_name("torch_nan_matrix_inverse.json")
NAN = math.nan
A = [[[NAN, 1.0, 0.5], [2.0, 3.0, 1.0], [0.0, 1.0, 4.0]],  # OpenBLAS pivots around it: rows 2, 3 came out finite
     [[4.0, 1.0, 0.5], [2.0, 3.0, 1.0], [0.0, 1.0, 4.0]],  # finite: stays finite
     [[1.0, NAN, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]],  # triangular
     [[4.0, 1.0, 0.5], [NAN, 3.0, 1.0], [0.0, 1.0, 4.0]]]
B = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
W_INV = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [1.0, 3.0, -2.0]]
W_SOLVE = [[0.5, -1.0], [2.0, 1.5], [0.25, -0.75]]


def _json(t: torch.Tensor) -> list:
    """NaN as None (JSON has no NaN)."""
    rows = np.asarray(t.detach()).reshape(-1, t.shape[-1]).tolist()
    return [[None if math.isnan(v) else v for v in row] for row in rows]


def main() -> None:
    out = {"A": [[[None if math.isnan(v) else v for v in row] for row in m] for m in A], "B": B,
           "W_inv": W_INV, "W_solve": W_SOLVE}
    for dtype in ("float32", "float64"):
        dt = getattr(torch, dtype)
        a = torch.tensor(A, dtype=dt, requires_grad=True)
        inv = torch.linalg.inv(a)
        (inv * torch.tensor(W_INV, dtype=dt)).sum().backward()
        out[f"inv/{dtype}"] = {"value": _json(inv), "grad_A": _json(a.grad)}
        a = torch.tensor(A, dtype=dt, requires_grad=True)
        b = torch.tensor(B, dtype=dt, requires_grad=True)
        x = torch.linalg.solve(a, b)
        (x * torch.tensor(W_SOLVE, dtype=dt)).sum().backward()
        out[f"solve/{dtype}"] = {"value": _json(x), "grad_A": _json(a.grad), "grad_B": _json(b.grad)}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
