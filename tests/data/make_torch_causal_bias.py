"""Regenerate ``tests/data/torch_causal_bias.json``: torch 2.13's ``torch.nn.attention.bias``
causal biases -- the boolean mask of ``causal_upper_left(L, S)`` and ``causal_lower_right(L, S)``
and ``scaled_dot_product_attention(q, k, v, attn_mask=bias)`` of stored inputs -- for a few sizes.

    python tests/data/make_torch_causal_bias.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
import torch.nn.functional as F  # noqa: N812
from torch.nn.attention import bias

OUT = Path(__file__).with_name("torch_causal_bias.json")
SIZES = [(4, 2), (2, 4), (3, 3), (1, 5)]


def answer(variant: str, size: tuple[int, int]) -> dict:
    gen = torch.Generator().manual_seed(size[0] * 10 + size[1])
    q = torch.randn(1, 2, size[0], 4, dtype=torch.float64, generator=gen)
    k = torch.randn(1, 2, size[1], 4, dtype=torch.float64, generator=gen)
    v = torch.randn(1, 2, size[1], 3, dtype=torch.float64, generator=gen)
    b = getattr(bias, variant)(*size)
    return {"variant": variant, "size": list(size), "mask": b._materialize().tolist(), "q": q.tolist(),
            "k": k.tolist(), "v": v.tolist(), "out": F.scaled_dot_product_attention(q, k, v, attn_mask=b).tolist()}


if __name__ == "__main__":
    cases = [answer(variant, size) for variant in ("causal_upper_left", "causal_lower_right") for size in SIZES]
    OUT.write_text(json.dumps(cases) + "\n")
    print(f"wrote {OUT}")
