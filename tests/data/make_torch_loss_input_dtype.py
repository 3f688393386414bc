"""Make tests/data/torch_loss_input_dtype.json: the ``loss_input_dtype_cases.py`` cases, by PyTorch.

Run offline (torch is never a test dependency):  python tests/data/make_torch_loss_input_dtype.py
For each case: the loss's dtype and values, and the input gradient of its sum (as float64 lists),
or PyTorch's error type and message (no gradient where PyTorch's backward fails).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from loss_input_dtype_cases import CASES, PROBABILITY_INPUT, P, X  # noqa: E402


def main() -> None:
    import torch

    def make(values, dtype):
        return torch.tensor(values, dtype=getattr(torch, dtype))

    out = {}
    for name, (dtype, fn) in CASES.items():
        x = make(P if name in PROBABILITY_INPUT else X, dtype).requires_grad_()
        try:
            y = fn(torch.nn.functional, make, x)
        except RuntimeError as e:
            out[name] = {"error": type(e).__name__, "message": str(e)}
            continue
        out[name] = {"dtype": str(y.dtype).removeprefix("torch."), "value": y.detach().double().tolist()}
        try:
            (g,) = torch.autograd.grad(y.sum(), x)
        except RuntimeError:  # huber_loss's backward refuses a target of another dtype (a PyTorch bug)
            continue
        out[name].update(grad_dtype=str(g.dtype).removeprefix("torch."), grad=g.double().tolist())
    path = Path(__file__).with_name("torch_loss_input_dtype.json")
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
