"""Make tests/data/torch_linspace_bits.npz: ``torch.linspace`` in float32 and float64, to the bit.

Run offline (torch is never a test dependency):  python tests/data/make_torch_linspace_bits.py
PyTorch's CPU kernel rounds each value once (a fused multiply-add) from the nearer end; NumPy's
linspace rounds twice from the start, and a last bit apart is a pixel position on the other side
of a floor (``F.affine_grid``'s identity grid, read by ``grid_sample``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

CASES = [(-1.0, 1.0, n) for n in (2, 3, 7, 13, 28, 64, 101, 1000)] + [
    (-3.3, 7.1, 7), (-3.3, 7.1, 29), (0.0, 1.0, 11), (5.0, -2.0, 17), (1e-3, 1e5, 33), (-1e30, 3e29, 9),
    (0.1, 0.1, 5), (2.5, 2.5, 1), (0.0, 1.0, 0), (0.0, float("inf"), 5)]


def main() -> None:
    out = {"cases": np.array(CASES, dtype=np.float64)}
    for dtype in (torch.float32, torch.float64):
        for i, (start, end, steps) in enumerate(CASES):
            out[f"{str(dtype)[6:]}|{i}"] = torch.linspace(start, end, int(steps), dtype=dtype).numpy()
    path = Path(__file__).with_name("torch_linspace_bits.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
