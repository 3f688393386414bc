"""Record PyTorch's Rprop on gradients that are NaN or infinite: ``torch.sign`` is 0 at NaN, so a NaN
product of gradients (a NaN gradient, or an infinite one after a 0) keeps the step size and moves
nothing.  ``python tests/data/make_torch_rprop_nonfinite.py`` writes ``tests/data/torch_rprop_nonfinite.json``
(NaN and Infinity as Python's json writes them; needs torch; the tests do not, and import the inputs from here)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
NAN, INF = float("nan"), float("inf")
START = [0.5, -1.0, 2.0, 0.0, 3.0]
GRADS = [[NAN, INF, 1.0, 0.0, -INF], [1.0, -1.0, NAN, 2.0, 1.0], [-2.0, INF, -1.0, NAN, 1.0], [1.0, 1.0, 1.0, 1.0, NAN]]
OPTIONS = {"plain": dict(lr=0.1), "maximize": dict(lr=0.1, maximize=True, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))}


def run(lib, rprop, dtype: str, options: dict) -> list:
    """Each step's parameter, ``prev`` and ``step_size``."""
    p = lib.tensor(np.array(START, dtype=dtype), requires_grad=True)
    opt = rprop([p], **options)
    out = []
    for g in GRADS:
        p.grad = lib.tensor(np.array(g, dtype=dtype))
        opt.step()
        st = opt.state[p]
        out.append([[float(v) for v in t.detach().numpy()] for t in (p, st["prev"], st["step_size"])])
    return out


def main() -> None:
    import torch

    out = {"torch": torch.__version__,
           "runs": {f"{name}/{dtype}": run(torch, torch.optim.Rprop, dtype, options)
                    for name, options in OPTIONS.items() for dtype in ("float64", "float32")}}
    (HERE / "torch_rprop_nonfinite.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
