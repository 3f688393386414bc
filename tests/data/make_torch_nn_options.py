"""Make tests/data/torch_nn_options.npz: the ``nn_option_cases.py`` cases, by PyTorch.

Run offline (torch is never a test dependency):  python tests/data/make_torch_nn_options.py
For each case and dtype (float64, float32): every output, the gradient of
``sum(first output * upstream)`` with respect to the input, and the first output's
forward-mode derivative along a tangent (``torch.func.jvp``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from nn_option_cases import CASES, INPUTS  # noqa: E402


def _first(ys):
    return ys[0] if isinstance(ys, tuple) else ys


def main() -> None:
    out = {}
    for name, (make, fn) in CASES.items():
        x = INPUTS[make](np.random.default_rng(0))
        out[f"{name}.x"] = x
        for dtype in ("float64", "float32"):
            xt = torch.tensor(x.astype(dtype), requires_grad=True)
            ys = fn(torch.nn.functional, xt)
            ys = ys if isinstance(ys, tuple) else (ys,)
            for i, y in enumerate(ys):
                out[f"{name}.{dtype}.y{i}"] = y.detach().numpy()
            up = np.random.default_rng(1).standard_normal(tuple(ys[0].shape)).astype(dtype)
            out[f"{name}.{dtype}.up"] = up
            (g,) = torch.autograd.grad(ys[0], xt, torch.tensor(up))
            out[f"{name}.{dtype}.gx"] = g.numpy()
            tangent = np.random.default_rng(2).standard_normal(x.shape).astype(dtype)
            out[f"{name}.{dtype}.tangent"] = tangent
            first = lambda v, fn=fn: _first(fn(torch.nn.functional, v))  # noqa: E731
            _, jvp_out = torch.func.jvp(first, (xt.detach(),), (torch.tensor(tangent),))
            out[f"{name}.{dtype}.jvp"] = jvp_out.numpy()
    np.savez_compressed(Path(__file__).with_name("torch_nn_options.npz"), **out)


if __name__ == "__main__":
    main()
