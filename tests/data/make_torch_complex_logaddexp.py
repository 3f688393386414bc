"""Regenerate ``tests/data/torch_complex_logaddexp.json``: torch 2.13's ``logaddexp`` of complex
numbers -- values (complex128 and complex64), the vector-Jacobian product for a cotangent, and
the values at infinities.

    python tests/data/make_torch_complex_logaddexp.py     # needs torch; the tests do not

Read by ``tests/test_complex_numbers.py::test_logaddexp_of_complex_numbers_is_pytorchs``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).with_name("torch_complex_logaddexp.json")
rng = np.random.default_rng(20261204)


def pairs(a: np.ndarray) -> list:
    return np.stack([a.real, a.imag], axis=-1).tolist()


def main() -> None:
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))) * 3
    b = (rng.standard_normal((4,)) + 1j * rng.standard_normal((4,))) * 3
    a[0, 0], b[0] = 1000 + 1j, -1000 + 2j  # far apart: no overflow
    a[1, 1], b[1] = 0 + 3j, 0 - 3j  # a sum on the negative real axis: the imaginary part is pi
    a[2, 2], b[2] = 2 + 1j, 2 + 1j  # a tie: log 2 more, each gradient a half
    cot = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out = torch.logaddexp(ta, tb)
    ga, gb = torch.autograd.grad(out, (ta, tb), torch.tensor(cot))
    out64 = torch.logaddexp(torch.tensor(a, dtype=torch.complex64), torch.tensor(b, dtype=torch.complex64))
    inf = float("inf")
    ia = np.array([complex(inf, 0), complex(-inf, 0), complex(-inf, 0), complex(1, 1)])
    ib = np.array([complex(inf, 0), complex(-inf, 0), complex(1, 1), complex(-inf, 0)])
    iout = torch.logaddexp(torch.tensor(ia), torch.tensor(ib)).numpy()
    data = {"a": pairs(a), "b": pairs(b), "out": pairs(out.detach().numpy()), "cot": pairs(cot),
            "grad_a": pairs(ga.numpy()), "grad_b": pairs(gb.numpy()), "out64": pairs(out64.numpy().astype(complex)),
            "inf_a": [[str(v.real), str(v.imag)] for v in ia], "inf_b": [[str(v.real), str(v.imag)] for v in ib],
            "inf_out": [[str(v.real), str(v.imag)] for v in iout], "torch": torch.__version__}
    OUT.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
