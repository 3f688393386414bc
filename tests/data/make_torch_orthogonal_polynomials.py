"""Regenerate ``tests/data/torch_orthogonal_polynomials.npz``: PyTorch 2.13's values of the twelve
orthogonal polynomials of ``torch.special`` on a grid of ``x`` (the endpoints, inside and outside
``[-1, 1]``, 0 and 1 for the shifted ones, +-inf, NaN) by degrees ``n`` (negative, fractional,
the trigonometric forms' thresholds, Hermite's NaN limits, huge, NaN), float32 and float64; and
the result dtypes of mixed operands.

    python tests/data/make_torch_orthogonal_polynomials.py     # needs torch; the tests do not

At a NaN ``x`` and degree >= 2 PyTorch returns an uninitialized variable for some of them (its
loop stops before the first step): those entries are stored as NaN, the engine's answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).with_name("torch_orthogonal_polynomials.npz")
NAMES = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
         "legendre_polynomial_p"]
XS = [-np.inf, -1e30, -3, -1.5, -1, -0.999, -0.7, -0.5, -0.1, -0.0, 0.0, 1e-30, 0.1, 0.25, 0.3, 0.5, 0.5000001,
      0.7, 0.9999, 1, 1.0001, 1.5, 3, 10, 1e3, 1e30, np.inf, np.nan]
NS = [-np.inf, -3, -1, -0.5, 0, 0.7, 1, 2, 2.9, 3, 4, 5, 6, 7, 8, 9, 10, 13, 20, 50, 100, 128, 129, 300, 512, 513,
      1000, 1e30, np.nan]
MIXED = [  # (x, n) -> result dtype
    ("f32", "i64"), ("i64", "f32"), ("i64", "i64"), ("bool", "i64"), ("f32", "f64"), ("f32", "f64_0d"),
    ("float", "i64"), ("f32", "float"), ("f64", "int"), ("int", "f32"),
]


def _operand(kind: str):
    return {"f32": torch.tensor([0.3, 2.0]), "f64": torch.tensor([0.3, 2.0], dtype=torch.float64),
            "i64": torch.tensor([2, 3]), "bool": torch.tensor([True, False]),
            "f64_0d": torch.tensor(3.0, dtype=torch.float64), "float": 0.5, "int": 3}[kind]


def main() -> None:
    out: dict[str, np.ndarray] = {}
    for dt in (np.float32, np.float64):
        x, n = np.meshgrid(np.array(XS, dtype=dt), np.array(NS, dtype=dt))
        out[f"x_{dt.__name__}"], out[f"n_{dt.__name__}"] = x, n
        degree = np.where(np.isfinite(n) & (np.abs(np.nan_to_num(n)) < 2.0**63), np.trunc(np.nan_to_num(n)), -1)
        nan_garbage = np.isnan(x) & (degree >= 2)
        for name in NAMES:
            y = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
            out[f"{name}_{dt.__name__}"] = np.where(nan_garbage, np.nan, y)
    mixed = {}
    for a, b in MIXED:
        for name in NAMES:
            r = getattr(torch.special, name)(_operand(a), _operand(b))
            mixed[f"{name}|{a}|{b}"] = [str(r.dtype).replace("torch.", ""), r.tolist()]
    out["mixed"] = np.array(json.dumps(mixed))
    np.savez_compressed(OUT, **out)


if __name__ == "__main__":
    main()
