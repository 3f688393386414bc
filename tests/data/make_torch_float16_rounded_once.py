"""Regenerate ``tests/data/torch_float16_rounded_once.npz``: torch 2.13's float16 ``rsqrt``,
``deg2rad`` and ``rad2deg`` -- its half kernels compute in float and round once -- on a grid.

    python tests/data/make_torch_float16_rounded_once.py     # needs torch; the tests do not

Read by ``tests/test_float16_rounded_once.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("torch_float16_rounded_once.npz")
NAMES = ("rsqrt", "deg2rad", "rad2deg")


def grid() -> np.ndarray:
    return np.concatenate([np.arange(0.01, 40.0, 0.061), [1e-4, 0.5, 1000.0, 60000.0]]).astype(np.float16)


def main() -> None:
    import torch  # here, not at the top: the tests import this module's inputs without torch

    x = torch.tensor(grid())
    np.savez_compressed(OUT, **{name: getattr(torch, name)(x).numpy() for name in NAMES})


if __name__ == "__main__":
    main()
