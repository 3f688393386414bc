"""Regenerate ``tests/data/torch_kl_div_batchmean.json``: torch 2.13's ``F.kl_div(..., reduction="batchmean")``
(``sum / size(0)``) of empty batches (shapes (0, 3), (0,), (3, 0)), a 0-d input and an ordinary batch,
with and without ``log_target``, in float32 and float64, and the gradient's shape.

    python tests/data/make_torch_kl_div_batchmean.py     # needs torch; the tests do not

Read by ``tests/test_kl_div_batchmean.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

OUT = Path(__file__).with_name("torch_kl_div_batchmean.json")
RNG = np.random.default_rng(0)
INPUTS = {"empty batch (0, 3)": (np.zeros((0, 3)), np.zeros((0, 3))), "empty (0,)": (np.zeros(0), np.zeros(0)),
          "empty rows (3, 0)": (np.zeros((3, 0)), np.zeros((3, 0))), "0-d": (np.array(-0.5), np.array(0.3)),
          "batch (4, 3)": (RNG.standard_normal((4, 3)), RNG.random((4, 3)))}


def main() -> None:
    out = {}
    for name, (x, t) in INPUTS.items():
        out[name] = {"input": x.tolist(), "target": t.tolist()}
        for dtype in ("float32", "float64"):
            for log_target in (False, True):
                xi = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
                ti = torch.tensor(t, dtype=getattr(torch, dtype))
                y = F.kl_div(xi, ti.log() if log_target else ti, reduction="batchmean", log_target=log_target)
                y.backward()
                v = y.item()
                out[name][f"{dtype}/log_target={log_target}"] = {
                    "value": None if math.isnan(v) else v, "grad": xi.grad.tolist(), "grad_shape": list(xi.grad.shape)}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
