"""Regenerate ``tests/data/torch_linalg_extremes.json``: PyTorch's outputs of the cases of
``linalg_extremes_cases.py``, float64 and float32, and where a case asks, its gradient.

    python tests/data/make_torch_linalg_extremes.py     # needs torch; the tests do not

NaN and the infinities are JSON's NaN/Infinity; an error is recorded as its type's name and message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from linalg_extremes_cases import CASES  # noqa: E402

OUT = Path(__file__).with_name("torch_linalg_extremes.json")


def run(fn, values: list, grad: bool, dtype: torch.dtype) -> dict:
    a = torch.tensor(values, dtype=dtype, requires_grad=grad)
    try:
        out = fn(torch, a)
    except RuntimeError as e:
        return {"error": type(e).__name__, "message": str(e)}
    outs = list(out) if isinstance(out, tuple) else [out]
    answer = {"outputs": [o.tolist() for o in outs], "dtypes": [str(o.dtype).split(".")[1] for o in outs],
              "shapes": [list(o.shape) for o in outs]}
    if grad:
        loss = sum((i + 1.5) * o.sum() for i, o in enumerate(outs) if o.is_floating_point())
        answer["grad"] = torch.autograd.grad(loss, a)[0].tolist()
    return answer


def main() -> None:
    cases = {name: {dt: run(fn, values, grad, getattr(torch, dt)) for dt in dtypes}
             for name, (fn, values, grad, dtypes) in CASES.items()}
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=None) + "\n")


if __name__ == "__main__":
    main()
