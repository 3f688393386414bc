"""Make tests/data/torch_identity_grid.npz: ``F.affine_grid`` of the identity map and
``F.grid_sample``'s gradients there, by PyTorch.

Run offline (torch is never a test dependency):  python tests/data/make_torch_identity_grid.py
The identity grid's points are pixel centres up to the last bit, and bilinear sampling's gradient
in the grid jumps there (one side's slope or the other's): the spatial transformer tutorial starts
every training run on it.  For each case: the grid (to the bit), and for a fixed input and upstream
gradient (``pattern``) the output and the gradients in the input and in the grid.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

SIZES = [(1, 2, 7, 5), (1, 1, 13, 11), (1, 1, 3, 4, 6)]
PADDING_MODES = ("zeros", "border", "reflection")


def pattern(shape: tuple[int, ...], phase: float) -> np.ndarray:
    """The input and the upstream gradient: fixed values the test makes the same way."""
    return np.sin(np.arange(int(np.prod(shape))) * 0.7 + phase).reshape(shape)


def main() -> None:
    out = {}
    for s, size in enumerate(SIZES):
        x = pattern(size, 0.0)
        k = len(size) - 2
        for dtype in (torch.float32, torch.float64):
            for ac in (False, True):
                theta = torch.eye(k, k + 1, dtype=dtype).expand(size[0], k, k + 1)
                grid = F.affine_grid(theta, size, align_corners=ac)
                key = f"{s}|{str(dtype)[6:]}|{int(ac)}"
                out[f"{key}|grid"] = grid.numpy()
                for mode in PADDING_MODES:
                    xt = torch.tensor(x, dtype=dtype, requires_grad=True)
                    gt = grid.clone().requires_grad_()
                    y = F.grid_sample(xt, gt, padding_mode=mode, align_corners=ac)
                    up = pattern(tuple(y.shape), 1.0)
                    (y * torch.tensor(up, dtype=dtype)).sum().backward()
                    out[f"{key}|{mode}|out"] = y.detach().numpy()
                    out[f"{key}|{mode}|grad_input"] = xt.grad.numpy()
                    out[f"{key}|{mode}|grad_grid"] = gt.grad.numpy()
    path = Path(__file__).with_name("torch_identity_grid.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
