"""Regenerate ``tests/data/torch_float16_alpha.json``: torch 2.13's float16 ``add``/``sub`` with ``alpha``
(the tensor and the number ``other``, out of place and in place), whose half kernel rounds ``alpha`` (and a
number ``other``) to float16 and computes ``x + alpha * other`` in float32, rounding once; and
``GradScaler("cpu").scale`` of float16 outputs, a float16 tensor times the float32 scale, rounded once.
64 elements: PyTorch's vectorized loop covers them all (its scalar loop, for a tail of fewer than 32
elements, rounds the product to float16 first).

    python tests/data/make_torch_float16_alpha.py     # needs torch; the tests do not

Read by ``tests/test_float16_alpha_and_scaled_loss.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("torch_float16_alpha.json")
ALPHAS = [7.3, 0.1, 1 / 3, -2.5]
SCALES = [65536.0, 7.3, 1e-5]


def inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(64) * 3).astype(np.float16)
    b = (rng.standard_normal(64) * 2).astype(np.float16)
    return a, b


def _bits(t) -> list[int]:
    return t.detach().numpy().view(np.uint16).tolist()


def main() -> None:
    import torch  # (here: the tests import inputs() with torch blocked)

    a, b = (torch.from_numpy(v) for v in inputs())
    out: dict = {"alpha": {}, "scale": {}}
    for alpha in ALPHAS:
        x, y = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
        s = torch.sub(x, y, alpha=alpha)
        s.backward(torch.ones_like(s))
        out["alpha"][repr(alpha)] = {
            "add": _bits(torch.add(a, b, alpha=alpha)), "sub": _bits(s),
            "add number": _bits(torch.add(a, 1.7, alpha=alpha)),
            "add_": _bits(a.clone().add_(b, alpha=alpha)), "sub_ number": _bits(a.clone().sub_(1.7, alpha=alpha)),
            "sub grad x": _bits(x.grad), "sub grad y": _bits(y.grad)}
    for init in SCALES:
        x = a.clone().requires_grad_(True)
        scaled = torch.amp.GradScaler("cpu", init_scale=init).scale(x)
        scaled.backward(torch.ones_like(scaled))
        out["scale"][repr(init)] = {"scaled": _bits(scaled), "grad": _bits(x.grad)}
    OUT.write_text(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
