"""Regenerate ``tests/data/torch_bessel.npz``: PyTorch 2.13's ``torch.special.spherical_bessel_j0``,
``modified_bessel_i0``, ``modified_bessel_i1``, ``bessel_j0`` and ``bessel_j1`` in float32 and float64
on the edges (0, -0,
subnormal, tiny, the 0.5 switch of ``spherical_bessel_j0``'s series, the overflow of ``I0`` near
713 (float64) / 89 (float32), the switches of the J's methods at 2 and 25, the first zeros,
huge, +-inf, NaN) and random points of every scale; and the exact ``J``'s, ``Y``'s, ``K``'s and ``Ai`` (mpmath)
there.

    python tests/data/make_torch_bessel.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

import mpmath
import numpy as np
import torch

OUT = Path(__file__).with_name("torch_bessel.npz")
NAMES = ["spherical_bessel_j0", "modified_bessel_i0", "modified_bessel_i1", "bessel_j0", "bessel_j1",
         "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
         "bessel_y0", "bessel_y1", "airy_ai"]
EDGES = [0.0, -0.0, 5e-324, 1e-300, 1e-30, 1e-8, 1e-5, 0.1, 0.25, 0.4999999, 0.5, 0.5000001, 1, 2, np.pi, 8, 10,
         50, 88, 89, 90, 100, 500, 700, 713, 714, 1e5, 1e15, 1e30, 1e300, np.inf,
         1.9999999, 2.0000001, 2.404825557695773, 3.8317059702075125, 24.999999, 25.000001, 30, 1e3]


def _exact_j(order: int, v: float) -> float:
    if not np.isfinite(v):
        return 0.0 if np.isinf(v) else np.nan
    with mpmath.workdps(40 + int(np.log10(abs(v) + 1))):  # enough digits for cos of a huge x
        return float(mpmath.besselj(order, mpmath.mpf(v)))


def _exact_airy(v: float) -> float:
    if not np.isfinite(v) or abs(v) > 1e8:  # beyond, the phase of Ai(-x) is lost in x's last digit
        return 0.0 if np.isinf(v) else np.nan
    with mpmath.workdps(40 + int(np.log10(abs(v) + 1))):
        return float(mpmath.airyai(mpmath.mpf(v)))


def _exact_y(order: int, v: float) -> float:
    if np.isnan(v) or v < 0:
        return np.nan
    if v == 0 or (order == 1 and 1 / v == np.inf):
        return -np.inf
    if np.isinf(v):
        return 0.0
    with mpmath.workdps(40 + int(np.log10(abs(v) + 1))):
        return float(mpmath.bessely(order, mpmath.mpf(v)))


def _exact_k(order: int, v: float, scaled: bool) -> float:
    if np.isnan(v) or v < 0:
        return np.nan
    if v == 0 or (order == 1 and 1 / v == np.inf):
        return np.inf
    if np.isinf(v):
        return 0.0
    with mpmath.workdps(40):
        k = mpmath.besselk(order, mpmath.mpf(v))
        return float(k * mpmath.exp(v) if scaled else k)


def main() -> None:
    rng = np.random.default_rng(20261205)
    points = np.concatenate([EDGES, 10.0 ** rng.uniform(-10, 3, 200)])
    x64 = np.concatenate([points, -points, [np.nan]])
    out: dict[str, np.ndarray] = {}
    for dt in (np.float32, np.float64):
        with np.errstate(over="ignore", under="ignore"):
            x = x64.astype(dt)
        out[f"x_{dt.__name__}"] = x
        for name in NAMES:
            out[f"{name}_{dt.__name__}"] = getattr(torch.special, name)(torch.tensor(x)).numpy()
        with np.errstate(over="ignore", under="ignore"):
            out[f"exact_airy_ai_{dt.__name__}"] = np.array([_exact_airy(float(v)) for v in x], dtype=dt)
        for order in (0, 1):  # the exact J's of the stored x, rounded once: PyTorch's are 35 ulp off at x = 2
            out[f"exact_bessel_j{order}_{dt.__name__}"] = np.array([_exact_j(order, float(v)) for v in x], dtype=dt)
            out[f"exact_bessel_y{order}_{dt.__name__}"] = np.array([_exact_y(order, float(v)) for v in x], dtype=dt)
            for scaled in (False, True):
                key = f"exact_{'scaled_' if scaled else ''}modified_bessel_k{order}_{dt.__name__}"
                with np.errstate(over="ignore", under="ignore"):
                    out[key] = np.array([_exact_k(order, float(v), scaled) for v in x], dtype=dt)
    np.savez_compressed(OUT, **out)


if __name__ == "__main__":
    main()
