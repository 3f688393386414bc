"""Regenerate ``tests/data/torch_complex_log1p.json``: torch 2.13's ``log1p`` of complex numbers near 0
(where NumPy's complex ``log1p`` rounds ``1 + z`` and loses the real part), on and near the circle
``|1 + z| = 1``, and far from 0, in complex64 and complex128, with the gradient of ``Re + Im``.

    python tests/data/make_torch_complex_log1p.py     # needs torch; the tests do not

Read by ``tests/test_complex_log1p.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).with_name("torch_complex_log1p.json")
POINTS = [1e-20 + 1e-20j, 1e-8 - 3e-8j, -1e-30 + 0j, 1e-30j, 3e-5 + 2e-4j, -0.2 + 0.3j, 0.45 - 0.1j,
          -0.5 + 0.1j, 0.7 + 0.7j, -3.0 + 4.0j, 1e10 - 1e10j, -2.0 + 0j, complex(-2.0, -0.0), complex(0.3, -0.0)]


def pairs(a) -> list:
    a = np.asarray(a)
    return np.stack([a.real, a.imag], axis=-1).tolist()


def main() -> None:
    out = {"points": pairs(np.array(POINTS))}
    for dtype in ("complex64", "complex128"):
        z = torch.tensor(np.array(POINTS), dtype=getattr(torch, dtype), requires_grad=True)
        w = torch.log1p(z)
        (w.real + w.imag).sum().backward()
        out[dtype] = {"value": pairs(w.detach().numpy()), "grad": pairs(z.grad.numpy())}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
