"""Regenerate ``tests/data/torch_blas_alpha_zero.json``: torch 2.13's ``addmm``, ``addmv``,
``addbmm``, ``addr`` and ``baddbmm`` with ``alpha=0`` and a NaN or an inf in the operands.
BLAS's gemm and gemv do not read the matrices when alpha is 0, so PyTorch's float and double
``addmm``/``addbmm``/``addmv`` (and complex ``addmm``/``addbmm``) answer ``beta * input``; its
half kernels, complex ``addmv``, ``addr`` and a small ``baddbmm`` multiply, NaN in, NaN out.
The gradients of ``sum(out * G)`` with respect to the three arguments come with each case.

    python tests/data/make_torch_blas_alpha_zero.py     # needs torch; the tests do not

Read by ``tests/test_blas_alpha_zero.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("torch_blas_alpha_zero.json")
NAN, INF = float("nan"), float("inf")

# name -> (shapes of input, operand 1, operand 2); operand 1 holds a NaN, operand 2 an inf
SHAPES = {"addmm": ((2, 3), (2, 4), (4, 3)), "addmv": ((2,), (2, 4), (4,)), "addbmm": ((2, 3), (2, 2, 4), (2, 4, 3)),
          "addr": ((2, 3), (2,), (3,)), "baddbmm": ((1, 2, 3), (1, 2, 4), (1, 4, 3))}
DTYPES = ("float16", "float32", "float64", "complex64")
BETAS = (0.0, 1.0, 0.5)


def operands(name: str, dtype: str) -> list[np.ndarray]:
    out = []
    for i, shape in enumerate(SHAPES[name]):
        a = np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape).astype(dtype)
        flat = a.reshape(-1)
        if i == 0:
            flat[0] = -0.0  # beta = 1 keeps it: the sign of zero tells whether anything was added
        else:
            flat[-1] = NAN if i == 1 else INF
        out.append(a)
    return out


def _plain(a: np.ndarray) -> list:
    a = np.asarray(a)
    parts = [a.real, a.imag] if np.iscomplexobj(a) else [a]
    return [[repr(float(v)) for v in p.astype(np.float64).ravel()] for p in parts]


def main() -> None:
    import torch  # here, not at the top: the tests import this module's inputs without torch

    out = {}
    for name in SHAPES:
        for dtype in DTYPES:
            for beta in BETAS:
                xs = [torch.tensor(a, requires_grad=True) for a in operands(name, dtype)]
                y = getattr(torch, name)(*xs, beta=beta, alpha=0)
                g = torch.linspace(0.5, 1.5, y.numel(), dtype=torch.float64).reshape(y.shape).to(y.dtype)
                (y * g).real.sum().backward()
                out[f"{name}/{dtype}/{beta}"] = {"value": _plain(y.detach().numpy()),
                                                 "grads": [_plain(x.grad.numpy()) for x in xs]}
    OUT.write_text(json.dumps(out, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
