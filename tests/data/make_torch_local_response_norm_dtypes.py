"""Regenerate ``tests/data/torch_local_response_norm_dtypes.npz``: PyTorch's ``F.local_response_norm``
of int64 input (pooled in integers, the rest in float32) and of float32 / float64 input, for 3-D,
4-D and 5-D tensors and a few window sizes.

    python tests/data/make_torch_local_response_norm_dtypes.py   # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("torch_local_response_norm_dtypes.npz")
SHAPES = {"3d": (2, 5, 4), "4d": (2, 5, 3, 2), "5d": (1, 6, 2, 2, 2)}
#: (size, alpha, beta, k): the defaults, and a large alpha so that the truncated integer mean shows
SETTINGS = {"defaults": (3, 1e-4, 0.75, 1.0), "wide": (4, 0.5, 0.6, 2.0), "one": (1, 0.3, 1.0, 1.0)}


def inputs() -> dict[str, np.ndarray]:
    """The inputs, by shape's name: integers in [-9, 9] (so squares do not wrap), as int64."""
    rng = np.random.default_rng(20261205)
    return {name: rng.integers(-9, 10, size=shape).astype(np.int64) for name, shape in SHAPES.items()}


def main() -> None:
    import torch
    import torch.nn.functional as F

    out = {}
    for shape_name, x in inputs().items():
        out[f"x_{shape_name}"] = x
        for setting, (size, alpha, beta, k) in SETTINGS.items():
            for dtype in ("int64", "float32", "float64"):
                t = torch.from_numpy(x.astype(dtype))
                y = F.local_response_norm(t, size, alpha=alpha, beta=beta, k=k)
                out[f"{shape_name}_{setting}_{dtype}"] = y.numpy()
    np.savez(OUT, **out)
    print(f"wrote {OUT} ({len(out)} arrays)")


if __name__ == "__main__":
    main()
