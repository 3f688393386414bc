"""Make tests/data/torch_grid_sample_non_finite.json: ``F.grid_sample`` at non-finite grid points, by
PyTorch: the output, and the gradients in the input and in the grid where torch's backward runs.

Run offline (torch is never a test dependency):  python tests/data/make_torch_grid_sample_non_finite.py
Each case runs in a child process: torch 2.13's CPU backward crashes (a segmentation fault) for a
NaN point under bilinear "border"/"reflection" and an infinite one under bilinear "reflection";
for those only the forward is recorded.  Input: arange(20.) as (1, 1, 4, 5), float64, one grid point.
``volume``: the forward of 3-D sampling (arange(60.) as (1, 1, 3, 4, 5)), whose kernel sends a NaN
to the high edge and adds only in-bound taps.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

POINTS = [("nan", 0.3), ("inf", 0.3), ("-inf", -0.4), (0.2, "nan"), (1e30, 0.1)]
VOLUME_POINTS = [("nan", 0.3, 0.1), ("inf", 0.3, 0.1), ("-inf", 0.3, 0.1), (0.2, "nan", 0.1)]
CHILD = """
import json, sys, torch, torch.nn.functional as F
mode, pad, px, py, back = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1"
x = torch.arange(20.0, dtype=torch.float64).reshape(1, 1, 4, 5).requires_grad_()
g = torch.tensor([[[[px, py]]]], dtype=torch.float64, requires_grad=True)
out = F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=False)
res = {"out": repr(out.item())}
if back:
    out.sum().backward()
    res["grad_input"] = [repr(v) for v in x.grad.flatten().tolist()]
    res["grad_grid"] = [repr(v) for v in g.grad.flatten().tolist()]
print(json.dumps(res))
"""


def run(*args: str) -> dict | None:
    done = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True)
    return json.loads(done.stdout) if done.returncode == 0 else None


def main() -> None:
    out = {}
    for mode, pad in itertools.product(("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection")):
        for px, py in POINTS:
            args = (mode, pad, str(px), str(py))
            out["|".join(args)] = run(*args, "1") or run(*args, "0")
    x = torch.arange(60.0, dtype=torch.float64).reshape(1, 1, 3, 4, 5)
    for mode, pad in itertools.product(("bilinear", "nearest"), ("zeros", "border", "reflection")):
        for point in VOLUME_POINTS:
            g = torch.tensor([float(v) for v in point], dtype=torch.float64).reshape(1, 1, 1, 1, 3)
            y = F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=False)
            out["volume|" + "|".join((mode, pad, *map(str, point)))] = {"out": repr(y.item())}
    path = Path(__file__).with_name("torch_grid_sample_non_finite.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
