"""Regenerate ``tests/data/torch_float16_attention.npz``: torch 2.13's float16
``F.scaled_dot_product_attention`` -- its CPU kernel computes in float -- where the scores of
entries ~60 (head dim 64) exceed float16's 65504, and the gradient of ``sum(out * G)`` with
respect to the query.

    python tests/data/make_torch_float16_attention.py     # needs torch; the tests do not

Read by ``tests/test_float16_attention.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

# name -> (scale of the entries, is_causal, mask kind)
CASES = {"moderate": (10.0, False, None), "overflowing": (60.0, False, None),
         "overflowing_causal": (60.0, True, None), "overflowing_bool_mask": (60.0, False, "bool"),
         "overflowing_float_mask": (60.0, False, "float")}


def inputs(scale: float, mask_kind: str | None) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(11)
    q, k, v = ((rng.normal(size=(2, 3, 8, 64)) * scale).astype(np.float16) for _ in range(3))
    mask = None
    if mask_kind == "bool":
        mask = rng.random((8, 8)) < 0.7
        mask[:, 0] = True  # every query attends to something
    elif mask_kind == "float":
        mask = rng.normal(size=(8, 8)).astype(np.float16)
    g = np.linspace(0.5, 1.5, q.size).reshape(q.shape).astype(np.float16)
    return q, k, v, mask, g


def main() -> None:
    import torch  # here, not at the top: the tests import this module's inputs without torch

    out = {}
    for name, (scale, causal, mask_kind) in CASES.items():
        q, k, v, mask, g = inputs(scale, mask_kind)
        tq = torch.tensor(q, requires_grad=True)
        y = torch.nn.functional.scaled_dot_product_attention(
            tq, torch.tensor(k), torch.tensor(v), None if mask is None else torch.tensor(mask), is_causal=causal)
        y.backward(torch.tensor(g))
        out[f"{name}|value"], out[f"{name}|grad"] = y.detach().numpy(), tq.grad.numpy()
    path = Path(__file__).with_name("torch_float16_attention.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
