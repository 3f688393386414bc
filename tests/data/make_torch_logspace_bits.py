"""Make tests/data/torch_logspace_bits.npz: ``torch.logspace`` in float16, float32, float64 and
integer dtypes, to the bit, and the cases it refuses.

Run offline (torch is never a test dependency):  python tests/data/make_torch_logspace_bits.py
PyTorch's CPU loop takes the ends in the dtype (an integer dtype truncates them), the step
``(end - start) / (steps - 1)`` in double, the exponent from the nearer end in double, and
``pow(base, exponent)`` in double rounded to the dtype (float16 by way of float).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch

DTYPES = ("float16", "float32", "float64", "int64", "int32", "int16", "int8", "uint8")
CASES = [(0.0, 1.0, 7, 10.0), (-2.5, 3.3, 13, 10.0), (0.1, 0.9, 5, 2.0), (-1.0, 1.0, 11, math.e),
         (1.5, -2.5, 9, 3.0), (0.0, 38.0, 39, 10.0), (2.7, 9.2, 5, 2.0), (-3.0, 3.0, 100, 10.0),
         (0.5, 2.0, 1, 10.0), (2.0, 2.0, 3, 10.0), (0.0, 1.0, 0, 10.0), (-4.0, 4.0, 2, 0.5),
         (-6.7, 4.1, 53, 3.7), (0.0, float("inf"), 4, 10.0)]


def main() -> None:
    out = {"cases": np.array(CASES, dtype=np.float64)}
    for dtype in DTYPES:
        for i, (start, end, steps, base) in enumerate(CASES):
            try:
                out[f"{dtype}|{i}"] = torch.logspace(start, end, int(steps), base=base,
                                                     dtype=getattr(torch, dtype)).numpy()
            except RuntimeError as refusal:  # an end outside an integer dtype's range
                out[f"{dtype}|{i}|error"] = np.array(str(refusal))
    path = Path(__file__).with_name("torch_logspace_bits.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
