"""Regenerate ``tests/data/torch_float16_softmax.npz``: torch 2.13's float16 ``softmax`` -- its
CPU kernels, forward and backward, compute in float and round once -- over the last dim and
dim 0, and the gradient of ``sum(out * G)`` for a drawn ``G``.

    python tests/data/make_torch_float16_softmax.py     # needs torch; the tests do not

Read by ``tests/test_float16_softmax.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("torch_float16_softmax.npz")
CASES = {"last_small": (0.3, -1), "last_unit": (3.0, -1), "last_wide": (30.0, -1), "first_unit": (3.0, 0)}


def inputs(scale: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    return (rng.normal(size=(24, 40)) * scale).astype(np.float16), rng.normal(size=(24, 40)).astype(np.float16)


def main() -> None:
    import torch  # here, not at the top: the tests import this module's inputs without torch

    out = {}
    for name, (scale, dim) in CASES.items():
        x, g = inputs(scale)
        tx = torch.tensor(x, requires_grad=True)
        y = torch.softmax(tx, dim)
        y.backward(torch.tensor(g))
        out[f"{name}|value"], out[f"{name}|grad"] = y.detach().numpy(), tx.grad.numpy()
    np.savez_compressed(OUT, **out)


if __name__ == "__main__":
    main()
