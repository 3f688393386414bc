"""Regenerate ``tests/data/torch_float16_activations.json``: torch 2.13's float16 activations
(``sigmoid``, ``silu``, ``elu``, ``hardswish``, ...) and their gradients on a grid. PyTorch's
half kernels compute in float32 and round once, forward and backward (``sigmoid_backward``,
``silu_backward``, ... are half kernels too), so these are torch's own float16 results, stored as float16 bit patterns.

    python tests/data/make_torch_float16_activations.py     # needs torch; the tests do not

Read by ``tests/test_float16_activations.py``; the calls are in ``float16_activation_cases.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from float16_activation_cases import CASES, X  # noqa: E402

OUT = Path(__file__).with_name("torch_float16_activations.json")


def _bits(a: np.ndarray) -> list:
    """float16 values as their 16-bit patterns: exact, NaN and inf included, and short."""
    return a.astype(np.float16).ravel().view(np.uint16).tolist()


def main() -> None:
    out = {}
    for name, call in CASES.items():
        x = torch.tensor(X, requires_grad=True)
        y = call(torch.nn.functional, x)
        y.backward(torch.ones_like(y))
        out[name] = {"value": _bits(y.detach().numpy()), "grad": _bits(x.grad.numpy())}
    OUT.write_text(json.dumps(out, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
