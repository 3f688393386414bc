"""Regenerate ``tests/data/torch_float16_norms.npz``: torch 2.13's float16 ``layer_norm``, ``batch_norm``,
``group_norm`` and ``instance_norm`` (with and without the affine weight and bias) of activations of
magnitude ~100 (their squares overflow float16: PyTorch's half norms compute the statistics in
float32), with the gradient of ``sum(output * G)`` for a fixed ``G``.

    python tests/data/make_torch_float16_norms.py     # needs torch; the tests do not

Read by ``tests/test_float16_norms.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent))
from float16_norm_cases import CALLS  # noqa: E402

OUT = Path(__file__).with_name("torch_float16_norms.npz")
RNG = np.random.default_rng(0)
X = (RNG.standard_normal((4, 6, 50)) * 100).astype(np.float16)
G = RNG.standard_normal((4, 6, 50)).astype(np.float16)
W = (RNG.random(6) + 0.5).astype(np.float16)
B = RNG.standard_normal(6).astype(np.float16)


def main() -> None:
    out = {"x": X, "g": G, "w": W, "b": B}
    for name, fn in CALLS.items():
        x = torch.tensor(X, requires_grad=True)
        y = fn(F, x, torch.tensor(W), torch.tensor(B))
        (y * torch.tensor(G)).sum().backward()
        out[f"{name}/value"] = y.detach().numpy()
        out[f"{name}/grad"] = x.grad.numpy()
    np.savez_compressed(OUT, **out)


if __name__ == "__main__":
    main()
