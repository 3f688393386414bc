"""Regenerate ``tests/data/torch_number_over_tensor.npz``: torch 2.13's ``c / t`` for Python numbers
``c`` and float32/float64 tensors ``t`` (random magnitudes from 1e-30 to 1e30, zeros, infinities, NaN,
subnormals), which torch computes as ``t.reciprocal() * c`` -- two roundings, so a quarter of the values
differ in the last bit from one division -- and the first and second derivatives of ``(3.0 / t).sum()``.

    python tests/data/make_torch_number_over_tensor.py     # needs torch; the tests do not

Read by ``tests/test_number_over_tensor.py``, which imports the inputs and ``NUMBERS`` from here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("torch_number_over_tensor.npz")
NUMBERS = (3.0, 0.1, 7.0, -1.5, 1e10, 3)


def inputs(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(20261205)
    tiny = 1e-310 if dtype == "float64" else 1e-40
    special = np.array([3.0, 7.0, 0.1, 0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny, 1e-30, 1e30])
    spread = rng.standard_normal(1500) * 10.0 ** rng.integers(-30, 30, 1500)
    return np.concatenate([special, spread]).astype(dtype)


def moderate_inputs(dtype: str) -> np.ndarray:
    """The inputs whose second derivative ``6 / t**3`` is finite: what the derivatives are checked at."""
    x = inputs(dtype)
    return x[(np.abs(x) > 1e-8) & (np.abs(x) < 1e8)][:500]


def main() -> None:
    import torch

    out = {}
    for dtype in ("float32", "float64"):
        x = inputs(dtype)
        for k, c in enumerate(NUMBERS):
            out[f"{dtype}_{k}"] = (c / torch.from_numpy(x)).numpy()
        t = torch.from_numpy(moderate_inputs(dtype)).requires_grad_()
        (g,) = torch.autograd.grad((3.0 / t).sum(), t, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), t)
        out[f"{dtype}_grad"], out[f"{dtype}_grad2"] = g.detach().numpy(), gg.numpy()
    np.savez(OUT, **out)


if __name__ == "__main__":
    main()
