"""Regenerate ``tests/data/torch_float16_affine_norms.npz``: torch 2.13's float16 ``layer_norm``
and ``group_norm`` with a weight and a bias -- computed in float, the scale and shift included,
and rounded once -- and the input's gradient of ``sum(out * G)``.

    python tests/data/make_torch_float16_affine_norms.py     # needs torch; the tests do not

Read by ``tests/test_float16_rounded_once.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("torch_float16_affine_norms.npz")
SCALES = (0.01, 1.0, 100.0)


def inputs(scale: float) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(3)
    x = (rng.normal(size=(8, 6, 5)) * scale).astype(np.float16)
    w6, b6, w5, b5 = (rng.normal(size=n).astype(np.float16) for n in (6, 6, 5, 5))
    return x, w6, b6, w5, b5, rng.normal(size=x.shape).astype(np.float16)


def calls(F, t):
    return {"layer_norm": lambda x, w6, b6, w5, b5: F.layer_norm(x, (5,), t(w5), t(b5)),
            "group_norm": lambda x, w6, b6, w5, b5: F.group_norm(x, 3, t(w6), t(b6))}


def main() -> None:
    import torch  # here, not at the top: the tests import this module's inputs without torch

    out = {}
    for scale in SCALES:
        x, w6, b6, w5, b5, g = inputs(scale)
        for name, call in calls(torch.nn.functional, torch.tensor).items():
            tx = torch.tensor(x, requires_grad=True)
            y = call(tx, w6, b6, w5, b5)
            y.backward(torch.tensor(g))
            out[f"{name}|{scale}|value"], out[f"{name}|{scale}|grad"] = y.detach().numpy(), tx.grad.numpy()
    np.savez_compressed(OUT, **out)


if __name__ == "__main__":
    main()
