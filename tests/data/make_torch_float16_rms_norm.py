"""Regenerate ``tests/data/torch_float16_rms_norm.npz``: torch 2.13's ``F.rms_norm`` of float16
input -- computed in float32 and rounded once, with float32's epsilon when ``eps`` is None -- and
the gradients of ``sum(out * G)`` with respect to the input and the weight.

    python tests/data/make_torch_float16_rms_norm.py     # needs torch; the tests do not

Read by ``tests/test_float16_rms_norm.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("torch_float16_rms_norm.npz")
# name -> (scale of the rows, eps, with a weight); rows of 16 drawn from a seeded normal, and a
# row holding 60000 (its square overflows float16)
CASES = {"small": (1e-2, None, False), "small_weight": (1e-2, None, True), "unit": (3.0, None, True),
         "tiny_eps": (1e-4, 1e-5, False), "large": (300.0, None, True), "large_eps": (300.0, 1e-6, False)}


def inputs(scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    x = (rng.normal(size=(6, 16)) * scale).astype(np.float16)
    x[-1, 3] = 60000.0
    w = rng.normal(size=16).astype(np.float16)
    g = np.linspace(0.5, 1.5, x.size).reshape(x.shape).astype(np.float16)
    return x, w, g


def main() -> None:
    import torch  # here, not at the top: the tests import this module's inputs without torch

    out = {}
    for name, (scale, eps, weighted) in CASES.items():
        x, w, g = inputs(scale)
        tx = torch.tensor(x, requires_grad=True)
        tw = torch.tensor(w, requires_grad=True) if weighted else None
        y = torch.nn.functional.rms_norm(tx, (16,), tw, eps)
        y.backward(torch.tensor(g))
        out[f"{name}|value"] = y.detach().numpy()
        out[f"{name}|grad"] = tx.grad.numpy()
        if weighted:
            out[f"{name}|weight_grad"] = tw.grad.numpy()
    np.savez_compressed(OUT, **out)


if __name__ == "__main__":
    main()
