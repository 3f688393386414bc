"""Regenerate ``tests/data/torch_complex_abs_extremes.json``: torch 2.13's gradient and jvp of ``abs``
and the jvp of ``sgn`` at complex numbers whose squared magnitude over- or underflows (``|z|`` beyond
1e19 or below 1e-19 in complex64, 1e154 and 1e-154 in complex128), where ``|z|`` itself is finite, beside two
whose square does not (3e18 - 4e18j in complex64, 2 - 1j).

    python tests/data/make_torch_complex_abs_extremes.py     # needs torch; the tests do not

Read by ``tests/test_complex_abs_extremes.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
import torch.autograd.forward_ad as fwAD

OUT = Path(__file__).with_name("torch_complex_abs_extremes.json")
POINTS = {
    "complex64": [1e20 + 1e20j, 3e18 - 4e18j, 1e-25 + 1e-25j, 3e-30 - 4e-30j, 2.0 - 1.0j],
    "complex128": [1e160 + 1e160j, 3e170 - 4e170j, 1e-170 + 1e-170j, 3e-200 - 4e-200j, 2.0 - 1.0j],
}


def pairs(a: np.ndarray) -> list:
    return np.stack([a.real, a.imag], axis=-1).tolist()


def jvp(fn, z: torch.Tensor, t: torch.Tensor) -> np.ndarray:
    with fwAD.dual_level():
        return fwAD.unpack_dual(fn(fwAD.make_dual(z, t))).tangent.numpy()


def main() -> None:
    out = {}
    for dtype, points in POINTS.items():
        z = torch.tensor(np.array(points), dtype=getattr(torch, dtype), requires_grad=True)
        torch.abs(z).sum().backward()
        zd = z.detach()
        out[dtype] = {
            "z": pairs(zd.numpy()),
            "abs_grad": pairs(z.grad.numpy()),                       # z / |z|
            "abs_jvp_radial": jvp(torch.abs, zd, zd).tolist(),        # |z|
            "sgn_jvp_radial": pairs(jvp(torch.sgn, zd, zd)),          # 0 (to rounding)
            "sgn_jvp_turning": pairs(jvp(torch.sgn, zd, zd * 1j)),    # i z / |z|
        }
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
