"""Regenerate ``tests/data/torch_top_level_nn.npz``: torch 2.13's outputs of ``top_level_nn_cases.py``'s
cases and the gradients of ``(output * seeded weights).sum()`` with respect to each float input.

    python tests/data/make_torch_top_level_nn.py        # needs torch; the tests do not
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from top_level_nn_cases import CASES, INPUTS  # noqa: E402

OUT = Path(__file__).with_name("torch_top_level_nn.npz")

if __name__ == "__main__":
    arrays = {}
    for name, case in CASES.items():
        t = {k: torch.tensor(v, requires_grad=True) for k, v in INPUTS.items()}
        out = case(torch, t)
        arrays[f"{name}/out"] = out.detach().numpy()
        if out.dtype.is_floating_point:
            weights = np.random.default_rng(len(name)).standard_normal(tuple(out.shape))
            (out * torch.tensor(weights)).sum().backward()
            for k, v in t.items():
                if v.grad is not None:
                    arrays[f"{name}/grad/{k}"] = v.grad.numpy()
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({len(arrays)} arrays)")
