"""Regenerate ``tests/data/torch_float16_special.json``: torch 2.13's float16 special functions
(``erf``, ``lgamma``, ``gammainc``, ``i0e``, ``gelu``, ``sinc``, ...) and compositions (``lerp``,
``addcmul``, ``addcdiv``, ``renorm``, ``trapezoid``, ``round(decimals=)``,
``binary_cross_entropy_with_logits``) at arguments whose
intermediate values do not fit float16 -- PyTorch's half kernels compute in float32 and round
once -- and the gradient of ``sum(f(x) * G)`` at the same float16 points, torch's float64 one
rounded to float16 (torch's half gradients are compositions of half tensor ops, each rounding:
its ``sinc``'s is 0.4% off, its ``i0e``'s 20%).

    python tests/data/make_torch_float16_special.py     # needs torch; the tests do not

Read by ``tests/test_float16_special.py``; the calls are in ``float16_special_cases.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from float16_special_cases import CASES, COMPOSITIONS  # noqa: E402

OUT = Path(__file__).with_name("torch_float16_special.json")


def _plain(a: np.ndarray) -> list:
    return [None if np.isnan(v) else float(v) for v in a.astype(np.float64).ravel()]


def main() -> None:
    out = {}
    for name, (call, args, wrt) in {**CASES, **COMPOSITIONS}.items():
        xs = [torch.tensor(np.asarray(a, dtype=np.float16), requires_grad=(i == wrt)) for i, a in enumerate(args)]
        y = call(torch, *xs)
        g = torch.linspace(0.5, 1.5, y.numel(), dtype=torch.float16).reshape(y.shape)
        entry = {"value": _plain(y.detach().numpy()), "dtype": str(y.dtype).replace("torch.", "")}
        if wrt is not None:
            wide = [x.detach().double().requires_grad_(i == wrt) for i, x in enumerate(xs)]
            (call(torch, *wide) * g.double()).sum().backward()
            entry["grad"] = _plain(wide[wrt].grad.numpy().astype(np.float16))
        out[name] = entry
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
