"""Regenerate ``tests/data/torch_view_dtype.json``: PyTorch's ``x.view(dtype)`` where the item
sizes differ -- the shape, strides and bytes of the result, or the error's message -- for
contiguous tensors, slices, transposes, expanded and 0-d tensors.

    python tests/data/make_torch_view_dtype.py        # needs torch; the tests do not

The cases are in ``view_dtype_cases.py``; ``tests/test_view_as_dtype_sizes.py`` replays them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from view_dtype_cases import CASES, apply_steps  # noqa: E402

OUT = Path(__file__).with_name("torch_view_dtype.json")

def source(dtype: str, shape: list[int], steps: list) -> torch.Tensor:
    n = 1
    for size in shape:
        n *= size
    return apply_steps(torch.arange(n, dtype=torch.float64).to(getattr(torch, dtype)).reshape(shape), steps)


def answer(case: tuple) -> dict:
    dtype, shape, steps, target = case
    x = source(dtype, shape, steps)
    try:
        y = x.view(getattr(torch, target))
    except RuntimeError as exc:
        return {"error": str(exc)}
    raw = y.reshape(-1).contiguous().view(torch.uint8)  # the result's bytes, in its element order
    return {"shape": list(y.shape), "stride": list(y.stride()), "bytes": raw.tolist()}


if __name__ == "__main__":
    OUT.write_text(json.dumps([{"case": list(c), **answer(c)} for c in CASES], indent=1) + "\n")
    print(f"wrote {OUT}")
