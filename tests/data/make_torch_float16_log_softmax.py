"""Regenerate ``tests/data/torch_float16_log_softmax.npz``: torch 2.13's float16 ``log_softmax`` along a dim
other than the last (its float one rounded once) and its gradient (the float backward from the float16
output, rounded once), for the inputs below.

    python tests/data/make_torch_float16_log_softmax.py     # needs torch; the tests do not

Read by ``tests/test_float16_log_softmax.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("torch_float16_log_softmax.npz")
CASES = [((20, 30), 0), ((3, 5, 40), 0), ((3, 5, 40), 1), ((7, 300), 0), ((64, 64), 1)]


def inputs(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(sum(shape))
    return (rng.standard_normal(shape) * 3).astype(np.float16), rng.standard_normal(shape).astype(np.float16)


def main() -> None:
    import torch  # (here: the tests import inputs() with torch blocked)

    out = {}
    for shape, dim in CASES:
        x, g = inputs(shape)
        t = torch.tensor(x, requires_grad=True)
        y = torch.log_softmax(t, dim)
        y.backward(torch.tensor(g))
        out[f"{shape} {dim} value"] = y.detach().numpy()
        out[f"{shape} {dim} grad"] = t.grad.numpy()
    np.savez(OUT, **out)


if __name__ == "__main__":
    main()
