"""Regenerate ``tests/data/torch_complex_spectral_norm.json``: torch 2.13's
``nn.utils.parametrizations.spectral_norm`` of a complex ``nn.Linear`` weight, with the power
iteration's vectors ``_u``, ``_v`` set by hand (their random start is the generator's): the weight
after one training-mode call (one power iteration, then ``W / (u^H W v)``), the refined ``_u``,
``_v``, the gradient of a real loss of it for the original weight, and the eval-mode weight
(no iteration) of the same buffers.

    python tests/data/make_torch_complex_spectral_norm.py     # needs torch; the tests do not

Read by ``tests/test_complex_spectral_norm.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).with_name("torch_complex_spectral_norm.json")
rng = np.random.default_rng(20261204)
W = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
U = rng.standard_normal(3) + 1j * rng.standard_normal(3)
V = rng.standard_normal(4) + 1j * rng.standard_normal(4)
MASK = rng.standard_normal((3, 4))


def pairs(a) -> list:
    a = np.asarray(a)
    return np.stack([a.real, a.imag], axis=-1).tolist()


def layer():
    m = torch.nn.Linear(4, 3, bias=False, dtype=torch.complex128)
    with torch.no_grad():
        m.weight.copy_(torch.tensor(W))
    torch.nn.utils.parametrizations.spectral_norm(m)
    sn = m.parametrizations.weight[0]
    with torch.no_grad():
        sn._u.copy_(torch.tensor(U / np.linalg.norm(U)))
        sn._v.copy_(torch.tensor(V / np.linalg.norm(V)))
    return m, sn


def main() -> None:
    m, sn = layer()
    w = m.weight  # training mode: one power iteration
    loss = (w.abs() ** 2 * torch.tensor(MASK)).sum() + w.real.sum() - 2 * w.imag.sum()
    (grad,) = torch.autograd.grad(loss, [m.parametrizations.weight.original])
    u, v = sn._u.detach().clone(), sn._v.detach().clone()
    m2, _ = layer()
    m2.eval()
    out = {"W": pairs(W), "U": pairs(U / np.linalg.norm(U)), "V": pairs(V / np.linalg.norm(V)), "mask": MASK.tolist(),
           "weight": pairs(w.detach().numpy()), "u": pairs(u.numpy()), "v": pairs(v.numpy()),
           "grad": pairs(grad.numpy()),
           "eval_weight": pairs(m2.weight.detach().numpy())}
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
