"""Regenerate ``tests/data/torch_norm_one_element.json``: torch 2.13's norms of one-element
slices -- ``|x|``, where the square would overflow (``2e19`` in float32) or underflow (``1e-30``)
-- and the gradient of ``sum(f(x))``, for the calls in ``norm_one_element_cases.py``.

    python tests/data/make_torch_norm_one_element.py     # needs torch; the tests do not

Read by ``tests/test_norm_one_element.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from norm_one_element_cases import CASES  # noqa: E402

OUT = Path(__file__).with_name("torch_norm_one_element.json")


def _plain(t: torch.Tensor) -> list:
    return [repr(v) for v in t.double().reshape(-1).tolist()]  # repr keeps nan and inf


def main() -> None:
    out = {}
    for name, (call, values, dtype) in CASES.items():
        x = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
        y = call(torch, x)
        y.sum().backward()
        out[name] = {"value": _plain(y.detach()), "grad": _plain(x.grad)}
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
